"""dbt's command line as `agent-eval` runs it: the same, less one write.

A dbt command that runs nodes (build, run, seed, test, snapshot, compile)
writes manifest.json twice: once after parsing the project, and again
when its nodes have run, with what they added (the second write replaces
the first). On this project each write serializes about 4 MB of JSON
(BENCHMARKS.md: a share of every night, with nothing new too). The first
is skipped here for those commands; the last one stays, so manifest.json
after a build is exactly dbt's. Any other command (parse, ls, docs)
writes as dbt does.

What `agent-eval build` reads of the first write, before any node runs
(the nodes of each stage, agent_eval.progress), is written instead, in
a few kilobytes: ``NODES_FILE`` in dbt's target folder, each node's
resource type, file and materialization, in manifest.json's shape.

What a skipped first write changes: a build that dies before its end (a
kill, a crash of the process) leaves the manifest of the build before.
The readers of manifest.json here (the failure's suspects, the gates,
publish) read it after a build that ended.

When dbt's code no longer has the function this wraps, dbt runs unchanged
(tests/test_runner.py notices).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

# the commands that write manifest.json again when their nodes have run
# (dbt.task.runnable.GraphRunnableTask.run)
WRITE_AT_END = frozenset({"build", "run", "seed", "test", "snapshot", "compile"})
NODES_FILE = "agent_eval_nodes.json"


def _node(node: Any) -> dict[str, Any]:
    return {
        "resource_type": str(getattr(node.resource_type, "value", node.resource_type)),
        "original_file_path": node.original_file_path,
        "config": {"materialized": getattr(getattr(node, "config", None), "materialized", None)},
    }


def write_nodes(manifest: Any, target_path: str) -> None:
    """The parsed project's nodes, unit tests and exposures, each as
    manifest.json has them but for its resource type, file and
    materialization."""
    document = {
        "nodes": {uid: _node(node) for uid, node in manifest.nodes.items()},
        "unit_tests": {uid: _node(node) for uid, node in manifest.unit_tests.items()},
        "exposures": {uid: {"original_file_path": node.original_file_path} for uid, node in manifest.exposures.items()},
    }
    path = Path(target_path) / NODES_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f"{path.name}.{os.getpid()}")
    partial.write_text(json.dumps(document), encoding="utf-8")
    os.replace(partial, path)


def _skip_parse_write() -> bool:
    """Wrap dbt's parse step so it does not write manifest.json; False
    when dbt's code is not the one this knows."""
    from dbt.cli import requires

    original = getattr(requires, "parse_manifest", None)
    if original is None or getattr(original, "agent_eval_wrapped", False):
        return original is not None

    def parse_manifest(runtime_config: Any, write_perf_info: bool, write: bool, write_json: bool, *rest: Any) -> Any:
        manifest = original(runtime_config, write_perf_info, write, False, *rest)
        if write and write_json:
            write_nodes(manifest, runtime_config.project_target_path)
        return manifest

    parse_manifest.agent_eval_wrapped = True  # type: ignore[attr-defined]
    requires.parse_manifest = parse_manifest
    return True


def main(args: Sequence[str]) -> None:
    """`dbt <args>`: exits as dbt does (SystemExit)."""
    from dbt.cli.main import cli

    if args and args[0] in WRITE_AT_END:
        _skip_parse_write()
    cli.main(args=list(args), prog_name="dbt")


if __name__ == "__main__":
    main(sys.argv[1:])

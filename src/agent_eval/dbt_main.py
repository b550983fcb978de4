"""dbt's command line as `agent-eval` runs it: the same, less one write.

A dbt command that runs nodes (build, run, seed, test, snapshot, compile)
writes manifest.json twice: once after parsing the project, and again
when its nodes have run, with what they added (the second write replaces
the first). On this project each write serializes about 4 MB of JSON
(BENCHMARKS.md: a share of every night, with nothing new too). The first
is skipped here for those commands; the last one stays, so manifest.json
after a build is exactly dbt's. Any other command (parse, ls, docs)
writes as dbt does.

What a skipped first write changes: a build that dies before its end (a
kill, a crash of the process) leaves the manifest of the build before.
The readers of manifest.json here (the failure's suspects, the gates,
publish) read it after a build that ended.

When dbt's code no longer has the function this wraps, dbt runs unchanged
(tests/test_runner.py notices).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

# the commands that write manifest.json again when their nodes have run
# (dbt.task.runnable.GraphRunnableTask.run)
WRITE_AT_END = frozenset({"build", "run", "seed", "test", "snapshot", "compile"})


def _skip_parse_write() -> bool:
    """Wrap dbt's parse step so it does not write manifest.json; False
    when dbt's code is not the one this knows."""
    from dbt.cli import requires

    original = getattr(requires, "parse_manifest", None)
    if original is None or getattr(original, "agent_eval_wrapped", False):
        return original is not None

    def parse_manifest(runtime_config: Any, write_perf_info: bool, write: bool, write_json: bool, *rest: Any) -> Any:
        return original(runtime_config, write_perf_info, write, False, *rest)

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

"""A process that imports dbt once and forks one child per dbt invocation.

For callers that run dbt many times in one process (the test suite runs
about a hundred builds): each invocation otherwise starts a new interpreter
and imports dbt and its adapter again, about 2.3 s of CPU before dbt does
anything. Here that import happens once; every invocation is a fork of a
process that has done it, so it starts where a fresh ``dbt`` would be after
its imports, with nothing else shared: the child is a new process with its
own DuckDB connection (the lock ends with it, as with a subprocess), its own
working directory and environment, and it exits through the interpreter's
normal exit (dbt-duckdb's atexit closes the warehouse).

The preloader itself has one thread (fork is safe only then) and speaks one
JSON line per request on stdin, one JSON line per answer on stdout:
``{"args": [...], "cwd": "...", "env": {...}, "output": "<file>"}`` ->
``{"returncode": N}``; the child's stdout and stderr go to ``output``. It
exits when its stdin closes. ``runner.run_dbt`` uses it when
``runner.preload_dbt(True)`` was called (the test suite's conftest); a user's
``agent-eval`` runs dbt in a plain subprocess.
"""

from __future__ import annotations

import json
import os
import sys


def _child(request: dict) -> None:
    """In the forked child: become a ``dbt <args>`` process. Never returns."""
    code: int | str | None = 1
    try:
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        output = os.open(request["output"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(output, 1)
        os.dup2(output, 2)
        os.close(output)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        sys.argv = ["dbt", *request["args"]]
        from agent_eval import dbt_main

        dbt_main.main(request["args"])  # standalone: raises SystemExit
        code = 0
    except SystemExit as exit_:
        code = exit_.code
    except BaseException:  # anything dbt lets escape is the child's failure
        import traceback

        traceback.print_exc()
        code = 1
    # the interpreter's normal exit: atexit handlers (dbt-duckdb closes its
    # connection), buffered output flushed
    sys.exit(code)


def main() -> None:
    import dbt.adapters.duckdb  # the adapter dbt loads at every invocation
    import dbt.cli.main  # noqa: F401 - the import this process exists to pay once

    import agent_eval.ingest  # noqa: F401 - read by the Python loader models

    control_out = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # anything printed here is not an answer
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:
            control_out.close()
            _child(request)
        _, status = os.waitpid(pid, 0)
        control_out.write(json.dumps({"returncode": os.waitstatus_to_exitcode(status)}) + "\n")


if __name__ == "__main__":
    main()

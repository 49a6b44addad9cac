"""Runs ``h2dlint check`` once per file, each run in a fresh child process, paying for the
import of h2dlint and its rules once (test_seed_projects.py's file-by-file mode).

Usage: ``python seed_projects_driver.py '<json: [args, [path, ...]]>'``; prints a JSON object
mapping each path to the findings (h2dlint's JSON output) of the run that named it alone.
Each child is forked from a process that has only imported h2dlint, so no run sees what
another one computed: as separate ``h2dlint`` invocations, as pre-commit makes them.
"""

from __future__ import annotations

import json
import os
import sys


def _run_alone(args: list[str], path: str) -> object:
    from h2dlint.cli import main as h2dlint

    read_end, write_end = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the child: one h2dlint run, its output to the pipe
        os.close(read_end)
        os.dup2(write_end, 1)
        status = 0
        try:
            h2dlint([*args, path])
        except SystemExit as exit_:
            status = exit_.code if isinstance(exit_.code, int) else 1
        finally:
            sys.stdout.flush()
            os._exit(status)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        output = pipe.read()
    _, wait_status = os.waitpid(pid, 0)
    status = os.waitstatus_to_exitcode(wait_status)
    if status != 0:
        raise SystemExit(f"h2dlint exited {status} on {path}")
    return json.loads(output)


def main() -> None:
    args, paths = json.loads(sys.argv[1])
    import h2dlint.cli  # noqa: F401 (imported before forking: the children share it)
    from h2dlint.registry import all_rules

    all_rules()
    print(json.dumps({path: _run_alone(args, path) for path in paths}))


if __name__ == "__main__":
    main()

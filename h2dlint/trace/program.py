"""The program ``h2dlint trace -- python ...`` runs: parsed from its command line, and run in this
process (so that the interception sees it) as ``python`` would run it: ``sys.argv``,
``sys.path[0]`` and ``__main__`` set up the same way, its exit code and exception kept."""

from __future__ import annotations

import contextlib
import os
import re
import runpy
import sys
import traceback
from collections.abc import Sequence
from dataclasses import dataclass
from types import TracebackType

PYTHON = re.compile(r"python(\d+(\.\d+)?)?(\.exe)?")
IGNORED_OPTIONS = frozenset({"-u", "-B"})
"""Options of ``python`` that change nothing here (h2dlint's interpreter is already running)."""


class UsageError(Exception):
    """The command cannot be traced as given."""


@dataclass(frozen=True)
class Program:
    kind: str  # "script", "module" or "code"
    target: str  # the script's path, the module's name or the code
    args: tuple[str, ...]  # its arguments (sys.argv[1:])


def parse(command: Sequence[str]) -> Program:
    """``python script.py ARGS``, ``python -m module ARGS``, ``python -c CODE ARGS`` or
    ``script.py ARGS``."""
    args = list(command)
    if not args:
        raise UsageError("give the program after --: h2dlint trace -- python script.py ARGS")
    if PYTHON.fullmatch(os.path.basename(args[0])):
        args = args[1:]
    while args and args[0].startswith("-") and args[0] != "-":
        option = args.pop(0)
        if option in ("-m", "-c"):
            if not args:
                raise UsageError(f"python {option} needs an argument")
            target = args.pop(0)
            return Program("module" if option == "-m" else "code", target, tuple(args))
        if option not in IGNORED_OPTIONS:
            raise UsageError(
                f"python option {option} is not supported: the program runs in h2dlint's own "
                "interpreter; set it through the environment (PYTHONOPTIMIZE, ...) instead"
            )
    if not args:
        raise UsageError("no script to run: h2dlint trace -- python script.py ARGS")
    script = args[0]
    if not os.path.isfile(script):
        raise UsageError(f"can't open file {script!r}: no such file")
    return Program("script", script, tuple(args[1:]))


def _user_traceback(tb: TracebackType | None) -> TracebackType | None:
    """``tb`` without the frames of this module and runpy above the program's own."""
    internal = {os.path.abspath(__file__), os.path.abspath(runpy.__file__), "<frozen runpy>"}

    def ours(name: str) -> bool:
        return name in internal or (not name.startswith("<") and os.path.abspath(name) in internal)

    while tb is not None and ours(tb.tb_frame.f_code.co_filename):
        tb = tb.tb_next
    return tb


def execute(program: Program) -> tuple[int, str | None]:
    """Run ``program``; its exit code, and its uncaught exception in one line (None if none).
    The exception's traceback goes to stderr, as ``python`` prints it."""
    saved_argv, saved_path = sys.argv[:], sys.path[:]
    try:
        if program.kind == "script":
            path = os.path.abspath(program.target)
            sys.argv = [program.target, *program.args]
            sys.path.insert(0, os.path.dirname(path))
            runpy.run_path(path, run_name="__main__")
        elif program.kind == "module":
            sys.argv = [program.target, *program.args]
            sys.path.insert(0, os.getcwd())
            runpy.run_module(program.target, run_name="__main__", alter_sys=True)
        else:
            sys.argv = ["-c", *program.args]
            sys.path.insert(0, "")
            exec(compile(program.target, "<string>", "exec"), {"__name__": "__main__"})
        return 0, None
    except SystemExit as exc:
        return exit_code(exc.code), None
    except BaseException as exc:
        traceback.print_exception(type(exc), exc, _user_traceback(exc.__traceback__))
        code = 130 if isinstance(exc, KeyboardInterrupt) else 1
        return code, f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
    finally:
        sys.argv, sys.path[:] = saved_argv, saved_path
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                stream.flush()


def exit_code(code: object) -> int:
    """The exit status ``sys.exit(code)`` gives: None 0, an int itself, anything else printed
    to stderr and 1."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1

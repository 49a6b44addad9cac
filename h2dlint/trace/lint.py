"""The static side of the join: check the files a trace touched, in this process, with the
settings ``h2dlint check`` would use there. Needs libcst; torch is not involved."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from h2dlint.diagnostics import FILE_DIAGNOSTIC_CODES, Finding
from h2dlint.trace.events import TraceData


def files_to_check(
    trace: TraceData, wanted: Callable[[str], bool], extra: Iterable[str] = ()
) -> list[Path]:
    """The user's files the run touched: the files on its events' stacks, the files whose lines
    ran, the modules loaded (``sys.modules``) and ``extra``, those ``wanted`` accepts."""
    files: set[str] = set(extra)
    for group in trace.groups:
        files.update(frame.file for frame in group.stack)
    for burst in trace.bursts:
        files.add(burst.site.file)
    files.update((trace.lines_run or {}).keys())
    for module in list(sys.modules.values()):
        file = getattr(module, "__file__", None)
        if isinstance(file, str):
            files.add(os.path.abspath(file))
    return sorted(Path(f) for f in files if wanted(f) and os.path.isfile(f))


def check_files(
    paths: Sequence[Path], cwd: Path, warn: Callable[[str], None]
) -> tuple[list[Finding], set[str]]:
    """The findings in ``paths`` (files or directories), and the absolute files checked.
    ImportError when libcst is missing."""
    import libcst  # noqa: F401  (fail here, clearly, rather than inside a worker)

    from h2dlint.catalogue import known_rules
    from h2dlint.config import Overrides, SettingsResolver
    from h2dlint.discovery import Discovery
    from h2dlint.runner import RunOptions, run

    resolver = SettingsResolver(Overrides(cwd=cwd), None, cwd, known_rules(None))
    discovery = Discovery(resolver, cwd)
    candidates = discovery.candidates(list(paths))
    result = run(candidates, RunOptions(jobs=1), warn)
    findings = [f for f in result.findings if f.code not in FILE_DIAGNOSTIC_CODES]
    return findings, {os.path.abspath(c.path) for c in candidates}

"""What happens to one file: decode, skip or parse, check or fix, write back.

Runs in worker processes, so everything it takes and returns is plain and picklable. Every failure
of one file ends as a located finding for that file; nothing here may end the run.
"""

from __future__ import annotations

import difflib
import enum
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from h2dlint.diagnostics import INTERNAL_ERROR_CODE, IO_ERROR_CODE, Finding, file_finding
from h2dlint.engine import EnabledRule, check_text, syntax_check
from h2dlint.fileio import WriteError, write_atomically
from h2dlint.fixer import fix_text
from h2dlint.source import SourceError, decode
from h2dlint.suppression import has_skip_file


class Mode(str, enum.Enum):
    CHECK = "check"
    FIX = "fix"  # write fixes to the file
    DIFF = "diff"  # compute fixes, write nothing
    STDOUT = "stdout"  # compute fixes, return the fixed source (stdin input)


@dataclass(frozen=True)
class FileJob:
    path: str  # where to read and write
    display: str  # how to name the file in findings
    data: bytes
    rules: tuple[EnabledRule, ...]
    mode: Mode = Mode.CHECK
    unsafe: bool = False
    prefilter: bool = True


@dataclass
class FileResult:
    display: str
    findings: list[Finding]
    # The bytes the findings belong to (after a fix), for the cache; None when not cacheable.
    final_data: bytes | None = None
    fixed_by_code: dict[str, int] = field(default_factory=dict)
    diff: str = ""
    output: bytes | None = None


def needs_parse(data: bytes, rules: Sequence[EnabledRule]) -> bool:
    """Whether any rule could flag a file with these bytes."""
    for enabled in rules:
        markers = enabled.rule.prefilter
        if markers is None or any(marker in data for marker in markers):
            return True
    return False


def process(job: FileJob) -> FileResult:
    try:
        return _process(job)
    except RecursionError:
        return FileResult(
            job.display,
            [file_finding(job.display, INTERNAL_ERROR_CODE, "file is too deeply nested to check")],
        )
    except Exception as exc:  # a bug must cost one file, not the run
        return FileResult(
            job.display,
            [
                file_finding(
                    job.display,
                    INTERNAL_ERROR_CODE,
                    f"internal error: {type(exc).__name__}: {exc}; please report it",
                )
            ],
        )


def _process(job: FileJob) -> FileResult:
    try:
        source = decode(job.data)
    except SourceError as exc:
        return FileResult(
            job.display,
            [file_finding(job.display, IO_ERROR_CODE, exc.message, exc.row, exc.column)],
            final_data=job.data,
        )
    text = source.text
    if has_skip_file(text) or not job.rules:
        return FileResult(job.display, [], final_data=job.data)
    if job.prefilter and not needs_parse(job.data, job.rules):
        error = syntax_check(text, job.display)
        return FileResult(job.display, [error] if error else [], final_data=job.data)
    if job.mode is Mode.CHECK:
        return FileResult(job.display, check_text(text, job.display, job.rules), job.data)

    outcome = fix_text(text, job.display, job.rules, unsafe=job.unsafe)
    result = FileResult(job.display, outcome.findings, fixed_by_code=outcome.applied_by_code)
    if outcome.text == text:
        result.final_data = job.data
        if job.mode is Mode.STDOUT:
            result.output = job.data
        return result
    new_data = source.encode(outcome.text)
    if job.mode is Mode.DIFF:
        result.diff = "".join(
            difflib.unified_diff(
                text.splitlines(keepends=True),
                outcome.text.splitlines(keepends=True),
                fromfile=job.display,
                tofile=job.display,
            )
        )
    elif job.mode is Mode.STDOUT:
        result.output = new_data
    else:
        try:
            write_atomically(Path(job.path), new_data, job.data)
        except WriteError as exc:
            # Nothing was written: report the findings of the file as it is.
            findings = check_text(text, job.display, job.rules)
            findings.append(file_finding(job.display, IO_ERROR_CODE, f"fix not written: {exc}"))
            return FileResult(job.display, findings)
        result.final_data = new_data
    return result

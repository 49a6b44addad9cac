"""What happens to one file: decode, skip or parse, check or fix, write back.

Runs in worker processes, so everything it takes and returns is plain and picklable. Every failure
of one file ends as a located finding for that file; nothing here may end the run.
"""

from __future__ import annotations

import ast
import gc
import os
import re
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from h2dlint.candidates import summarize
from h2dlint.confidence import meets
from h2dlint.diagnostics import (
    INTERNAL_ERROR_CODE,
    IO_ERROR_CODE,
    Finding,
    file_finding,
)
from h2dlint.engine import check_text
from h2dlint.fileio import WriteError, write_atomically
from h2dlint.fixer import fix_text
from h2dlint.jobs import EnabledRule, FileJob, FileResult, Mode
from h2dlint.large_files import LARGE_FILE_CHARS, MAX_KEPT_CHARS, is_large, reduce_source
from h2dlint.noqa import add_noqa
from h2dlint.parsing import (
    CPythonParse,
    ParseFailure,
    cpython_parse,
    cpython_syntax_finding,
    parse,
    syntax_check,
)
from h2dlint.project import index as project_index
from h2dlint.project import roots as project_roots
from h2dlint.source import SourceError, SourceText, decode
from h2dlint.suppression import has_skip_file
from h2dlint.time_limit import TimeLimitExceeded, cpu_time_limit, disarm


def _has_markers(data: bytes, enabled: EnabledRule, found: dict[bytes, bool]) -> bool:
    """Whether ``data`` holds one of the rule's markers; ``found``: the markers looked for in
    ``data`` so far (rules share many, ``.to(``, ``non_blocking``, ``.cpu(``, and one that is
    absent costs a scan of the whole file for every rule that names it)."""
    markers = enabled.rule.prefilter
    if markers is None:
        return True
    for marker in markers:
        there = found.get(marker)
        if there is None:
            there = found[marker] = marker in data
        if there:
            return True
    return False


def candidate_rules(
    data: bytes, rules: Sequence[EnabledRule], tree: ast.Module | None
) -> tuple[EnabledRule, ...]:
    """The rules that could flag this file: its bytes hold one of the rule's markers and, when
    CPython parsed it (``tree``), it holds a call the rule declares a candidate. A rule that
    declares no candidates is one whenever its markers occur."""
    found: dict[bytes, bool] = {}
    kept = [enabled for enabled in rules if _has_markers(data, enabled, found)]
    if tree is None or not kept:
        return tuple(kept)
    summary = None
    out = []
    for enabled in kept:
        wanted = enabled.rule.candidate_filter
        if wanted is not None:
            if summary is None:
                summary = summarize(tree, data)
            if not wanted.matches(summary):
                continue
        out.append(enabled)
    return tuple(out)


# A line as patch and git count them: only LF ends one (a CR stays part of its line).
# str.splitlines would also split at CR, form feeds, U+2028 and other characters.
_DIFF_LINE = re.compile(r"[^\n]*\n|[^\n]+\Z")
NO_NEWLINE = "\\ No newline at end of file\n"


def unified_diff(old: str, new: str, name: str) -> str:
    """A unified diff that ``patch`` and ``git apply`` take: every line of it ends in LF, and a
    last line without one is marked as such."""
    import difflib  # only for --diff

    out = []
    for line in difflib.unified_diff(
        _DIFF_LINE.findall(old), _DIFF_LINE.findall(new), fromfile=name, tofile=name
    ):
        out.append(line)
        if not line.endswith("\n"):
            out.append("\n" + NO_NEWLINE)
    return "".join(out)


# Whether a file checked with the collector paused left its cycles for the next file to free.
_LEFT_GARBAGE = False


def process(job: FileJob) -> FileResult:
    """Check (or fix) one file, recording which other modules of the project its findings
    rest on."""
    index = project_roots.select(job.path)  # the index of the file's own package
    if index is None:
        return _process_collecting(job)
    index.begin_file()
    result = _process_collecting(job)
    own = os.path.realpath(job.path)
    result.depends = tuple(
        sorted((path, digest) for path, digest in index.consulted.items() if path != own)
    )
    if index.keeps_summaries:
        result.summaries = index.summaries.take_fresh() or None
    return result


def _process_collecting(job: FileJob) -> FileResult:
    # The cyclic garbage collector would run every few hundred allocations while libcst builds
    # a tree of a few hundred thousand acyclic nodes, each run walking the young objects: up to
    # a fifth of a check. It is paused for one file; the few cycles a check makes (a rule and
    # its context) are all young, and one young-generation collection after the file frees them.
    # Where the collector was paused already (a pool worker), that collection waits for the
    # next file instead: a process's last file does not pay for it.
    global _LEFT_GARBAGE
    collecting = gc.isenabled()
    gc.disable()
    if _LEFT_GARBAGE:
        gc.collect(0)
        _LEFT_GARBAGE = False
    try:
        result = _process_guarded(job)
    finally:
        if collecting:
            gc.enable()
            gc.collect(0)
        else:
            _LEFT_GARBAGE = True
    if job.mode is Mode.STDOUT and result.output is None:
        # `--fix -` must always give the source back: an editor or a pipe replaces the file
        # with what it prints, so printing nothing would empty it.
        result.output = job.data
    return result


def _process_guarded(job: FileJob) -> FileResult:
    try:
        with cpu_time_limit(job.time_limit):
            return _process(job)
    except TimeLimitExceeded as exc:
        # Nothing was written (the limit ends before a write) and nothing is cached: a run
        # with a higher limit checks the file.
        message = (
            f"file not checked: {exc}; raise --time-limit (0: none) or exclude the file, and "
            "please report it"
        )
        return FileResult(job.display, [file_finding(job.display, INTERNAL_ERROR_CODE, message)])
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
    if has_skip_file(text):
        return FileResult(job.display, [], final_data=job.data)
    # With no rule enabled the file is still syntax-checked: E999 cannot be deselected. The
    # summary store's tree of these bytes, where it made one already, is not made again.
    project = project_index.current()
    held = project.summaries.kept_trees.held(job.data, text) if project is not None else None
    parsed = CPythonParse(tree=held) if held is not None else cpython_parse(text, job.display)
    if parsed.fatal is not None:
        return FileResult(job.display, [parsed.fatal], final_data=job.data)
    rules = job.rules
    if job.prefilter:
        rules = candidate_rules(job.data, job.rules, parsed.tree if job.candidates else None)
        if not rules:
            error = None if parsed.tree is not None else syntax_check(text, job.display, parsed)
            findings = [error] if error else []
            # Only a file CPython refuses is parsed with libcst, to confirm the error.
            return FileResult(job.display, findings, final_data=job.data, parsed=not parsed.tree)
    if job.mode is Mode.ADD_NOQA:
        return _add_noqa(job, source, parsed, rules)
    if is_large(text):
        return _process_large(job, text, parsed, rules)
    if job.mode is Mode.CHECK:
        # Only the rules that could flag the file: the others would find nothing. A tree the
        # project index parsed already (for another file's facts) is not parsed again.
        tree = project.tree_of(job.path, text) if project is not None else None
        if tree is None and project is not None:
            # The index may ask about this module later (another file's facts): it keeps the
            # tree where it has room, rather than parse the same text again.
            try:
                tree = parse(text, job.display, parsed)
            except ParseFailure as failure:
                return FileResult(job.display, [failure.finding], job.data, parsed=True)
            project.offer_tree(job.path, job.data, text, tree, parsed.tree)
        findings = check_text(text, job.display, rules, job.analysis, parsed, tree)
        return FileResult(job.display, findings, job.data, parsed=True)

    # Every rule: a fix can give another rule something to flag in the fixed text.
    outcome = fix_text(
        text,
        job.display,
        job.rules,
        unsafe=job.unsafe,
        options=job.analysis,
        cpython=parsed,
        min_confidence=job.min_confidence,
    )
    result = FileResult(
        job.display, outcome.findings, fixed_by_code=outcome.applied_by_code, parsed=True
    )
    if outcome.text == text:
        result.final_data = job.data
        if job.mode is Mode.STDOUT:
            result.output = job.data
        return result
    try:
        new_data = source.encode(outcome.text)
    except UnicodeEncodeError as exc:
        bad = exc.object[exc.start : exc.end]
        return _unfixed(job, text, f"fix not applied: {source.encoding} cannot encode {bad!r}")
    if job.mode is Mode.DIFF:
        result.diff = unified_diff(text, outcome.text, job.display)
    elif job.mode is Mode.STDOUT:
        result.output = new_data
    else:
        disarm()  # the check is over: the write must not be cut off
        try:
            write_atomically(Path(job.path), new_data, job.data)
        except WriteError as exc:
            return _unfixed(job, text, f"fix not written: {exc}")
        result.final_data = new_data
    return result


def _process_large(
    job: FileJob, text: str, parsed: CPythonParse, rules: tuple[EnabledRule, ...]
) -> FileResult:
    """A file too large for libcst to parse whole: checked statement by statement, never fixed.
    ``rules``: those with a candidate in the file."""
    if parsed.tree is None:
        errors = [cpython_syntax_finding(parsed.error, job.display)] if parsed.error else []
        return FileResult(job.display, errors, final_data=job.data)
    markers = [enabled.rule.prefilter for enabled in rules]
    kept = len(text)
    if all(marker is not None for marker in markers):
        needles = [m for group in markers if group for m in group]
        text, kept = reduce_source(text, parsed.tree, needles)
    if kept > MAX_KEPT_CHARS:
        message = (
            f"file not checked: {kept / 2**20:.1f} MiB of its top-level statements hold code "
            f"that rules look for, more than the {MAX_KEPT_CHARS // 2**20} MiB h2dlint parses in "
            "one file; split the file or exclude it"
        )
        finding = file_finding(job.display, IO_ERROR_CODE, message)
        return FileResult(job.display, [finding], final_data=job.data)
    checked = check_text(text, job.display, rules, job.analysis)
    findings = [replace(finding, fix=None) for finding in checked]
    fixing = job.mode in (Mode.FIX, Mode.DIFF, Mode.STDOUT)
    if fixing and any(
        finding.fix is not None and meets(finding.confidence, job.min_confidence)
        for finding in checked
    ):
        findings.append(
            file_finding(
                job.display,
                IO_ERROR_CODE,
                f"fixes not applied: the file is larger than {LARGE_FILE_CHARS // 1024 // 1024} "
                "MiB of text, so it was checked statement by statement; fix it by hand",
            )
        )
    return FileResult(job.display, findings, final_data=job.data, parsed=True)


def _add_noqa(
    job: FileJob, source: SourceText, parsed: CPythonParse, rules: tuple[EnabledRule, ...]
) -> FileResult:
    """Check the file, add a `# noqa` comment for each finding, write it, and check it again:
    the findings that remain are those no comment could suppress."""
    text = source.text
    findings = _findings(job, text, parsed, rules)
    # Only the findings shown (--min-confidence): a comment for one not shown would hide it
    # for good without anyone having seen it.
    edit = add_noqa(text, [f for f in findings if meets(f.confidence, job.min_confidence)])
    if not edit.lines:
        return FileResult(job.display, findings, final_data=job.data, parsed=True)
    new_parse = cpython_parse(edit.text, job.display)
    if new_parse.fatal is not None or (parsed.tree is not None and new_parse.tree is None):
        reason = "noqa comments not added: the file would no longer parse; please report it"
        findings.append(file_finding(job.display, INTERNAL_ERROR_CODE, reason))
        return FileResult(job.display, findings, parsed=True)
    disarm()  # the check is over: the write (and the check after it) must not be cut off
    try:
        new_data = source.encode(edit.text)
        write_atomically(Path(job.path), new_data, job.data)
    except (UnicodeEncodeError, WriteError) as exc:
        reason = f"noqa comments not written: {exc}"
        findings.append(file_finding(job.display, IO_ERROR_CODE, reason))
        return FileResult(job.display, findings, parsed=True)
    rules = job.rules
    if job.prefilter:
        rules = candidate_rules(new_data, job.rules, new_parse.tree if job.candidates else None)
    remaining = _findings(job, edit.text, new_parse, rules)
    return FileResult(
        job.display, remaining, final_data=new_data, parsed=True, noqa_added=edit.lines
    )


def _findings(
    job: FileJob, text: str, parsed: CPythonParse, rules: tuple[EnabledRule, ...]
) -> list[Finding]:
    """The findings of ``text`` under ``rules``, without fixes applied."""
    if is_large(text):
        return _process_large(job, text, parsed, rules).findings
    return check_text(text, job.display, rules, job.analysis, parsed)


def _unfixed(job: FileJob, text: str, reason: str) -> FileResult:
    """Nothing was written: the findings of the file as it is, and why it was not fixed."""
    findings = check_text(text, job.display, job.rules, job.analysis)
    findings.append(file_finding(job.display, IO_ERROR_CODE, reason))
    return FileResult(job.display, findings)

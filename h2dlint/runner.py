"""A whole run: read every candidate, answer what the cache can, check the rest in parallel.

The main process reads each file once (to key the cache and to hand the exact bytes to the worker
that checks or fixes it), so a fix is only ever written over the bytes it was computed from; a
file whose status the cache recorded with its digest is not read at all. Results come back in any
order and are sorted by path, line, column and code.

This module imports neither libcst nor the rules: a run the cache answers whole never needs them.
The pipeline is imported when the first file must be checked, before any worker is forked.
"""

from __future__ import annotations

import gc
import os
import signal
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

from h2dlint.cache import ResultCache, SummaryFile, entry_key
from h2dlint.collector import collector_off, paused
from h2dlint.confidence import shown
from h2dlint.config import Settings, fingerprint
from h2dlint.dataclass_code import kept
from h2dlint.diagnostics import INTERNAL_ERROR_CODE, IO_ERROR_CODE, Finding, file_finding
from h2dlint.digest import content_digest
from h2dlint.discovery import Candidate, relative_to_root
from h2dlint.fileio import read_bytes
from h2dlint.forked_files import check_each
from h2dlint.jobs import AnalysisOptions, EnabledRule, FileJob, FileResult, Mode
from h2dlint.parent_death import end_with_parent
from h2dlint.time_limit import DEFAULT_TIME_LIMIT_S

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing.context import BaseContext

    from h2dlint.project.index import ProjectIndex
    from h2dlint.project.shared_parts import SharedParts

# Set (to anything), a run checks each file without the project index: a file's findings then
# rest on its own text alone (benchmarks/bench_lint.py measures the index's cost with it).
NO_INDEX_VARIABLE = "H2DLINT_NO_PROJECT_INDEX"
# Below this many files to check, worker start-up costs more than it saves.
PARALLEL_THRESHOLD = 4
# Up to this many files checked in this process (a pre-commit run's), what each leaves alive is
# frozen after it, not walked by the young collection before the next file (its trees, 10 ms a
# file on transformers; the cycles, a few hundred objects, wait for the run's end).
FREEZE_BETWEEN_FILES_UP_TO = 32
# From this many files per worker, every worker asks the project index enough to build its
# tables of defined names and joined texts: they are built once before the workers fork.
SHARE_TABLES_FROM_FILES_PER_WORKER = 8
# With fewer (a pre-commit run), they are built before the fork where the stored summaries hold
# the parts they are made of for this share of the project's modules: a decode per module
# then, not a read and a scan (a first run with an empty cache leaves them to the workers).
SHARE_STORED_TABLES_FROM = 0.9


@dataclass
class RunOptions:
    mode: Mode = Mode.CHECK
    unsafe_fixes: bool | None = None  # None: each file's settings decide
    jobs: int = 0  # 0: all cores
    prefilter: bool = True
    candidates: bool = True  # with the prefilter, also the ast candidate filter
    time_limit: float = DEFAULT_TIME_LIMIT_S  # CPU seconds per file (0: none)


@dataclass
class RunResult:
    findings: list[Finding] = field(default_factory=list)
    files_checked: int = 0
    files_parsed: int = 0  # parsed with libcst (not answered by the cache or the prefilters)
    fixed_by_code: dict[str, int] = field(default_factory=dict)
    # The same, per file (as findings name it), for --show-fixes.
    fixed_by_file: dict[str, dict[str, int]] = field(default_factory=dict)
    diffs: list[str] = field(default_factory=list)
    outputs: list[bytes] = field(default_factory=list)
    # Findings left out as less sure than their file's min-confidence (confidence.py).
    hidden_by_confidence: int = 0
    # --add-noqa: lines given a noqa comment (or more codes in theirs), and in how many files.
    noqa_added: int = 0
    noqa_files: int = 0


def available_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        return os.cpu_count() or 1


@lru_cache(maxsize=256)
def _job_fingerprint(rules: tuple[EnabledRule, ...], analysis: AnalysisOptions) -> str:
    return fingerprint(rules, analysis)


def _rules(candidate: Candidate) -> tuple[EnabledRule, ...]:
    settings = candidate.settings
    if not settings.per_file_ignores:  # the common case spares a path computation per file
        return settings.rules
    return settings.rules_for(relative_to_root(candidate.path, settings))


def _job(candidate: Candidate, data: bytes, options: RunOptions) -> FileJob:
    settings: Settings = candidate.settings
    unsafe = settings.unsafe_fixes if options.unsafe_fixes is None else options.unsafe_fixes
    return FileJob(
        path=str(candidate.path),
        display=candidate.display,
        data=data,
        rules=_rules(candidate),
        mode=options.mode,
        unsafe=unsafe,
        prefilter=options.prefilter,
        analysis=settings.job_analysis,
        candidates=options.candidates,
        min_confidence=settings.min_confidence,
        time_limit=options.time_limit,
    )


def _cacheable(mode: Mode) -> bool:
    return mode is Mode.CHECK or mode is Mode.FIX


def process(job: FileJob) -> FileResult:
    """Check (or fix) one file: pipeline.process, imported on first use."""
    from h2dlint.pipeline import process as process_file

    return process_file(job)


@dataclass
class _Pending:
    """A file to check, with what the cache needs to record its result."""

    job: FileJob
    key: str | None = None  # the cache key of the job's bytes
    status: os.stat_result | None = None  # the file's status before it was read
    digest: str | None = None


def run(
    candidates: Sequence[Candidate],
    options: RunOptions,
    warn: Callable[[str], None],
    stdin_job: FileJob | None = None,
    cache: ResultCache | None = None,
) -> RunResult:
    """Check ``candidates`` (and ``stdin_job``), answering from ``cache`` what it can and
    recording there what was checked; the cache is saved at the end."""
    result = RunResult()
    pending = [_Pending(stdin_job)] if stdin_job is not None else []
    usable = cache if cache is not None and _cacheable(options.mode) else None
    for candidate in candidates:
        item = _prepare(candidate, options, usable, result)
        if item is not None:
            pending.append(item)
    with collector_off():
        outcomes = _execute([item.job for item in pending], options.jobs, cache)
        for item, outcome in zip(pending, outcomes, strict=True):
            _record(item, outcome, cache, result)
        if cache is not None:
            cache.save()
    result.findings.sort(key=lambda f: f.sort_key)
    result.diffs.sort()
    return result


def _prepare(
    candidate: Candidate, options: RunOptions, cache: ResultCache | None, result: RunResult
) -> _Pending | None:
    """The job for ``candidate``; None when the cache answered for it or it cannot be read
    (its findings are in ``result`` then). A file whose status the cache knows is not read."""
    if candidate.error is not None:
        result.findings.append(file_finding(candidate.display, IO_ERROR_CODE, candidate.error))
        return None
    path = str(candidate.path)
    status = None
    if cache is not None:
        try:
            status = os.stat(path)
        except OSError:
            status = None  # reading it reports why
        digest = cache.known_digest(path, status) if status is not None else None
        if digest is not None:
            settings_key = _job_fingerprint(_rules(candidate), candidate.settings.job_analysis)
            if _answer(cache, entry_key(digest, settings_key, path), candidate, options, result):
                return None
    try:
        data = read_bytes(path)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        result.findings.append(
            file_finding(candidate.display, IO_ERROR_CODE, f"cannot read file: {reason}")
        )
        return None
    item = _Pending(_job(candidate, data, options))
    if cache is not None:
        item.status, item.digest = status, content_digest(data)
        item.key = entry_key(item.digest, _job_fingerprint(item.job.rules, item.job.analysis), path)
        if _answer(cache, item.key, candidate, options, result):
            if status is not None:
                cache.remember_digest(path, status, item.digest)
            return None
    return item


def _record(
    item: _Pending, outcome: FileResult, cache: ResultCache | None, result: RunResult
) -> None:
    """Add a checked file's outcome to ``result``, and to ``cache`` unless it failed."""
    job = item.job
    result.files_checked += 1
    result.files_parsed += outcome.parsed
    kept, hidden = shown(outcome.findings, job.min_confidence)
    result.findings.extend(kept)
    result.hidden_by_confidence += hidden
    for code, count in outcome.fixed_by_code.items():
        result.fixed_by_code[code] = result.fixed_by_code.get(code, 0) + count
    if outcome.fixed_by_code:
        result.fixed_by_file[outcome.display] = dict(outcome.fixed_by_code)
    if outcome.noqa_added:
        result.noqa_added += outcome.noqa_added
        result.noqa_files += 1
    if outcome.diff:
        result.diffs.append(outcome.diff)
    if outcome.output is not None:
        result.outputs.append(outcome.output)
    failed = any(f.code == INTERNAL_ERROR_CODE for f in outcome.findings)
    if cache is None or item.key is None or outcome.final_data is None or failed:
        return
    if outcome.final_data is job.data:
        cache.put(item.key, outcome.findings, outcome.depends)
        if item.status is not None and item.digest is not None:
            cache.remember_digest(job.path, item.status, item.digest)
    else:  # fixed: the findings belong to the new bytes, whose status is not known yet
        settings_key = _job_fingerprint(job.rules, job.analysis)
        cache.put(
            entry_key(content_digest(outcome.final_data), settings_key, job.path),
            outcome.findings,
            outcome.depends,
        )


def _answer(
    cache: ResultCache, key: str, candidate: Candidate, options: RunOptions, result: RunResult
) -> bool:
    """Whether the cache answers for the file: its findings, when nothing is left to fix. The
    cache holds every finding; those below the file's min-confidence are left out here."""
    hit = cache.get(key, candidate.display)
    if hit is None:
        return False
    settings = candidate.settings
    kept, hidden = shown(hit, settings.min_confidence)
    if options.mode is not Mode.CHECK:
        unsafe = settings.unsafe_fixes if options.unsafe_fixes is None else options.unsafe_fixes
        if _has_fix(kept, unsafe):
            return False
    result.findings.extend(kept)
    result.hidden_by_confidence += hidden
    result.files_checked += 1
    return True


def _has_fix(findings: Iterable[Finding], unsafe: bool) -> bool:
    for finding in findings:
        if finding.fix is not None and (unsafe or finding.fix.safety.value == "safe"):
            return True
    return False


def _execute(
    jobs: list[FileJob], requested: int, cache: ResultCache | None = None
) -> Iterable[FileResult]:
    if not jobs:
        return []
    try:
        return _execute_indexed(jobs, requested, cache)
    finally:
        # What the set-up froze (``collector.paused``) is collectable again once the files
        # are checked: a process that runs again (tests, an editor's server) frees it.
        gc.unfreeze()


def _execute_indexed(
    jobs: list[FileJob], requested: int, cache: ResultCache | None
) -> list[FileResult]:
    # The pipeline, the rules and libcst's native parser are imported here, once, before any
    # worker is forked; then the project index is set up. What they make lives as long as the
    # run (modules, classes, tables), so the collector is paused meanwhile and it is frozen
    # afterwards: the collector's young and middle collections walked it for nothing. It runs
    # again before any file is checked.
    # Defining libcst's node classes and the analyses' dataclasses compiles their generated
    # methods: their code comes from the table earlier runs kept (h2dlint.dataclass_code).
    with paused(), kept():
        import libcst.native  # noqa: F401

        from h2dlint.pipeline import process as _  # noqa: F401
        from h2dlint.project.index import ProjectIndex
        from h2dlint.project.roots import ProjectIndexes, install_all
        from h2dlint.project.tree_store import TreeStore
        from h2dlint.registry import all_rules

        all_rules()
    # An index per package around the files (project/roots.py), inherited by the workers.
    if os.environ.get(NO_INDEX_VARIABLE):
        return _execute_jobs(jobs, requested)
    paths = [job.path for job in jobs]
    # The summaries of the project's modules that earlier runs computed (by content), and the
    # libcst trees they parsed: a run over a few files does not parse the package again.
    stored = SummaryFile(cache.directory, cache.warn) if cache is not None else None
    trees = TreeStore(cache.directory) if cache is not None else None
    digests = cache.digest_by_status if cache is not None else None
    with paused():
        summaries = stored.load() if stored is not None else None
        make = lambda layout: ProjectIndex(layout, summaries, digests, trees)  # noqa: E731
        indexes = ProjectIndexes((path for path in paths if path != "-"), make)
        served = indexes.jobs_of(paths)
        for index, positions in served:  # read once here, not again in every worker
            index.know_bytes((jobs[i].path, jobs[i].data) for i in positions)
    install_all(indexes)
    shared = _shared_parts(jobs, requested)
    try:
        for index, positions in served:
            indexes.use(index)  # the forked pool of called_names asks ``current()``
            _share_called_names(index, [jobs[i] for i in positions], requested)
            index.summaries.shared = shared
        results = _execute_jobs(jobs, requested)
    finally:
        install_all(None)
        for index in indexes:
            index.summaries.shared = None
        if shared is not None:
            shared.remove()
    if summaries is not None and stored is not None:
        for result in results:
            if result.summaries:
                summaries.merge(result.summaries)
                result.summaries = None
        stored.save(summaries)
    if trees is not None:
        trees.prune()
    return results


def _shared_parts(jobs: list[FileJob], requested: int) -> SharedParts | None:
    """A directory through which the workers of a parallel run share the summary parts they
    compute (:mod:`h2dlint.project.shared_parts`); None for a run in one process."""
    from h2dlint.project.shared_parts import SharedParts

    workers = min(requested or available_cores(), len(jobs))
    if workers <= 1 or len(jobs) < PARALLEL_THRESHOLD:
        return None
    return SharedParts.create()


def _share_called_names(index: ProjectIndex, jobs: list[FileJob], requested: int) -> None:
    """Before a large parallel run forks its workers: the index's tables of defined names and
    joined texts (:meth:`CallerIndex.share_tables`), and on larger runs the project's table of
    called names (:mod:`h2dlint.project.called_names`), built once for all of them. Before a
    smaller one (a pre-commit run), those of its tables whose parts are stored: the modules
    defining each name, the ``calls`` parts joined (:meth:`CallerIndex.share_stored_tables`)."""
    from h2dlint.project.called_names import SHARE_FROM_FILES_PER_WORKER, share_called_names

    workers = min(requested or available_cores(), len(jobs))
    if workers <= 1 or len(jobs) < PARALLEL_THRESHOLD:
        return
    if sys.platform != "linux":  # spawned processes (no fork) would not inherit the index
        return
    if len(jobs) < SHARE_TABLES_FROM_FILES_PER_WORKER * workers:
        callers = index.caller_index()
        # Tens of thousands of small lists and strings, none of them garbage: the collector
        # would walk them and all the main process holds (libcst, the rules) again and again.
        with paused():
            callers.share_stored_tables(callers.stored_tables(SHARE_STORED_TABLES_FROM))
        return
    index.caller_index().share_tables()
    if len(jobs) >= SHARE_FROM_FILES_PER_WORKER * workers:
        import multiprocessing  # not before: its import (sockets, pickling) is 5 ms

        share_called_names(index, workers, multiprocessing.get_context("fork"))


def _execute_jobs(jobs: list[FileJob], requested: int) -> list[FileResult]:
    workers = min(requested or available_cores(), len(jobs))
    if workers <= 1 or len(jobs) < PARALLEL_THRESHOLD:
        if len(jobs) > FREEZE_BETWEEN_FILES_UP_TO:
            return [process(job) for job in jobs]
        return [_process_then_freeze(job) for job in jobs]
    # Largest files first, in small chunks: the few files libcst parses take most of the time,
    # and chunks in path order (one directory's files are alike) would leave one worker idle.
    order = sorted(range(len(jobs)), key=lambda i: len(jobs[i].data), reverse=True)
    # What the main process holds now (libcst, the rules) is never garbage: frozen, the
    # collector leaves it alone, in the workers too, whose copies of those pages stay shared.
    gc.freeze()
    try:
        if workers == len(jobs) and sys.platform == "linux":  # a process per file, no pool
            results = check_each([jobs[i] for i in order], _process_in_worker, _start_worker, _died)
        else:
            import multiprocessing  # only here: a run the cache answers, or on one core, has none

            context = multiprocessing.get_context("fork" if sys.platform == "linux" else "spawn")
            results = _in_pool([jobs[i] for i in order], workers, context)
    finally:
        gc.unfreeze()
    ordered: list[FileResult] = [results[0]] * len(jobs)
    for index, result in zip(order, results, strict=True):
        if result.same_data:
            result.final_data, result.same_data = jobs[index].data, False
        ordered[index] = result
    return ordered


def _process_then_freeze(job: FileJob) -> FileResult:
    result = process(job)
    gc.freeze()  # undone when the files are checked (``_execute``)
    return result


def _process_in_worker(job: FileJob) -> FileResult:
    """``process`` in a worker: a result whose bytes are the job's own does not send them back
    (the main process has them; they would cross the pipe a second time)."""
    result = process(job)
    if result.final_data is job.data:
        result.final_data, result.same_data = None, True
    return result


def _start_worker(parent: int) -> None:
    """Workers end when the main process dies (:mod:`h2dlint.parent_death`). They leave Ctrl-C
    to the main process, which cancels the files not yet started and waits for those in flight:
    each ends checked, or fixed and written whole. Their garbage collector stays paused between
    files (``pipeline._process_collecting`` frees a file's few cycles before the next one), so
    that a worker's last file, a pre-commit run's only one, does not wait for a walk over
    everything it allocated."""
    end_with_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    gc.disable()


def _pool(workers: int, context: BaseContext) -> ProcessPoolExecutor:
    from concurrent.futures import ProcessPoolExecutor

    return ProcessPoolExecutor(
        max_workers=workers, mp_context=context, initializer=_start_worker, initargs=(os.getpid(),)
    )


def _in_pool(jobs: list[FileJob], workers: int, context: BaseContext) -> list[FileResult]:
    from concurrent.futures.process import BrokenProcessPool

    chunksize = max(1, len(jobs) // (workers * 32))
    results: list[FileResult] = []
    pool = _pool(workers, context)
    try:
        for outcome in pool.map(_process_in_worker, jobs, chunksize=chunksize):
            results.append(outcome)
        return results
    except KeyboardInterrupt:
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    except BrokenProcessPool:
        pass
    finally:
        pool.shutdown(wait=True)
    # A worker died (a crash in native code, the out-of-memory killer). The chunks after the
    # last result were the ones in flight: check their files each in a process of its own, so
    # that the crash costs its own file only, and the rest in a new pool (which does the same
    # again if the crash was further on).
    done = len(results)
    suspects = jobs[done : done + (workers + 1) * chunksize]
    results.extend(_alone(job, context) for job in suspects)
    rest = jobs[done + len(suspects) :]
    if rest:
        results.extend(_in_pool(rest, workers, context))
    return results


def _alone(job: FileJob, context: BaseContext) -> FileResult:
    from concurrent.futures.process import BrokenProcessPool

    with _pool(1, context) as pool:
        try:
            return pool.submit(_process_in_worker, job).result()
        except BrokenProcessPool:
            return _died(job)


def _died(job: FileJob) -> FileResult:
    message = "the process checking this file died (a crash in native code, or out of memory)"
    message += "; please report it"
    return FileResult(job.display, [file_finding(job.display, INTERNAL_ERROR_CODE, message)])

"""What the main process hands a worker and gets back: one file's job and its result.

Plain, picklable and light: the main process builds jobs and keys the cache with these without
importing libcst or the rules, so that a run the cache answers whole never loads them.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from h2dlint.diagnostics import Confidence, Finding
from h2dlint.time_limit import DEFAULT_TIME_LIMIT_S

if TYPE_CHECKING:
    from h2dlint.rule import Rule

# Facts about the project from ``[tool.h2dlint.analysis]``, as (key, values) pairs.
AnalysisOptions = tuple[tuple[str, Any], ...]
# The analysis option that carries the line length of the code fixes write
# (h2dlint/fix_format.py), and its default: Ruff's and Black's.
LINE_LENGTH_OPTION = "line-length"
DEFAULT_LINE_LENGTH = 88
RuleSettings = tuple[tuple[str, Any], ...]


class EnabledRule:
    """A rule with the option values it runs with in one file.

    Named by its code: the rule class is looked up in the registry (which imports the rules) only
    when a file is checked. Tests and tools may give the class itself, registered or not.
    """

    __slots__ = ("_hash", "_rule", "code", "settings")

    def __init__(self, rule: type[Rule] | str, settings: RuleSettings = ()) -> None:
        self.code: str = rule if isinstance(rule, str) else rule.code
        self.settings = settings
        self._rule: type[Rule] | None = None if isinstance(rule, str) else rule
        self._hash = hash((self.code, settings))  # a run keys its caches by tuples of these

    @property
    def rule(self) -> type[Rule]:
        if self._rule is None:
            from h2dlint.registry import all_rules

            found = all_rules().get(self.code)
            if found is None:
                raise LookupError(f"no rule with code {self.code} is registered")
            self._rule = found
        return self._rule

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, EnabledRule):
            return NotImplemented
        return self.code == other.code and self.settings == other.settings

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        return f"EnabledRule({self.code!r}, {self.settings!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        # A class travels by reference (its module and name), a code as itself.
        return (EnabledRule, (self._rule or self.code, self.settings))


class Mode(str, enum.Enum):
    CHECK = "check"
    FIX = "fix"  # write fixes to the file
    DIFF = "diff"  # compute fixes, write nothing
    STDOUT = "stdout"  # compute fixes, return the fixed source (stdin input)
    ADD_NOQA = "add-noqa"  # write a noqa comment for every finding


@dataclass(frozen=True)
class FileJob:
    path: str  # where to read and write
    display: str  # how to name the file in findings
    data: bytes
    rules: tuple[EnabledRule, ...]
    mode: Mode = Mode.CHECK
    unsafe: bool = False
    prefilter: bool = True
    analysis: AnalysisOptions = ()
    # With the prefilter: also decide on the CPython ast whether a rule has a candidate in the
    # file (Rule.candidates), so that only files with one are parsed with libcst.
    candidates: bool = True
    # Fix only findings at least this sure: the others are not shown (confidence.py).
    min_confidence: Confidence = Confidence.MEDIUM
    # Seconds of CPU time checking the file may take (0: no limit; time_limit.py).
    time_limit: float = DEFAULT_TIME_LIMIT_S


@dataclass
class FileResult:
    display: str
    findings: list[Finding]
    # The bytes the findings belong to (after a fix), for the cache; None when not cacheable.
    final_data: bytes | None = None
    fixed_by_code: dict[str, int] = field(default_factory=dict)
    diff: str = ""
    output: bytes | None = None
    # Whether the file was parsed with libcst (to count what the prefilters save).
    parsed: bool = False
    # Mode.ADD_NOQA: the lines that got a noqa comment, or more codes in theirs.
    noqa_added: int = 0
    # Set by a worker instead of final_data when that is the job's own bytes (runner.py).
    same_data: bool = False
    # The other modules of the project whose facts the findings rest on: (path, digest).
    depends: tuple[tuple[str, str], ...] = ()
    # Module summaries the project index computed for this file's check, by content digest
    # (``h2dlint/project/summary.py``), for the main process to store; None when not kept.
    summaries: dict[str, dict[str, Any]] | None = None

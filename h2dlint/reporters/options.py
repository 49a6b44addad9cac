"""What every reporter is given: the run's summary and the report options; and the formats.

Kept apart from ``reporters/__init__.py`` (which picks a reporter by format) so that the reporters
import it without importing the package that imports them."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

# "full" (the default) and "text" are the same: a block per finding with the source line.
FORMATS = ("full", "concise", "text", "json", "github", "sarif")


@dataclass
class RunSummary:
    """What the run did besides finding things."""

    files_checked: int = 0
    # Fixes written (or, with --diff, that would be written), by rule code.
    fixed_by_code: dict[str, int] = field(default_factory=dict)
    # Findings whose fix needs --unsafe-fixes, which was not given.
    hidden_unsafe_fixes: int = 0
    # Findings not shown because they are less sure than --min-confidence.
    hidden_by_confidence: int = 0

    @property
    def fixed(self) -> int:
        return sum(self.fixed_by_code.values())


@dataclass(frozen=True)
class ReportOptions:
    color: bool = False
    # Paths in text and github output are shown relative to this directory when below it.
    cwd: Path = field(default_factory=Path.cwd)
    statistics: bool = False
    unsafe_fixes: bool = False
    # Text output: the findings only, no summary.
    quiet: bool = False
    # The directory SARIF paths are made relative to (the repository root).
    root: Path | None = None
    # Text output: one line per finding, no source snippet (--output-format concise).
    concise: bool = False
    # The files (as findings name them) whose settings enable unsafe fixes when
    # ``unsafe_fixes`` (for every file) is off: `unsafe-fixes = true` in their configuration.
    unsafe_fix_paths: frozenset[str] = frozenset()

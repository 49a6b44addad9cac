"""The data a check produces: findings, their locations and their fixes, as plain values.

Findings are plain, picklable and JSON-serialisable so that worker processes can return them and the
cache can store them. Rows and columns are 1-based; a column counts Unicode code points.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

# Diagnostics that are not rules: they are always reported and cannot be deselected.
SYNTAX_ERROR_CODE = "E999"
IO_ERROR_CODE = "E902"
INTERNAL_ERROR_CODE = "E900"
FILE_DIAGNOSTIC_CODES = frozenset({SYNTAX_ERROR_CODE, IO_ERROR_CODE, INTERNAL_ERROR_CODE})


class FixSafety(str, Enum):
    """How far a rule's fix may be trusted. Safe fixes apply with ``--fix``; unsafe ones only
    with ``--unsafe-fixes`` as well."""

    NONE = "none"
    SAFE = "safe"
    UNSAFE = "unsafe"


class Confidence(str, Enum):
    """How sure a finding is. HIGH: every fact it rests on is proven from the code. MEDIUM: one
    fact is inferred (a name that says "host", a device that is unknown on a hot path); its
    message says what would make it certain."""

    HIGH = "high"
    MEDIUM = "medium"


class Severity(str, Enum):
    """How a finding should be treated. WARNING: a speed or style problem (the default). ERROR:
    the code computes wrong results (a race); reporters mark it as an error (SARIF ``level``
    ``error``, GitHub ``::error``), which CI fails on by default."""

    WARNING = "warning"
    ERROR = "error"


@dataclass(frozen=True, order=True)
class Location:
    row: int
    column: int

    def to_dict(self) -> dict[str, int]:
        return {"row": self.row, "column": self.column}

    @classmethod
    def from_dict(cls, data: dict[str, int]) -> Location:
        return cls(int(data["row"]), int(data["column"]))


@dataclass(frozen=True)
class Edit:
    """Replace the text between ``start`` and ``end`` with ``content``."""

    content: str
    start: Location
    end: Location

    def to_dict(self) -> dict[str, Any]:
        return {
            "content": self.content,
            "location": self.start.to_dict(),
            "end_location": self.end.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Edit:
        return cls(
            data["content"],
            Location.from_dict(data["location"]),
            Location.from_dict(data["end_location"]),
        )


@dataclass(frozen=True)
class FixInfo:
    """The fix a finding offers, as text edits (for reporters); the engine applies it as libcst
    node replacements."""

    safety: FixSafety
    message: str
    edits: tuple[Edit, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "applicability": self.safety.value,
            "message": self.message,
            "edits": [edit.to_dict() for edit in self.edits],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> FixInfo:
        return cls(
            FixSafety(data["applicability"]),
            data["message"],
            tuple(Edit.from_dict(e) for e in data["edits"]),
        )


@dataclass(frozen=True)
class TraceMark:
    """What a trace (``check --trace``) says about a finding: ``status`` is "confirmed" (its
    line produced the events its rule speaks of), "contradicted" (the line ran at another cost),
    "not-reached" or "not-measurable" (a rule with no runtime cost, such as a race)."""

    status: str
    detail: str = ""
    count: int = 0
    host_ms: float = 0.0

    def label(self) -> str:
        """``confirmed: 64 events, 46.5 ms`` and the like, for text reports."""
        if self.status == "confirmed":
            return f"confirmed: {self.count} events, {self.host_ms:.3f} ms"
        return self.status.replace("-", " ")

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "detail": self.detail,
            "count": self.count,
            "host_ms": round(self.host_ms, 4),
        }


@dataclass(frozen=True)
class Finding:
    """One reported problem in one file."""

    path: str
    code: str
    message: str
    start: Location
    end: Location
    url: str | None = None
    fix: FixInfo | None = None
    noqa_row: int | None = None
    # The text of the first reported line, for reporters that show it.
    source_line: str = field(default="", compare=False)
    confidence: Confidence = Confidence.HIGH
    severity: Severity = Severity.WARNING
    # Set by ``check --trace`` only (never cached): what a trace of a run says about it.
    trace: TraceMark | None = field(default=None, compare=False)

    @property
    def level(self) -> str:
        """``"error"`` for file diagnostics and error-severity rules, else ``"warning"``."""
        if self.code in FILE_DIAGNOSTIC_CODES or self.severity is Severity.ERROR:
            return "error"
        return "warning"

    @property
    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.path, self.start.row, self.start.column, self.code)

    def with_path(self, path: str) -> Finding:
        return Finding(
            path,
            self.code,
            self.message,
            self.start,
            self.end,
            self.url,
            self.fix,
            self.noqa_row,
            self.source_line,
            self.confidence,
            self.severity,
            self.trace,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "message": self.message,
            "start": self.start.to_dict(),
            "end": self.end.to_dict(),
            "url": self.url,
            "fix": self.fix.to_dict() if self.fix else None,
            "noqa_row": self.noqa_row,
            "source_line": self.source_line,
            "confidence": self.confidence.value,
            "severity": self.severity.value,
        }

    @classmethod
    def from_dict(cls, path: str, data: dict[str, Any]) -> Finding:
        return cls(
            path=path,
            code=data["code"],
            message=data["message"],
            start=Location.from_dict(data["start"]),
            end=Location.from_dict(data["end"]),
            url=data.get("url"),
            fix=FixInfo.from_dict(data["fix"]) if data.get("fix") else None,
            noqa_row=data.get("noqa_row"),
            source_line=data.get("source_line", ""),
            confidence=Confidence(data.get("confidence", "high")),
            severity=Severity(data.get("severity", "warning")),
        )


def file_finding(path: str, code: str, message: str, row: int = 1, column: int = 1) -> Finding:
    """A finding about the file as a whole (unreadable, undecodable, unparsable)."""
    at = Location(row, column)
    return Finding(path, code, message, at, at, noqa_row=None)

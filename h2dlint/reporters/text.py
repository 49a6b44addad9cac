"""The human-readable report: one block per finding with the offending line underlined, or a
table of counts per rule (``--statistics``), then a summary."""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePath

from h2dlint.diagnostics import Confidence, Finding, FixSafety, Severity
from h2dlint.reporters.options import ReportOptions, RunSummary

TAB_WIDTH = 4

_RESET = "\x1b[0m"
_BOLD = "1"
_RED = "31"
_GREEN = "32"
_YELLOW = "33"
_BLUE = "34"
_CYAN = "36"


@dataclass(frozen=True)
class Statistic:
    """One row of ``--statistics``."""

    code: str
    name: str
    count: int
    fixable: bool


class _Painter:
    """Wraps text in ANSI SGR escapes when colour is on; leaves it alone otherwise."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    def __call__(self, text: str, *styles: str) -> str:
        if not self.enabled or not styles or not text:
            return text
        return f"\x1b[{';'.join(styles)}m{text}{_RESET}"


# -- shared helpers (the github reporter uses these too) -----------------------------------------
def display_path(path: str, cwd: Path) -> str:
    """``path`` relative to ``cwd`` when it lies below it, else ``path`` as given."""
    candidate = PurePath(path)
    if not candidate.is_absolute():
        return path
    for base in _bases(cwd):
        try:
            return candidate.relative_to(base).as_posix()
        except ValueError:
            continue
    return path


def _bases(cwd: Path) -> list[Path]:
    """``cwd`` as given and with symbolic links resolved (``/tmp`` vs ``/private/tmp``)."""
    bases = [cwd]
    try:
        resolved = cwd.resolve()
    except OSError:
        return bases
    if resolved != cwd:
        bases.append(resolved)
    return bases


def is_fixable(finding: Finding, options: ReportOptions) -> bool:
    """Whether the finding's fix applies in this mode (unsafe fixes need ``--unsafe-fixes``)."""
    if finding.fix is None or not finding.fix.edits:
        return False
    if finding.fix.safety is FixSafety.SAFE:
        return True
    unsafe = options.unsafe_fixes or finding.path in options.unsafe_fix_paths
    return finding.fix.safety is FixSafety.UNSAFE and unsafe


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    return f"{count} {noun if count == 1 else (nouns or noun + 's')}"


def confidence_tag(finding: Finding) -> str:
    """``[medium]`` for a finding that is not of high confidence; nothing for one that is."""
    return "" if finding.confidence is Confidence.HIGH else f"[{finding.confidence.value}]"


def _medium(findings: Sequence[Finding]) -> int:
    return sum(finding.confidence is Confidence.MEDIUM for finding in findings)


# -- entry point ---------------------------------------------------------------------------------
def render_text(findings: Sequence[Finding], summary: RunSummary, options: ReportOptions) -> str:
    paint = _Painter(options.color)
    if options.statistics:
        body = _statistics(findings, options, paint)
    elif options.concise:
        body = [_header(f, options, paint) for f in findings]
    else:
        body = [line for f in findings for line in [*_finding_block(f, options, paint), ""]]
    if options.quiet:
        return "\n".join(body) + "\n" if body else ""
    return "\n".join([*body, *_summary_lines(findings, summary, options)]) + "\n"


# -- one finding ---------------------------------------------------------------------------------
def _finding_block(finding: Finding, options: ReportOptions, paint: _Painter) -> list[str]:
    return [_header(finding, options, paint), *_snippet(finding, paint)]


def _header(finding: Finding, options: ReportOptions, paint: _Painter) -> str:
    colon = paint(":", _CYAN)
    where = colon.join(
        [
            paint(display_path(finding.path, options.cwd), _BOLD),
            str(finding.start.row),
            str(finding.start.column),
        ]
    )
    # Ruff's place for the fix marker, right after the code; then how sure the finding is.
    marker = f"{paint('[*]', _CYAN)} " if is_fixable(finding, options) else ""
    tag = confidence_tag(finding)
    sureness = f"{paint(tag, _YELLOW)} " if tag else ""
    severity = f"{paint('[error]', _BOLD, _RED)} " if finding.severity is Severity.ERROR else ""
    code = paint(finding.code, _BOLD, _RED)
    traced = trace_tag(finding, paint)
    return f"{where}{colon} {code} {marker}{severity}{sureness}{traced}{finding.message}"


def trace_tag(finding: Finding, paint: _Painter | None = None) -> str:
    """``[confirmed: 3 events, 1.250 ms] `` for a finding ``check --trace`` marked, else ``""``."""
    if finding.trace is None:
        return ""
    tag = f"[{finding.trace.label()}]"
    if paint is not None:
        tag = paint(tag, _GREEN if finding.trace.status == "confirmed" else _YELLOW)
    return tag + " "


def _snippet(finding: Finding, paint: _Painter) -> list[str]:
    line = finding.source_line.rstrip("\r\n")
    if not line:
        return []
    start, width = _caret_span(finding, line)
    row = str(finding.start.row)
    gutter = paint(" " * len(row) + " |", _BOLD, _BLUE)
    numbered = paint(f"{row} |", _BOLD, _BLUE)
    return [
        gutter,
        f"{numbered} {_expand(line)}",
        f"{gutter} {' ' * start}{paint('^' * width, _BOLD, _RED)}",
    ]


def _caret_span(finding: Finding, line: str) -> tuple[int, int]:
    """The display column (0-based) where the carets start, and how many there are."""
    first = max(finding.start.column - 1, 0)
    if finding.end.row > finding.start.row:
        last = len(line)
    elif finding.end.row == finding.start.row:
        last = finding.end.column - 1
    else:
        last = first
    start = _display_width(line[:first])
    end = _display_width(line[: max(last, first)])
    return start, max(end - start, 1)


def _expand(text: str) -> str:
    """``text`` with tabs expanded and other control characters made visible, so that what is
    printed lines up with :func:`_display_width`."""
    out: list[str] = []
    width = 0
    for char in text:
        if char == "\t":
            pad = TAB_WIDTH - width % TAB_WIDTH
            out.append(" " * pad)
            width += pad
            continue
        if unicodedata.category(char) in ("Cc", "Cf"):
            char = "\ufffd"  # escapes, bidi overrides: never pass them to the terminal
        out.append(char)
        width += _char_width(char)
    return "".join(out)


def _display_width(text: str) -> int:
    return sum(_char_width(char) for char in _expand(text))


def _char_width(char: str) -> int:
    if unicodedata.combining(char):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


# -- statistics ----------------------------------------------------------------------------------
def statistics(findings: Sequence[Finding], options: ReportOptions) -> list[Statistic]:
    """Findings per rule, the most frequent first (then by code)."""
    counts = Counter(finding.code for finding in findings)
    fixable = {finding.code for finding in findings if is_fixable(finding, options)}
    names = rule_names() if counts else {}
    rows = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return [Statistic(code, names.get(code, ""), count, code in fixable) for code, count in rows]


def _statistics(findings: Sequence[Finding], options: ReportOptions, paint: _Painter) -> list[str]:
    rows = statistics(findings, options)
    if not rows:
        return []
    count_width = max(4, len(str(rows[0].count)))
    code_width = max(len(row.code) for row in rows)
    medium = Counter(f.code for f in findings if f.confidence is Confidence.MEDIUM)
    lines = []
    for row in rows:
        marker = paint("[*]", _CYAN) if row.fixable else "   "
        sureness = f" ({medium[row.code]} medium confidence)" if medium[row.code] else ""
        line = (
            f"{row.count:>{count_width}}  {paint(row.code.ljust(code_width), _BOLD, _RED)}  "
            f"{marker} {row.name}{sureness}"
        )
        lines.append(line.rstrip())
    return [*lines, ""]


def rule_names() -> dict[str, str]:
    """Code -> rule name of the registered rules; empty when the registry cannot load."""
    from h2dlint import registry

    try:
        return {code: rule.name for code, rule in registry.all_rules().items()}
    except (ImportError, registry.RegistryError):
        return {}


# -- summary -------------------------------------------------------------------------------------
def _summary_lines(
    findings: Sequence[Finding], summary: RunSummary, options: ReportOptions
) -> list[str]:
    lines: list[str] = []
    if findings:
        fixable = sum(is_fixable(finding, options) for finding in findings)
        medium = _medium(findings)
        notes = [f"{fixable} fixable"] if fixable else []
        notes += [f"{medium} medium confidence"] if medium else []
        suffix = f" ({', '.join(notes)})" if notes else ""
        lines.append(f"Found {plural(len(findings), 'finding')}{suffix}.")
    if summary.fixed:
        lines.append(f"Fixed {plural(summary.fixed, 'finding')} ({len(findings)} remaining).")
    if not lines:
        # Nothing checked is not a pass: the run warned why on stderr.
        lines.append("All checks passed!" if summary.files_checked else "No files were checked.")
    if summary.hidden_unsafe_fixes and not options.unsafe_fixes:
        hidden = plural(summary.hidden_unsafe_fixes, "hidden fix", "hidden fixes")
        lines.append(f"{hidden} can be enabled with the `--unsafe-fixes` option.")
    if summary.hidden_by_confidence:
        hidden = plural(summary.hidden_by_confidence, "medium-confidence finding")
        lines.append(f"{hidden} not shown; --min-confidence medium shows them.")
    return lines

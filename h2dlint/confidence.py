"""Which findings a run shows, by how sure they are: ``--min-confidence`` and the
``min-confidence`` configuration key.

The cache and the workers always keep every finding; the threshold is applied where a file's
findings join the run's result (runner.py), and ``--fix`` applies only the fixes of findings that
are shown, so that nothing changes a file for a finding the user asked not to see.
"""

from __future__ import annotations

from collections.abc import Sequence

from h2dlint.diagnostics import Confidence, Finding

# Weakest first: a threshold shows its own level and every level after it.
ORDER: tuple[Confidence, ...] = (Confidence.MEDIUM, Confidence.HIGH)
CHOICES: tuple[str, ...] = tuple(level.value for level in reversed(ORDER))
# Show everything unless told otherwise.
DEFAULT = Confidence.MEDIUM


def parse(value: str) -> Confidence:
    """``"high"`` or ``"medium"`` (any case) as a :class:`Confidence`; ValueError otherwise."""
    try:
        return Confidence(value.strip().lower())
    except ValueError:
        raise ValueError(
            f"expected one of {', '.join(repr(c) for c in CHOICES)}, got {value!r}"
        ) from None


def meets(confidence: Confidence, threshold: Confidence) -> bool:
    """Whether a finding of ``confidence`` is shown under ``threshold``."""
    return ORDER.index(confidence) >= ORDER.index(threshold)


def shown(findings: Sequence[Finding], threshold: Confidence) -> tuple[list[Finding], int]:
    """The findings at or above ``threshold``, and how many were left out."""
    kept = [finding for finding in findings if meets(finding.confidence, threshold)]
    return kept, len(findings) - len(kept)

"""What the command line says about the settings (``--select``, ``--exclude``...), applied on
top of every configuration file."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from h2dlint.diagnostics import Confidence


@dataclass(frozen=True)
class Overrides:
    """What the command line says, applied on top of every configuration file."""

    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    unsafe_fixes: bool | None = None
    extend_exclude: tuple[str, ...] = ()
    min_confidence: Confidence | None = None
    # ``--exclude``: replaces ``exclude`` (the defaults, or the configuration's list).
    exclude: tuple[str, ...] | None = None
    # Where ``--exclude`` and ``--extend-exclude`` patterns with a ``/`` are anchored (as Ruff
    # does: the directory the command runs in); None: at each configuration's root.
    cwd: Path | None = None

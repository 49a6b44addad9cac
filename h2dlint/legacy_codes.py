"""The rule codes h2dlint used before its rename from ``H2Dnnn`` to ``HTDnnn``.

Ruff reads a code as letters then digits, so ``# noqa: H2D002`` was two codes to it (``H2`` and
``D002``), a warning, and a suppression of pydocstyle's ``D002``. The codes were renamed to the
``HTD`` prefix, in families: ``HTD1xx`` copies, ``HTD2xx`` syncs, ``HTD4xx`` races, ``HTD9xx``
h2dlint itself.

No release shipped the old codes, so this map is short-lived: suppression comments and
configuration that still name them keep working, with a deprecation warning (configuration) or
an HTD902 finding whose fix rewrites the comment.
"""

from __future__ import annotations

import re

OLD_TO_NEW: dict[str, str] = {
    "H2D001": "HTD101",
    "H2D002": "HTD102",
    "H2D003": "HTD103",
    "H2D005": "HTD104",
    "H2D006": "HTD105",
    "H2D007": "HTD106",
    "H2D004": "HTD201",
    "H2D100": "HTD901",
}
OLD_PREFIX = "H2D"
OLD_CODE = re.compile(r"^H2D\d{0,3}$")


def case_variants(*words: str) -> tuple[bytes, ...]:
    """Every spelling of ``words`` in upper and lower case, as bytes (codes are read
    case-blind, and a byte prefilter is not)."""
    out: set[bytes] = set()
    for word in words:
        spellings = [""]
        for char in word:
            spellings = [s + c for s in spellings for c in {char.lower(), char.upper()}]
        out.update(s.encode() for s in spellings)
    return tuple(sorted(out))


def is_old(selector: str) -> bool:
    """Whether ``selector`` (upper-cased) is an old code or code prefix (``H2D``, ``H2D00``)."""
    return bool(OLD_CODE.match(selector.upper()))


def translate(selector: str) -> tuple[str, ...]:
    """The new codes an old code or prefix selected: ``H2D002`` -> ``HTD102``, ``H2D`` ->
    ``HTD``, ``H2D00`` -> each new code whose old code began so. Empty when it selected none."""
    upper = selector.upper()
    if upper == OLD_PREFIX:
        return ("HTD",)
    return tuple(sorted(new for old, new in OLD_TO_NEW.items() if old.startswith(upper)))


def new_code(code: str) -> str | None:
    """The new code of one old code, or None."""
    return OLD_TO_NEW.get(code.upper())


# Deprecation notes met while reading settings: (where, old, new codes). The CLI prints each once.
_NOTES: dict[tuple[str, str], tuple[str, ...]] = {}


def note(origin: str, old: str, new: tuple[str, ...]) -> None:
    _NOTES[(origin, old)] = new


def drain_notes() -> list[str]:
    """The deprecation warnings noted since the last call, as sentences."""
    notes = [
        f"{origin}: {old!r} is the old name of {', '.join(repr(c) for c in new)}; "
        "h2dlint's codes were renamed from H2Dnnn to HTDnnn (see docs/usage.md)"
        for (origin, old), new in sorted(_NOTES.items())
    ]
    _NOTES.clear()
    return notes

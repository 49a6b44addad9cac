"""Which rules run: ``select``, ``extend-select`` and ``ignore``, in layers, as Ruff resolves them.

A selector is ``ALL``, a rule code (``HTD102``), a code prefix (``H2D``, ``HTD00``) or a rule name
(``non-blocking-pageable-copy``). Layers apply in order (defaults, then the config file, then the
command line). In a layer, ``select`` (when given) replaces what came before, ``extend-select``
adds, and ``ignore`` removes; when selectors of one layer disagree about a rule, the more specific
one wins, and ``ignore`` wins a tie.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from h2dlint import legacy_codes

ALL = "ALL"


class SelectionError(ValueError):
    pass


@dataclass(frozen=True)
class Layer:
    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()


def _specificity(selector: str, code: str, name: str) -> int | None:
    """How specifically ``selector`` names the rule (higher is more specific), or None."""
    if selector == ALL:
        return 0
    if selector in (name, code):
        return 100
    if code.startswith(selector):
        return len(selector)
    return None


def normalize(selector: str, known: Mapping[str, str], origin: str) -> tuple[str, ...]:
    """Upper-case codes, keep names; reject a selector that matches no rule. An old
    ``H2Dnnn`` code or prefix becomes the new codes it selected, noted as deprecated."""
    raw = selector.strip()
    if not raw:
        raise SelectionError(f"{origin}: empty rule selector")
    if raw.upper() == ALL:
        return (ALL,)
    if raw in known.values():
        return (raw,)
    upper = raw.upper()
    if legacy_codes.is_old(upper):
        translated = legacy_codes.translate(upper)
        if translated:
            legacy_codes.note(origin, upper, translated)
            return translated
    if any(code.startswith(upper) for code in known):
        return (upper,)
    raise SelectionError(f"{origin}: unknown rule selector {selector!r}")


def validate(selectors: Iterable[str], known: Mapping[str, str], origin: str) -> tuple[str, ...]:
    return tuple(code for selector in selectors for code in normalize(selector, known, origin))


def resolve(layers: Sequence[Layer], known: Mapping[str, str]) -> frozenset[str]:
    """The codes enabled after applying ``layers``; ``known`` maps code -> rule name."""
    enabled: set[str] = set()
    for layer in layers:
        result: set[str] = set()
        for code, name in known.items():
            best: tuple[int, int] | None = None  # (specificity, 1 for keep / 0 for drop)
            base = layer.select if layer.select is not None else ()
            candidates = [(s, 1) for s in (*base, *layer.extend_select)]
            candidates += [(s, 0) for s in layer.ignore]
            for selector, keep in candidates:
                spec = _specificity(selector, code, name)
                if spec is None:
                    continue
                # On a tie, ignore (keep=0) wins: compare (spec, -keep).
                if best is None or (spec, -keep) > (best[0], -best[1]):
                    best = (spec, keep)
            if best is None:
                inherited = layer.select is None and code in enabled
                if inherited:
                    result.add(code)
            elif best[1]:
                result.add(code)
        enabled = result
    return frozenset(enabled)

"""What a rule declares it needs in a file to report there (``candidates``): terms such as
``.to|.cuda on torch.tensor`` parsed into :class:`Candidates`, which
:func:`h2dlint.candidates.summarize`'s summary of a file is matched against. Split out of
``candidates.py``."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from h2dlint.candidates import Shape, Summary

_EMPTY: frozenset[str] = frozenset()


class CandidatesError(ValueError):
    pass


@dataclass(frozen=True)
class CallName:
    name: str
    method: bool  # ``x.name(...)``, else ``name(...)``


@dataclass(frozen=True)
class Term:
    """One call with these properties (see the module's documentation)."""

    names: tuple[CallName, ...]
    keywords: frozenset[str] = frozenset()
    loop: bool = False
    iter: bool = False
    in_def: bool = False
    on_loop: bool = False
    # With ``on_loop``: the kinds of the loop's iterable (empty: any).
    over: frozenset[str] = frozenset()
    on: frozenset[str] = frozenset()
    of: frozenset[str] = frozenset()
    kinds: frozenset[str] = frozenset()
    # The kinds of a loop around the call (empty: any or none).
    within: frozenset[str] = frozenset()
    # A ``text`` term: words the file holds (then ``names`` is empty).
    words: frozenset[bytes] = frozenset()

    def matches(self, summary: Summary) -> bool:
        if self.words:
            return summary.mentions(self.words)
        calls = summary.calls
        for wanted in self.names:
            if wanted.name == "*":  # any call, method or not
                if any(self._fits(shape, summary) for shapes in calls.values() for shape in shapes):
                    return True
                continue
            shapes = calls.get(wanted.name)
            if not shapes:
                continue
            for shape in shapes:
                if shape[0] == wanted.method and self._fits(shape, summary):
                    return True
        return False

    def _fits(self, shape: Shape, summary: Summary) -> bool:
        _, in_loop, is_iter, in_def, keywords, reads_loop, made, names, kind, within = shape
        if self.within and not (within & self.within):
            return False
        if (self.loop and not in_loop) or (self.iter and not is_iter):
            return False
        if self.in_def and not in_def:
            return False
        if self.keywords and not (keywords & self.keywords):
            return False
        if self.on_loop and not (reads_loop & self.over if self.over else reads_loop):
            return False
        if self.kinds and kind not in self.kinds:
            return False
        if self.of and not (made & self.of):
            return False
        if self.on and not (made & self.on):
            bound = summary.bound
            if not any(self.on & bound.get(name, _EMPTY) for name in names):
                return False
        return True


@dataclass(frozen=True)
class Candidates:
    """A rule's candidates: any of ``patterns``, each a conjunction of terms."""

    patterns: tuple[tuple[Term, ...], ...]

    def matches(self, summary: Summary) -> bool:
        return any(all(term.matches(summary) for term in pattern) for pattern in self.patterns)

    @classmethod
    def parse(cls, declaration: str | Iterable[str]) -> Candidates:
        texts = (declaration,) if isinstance(declaration, str) else tuple(declaration)
        if not texts:
            raise CandidatesError("a candidates declaration needs at least one pattern")
        patterns = []
        for text in texts:
            if not isinstance(text, str):
                raise CandidatesError(f"candidate pattern {text!r} is not a string")
            patterns.append(tuple(_term(part, text) for part in text.split("&")))
        return cls(tuple(patterns))


_ID = r"[A-Za-z_][A-Za-z0-9_]*"
_NAMES = rf"(?:\*|[.@]?{_ID}(?:\|[.@]?{_ID})*)"
_KEYWORD = rf"{_ID}=(?:True|False|None)?"
_TERM = re.compile(
    rf"(?P<loop>loop\s+)?(?P<iter>iter\s+)?(?P<def>def\s+)?(?P<names>{_NAMES})"
    rf"(?:\((?P<keywords>{_KEYWORD}(?:\|{_KEYWORD})*)\))?"
    rf"(?:\s+on\s+(?P<on>{_NAMES})(?:\s+over\s+(?P<over>{_NAMES}))?|\s+of\s+(?P<of>{_NAMES}))?"
    rf"(?:\s+arg\s+(?P<kinds>{_ID}(?:\|{_ID})*))?"
    rf"(?:\s+in\s+(?P<within>{_NAMES}))?"
)


_TEXT = re.compile(r"text\s+(?P<words>[a-z0-9_]+(?:\|[a-z0-9_]+)*)")


def _term(part: str, text: str) -> Term:
    words = _TEXT.fullmatch(part.strip())
    if words is not None:
        return Term((), words=frozenset(w.encode() for w in words["words"].split("|")))
    match = _TERM.fullmatch(part.strip())
    if match is None:
        raise CandidatesError(
            f"candidate pattern {text!r}: cannot read {part.strip()!r} "
            "(expected e.g. 'loop .to|.cuda(non_blocking=True) on loop' or 'cat|stack')"
        )
    names = tuple(
        CallName(name.lstrip("."), name.startswith(".")) for name in match["names"].split("|")
    )
    keywords = frozenset(k.rstrip("=") for k in (match["keywords"] or "").split("|") if k)
    on = frozenset(n for n in (match["on"] or "").split("|") if n)
    return Term(
        names,
        keywords,
        loop=bool(match["loop"]),
        iter=bool(match["iter"]),
        in_def=bool(match["def"]),
        on_loop=on == {"loop"},
        over=frozenset((match["over"] or "").split("|")) - {""},
        on=frozenset() if on == {"loop"} else on,
        of=frozenset(n for n in (match["of"] or "").split("|") if n),
        kinds=frozenset(k for k in (match["kinds"] or "").split("|") if k),
        within=frozenset(k for k in (match["within"] or "").split("|") if k),
    )


def called_as(qualified: Iterable[str]) -> str:
    """``NAMES`` for calls of these qualified names (``torch.cat`` -> ``.cat|cat``), so that a
    rule's declaration follows the analysis's list of them instead of repeating it."""
    names = sorted({name.rpartition(".")[2] for name in qualified})
    return "|".join(f".{name}|{name}" for name in names)


def as_candidates(declaration: object) -> Candidates | None:
    """A rule's ``candidates`` attribute as parsed patterns (None: no declaration)."""
    if declaration is None or isinstance(declaration, Candidates):
        return declaration
    if isinstance(declaration, (str, tuple, list)):
        return Candidates.parse(declaration)
    raise CandidatesError(f"candidates must be a tuple of pattern strings, not {declaration!r}")

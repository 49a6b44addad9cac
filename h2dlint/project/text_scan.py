"""How a module's text names a word, without a regular expression over the whole text.

The project index asks, for many (module, name) pairs, whether the module's bytes hold ``name``
as a whole word and whether one of its occurrences follows ``def`` or ``class``. A regular
expression starting with a look-behind (``(?<![A-Za-z0-9_])name``) cannot skip ahead to the
literal, so it tries a match at every byte: on a 280 KB module a search for an absent name took
some 20-100 ms, and a whole-tree run asks thousands of them. Here the occurrences of the name are
found with ``bytes.find`` (a fast substring search) and only they are checked, with the same
boundaries as the expressions (kept in :data:`WORD` and :data:`DEFINITION` for reference and for
the tests that compare both).
"""

from __future__ import annotations

import bisect
import re

ABSENT, DEFINED, NAMED = "absent", "defined", "named"

# The expressions whose answers :func:`naming` gives (``{name}``: the escaped name).
WORD = rb"(?<![A-Za-z0-9_])%s(?![A-Za-z0-9_])"
DEFINITION = rb"(?<![A-Za-z0-9_])(?:def|class)(?:\s|\\)+%s(?![A-Za-z0-9_])"

_WORD_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
# ``\s`` of a bytes pattern, and the backslash of a line continuation.
_GAP_BYTES = frozenset(b" \t\n\r\x0b\x0c\\")


def naming(data: bytes, name: str) -> str:
    """How ``data`` names ``name``: not as a whole word (ABSENT), after ``def`` or ``class``
    (DEFINED), or otherwise (NAMED). The same answer as searching :data:`WORD` and then
    :data:`DEFINITION` with the name escaped."""
    needle = name.encode()
    size = len(needle)
    if not size:
        return _by_expressions(data, needle)
    word = _WORD_BYTES
    found = False
    at = data.find(needle)
    while at >= 0:
        end = at + size
        if (end >= len(data) or data[end] not in word) and (at == 0 or data[at - 1] not in word):
            found = True
            if _after_definition_keyword(data, at):
                return DEFINED
        at = data.find(needle, at + 1)
    return NAMED if found else ABSENT


def _after_definition_keyword(data: bytes, at: int) -> bool:
    """Whether ``data[:at]`` ends in ``def`` or ``class`` (as a whole word) followed by at
    least one blank or backslash."""
    gap = _GAP_BYTES
    start = at
    while start > 0 and data[start - 1] in gap:
        start -= 1
    if start == at:
        return False
    for keyword in (b"def", b"class"):
        begin = start - len(keyword)
        if (
            begin >= 0
            and data[begin:start] == keyword
            and (begin == 0 or data[begin - 1] not in _WORD_BYTES)
        ):
            return True
    return False


def _by_expressions(data: bytes, needle: bytes) -> str:
    escaped = re.escape(needle)
    if re.search(WORD % escaped, data) is None:
        return ABSENT
    return DEFINED if re.search(DEFINITION % escaped, data) else NAMED


# The expression :func:`calls` answers (``{name}``: the escaped name).
CALL = rb"(?<![A-Za-z0-9_])%s\s*\("
_BLANK_BYTES = frozenset(b" \t\n\r\x0b\x0c")


def calls(data: bytes, name: str) -> bool:
    """Whether ``data`` has ``name`` as a whole word followed by an opening parenthesis
    (blanks allowed between): the same answer as searching :data:`CALL`. For a run that keeps
    no summaries: cheaper than listing every name a module calls (:func:`called_text`) when
    only a few names are asked about."""
    needle = name.encode()
    size = len(needle)
    if not size:
        return re.search(CALL % re.escape(needle), data) is not None
    blank, word, end_of_data = _BLANK_BYTES, _WORD_BYTES, len(data)
    at = data.find(needle)
    while at >= 0:
        if at == 0 or data[at - 1] not in word:
            end = at + size
            while end < end_of_data and data[end] in blank:
                end += 1
            if end < end_of_data and data[end] == 0x28:  # "("
                return True
        at = data.find(needle, at + 1)
    return False


# Joins the texts :func:`calling_texts` searches: no name, blank or parenthesis, so that neither
# a name nor the blanks before a call's parenthesis run from one text into the next.
SEPARATOR = b"\x00"


def calling_texts(joined: bytes, starts: list[int], name: str) -> list[int]:
    """The indexes, in order, of the texts that call ``name`` as :func:`calls` answers for
    each, from one search through them joined (``joined``: the texts with :data:`SEPARATOR`
    after each, the one at index ``i`` starting at ``starts[i]``): a search per text costs a
    Python call per text for every name asked."""
    needle = name.encode()
    size = len(needle)
    if not size or SEPARATOR in needle:
        return [
            i
            for i, start in enumerate(starts)
            if calls(joined[start : _end(joined, starts, i)], name)
        ]
    blank, word, end_of_data = _BLANK_BYTES, _WORD_BYTES, len(joined)
    found: list[int] = []
    at = joined.find(needle)
    while at >= 0:
        if at == 0 or joined[at - 1] not in word:
            end = at + size
            while end < end_of_data and joined[end] in blank:
                end += 1
            if end < end_of_data and joined[end] == 0x28:  # "("
                text = bisect.bisect_right(starts, at) - 1
                found.append(text)
                if text + 1 == len(starts):
                    break
                at = joined.find(needle, starts[text + 1])  # the next text
                continue
        at = joined.find(needle, at + 1)
    return found


def _end(joined: bytes, starts: list[int], i: int) -> int:
    """Where the text at index ``i`` of ``joined`` ends (before its separator)."""
    return (starts[i + 1] if i + 1 < len(starts) else len(joined)) - len(SEPARATOR)


# A name followed by an opening parenthesis: a call, or a definition (close enough to find the
# few files worth parsing). The look-behind finds the same names as the pattern without it (a
# name's tail matches only where the whole name does, and the whole name is found first) but
# does not retry every tail of every name: 3-4 times faster on a large project.
_CALLED = re.compile(rb"(?<![A-Za-z_])([A-Za-z_][A-Za-z0-9_]*)\s*\(")


def called_in(data: bytes) -> set[bytes]:
    """The names a module's text calls (``name(``), for the table of called names."""
    return set(_CALLED.findall(data))


def called_text(data: bytes) -> str:
    """The names a module's text calls, sorted, each with a blank before and after
    (`` a b c ``): the summary part ``calls``, in which a search for `` name `` tells whether
    the module calls ``name`` (one substring search instead of a set per module)."""
    names = sorted(name.decode() for name in called_in(data))
    return f" {' '.join(names)} " if names else " "


# After a class's name: a call of it or of an alternate constructor (``Cls(``,
# ``Cls.from_config(``), or a union (``Cls | None``).
_TYPED_AFTER = re.compile(rb"\s*\(|\.[A-Za-z_][A-Za-z0-9_]*\s*\(|\s*\|")
# Before it: an annotation (``: Cls``, ``: "Cls"``, ``: mod.Cls``, ``Optional[Cls``,
# ``None | Cls``), or a module path (``mod.Cls(``: the name is then followed by a call).
# A container's item (``dict[str, Cls]``, ``list[Cls]``: ``project/container_items.py``).
_TYPED_BEFORE = re.compile(
    rb"(?::\s*['\"]?|Optional\[|\|\s*"
    rb"|(?:dict|Dict|list|List|Mapping|MutableMapping|Sequence|OrderedDict)\[(?:[^\[\]]*,\s*)?)"
    rb"(?:[A-Za-z_][A-Za-z0-9_]*\.)*\Z"
)


def holds_typed(data: bytes, cls: str) -> bool:
    """Whether the text can hold an object of class ``cls`` as far as its summary can tell
    (``summary.call_edges``): a call of the class or of one of its alternate constructors
    (``Cls(``, ``mod.Cls(``, ``Cls.from_config(``), or an annotation naming it (``: Cls``,
    ``: "Cls"``, ``Optional[Cls]``, ``Cls | None``). Not a mention in a comment, a string or
    a list of names. Each occurrence of the name is looked at in its few bytes around."""
    needle = cls.encode()
    size = len(needle)
    at = data.find(needle)
    while at != -1:
        end = at + size
        whole = (at == 0 or data[at - 1] not in _WORD_BYTES) and (
            end == len(data) or data[end] not in _WORD_BYTES
        )
        if whole and (
            _TYPED_AFTER.match(data, end) or _TYPED_BEFORE.search(data[max(at - 80, 0) : at])
        ):
            return True
        at = data.find(needle, end)
    return False

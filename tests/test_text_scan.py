"""The project index's word scan gives the answers of the expressions it replaces."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from h2dlint.project.text_scan import (
    _CALLED,
    ABSENT,
    CALL,
    DEFINED,
    DEFINITION,
    NAMED,
    SEPARATOR,
    WORD,
    called_text,
    calling_texts,
    calls,
    naming,
)


def _by_expressions(data: bytes, name: str) -> str:
    escaped = re.escape(name.encode())
    if re.search(WORD % escaped, data) is None:
        return ABSENT
    return DEFINED if re.search(DEFINITION % escaped, data) else NAMED


TEXTS = [
    b"",
    b"X",
    b"class X:\n    pass\n",
    b"def X(a):\n    return a\n",
    b"from .m import X\n",
    b"XY = 1\nY_X = 2\n9X\n",
    b"def  class X",  # overlapping keywords: the second one defines X
    b"class\\\nX(",
    b"adef X\nxclass X\n_def X\n",
    b"def\tX_\ndef \\ X\n",
    b"defX = 1\n",
    b"s = 'class X'\n",
    "\u00e9X = 1\ndef \u00e9(): pass\n".encode(),
]


@pytest.mark.parametrize("data", TEXTS)
@pytest.mark.parametrize("name", ["X", "X_", "Y", "class", "def", "\u00e9", "Q"])
def test_naming_agrees_with_the_expressions(data: bytes, name: str) -> None:
    assert naming(data, name) == _by_expressions(data, name)


def test_naming_tells_the_three_cases() -> None:
    text = b"from a import used\nclass Made:\n    def method(self):\n        used()\n"
    assert naming(text, "Made") == DEFINED
    assert naming(text, "method") == DEFINED
    assert naming(text, "used") == NAMED
    assert naming(text, "use") == ABSENT
    assert naming(text, "absent") == ABSENT


@pytest.mark.parametrize(
    "data",
    [b"f(", b"f (", b"f\n(", b"f \\\n(", b"af(", b"_f(", b"f", b"fx(", b"x.f(1)", b""],
)
def test_calls_agrees_with_the_expression(data: bytes) -> None:
    assert calls(data, "f") == (re.search(CALL % b"f", data) is not None)


@pytest.mark.parametrize(
    "data",
    [b"f(", b"f (", b"f\n(", b"f \\\n(", b"af(", b"_f(", b"f", b"fx(", b"x.f(1)", b""],
)
def test_a_modules_calls_part_names_what_it_calls(data: bytes) -> None:
    # What the part is searched for: " f " when the text calls f (as a word, blanks allowed).
    expected = re.search(rb"(?<![A-Za-z0-9_])f\s*\(", data) is not None
    assert (" f " in called_text(data)) == expected


def test_the_calls_part_is_each_called_name_once_sorted() -> None:
    data = b"import torch\nx = torch.zeros(3)\ny = g(f(x)) + f (x)\nclass C(Base):\n    pass\n"
    assert called_text(data) == " C f g zeros "
    assert called_text(b"x = 1\n") == " "


@given(st.text(alphabet="ab_1 (.\n\t", max_size=40))
def test_the_called_names_scan_finds_what_the_plain_pattern_finds(text: str) -> None:
    plain = re.compile(rb"([A-Za-z_][A-Za-z0-9_]*)\s*\(")  # the look-behind only saves time
    data = text.encode()
    assert _CALLED.findall(data) == plain.findall(data)


# Bytes mapped onto names, blanks, parentheses and the separator itself (a text may hold one).
_ALPHABET = bytes(b"fa_ (\n\t.\x00"[i % 9] for i in range(256))


def _joined(texts: list[bytes]) -> tuple[bytes, list[int]]:
    starts, at = [], 0
    for text in texts:
        starts.append(at)
        at += len(text) + len(SEPARATOR)
    return SEPARATOR.join(texts) + SEPARATOR, starts


@given(
    st.lists(st.binary(max_size=12).map(lambda b: b.translate(_ALPHABET)), max_size=6),
    st.sampled_from(["f", "fa", "a", "_", ""]),
)
def test_the_joined_search_answers_as_one_search_per_text(texts: list[bytes], name: str) -> None:
    joined, starts = _joined(texts)
    expected = [i for i, text in enumerate(texts) if calls(text, name)]
    assert calling_texts(joined, starts, name) == expected


def test_no_call_runs_from_one_text_into_the_next() -> None:
    joined, starts = _joined([b"x = f", b"(1)", b"f \n", b"\n(2)", b"g(f (3))"])
    assert calling_texts(joined, starts, "f") == [4]
    assert calling_texts(joined, starts, "g") == [4]
    assert calling_texts(joined, starts, "x") == []

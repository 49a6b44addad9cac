"""Files too large for libcst to parse whole: reduced to the statements a rule could flag.

The threshold is lowered here so that small files take the large-file path; the 10 MB files of
``test_properties.py`` check the real sizes end to end.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import h2dlint.large_files
import h2dlint.pipeline
from h2dlint.diagnostics import IO_ERROR_CODE
from h2dlint.engine import EnabledRule
from h2dlint.large_files import reduce_source
from h2dlint.pipeline import FileJob, Mode, process
from h2dlint.registry import all_rules

FLAGGED = "y = torch.tensor([1, 2]).to('cuda', non_blocking=True)\n"


def _reduce(text: str, markers: tuple[bytes, ...] = (b"non_blocking",)) -> tuple[str, int]:
    return reduce_source(text, ast.parse(text), markers)


@pytest.fixture
def small_threshold(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(h2dlint.large_files, "LARGE_FILE_CHARS", 100)


def _run(text: str, mode: Mode = Mode.CHECK, codes: tuple[str, ...] = ("HTD102",)) -> list:
    rules = tuple(EnabledRule(all_rules()[code]) for code in codes)
    data = text.encode()
    result = process(FileJob("big.py", "big.py", data, rules, mode=mode))
    return result.findings


def test_kept_statements_stay_on_their_rows_and_columns() -> None:
    text = (
        "import torch\n"
        "TABLE = [\n    1,\n    2,\n]\n"
        "\n# a comment\n"
        "@decorator\ndef helper(x):\n    return x + 1\n"
        "class Config:\n    size = 4\n" + FLAGGED
    )
    reduced, kept = _reduce(text)
    old, new = text.splitlines(), reduced.splitlines()
    assert len(new) == len(old)
    assert new[0] == "import torch"
    assert new[-1] == FLAGGED.rstrip("\n")
    assert "# a comment" not in reduced  # inside the run of stubbed statements
    assert "TABLE" not in reduced and "helper" not in reduced  # bound nowhere else
    assert kept == len("import torch\n") + len(FLAGGED)
    ast.parse(reduced)


def test_a_stub_rebinds_names_that_kept_statements_also_bind() -> None:
    """Else the pinned binding above would seem to reach the copy below."""
    text = (
        "import torch\n"
        "buf = torch.zeros(4, pin_memory=True)\n"
        "buf = make_pageable()\n"
        "out = buf.to('cuda')\n"
    )
    reduced, _ = _reduce(text, (b"pin_memory", b".to("))
    assert reduced.splitlines()[2].startswith("buf = _h2dlint_elided(")


def test_statements_sharing_a_line_and_marked_lines_are_kept() -> None:
    text = "import torch\na = 1; b = 2\nc = 3  # noqa: HTD999\nd = [\n  1,\n]\n"
    reduced, _ = _reduce(text, (b"noqa",))
    lines = reduced.splitlines()
    assert lines[1] == "a = 1; b = 2"
    assert lines[2] == "c = 3  # noqa: HTD999"
    assert lines[3].startswith("_h2dlint_elided(")


def test_docstring_and_crlf_survive() -> None:
    text = '"""Doc."""\r\nfrom __future__ import annotations\r\nX = 1\r\n' + FLAGGED
    reduced, _ = _reduce(text)
    assert reduced.startswith('"""Doc."""\r\nfrom __future__ import annotations\r\n')
    assert reduced.endswith(FLAGGED)
    compile(reduced, "reduced.py", "exec")


@pytest.mark.usefixtures("small_threshold")
def test_large_file_findings_are_located_and_carry_no_fix() -> None:
    text = "import torch\n" + "".join(f"V{i} = [{i}, {i}]\n" for i in range(50)) + FLAGGED
    findings = _run(text)
    assert [(f.code, f.start.row, f.start.column) for f in findings] == [("HTD102", 52, 5)]
    assert findings[0].source_line == FLAGGED.rstrip("\n")


@pytest.mark.usefixtures("small_threshold")
def test_large_file_is_never_fixed(tmp_path: Path) -> None:
    text = (
        "import torch\n"
        + "".join(f"V{i} = [{i}]\n" for i in range(50))
        + ("def f(xs):\n    return torch.cat(xs).to('cuda', non_blocking=True)\n")
    )
    path = tmp_path / "big.py"
    path.write_text(text)
    rules = (EnabledRule(all_rules()["HTD104"]),)
    result = process(FileJob(str(path), "big.py", text.encode(), rules, mode=Mode.FIX, unsafe=True))
    assert path.read_text() == text
    codes = [f.code for f in result.findings]
    assert codes == ["HTD104", IO_ERROR_CODE]
    assert "fixes not applied" in result.findings[-1].message


@pytest.mark.usefixtures("small_threshold")
def test_too_much_kept_code_is_reported_not_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(h2dlint.pipeline, "MAX_KEPT_CHARS", 200)
    text = "import torch\n" + FLAGGED * 20
    findings = _run(text)
    assert [f.code for f in findings] == [IO_ERROR_CODE]
    assert "file not checked" in findings[0].message


@pytest.mark.usefixtures("small_threshold")
def test_large_file_with_a_syntax_error_is_located_by_cpython() -> None:
    text = "import torch\n" + "x = 1\n" * 40 + "def f(:\n    pass\n"
    findings = _run(text)
    assert [(f.code, f.start.row) for f in findings] == [("E999", 42)]

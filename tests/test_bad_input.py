"""Bad input: every broken file gets a clear, located finding, and the run goes on.

Each case pairs the bad file with a good one holding an HTD102 finding, which must still be
reported: one bad file never costs the rest of the run.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

import h2dlint.runner
from h2dlint.cli import main
from h2dlint.jobs import EnabledRule
from h2dlint.pipeline import FileJob, FileResult, Mode, process
from h2dlint.registry import all_rules

FLAGGED = "import torch\ny = torch.tensor([1, 2]).to('cuda', non_blocking=True)\n"
FLAGGED_AT = (2, 5)
BOM = b"\xef\xbb\xbf"
FINDING_LINE = re.compile(
    r"^(?P<path>[^\s:][^:]*):(?P<row>\d+):(?P<column>\d+): "
    r"(?P<code>[A-Z][A-Z0-9]+) (?P<message>.*)$"
)


@dataclass(frozen=True)
class Hit:
    path: str
    code: str
    row: int
    column: int
    message: str

    @property
    def where(self) -> tuple[str, str, int, int]:
        return (self.path, self.code, self.row, self.column)


def hits(output: str) -> list[Hit]:
    """The findings in text output, as the user reads them: ``path:row:col: CODE message``."""
    found = []
    for line in output.splitlines():
        match = FINDING_LINE.match(line)
        if match:
            found.append(
                Hit(
                    match["path"],
                    match["code"],
                    int(match["row"]),
                    int(match["column"]),
                    match["message"],
                )
            )
    return found


def lint(*args: str) -> Result:
    """Run the CLI in-process (cwd: the test's project), never touching a cache."""
    return CliRunner().invoke(main, ["--no-cache", "--no-color", *args], catch_exceptions=False)


def lint_process(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run the CLI in a child process: a crash or a hang there cannot take pytest with it."""
    return subprocess.run(
        [sys.executable, "-m", "h2dlint", "--no-cache", "--no-color", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def good_file_reported(found: list[Hit], path: str = "good.py") -> bool:
    return (path, "HTD102", *FLAGGED_AT) in [hit.where for hit in found]


def assert_one_io_error(result: Result, path: str, message_part: str) -> None:
    """``path`` got one E902 saying ``message_part``; good.py was still checked; exit 1."""
    found = hits(result.stdout)
    errors = [hit for hit in found if hit.path == path]
    assert [hit.code for hit in errors] == ["E902"]
    assert message_part in errors[0].message
    assert good_file_reported(found)
    assert result.exit_code == 1


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "good.py").write_text(FLAGGED)
    return tmp_path


# -- syntax errors ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "row", "column"),
    [
        ("def f(:\n    pass\n", 1, 7),
        ("a = 1\nb = 2 2\n", 2, 7),
        ("x = 'abc\n", 1, 5),
        ("if x:\npass\n", 2, 1),
        ("def f():\n\tif True:\n        return 1\n", 3, 1),  # tabs and spaces mixed
    ],
    ids=["unclosed-def", "two-values", "unterminated-string", "missing-indent", "tab-space"],
)
@pytest.mark.parametrize("needs_parse", [False, True], ids=["prefiltered", "parsed"])
def test_syntax_error_is_located_and_the_run_goes_on(
    project: Path, source: str, row: int, column: int, needs_parse: bool
) -> None:
    if needs_parse:  # a marker sends the file through the full libcst parse
        source = "# non_blocking\n" + source
        row += 1
    (project / "bad.py").write_text(source)
    result = lint("bad.py", "good.py")
    found = hits(result.stdout)
    errors = [hit for hit in found if hit.path == "bad.py"]
    assert [(hit.code, hit.row, hit.column) for hit in errors] == [("E999", row, column)]
    assert errors[0].message.startswith("SyntaxError: ")
    assert good_file_reported(found)
    assert result.exit_code == 1


@pytest.mark.parametrize("mode", [Mode.CHECK, Mode.FIX])
@pytest.mark.parametrize(
    "text",
    [
        "import torch\ndef f(xs, dev):\n    return torch.cat(xs).to(dev, non_blocking=True\n",
        "x = (1,\n",
        "import torch\ndef f(xs, dev):\n"
        "    return torch.cat(xs).to(dev, non_blocking=True)\n\n\\\r\n",
    ],
    ids=["broken-with-markers", "broken", "valid-for-cpython-only"],
)
def test_each_file_is_parsed_once_by_cpython(
    monkeypatch: pytest.MonkeyPatch, mode: Mode, text: str
) -> None:
    """A file libcst refuses is reported from what CPython already made of it, never parsed by
    CPython a second (or third) time."""
    import h2dlint.parsing

    calls: list[str] = []
    real = h2dlint.parsing.python_ast

    def counting(source: str) -> object:
        calls.append(source)
        return real(source)

    monkeypatch.setattr(h2dlint.parsing, "python_ast", counting)
    rules = tuple(EnabledRule(rule) for rule in all_rules().values())
    job = FileJob(path="x.py", display="x.py", data=text.encode(), rules=rules, mode=mode)
    result = process(job)
    assert [f.code for f in result.findings] in (["E999"], ["E902"])
    assert calls == [text]


def test_valid_python_libcst_cannot_parse_is_not_checked_not_a_syntax_error(
    project: Path,
) -> None:
    """A line continuation before the end of the file: CPython accepts it, libcst's tokenizer
    does not. The code is valid, so no E999: an E902 says the file was not checked, where a
    rule needed to look (found by the fuzz tests)."""
    (project / "needs.py").write_bytes(
        b"import torch\n\n\ndef f(xs, d):\n"
        b"    return torch.cat(xs).to(d, non_blocking=True)\n\n\\\r\n"
    )
    (project / "skipped.py").write_bytes(b"x = 1\n\\\r\n")
    found = hits(lint("needs.py", "skipped.py").stdout)
    assert [(hit.path, hit.code) for hit in found] == [("needs.py", "E902")]
    assert found[0].message.startswith("file not checked: Python accepts it")
    # With the prefilter off, the other file is parsed too, and reported the same way.
    found = hits(lint("--no-prefilter", "skipped.py").stdout)
    assert [(hit.path, hit.code) for hit in found] == [("skipped.py", "E902")]


@pytest.mark.parametrize(
    ("config", "args"),
    [
        ("", ["--ignore", "HTD102"]),
        ('[tool.h2dlint]\nper-file-ignores = { "bad.py" = ["ALL"] }\n', []),
    ],
    ids=["ignore-flag", "per-file-ignores"],
)
def test_syntax_error_is_reported_with_every_rule_turned_off(
    project: Path, config: str, args: list[str]
) -> None:
    """E999 is not a rule: it cannot be deselected."""
    (project / "pyproject.toml").write_text(config)
    (project / "bad.py").write_text("a = 1\nb = 2 2\n")
    result = lint(*args, "bad.py")
    assert [hit.where for hit in hits(result.stdout)] == [("bad.py", "E999", 2, 7)]
    assert result.exit_code == 1


# -- encodings ----------------------------------------------------------------------------------


@pytest.mark.parametrize("warnings", ["always", "error"])
def test_code_cpython_warns_about_is_checked_silently(project: Path, warnings: str) -> None:
    """CPython's compiler warns about an invalid escape sequence or ``is`` with a literal
    (SyntaxWarning from 3.12). Not h2dlint's to report, and printed they would name no file;
    under ``-W error`` they would even become syntax errors."""
    (project / "warns.py").write_text(
        "import torch\n"
        "pattern = '\\d+\\.'\n"
        "same = pattern is 'x'\n"
        "y = torch.tensor([1]).to('cuda', non_blocking=True)\n"
    )
    done = subprocess.run(
        [sys.executable, "-W", warnings, "-m", "h2dlint", "--no-cache", "-j1", "warns.py"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert "Warning" not in done.stderr
    assert "E999" not in done.stdout
    assert "HTD102" in done.stdout and done.returncode == 1


@pytest.mark.parametrize(
    ("data", "row", "column"),
    [
        (b"x = '\xff'\n", 1, 6),
        (b"import os\nx = '\xff'\n", 2, 6),
        (b"import os\n\n\ny = 'ab\xffc'\n", 4, 8),
        # Columns count characters, as for every finding: not the BOM, not the bytes of 'é'.
        (BOM + b"x = '\xff'\n", 1, 6),
        ("s = 'é".encode() + b"\xff'\n", 1, 7),
        # A lone CR ends a line for Python, so it does for the row too.
        (b"import os\rx = 1\r\ny = '\xff'\r", 3, 6),
    ],
    ids=["line-1", "line-2", "line-4", "after-bom", "after-multibyte", "cr-lines"],
)
def test_non_utf8_byte_is_an_io_error_naming_the_byte_and_its_place(
    project: Path, data: bytes, row: int, column: int
) -> None:
    (project / "bad.py").write_bytes(data)
    result = lint("bad.py", "good.py")
    found = hits(result.stdout)
    errors = [hit for hit in found if hit.path == "bad.py"]
    assert [(hit.code, hit.row, hit.column) for hit in errors] == [("E902", row, column)]
    assert "0xff" in errors[0].message
    assert "utf-8" in errors[0].message
    assert good_file_reported(found)
    assert result.exit_code == 1


def test_latin1_file_with_coding_cookie_is_checked_normally(project: Path) -> None:
    (project / "latin.py").write_bytes(
        b"# -*- coding: latin-1 -*-\n"
        b"import torch\n"
        b"s = 'caf\xe9'; y = torch.tensor([1, 2]).to('cuda', non_blocking=True)\n"
    )
    result = lint("latin.py", "good.py")
    found = hits(result.stdout)
    # Columns count characters: 'caf\xe9' is one byte and one character in latin-1.
    assert [hit.where for hit in found if hit.path == "latin.py"] == [("latin.py", "HTD102", 3, 17)]
    assert good_file_reported(found)
    assert result.exit_code == 1


def test_utf8_bom_file_is_checked_normally(project: Path) -> None:
    (project / "bom.py").write_bytes(
        BOM
        + "import torch\ns = 'é'; y = torch.tensor([1, 2]).to('cuda', non_blocking=True)\n".encode()
    )
    result = lint("bom.py", "good.py")
    found = hits(result.stdout)
    # Neither the BOM nor the two-byte 'é' shifts the column.
    assert [hit.where for hit in found if hit.path == "bom.py"] == [("bom.py", "HTD102", 2, 14)]
    assert good_file_reported(found)
    assert result.exit_code == 1


def test_bad_coding_cookie_is_a_clear_io_error(project: Path) -> None:
    (project / "bad.py").write_bytes(b"# -*- coding: no-such-codec -*-\nx = 1\n")
    result = lint("bad.py", "good.py")
    found = hits(result.stdout)
    errors = [hit for hit in found if hit.path == "bad.py"]
    assert [hit.code for hit in errors] == ["E902"]
    assert "no-such-codec" in errors[0].message
    assert good_file_reported(found)


# -- line endings and indentation ---------------------------------------------------------------

LINES = [
    "import torch",
    "",
    "x = 1",
    "y = torch.tensor([1, 2]).to('cuda', non_blocking=True)",
    "z = 2",
    "w = torch.tensor([3]).to('cuda', non_blocking=True)",
    "",
]


@pytest.mark.parametrize(
    "endings",
    [["\r\n"], ["\r\n", "\n"], ["\n", "\r\n", "\n", "\r"]],
    ids=["crlf", "crlf-and-lf", "lf-crlf-and-cr"],
)
def test_line_endings_do_not_shift_rows(project: Path, endings: list[str]) -> None:
    text = "".join(line + endings[i % len(endings)] for i, line in enumerate(LINES))
    (project / "eol.py").write_bytes(text.encode())
    result = lint("eol.py")
    assert [hit.where for hit in hits(result.stdout)] == [
        ("eol.py", "HTD102", 4, 5),
        ("eol.py", "HTD102", 6, 5),
    ]
    assert result.exit_code == 1


def test_tab_indentation_columns_count_characters(project: Path) -> None:
    (project / "tabs.py").write_text(
        "import torch\n"
        "def f():\n"
        "\tif True:\n"
        "\t\treturn torch.tensor([1, 2]).to('cuda', non_blocking=True)\n"
    )
    result = lint("tabs.py")
    assert [hit.where for hit in hits(result.stdout)] == [("tabs.py", "HTD102", 4, 10)]
    assert result.exit_code == 1


def test_form_feed_and_unicode_line_breaks_do_not_shift_rows(project: Path) -> None:
    """Only CR, LF and CRLF end a line: a form feed, U+2028 or U+0085 in a string does not."""
    (project / "ff.py").write_text(
        "import torch\n\x0c\ns = 'a\u2028b\x85c'\n" + FLAGGED.splitlines(keepends=True)[1]
    )
    result = lint("ff.py")
    assert [hit.where for hit in hits(result.stdout)] == [("ff.py", "HTD102", 4, 5)]


def test_form_feed_at_line_start_counts_as_a_column(project: Path) -> None:
    (project / "ff.py").write_text(
        "import torch\n\x0cy = torch.tensor([1, 2]).to('cuda', non_blocking=True)\n"
    )
    result = lint("ff.py")
    assert [hit.where for hit in hits(result.stdout)] == [("ff.py", "HTD102", 2, 6)]


@pytest.mark.parametrize("data", [b"", b"\n\n", BOM, b"\r\n"], ids=["empty", "lf", "bom", "crlf"])
def test_empty_file_is_clean(project: Path, data: bytes) -> None:
    (project / "empty.py").write_bytes(data)
    result = lint("empty.py")
    assert hits(result.stdout) == []
    assert "All checks passed" in result.stdout
    assert result.exit_code == 0


# -- files that are not source ------------------------------------------------------------------


def test_binary_file_named_py_is_an_io_error(project: Path) -> None:
    (project / "x.py").write_bytes(b"import os\n\x89PNG\x00\x01\x02\xff")
    result = lint("x.py", "good.py")
    found = hits(result.stdout)
    errors = [hit for hit in found if hit.path == "x.py"]
    assert [(hit.code, hit.row, hit.column) for hit in errors] == [("E902", 2, 5)]
    assert "binary" in errors[0].message
    assert good_file_reported(found)
    assert result.exit_code == 1


def test_directory_symlink_loop_finishes_and_reports_each_file_once(project: Path) -> None:
    top = project / "d"
    (top / "sub").mkdir(parents=True)
    (top / "sub" / "a.py").write_text(FLAGGED)
    os.symlink(top, top / "loop")
    os.symlink(top, top / "sub" / "back")
    proc = lint_process(project, "d", "d/loop", "d/sub/back/sub")
    assert proc.returncode == 1, proc.stderr
    assert [hit.where for hit in hits(proc.stdout)] == [("d/sub/a.py", "HTD102", *FLAGGED_AT)]
    assert "Traceback" not in proc.stderr


def test_dangling_symlink_in_walked_directory_is_an_io_error(project: Path) -> None:
    top = project / "d"
    top.mkdir()
    (top / "good.py").write_text(FLAGGED)
    os.symlink(top / "nowhere.py", top / "x.py")
    result = lint("d")
    found = hits(result.stdout)
    errors = [hit for hit in found if hit.path == "d/x.py"]
    assert [hit.code for hit in errors] == ["E902"]
    assert "dangling symlink" in errors[0].message
    assert good_file_reported(found, "d/good.py")
    assert result.exit_code == 1


def test_fifo_and_device_named_py_are_io_errors_not_hangs(project: Path) -> None:
    top = project / "d"
    top.mkdir()
    (top / "good.py").write_text(FLAGGED)
    os.mkfifo(top / "pipe.py")  # opening it for reading would wait for a writer forever
    os.symlink("/dev/zero", top / "zero.py")  # reading it would never end
    os.mkfifo(project / "named.py")
    proc = lint_process(project, "d", "named.py")
    found = hits(proc.stdout)
    errors = sorted((hit.path, hit.code) for hit in found if hit.path != "d/good.py")
    assert errors == [("d/pipe.py", "E902"), ("d/zero.py", "E902"), ("named.py", "E902")]
    assert all("not a regular file" in hit.message for hit in found if hit.code == "E902")
    assert good_file_reported(found, "d/good.py")
    assert proc.returncode == 1


def test_dangling_symlink_is_named_by_its_own_path_in_json(project: Path) -> None:
    os.symlink(project / "nowhere.py", project / "x.py")
    result = lint("--output-format", "json", "x.py")
    [record] = json.loads(result.stdout)
    assert record["code"] == "E902"
    assert Path(record["filename"]).name == "x.py"


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_unreadable_file_is_an_io_error(project: Path) -> None:
    bad = project / "secret.py"
    bad.write_text("x = 1\n")
    bad.chmod(0o000)
    try:
        result = lint("secret.py", "good.py")
    finally:
        bad.chmod(0o644)
    assert_one_io_error(result, "secret.py", "Permission denied")


def test_permission_error_on_read_is_an_io_error(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What chmod 000 does for a user other than root, simulated so that root runs it too."""
    (project / "secret.py").write_text("x = 1\n")
    real_read = h2dlint.runner.read_bytes

    def read_bytes(path: str) -> bytes:
        if os.path.basename(path) == "secret.py":
            raise PermissionError(13, "Permission denied", str(path))
        return real_read(path)

    # The runner imported the function by name: patch the name it calls.
    monkeypatch.setattr(h2dlint.runner, "read_bytes", read_bytes)
    result = lint("-j1", "secret.py", "good.py")
    found = hits(result.stdout)
    errors = [hit for hit in found if hit.path == "secret.py"]
    assert [(hit.code, hit.row, hit.column) for hit in errors] == [("E902", 1, 1)]
    assert "Permission denied" in errors[0].message
    assert good_file_reported(found)
    assert result.exit_code == 1


def test_missing_path_on_command_line_is_an_io_error(project: Path) -> None:
    result = lint("missing.py", "good.py")
    assert_one_io_error(result, "missing.py", "no such file")


def test_file_deleted_between_discovery_and_read(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / "gone.py").write_text(FLAGGED)
    real_read = h2dlint.runner.read_bytes

    def read_bytes(path: str) -> bytes:
        if os.path.basename(path) == "gone.py":
            os.unlink(path)  # discovery saw it; it disappears just before it is read
        return real_read(path)

    monkeypatch.setattr(h2dlint.runner, "read_bytes", read_bytes)
    result = lint("-j1", ".")
    assert_one_io_error(result, "gone.py", "No such file")


# -- configuration ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "content", "args", "named"),
    [
        ("pyproject.toml", "[tool.h2dlint]\nbogus = 1\n", [], "bogus"),
        ("h2dlint.toml", "bogus = 1\n", [], "bogus"),
        ("custom.toml", "bogus = 1\n", ["--config", "custom.toml"], "bogus"),
        ("pyproject.toml", "[tool.h2dlint]\nselect = 5\n", [], "select"),
        ("pyproject.toml", "[tool.h2dlint.rules.HTD102]\nnope = 1\n", [], "rules.HTD102.nope"),
    ],
    ids=["pyproject", "h2dlint-toml", "config-flag", "wrong-type", "unknown-rule-option"],
)
def test_bad_config_key_is_a_usage_error_naming_file_and_key(
    project: Path, name: str, content: str, args: list[str], named: str
) -> None:
    (project / name).write_text(content)
    result = lint(*args, "good.py")
    assert result.exit_code == 2
    assert hits(result.stdout) == []
    assert name in result.stderr
    assert named in result.stderr
    assert result.stderr.startswith("h2dlint: error: ")


def test_bad_toml_is_a_usage_error_naming_the_file(project: Path) -> None:
    (project / "pyproject.toml").write_text("[tool.h2dlint\nselect = [\n")
    result = lint("good.py")
    assert result.exit_code == 2
    assert hits(result.stdout) == []
    assert "pyproject.toml" in result.stderr
    assert "invalid TOML" in result.stderr
    assert "line 1" in result.stderr


# -- nesting ------------------------------------------------------------------------------------

DEEP = {
    "parens.py": "x = " + "(" * 5000 + ")" * 5000 + "\n",
    "parens_parsed.py": "import torch  # non_blocking\nx = " + "[" * 5000 + "]" * 5000 + "\n",
    "unary.py": "# non_blocking\nx = " + "-" * 20000 + "1\n",
    "sum.py": "# non_blocking\nx = " + " + ".join(["a"] * 20000) + "\n",
}


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_deeply_nested_expressions_are_findings_not_crashes(project: Path, jobs: str) -> None:
    for name, source in DEEP.items():
        (project / name).write_text(source)
    proc = lint_process(project, "-j", jobs, *DEEP, "good.py")
    assert "Traceback" not in proc.stderr
    assert proc.returncode == 1, (proc.returncode, proc.stderr)  # not a crash, not exit 2
    found = hits(proc.stdout)
    for name in DEEP:
        errors = [hit for hit in found if hit.path == name]
        assert [hit.code for hit in errors] == ["E999"], (name, found)
    assert (
        next(hit for hit in found if hit.path == "parens.py").column == 205
    )  # where CPython gives up
    assert good_file_reported(found)


def crash_on_marked_files(job: FileJob) -> FileResult:
    """A stand-in for a crash in native code: the worker process dies without a word."""
    if job.data.startswith(b"# crash"):
        os._exit(70)
    return process(job)


def test_worker_that_dies_costs_its_own_file_only(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / "good.py").unlink()
    names = [f"f{i:02d}.py" for i in range(24)]
    for name in names:
        (project / name).write_text(FLAGGED)
    (project / "f07.py").write_text("# crash\n" + FLAGGED)
    # Workers are forked: they call the patched function, found by name in this module.
    monkeypatch.setattr(h2dlint.runner, "process", crash_on_marked_files)
    result = lint("-j2", ".")
    found = hits(result.stdout)
    assert [(hit.path, hit.code) for hit in found if hit.path == "f07.py"] == [("f07.py", "E900")]
    assert "died" in next(hit for hit in found if hit.path == "f07.py").message
    reported = {hit.path for hit in found if hit.code == "HTD102"}
    assert reported == set(names) - {"f07.py"}
    assert result.exit_code == 2  # an internal error, and said so

"""Writing fixes back: atomically, byte for byte but the edit, and never over a changed file.

No shipped rule has a fix yet, so these tests run test-only rules through the engine API
(``process(FileJob(...))``), the same call the runner makes in each worker.
"""

from __future__ import annotations

import ast
import os
import shutil
import signal
import stat
import subprocess
from collections.abc import Sequence
from pathlib import Path

import libcst as cst
import pytest
from click.testing import CliRunner

import h2dlint.fileio
from h2dlint.cli import main
from h2dlint.diagnostics import FixSafety
from h2dlint.engine import EnabledRule
from h2dlint.fixer import fix_text
from h2dlint.pipeline import FileJob, FileResult, Mode, process
from h2dlint.rule import Rule

BOM = b"\xef\xbb\xbf"


def _called(node: cst.Call, *names: str) -> bool:
    return isinstance(node.func, cst.Name) and node.func.value in names


class RenameRule(Rule):
    """## What it does
    Test only: calls of `old_name` should call `new_name`.
    """

    code = "HTD990"
    name = "test-fix"
    message = "call new_name instead of old_name"
    fix_safety = FixSafety.SAFE

    def visit_Call(self, node: cst.Call) -> None:
        if _called(node, "old_name"):
            assert isinstance(node.func, cst.Name)
            self.report(node, replacements=[(node.func, node.func.with_changes(value="new_name"))])


class UnsafeRenameRule(Rule):
    """## What it does
    Test only: calls of `risky` should call `careful`, an unsafe fix.
    """

    code = "HTD991"
    name = "test-unsafe-fix"
    message = "call careful instead of risky"
    fix_safety = FixSafety.UNSAFE

    def visit_Call(self, node: cst.Call) -> None:
        if _called(node, "risky"):
            assert isinstance(node.func, cst.Name)
            self.report(node, replacements=[(node.func, node.func.with_changes(value="careful"))])


class AddArgumentRule(Rule):
    """## What it does
    Test only: a one-argument call of `old_name` or `new_name` gets a second argument. Its fix
    replaces the whole call, around the node RenameRule replaces.
    """

    code = "HTD992"
    name = "test-nested-fix"
    message = "pass a second argument"
    fix_safety = FixSafety.SAFE

    def visit_Call(self, node: cst.Call) -> None:
        if _called(node, "old_name", "new_name") and len(node.args) == 1:
            new = node.with_changes(args=[*node.args, cst.Arg(cst.Integer("2"))])
            self.report(node, replacements=[(node, new)])


class BreakingRule(Rule):
    """## What it does
    Test only: a buggy fix that turns `broken_target(...)` into `lambda(...)`, which does not
    parse.
    """

    code = "HTD993"
    name = "test-breaking-fix"
    message = "a fix that breaks the file"
    fix_safety = FixSafety.SAFE

    def visit_Call(self, node: cst.Call) -> None:
        if _called(node, "broken_target"):
            assert isinstance(node.func, cst.Name)
            self.report(node, replacements=[(node.func, node.func.with_changes(value="lambda"))])


class NonLatin1Rule(Rule):
    """## What it does
    Test only: renames `old_name` to a name that latin-1 cannot encode.
    """

    code = "HTD994"
    name = "test-non-latin1-fix"
    message = "call nouveau_ŋ"
    fix_safety = FixSafety.SAFE

    def visit_Call(self, node: cst.Call) -> None:
        if _called(node, "old_name"):
            assert isinstance(node.func, cst.Name)
            self.report(node, replacements=[(node.func, node.func.with_changes(value="nouveau_ŋ"))])


def job(
    path: Path,
    rules: Sequence[type[Rule]] = (RenameRule,),
    *,
    mode: Mode = Mode.FIX,
    unsafe: bool = False,
    data: bytes | None = None,
) -> FileJob:
    return FileJob(
        path=str(path),
        display=path.name,
        data=path.read_bytes() if data is None else data,
        rules=tuple(EnabledRule(rule) for rule in rules),
        mode=mode,
        unsafe=unsafe,
    )


def codes(result: FileResult) -> list[str]:
    return [finding.code for finding in result.findings]


def leftovers(directory: Path, *expected: str) -> list[str]:
    """Names in ``directory`` other than ``expected``: temporary files left behind."""
    return sorted(set(os.listdir(directory)) - set(expected))


# -- the write ----------------------------------------------------------------------------------


def test_fix_replaces_the_file_by_rename_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    path.write_bytes(b"x = old_name(1)\ny = 2\n")
    inode = path.stat().st_ino
    result = process(job(path))
    assert path.read_bytes() == b"x = new_name(1)\ny = 2\n"
    assert path.stat().st_ino != inode  # a new file renamed over the old one
    assert leftovers(tmp_path, "a.py") == []
    assert result.findings == []
    assert result.fixed_by_code == {"HTD990": 1}
    assert result.final_data == b"x = new_name(1)\ny = 2\n"


def test_failed_rename_keeps_the_original_and_cleans_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "a.py"
    path.write_bytes(b"x = old_name(1)\n")

    def replace(src: str, dst: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(h2dlint.fileio.os, "replace", replace)
    result = process(job(path))
    assert path.read_bytes() == b"x = old_name(1)\n"
    assert leftovers(tmp_path, "a.py") == []
    assert codes(result) == ["HTD990", "E902"]  # the finding is still reported, unfixed
    assert "No space left on device" in result.findings[-1].message


def test_interrupt_during_write_keeps_the_original_and_cleans_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "a.py"
    path.write_bytes(b"x = old_name(1)\n")

    def fsync(fd: int) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(h2dlint.fileio.os, "fsync", fsync)
    with pytest.raises(KeyboardInterrupt):
        process(job(path))
    assert path.read_bytes() == b"x = old_name(1)\n"
    assert leftovers(tmp_path, "a.py") == []


@pytest.mark.parametrize("mode", [0o755, 0o600, 0o640, 0o700])
def test_fix_keeps_the_permission_bits(tmp_path: Path, mode: int) -> None:
    path = tmp_path / "a.py"
    path.write_bytes(b"x = old_name(1)\n")
    path.chmod(mode)
    process(job(path))
    assert path.read_bytes() == b"x = new_name(1)\n"
    assert stat.S_IMODE(path.stat().st_mode) == mode


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a file away")
def test_fix_keeps_the_owner(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    path.write_bytes(b"x = old_name(1)\n")
    os.chown(path, 4321, 4322)
    process(job(path))
    assert path.read_bytes() == b"x = new_name(1)\n"
    assert (path.stat().st_uid, path.stat().st_gid) == (4321, 4322)


def test_directory_without_room_for_a_temporary_file_is_an_io_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a directory the user cannot write gives (root writes anyway, so it is simulated)."""
    path = tmp_path / "a.py"
    path.write_bytes(b"x = old_name(1)\n")

    def mkstemp(**kwargs: object) -> tuple[int, str]:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(h2dlint.fileio.tempfile, "mkstemp", mkstemp)
    result = process(job(path))
    assert path.read_bytes() == b"x = old_name(1)\n"
    assert codes(result) == ["HTD990", "E902"]
    assert "temporary file" in result.findings[-1].message
    assert "Permission denied" in result.findings[-1].message


@pytest.mark.parametrize(
    "source",
    [
        b"import os\r\nx = old_name(1)\r\n\r\ny = [\r\n    old_name(2),\r\n]\r\n",
        b"import os\r\nx = old_name(1)\n\r\ny = [\n    old_name(2),\r\n]\n",
        b"import os\rx = old_name(1)\n\r\ny = [\r    old_name(2),\r\n]\n",
        b"x = old_name(1)",  # no newline at the end
        b"x = old_name(1)  \t\n\n",  # trailing whitespace and a blank line
        b"x = old_name(1)  # \x0c form feed\n\x0c\ny = 1\n",
    ],
    ids=["crlf", "crlf-and-lf", "cr-crlf-and-lf", "no-final-newline", "trailing-space", "ff"],
)
def test_fix_keeps_every_byte_but_the_edit(tmp_path: Path, source: bytes) -> None:
    path = tmp_path / "a.py"
    path.write_bytes(source)
    result = process(job(path))
    assert path.read_bytes() == source.replace(b"old_name", b"new_name")
    assert result.findings == []


def test_fix_keeps_latin1_encoding_and_its_cookie(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    source = b"# -*- coding: latin-1 -*-\ns = 'caf\xe9'\r\nx = old_name(1)  # \xe0 faire\r\n"
    path.write_bytes(source)
    process(job(path))
    assert path.read_bytes() == source.replace(b"old_name", b"new_name")


def test_fix_keeps_utf8_bom(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    source = BOM + "s = 'é'\nx = old_name(1)  # ŋ\n".encode()
    path.write_bytes(source)
    process(job(path))
    assert path.read_bytes() == source.replace(b"old_name", b"new_name")


def test_fix_the_encoding_cannot_hold_leaves_the_file_and_its_findings(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    source = b"# -*- coding: latin-1 -*-\ns = 'caf\xe9'\nx = old_name(1)\n"
    path.write_bytes(source)
    result = process(job(path, [NonLatin1Rule]))
    assert path.read_bytes() == source
    assert codes(result) == ["HTD994", "E902"]  # what was found is still reported
    assert "latin-1" in result.findings[-1].message or "8859" in result.findings[-1].message
    assert result.fixed_by_code == {}


def test_second_fix_pass_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    path.write_bytes(b"x = old_name(1)\nz = old_name(old_name(2))\n")
    first = process(job(path))
    assert first.fixed_by_code == {"HTD990": 3}
    fixed = path.read_bytes()
    before = path.stat()
    second = process(job(path))
    after = path.stat()
    assert path.read_bytes() == fixed == b"x = new_name(1)\nz = new_name(new_name(2))\n"
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert second.fixed_by_code == {}
    assert second.findings == []


# libcst drops these bytes when it prints the tree back: a trailing lone CR, and blank lines
# before a last line of only whitespace.
NOT_ROUND_TRIPPED = [b"x = old_name(1)\r", b"x = old_name(1)\n\n\n\t\n"]


@pytest.mark.parametrize("source", NOT_ROUND_TRIPPED, ids=["final-cr", "blank-then-tab"])
def test_file_the_parser_cannot_reprint_is_left_alone(tmp_path: Path, source: bytes) -> None:
    path = tmp_path / "a.py"
    path.write_bytes(source)
    result = process(job(path))
    assert path.read_bytes() == source
    assert "HTD990" in codes(result)
    assert any(code in ("E900", "E902") for code in codes(result))


@pytest.mark.parametrize("source", NOT_ROUND_TRIPPED, ids=["final-cr", "blank-then-tab"])
def test_file_the_parser_cannot_reprint_without_fixes_is_just_checked(
    tmp_path: Path, source: bytes
) -> None:
    path = tmp_path / "a.py"
    path.write_bytes(source.replace(b"old_name", b"other"))
    result = process(job(path))
    assert result.findings == []


# -- refusing to write --------------------------------------------------------------------------


def test_file_changed_since_it_was_read_is_not_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    path.write_bytes(b"x = old_name(1)\n# edited meanwhile\n")
    result = process(job(path, data=b"x = old_name(1)\n"))
    assert path.read_bytes() == b"x = old_name(1)\n# edited meanwhile\n"
    assert codes(result) == ["HTD990", "E902"]
    assert "changed on disk" in result.findings[-1].message
    assert result.fixed_by_code == {}  # nothing was fixed on disk, so nothing is counted
    assert result.final_data is None  # nothing to cache: the disk holds other bytes
    assert leftovers(tmp_path, "a.py") == []


def test_file_deleted_since_it_was_read_is_not_recreated(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    path.write_bytes(b"x = old_name(1)\n")
    the_job = job(path)
    path.unlink()
    result = process(the_job)
    assert not path.exists()
    assert codes(result) == ["HTD990", "E902"]
    assert "deleted" in result.findings[-1].message


def test_read_only_file_is_not_modified(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    path.write_bytes(b"x = old_name(1)\n")
    path.chmod(0o444)
    inode = path.stat().st_ino
    result = process(job(path))
    assert path.read_bytes() == b"x = old_name(1)\n"
    assert path.stat().st_ino == inode
    assert stat.S_IMODE(path.stat().st_mode) == 0o444
    assert codes(result) == ["HTD990", "E902"]
    assert "read-only" in result.findings[-1].message
    assert leftovers(tmp_path, "a.py") == []


def test_file_the_user_may_not_write_is_not_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file with write bits set, but not for this user (another owner's 0o644): renaming over
    it would still work in a writable directory, and must not happen."""
    path = tmp_path / "a.py"
    path.write_bytes(b"x = old_name(1)\n")
    path.chmod(0o644)
    real_access = os.access

    def access(target: str | os.PathLike[str], mode: int) -> bool:
        if mode == os.W_OK and os.fspath(target) == str(path):
            return False
        return real_access(target, mode)

    monkeypatch.setattr(h2dlint.fileio.os, "access", access)
    inode = path.stat().st_ino
    result = process(job(path))
    assert path.read_bytes() == b"x = old_name(1)\n"
    assert path.stat().st_ino == inode
    assert codes(result) == ["HTD990", "E902"]
    assert "read-only" in result.findings[-1].message


def test_symlink_is_fixed_through_the_link(tmp_path: Path) -> None:
    real_dir = tmp_path / "real"
    real_dir.mkdir()
    target = real_dir / "target.py"
    target.write_bytes(b"x = old_name(1)\n")
    link = tmp_path / "link.py"
    link.symlink_to(target)
    result = process(job(link))
    assert link.is_symlink()
    assert os.readlink(link) == str(target)
    assert target.read_bytes() == b"x = new_name(1)\n"
    assert result.findings == []
    assert leftovers(tmp_path, "real", "link.py") == []
    assert leftovers(real_dir, "target.py") == []


# -- which fixes apply --------------------------------------------------------------------------


def test_unsafe_fixes_apply_only_when_asked(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    path.write_bytes(b"x = risky(1)\ny = old_name(2)\n")
    result = process(job(path, [RenameRule, UnsafeRenameRule]))
    assert path.read_bytes() == b"x = risky(1)\ny = new_name(2)\n"
    assert codes(result) == ["HTD991"]
    fix = result.findings[0].fix
    assert fix is not None
    assert fix.safety is FixSafety.UNSAFE
    result = process(job(path, [RenameRule, UnsafeRenameRule], unsafe=True))
    assert path.read_bytes() == b"x = careful(1)\ny = new_name(2)\n"
    assert result.findings == []
    assert result.fixed_by_code == {"HTD991": 1}


def test_overlapping_fixes_on_nested_nodes_all_apply_over_passes(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    path.write_bytes(b"x = old_name(1)\ny = old_name(old_name(3))\n")
    result = process(job(path, [RenameRule, AddArgumentRule]))
    fixed = path.read_text()
    assert fixed == "x = new_name(1, 2)\ny = new_name(new_name(3, 2), 2)\n"
    ast.parse(fixed)
    assert result.fixed_by_code == {"HTD990": 3, "HTD992": 3}
    assert result.findings == []


def test_fix_that_does_not_parse_leaves_the_file_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    source = b"x = broken_target(1)\n"
    path.write_bytes(source)
    inode = path.stat().st_ino
    result = process(job(path, [BreakingRule]))
    assert path.read_bytes() == source
    assert path.stat().st_ino == inode
    assert sorted(codes(result)) == ["E900", "HTD993"]
    error = next(f for f in result.findings if f.code == "E900")
    assert "HTD993" in error.message
    assert "does not parse" in error.message
    assert result.fixed_by_code == {}


def test_broken_fix_does_not_cost_the_other_rules_their_fixes(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    path.write_bytes(b"x = broken_target(1)\ny = old_name(2)\n")
    result = process(job(path, [BreakingRule, RenameRule]))
    assert path.read_bytes() == b"x = broken_target(1)\ny = new_name(2)\n"
    error = next(f for f in result.findings if f.code == "E900")
    assert "HTD990" not in error.message


def test_fix_text_alone_reports_the_broken_fix() -> None:
    outcome = fix_text("x = broken_target(1)\n", "a.py", [EnabledRule(BreakingRule)])
    assert outcome.text == "x = broken_target(1)\n"
    assert sorted(f.code for f in outcome.findings) == ["E900", "HTD993"]


# -- modes that write nothing -------------------------------------------------------------------


def test_diff_mode_writes_nothing_and_returns_a_unified_diff(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    source = b"import os\r\nx = old_name(1)\r\n"
    path.write_bytes(source)
    before = path.stat()
    result = process(job(path, mode=Mode.DIFF))
    assert path.read_bytes() == source
    assert path.stat().st_mtime_ns == before.st_mtime_ns
    assert leftovers(tmp_path, "a.py") == []
    lines = result.diff.splitlines()
    assert lines[:2] == ["--- a.py", "+++ a.py"]
    assert "-x = old_name(1)" in lines
    assert "+x = new_name(1)" in lines
    assert result.fixed_by_code == {"HTD990": 1}
    assert result.output is None


@pytest.mark.skipif(shutil.which("patch") is None, reason="needs patch(1)")
@pytest.mark.parametrize(
    "source",
    [
        b"x = old_name(1)",
        b"x = old_name(1)  # page\x0cbreak\ny = 2\n",
        "s = 'a\u2028b\x85c'; x = old_name(1)\ny = 2\n".encode(),
        b"import os\r\nx = old_name(1)\r\ny = 2\r\n",
        b"import os\rx = old_name(1)\ny = 2\n",
    ],
    ids=["no-final-newline", "form-feed", "unicode-breaks", "crlf", "cr"],
)
def test_diff_applies_with_patch_to_give_the_fixed_file(tmp_path: Path, source: bytes) -> None:
    path = tmp_path / "a.py"
    path.write_bytes(source)
    diff = process(job(path, mode=Mode.DIFF)).diff
    assert diff.startswith("--- a.py\n+++ a.py\n")
    subprocess.run(
        ["patch", "--binary", "--quiet", "-p0"],
        input=diff.encode(),
        cwd=tmp_path,
        check=True,
        timeout=30,
    )
    assert path.read_bytes() == source.replace(b"old_name", b"new_name")


def test_stdout_mode_returns_the_fixed_bytes_and_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    source = b"# -*- coding: latin-1 -*-\r\ns = '\xe9'\r\nx = old_name(1)\r\n"
    path.write_bytes(source)
    result = process(job(path, mode=Mode.STDOUT))
    assert result.output == source.replace(b"old_name", b"new_name")
    assert path.read_bytes() == source
    assert result.diff == ""


def test_stdout_mode_without_fix_returns_the_input_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    source = BOM + b"x = other(1)\r\n"
    path.write_bytes(source)
    result = process(job(path, mode=Mode.STDOUT))
    assert result.output == source


# -- end to end ---------------------------------------------------------------------------------


def test_cli_fix_without_fixable_findings_leaves_the_file_byte_identical(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "flagged.py"
    source = b"import torch\r\n\r\ny = torch.tensor([1, 2]).to('cuda', non_blocking=True)\r\n"
    path.write_bytes(source)
    before = path.stat()
    result = CliRunner().invoke(
        main, ["--no-cache", "--no-color", "--fix", "flagged.py"], catch_exceptions=False
    )
    assert result.exit_code == 1
    assert "flagged.py:3:5: HTD102 " in result.stdout
    assert path.read_bytes() == source
    after = path.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert leftovers(tmp_path, "flagged.py") == []


def test_ctrl_c_while_writing_lands_after_the_file_is_replaced(tmp_path: Path) -> None:
    """SIGINT between creating the temporary file and renaming it would leave the temporary
    file behind: it is held back until the write is done."""
    path = tmp_path / "m.py"
    path.write_bytes(b"old\n")
    real_replace = os.replace

    def replace_interrupted(src: str, dst: Path) -> None:
        signal.raise_signal(signal.SIGINT)  # Ctrl-C in the middle of the write
        real_replace(src, dst)

    # Python's own handler, as in a terminal: a run started in the background (``cmd &`` in a
    # script, as CI may start it) inherits SIGINT ignored, and nothing would be raised.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(h2dlint.fileio.os, "replace", replace_interrupted)
            with pytest.raises(KeyboardInterrupt):
                h2dlint.fileio.write_atomically(path, b"new\n", b"old\n")
    finally:
        signal.signal(signal.SIGINT, previous)
    assert path.read_bytes() == b"new\n"
    assert [p.name for p in tmp_path.iterdir()] == ["m.py"]

"""The result cache: a warm run says exactly what a cold one did without checking anything again,
anything that changes the answer invalidates it, and a broken cache never fails a run."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

import h2dlint.cache
import h2dlint.runner
from h2dlint.cache import CACHE_FORMAT
from h2dlint.cli import main
from h2dlint.pipeline import FileJob, FileResult

FILES = {
    "flagged.py": "import torch\ny = torch.tensor([1, 2]).to('cuda', non_blocking=True)\n",
    "clean.py": "import os\nprint(os.sep)\n",
    "clean_parsed.py": "def f(x, dev):\n    return x.to(dev, non_blocking=True)\n",
    "broken.py": "def f(:\n    pass\n",
    "suppressed.py": (
        "import torch\ny = torch.tensor([1]).to('cuda', non_blocking=True)  # noqa: HTD102\n"
    ),
}
BAD_BYTES = {"latin.py": b"x = '\xe9'\n"}
ALL_FILES = sorted([*FILES, *BAD_BYTES])


class Checked:
    """Which files the runner handed to the pipeline, i.e. did not answer from the cache."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def clear(self) -> None:
        self.names.clear()


@pytest.fixture
def checked(monkeypatch: pytest.MonkeyPatch) -> Checked:
    record = Checked()
    real_process = h2dlint.runner.process

    def process(job: FileJob) -> FileResult:
        record.names.append(job.display)
        return real_process(job)

    monkeypatch.setattr(h2dlint.runner, "process", process)
    return record


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    src = tmp_path / "src"
    src.mkdir()
    for name, text in FILES.items():
        (src / name).write_text(text)
    for name, data in BAD_BYTES.items():
        (src / name).write_bytes(data)
    return tmp_path


def lint(*args: str) -> Result:
    """One in-process run, on one process so that ``checked`` sees every check."""
    return CliRunner().invoke(main, ["-j1", "--no-color", *args], catch_exceptions=False)


def cached(cache: Path, *args: str) -> Result:
    return lint("--cache-dir", str(cache), *args)


def findings(result: Result) -> list[tuple[str, str, int, int]]:
    return [
        (Path(f["filename"]).name, f["code"], f["location"]["row"], f["location"]["column"])
        for f in json.loads(result.stdout)
    ]


def tree(root: Path) -> Iterator[str]:
    for directory, dirs, files in os.walk(root):
        for name in dirs + files:
            yield os.path.relpath(os.path.join(directory, name), root)


def cache_file(cache: Path) -> Path:
    files = list(cache.glob("results-v*.json"))
    assert len(files) == 1, files
    return files[0]


# -- a warm run ---------------------------------------------------------------------------------


@pytest.mark.parametrize("output_format", ["json", "text", "sarif", "github"])
def test_warm_run_prints_the_same_and_checks_nothing(
    project: Path, checked: Checked, output_format: str
) -> None:
    cache = project / "cache"
    cold = cached(cache, "--output-format", output_format, "src")
    assert sorted(checked.names) == [f"src/{name}" for name in ALL_FILES]
    checked.clear()
    warm = cached(cache, "--output-format", output_format, "src")
    assert checked.names == []
    assert warm.stdout == cold.stdout
    assert warm.stderr == cold.stderr == ""
    assert warm.exit_code == cold.exit_code == 1
    uncached = lint("--no-cache", "--output-format", output_format, "src")
    assert uncached.stdout == cold.stdout


def test_cached_findings_are_reported_under_the_path_they_are_found_at(
    project: Path, checked: Checked
) -> None:
    cache = project / "cache"
    cached(cache, "src")
    shutil.copy(project / "src" / "flagged.py", project / "copy.py")
    checked.clear()
    result = cached(cache, "--output-format", "json", "copy.py")
    # Same content elsewhere: checked again, its package's callers may differ (split45) ...
    assert checked.names == ["copy.py"]
    assert findings(result) == [("copy.py", "HTD102", 2, 5)]
    checked.clear()
    result = cached(cache, "--output-format", "json", "copy.py")
    assert checked.names == []  # ... and answered from its own entry afterwards
    assert findings(result) == [("copy.py", "HTD102", 2, 5)]
    assert json.loads(result.stdout)[0]["filename"] == str((project / "copy.py").resolve())


# -- invalidation -------------------------------------------------------------------------------


def test_changed_content_is_checked_again(project: Path, checked: Checked) -> None:
    cache = project / "cache"
    cached(cache, "src")
    flagged = project / "src" / "flagged.py"
    flagged.write_text("import torch\n\n\n" + FILES["flagged.py"].split("\n", 1)[1])
    checked.clear()
    result = cached(cache, "--output-format", "json", "src")
    assert checked.names == ["src/flagged.py"]
    assert ("flagged.py", "HTD102", 4, 5) in findings(result)
    assert ("flagged.py", "HTD102", 2, 5) not in findings(result)


def test_timestamp_alone_does_not_invalidate(project: Path, checked: Checked) -> None:
    cache = project / "cache"
    cached(cache, "src")
    os.utime(project / "src" / "flagged.py", (1_000_000, 1_000_000))
    checked.clear()
    cached(cache, "src")
    assert checked.names == []


@pytest.mark.parametrize(
    ("args", "config"),
    [
        (["--ignore", "HTD102"], ""),
        (["--select", "HTD102", "--ignore", "non-blocking-pageable-copy"], ""),
        ([], '[tool.h2dlint]\nignore = ["HTD102"]\n'),
    ],
    ids=["ignore-flag", "select-and-ignore", "config"],
)
def test_rule_selection_invalidates(
    project: Path, checked: Checked, args: list[str], config: str
) -> None:
    cache = project / "cache"
    before = cached(cache, "--output-format", "json", "src")
    assert ("flagged.py", "HTD102", 2, 5) in findings(before)
    checked.clear()
    if config:
        (project / "pyproject.toml").write_text(config)
    changed = cached(cache, "--output-format", "json", *args, "src")
    assert sorted(checked.names) == [f"src/{name}" for name in ALL_FILES]
    assert [f for f in findings(changed) if f[1] == "HTD102"] == []
    assert ("broken.py", "E999", 1, 7) in findings(changed)  # not a rule: still reported
    # Back to the first settings: their entries are still there.
    (project / "pyproject.toml").unlink(missing_ok=True)
    checked.clear()
    again = cached(cache, "--output-format", "json", "src")
    assert checked.names == []
    assert again.stdout == before.stdout


def test_selecting_the_same_rules_differently_shares_entries(
    project: Path, checked: Checked
) -> None:
    cache = project / "cache"
    cached(cache, "src")
    checked.clear()
    cached(cache, "--select", "HTD", "src")
    assert checked.names == []


# -- a broken cache -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "warns"),
    [
        (b"\x00\xff\xfe\x89garbage\x00", True),
        (b"\xef\xbb\xbf{not json", True),
        (b"", True),
        (b"[1, 2, 3]", True),
        (b'{"format": %d, "entries": []}' % CACHE_FORMAT, True),
        (b'{"format": 99, "entries": {}}', True),
        (
            b'{"format": %d, "entries": {"k": 5, "j": {"used": "today", "findings": []}}}'
            % CACHE_FORMAT,
            False,
        ),
    ],
    ids=["binary", "bad-json", "empty", "list", "bad-entries", "other-format", "bad-entry"],
)
def test_corrupt_cache_warns_gives_correct_results_and_is_rewritten(
    project: Path, checked: Checked, content: bytes, warns: bool
) -> None:
    expected = lint("--no-cache", "--output-format", "json", "src")
    cache = project / "cache"
    cached(cache, "src")
    cache_file(cache).write_bytes(content)
    checked.clear()
    result = cached(cache, "--output-format", "json", "src")
    assert result.exit_code == expected.exit_code == 1
    assert result.stdout == expected.stdout
    assert len(checked.names) == len(ALL_FILES)
    if warns:
        assert result.stderr.startswith("h2dlint: warning: cache ")
        assert "corrupt" in result.stderr
    rewritten = json.loads(cache_file(cache).read_bytes())
    assert rewritten["format"] == CACHE_FORMAT
    assert len(rewritten["entries"]) == len(ALL_FILES)
    assert all(isinstance(entry, dict) for entry in rewritten["entries"].values())
    checked.clear()
    healed = cached(cache, "--output-format", "json", "src")
    assert checked.names == []
    assert healed.stderr == ""
    assert healed.stdout == expected.stdout


def test_corrupt_entries_are_checked_again(project: Path, checked: Checked) -> None:
    expected = lint("--no-cache", "--output-format", "json", "src")
    cache = project / "cache"
    cached(cache, "src")
    data = json.loads(cache_file(cache).read_bytes())
    broken = [
        {"findings": "garbage"},
        {"findings": [{"code": "HTD102"}]},
        {"findings": [["not", "a", "finding"]]},
        {"findings": [{"code": "X", "message": "m", "start": 1, "end": 2}]},
        {"findings": None, "used": 0},
        {"used": "yesterday", "findings": []},
    ]
    for entry, bad in zip(data["entries"].values(), broken, strict=False):
        entry.clear()
        entry.update(bad)
    cache_file(cache).write_text(json.dumps(data))
    checked.clear()
    result = cached(cache, "--output-format", "json", "src")
    assert result.stdout == expected.stdout
    assert result.exit_code == 1
    assert len(checked.names) == len(broken)


@pytest.mark.parametrize("blocked", ["under-a-file", "is-a-file"])
def test_unwritable_cache_dir_warns_and_gives_correct_results(project: Path, blocked: str) -> None:
    expected = lint("--no-cache", "--output-format", "json", "src")
    blocker = project / "blocker"
    blocker.write_text("a regular file\n")
    cache = blocker / "cache" if blocked == "under-a-file" else blocker
    for _ in range(2):
        result = cached(cache, "--output-format", "json", "src")
        assert result.exit_code == expected.exit_code == 1
        assert result.stdout == expected.stdout
        assert "h2dlint: warning: cache " in result.stderr
        assert "cannot be written" in result.stderr
        assert "Traceback" not in result.stderr
    assert blocker.read_text() == "a regular file\n"


def test_unreadable_cache_file_warns(project: Path) -> None:
    expected = lint("--no-cache", "--output-format", "json", "src")
    cache = project / "cache"
    (cache / f"results-v{CACHE_FORMAT}.json").mkdir(
        parents=True
    )  # a directory where the file should be
    result = cached(cache, "--output-format", "json", "src")
    assert result.stdout == expected.stdout
    assert result.exit_code == 1
    assert "cannot be read" in result.stderr


# -- where the cache is, and is not -------------------------------------------------------------


def test_no_cache_writes_nothing(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("H2DLINT_CACHE_DIR", str(project / "env-cache"))
    before = sorted(tree(project))
    for args in (["src"], ["--fix", "src"], ["--cache-dir", "cache", "src"]):
        result = lint("--no-cache", *args)
        assert result.exit_code == 1
    assert sorted(tree(project)) == before


def test_default_cache_lives_beside_the_config_or_in_cwd(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A config here pins the default cache here, whatever lies above the temporary directory.
    (project / "h2dlint.toml").write_text("")
    lint("src")
    assert (project / ".h2dlint_cache" / ".gitignore").is_file()
    monkeypatch.setenv("H2DLINT_CACHE_DIR", str(project / "env-cache"))
    lint("src")
    assert (project / "env-cache" / ".gitignore").is_file()


def test_cache_dir_ignores_itself_for_git(project: Path) -> None:
    cache = project / "cache"
    cached(cache, "src")
    ignore = (cache / ".gitignore").read_text().splitlines()
    assert "*" in ignore
    git = shutil.which("git")
    if git is None:
        return
    subprocess.run([git, "init", "-q", str(project)], check=True, timeout=30)
    status = subprocess.run(
        [git, "status", "--porcelain", "--untracked-files=all"],
        cwd=project,
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    ).stdout
    assert "src/flagged.py" in status
    assert "cache/" not in status


def test_existing_gitignore_in_cache_dir_is_kept(project: Path) -> None:
    cache = project / "cache"
    cache.mkdir()
    (cache / ".gitignore").write_text("# mine\n*\n")
    cached(cache, "src")
    assert (cache / ".gitignore").read_text() == "# mine\n*\n"


# -- what a warm run reads and imports ----------------------------------------------------------


class Reads:
    def __init__(self) -> None:
        self.names: list[str] = []


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> Reads:
    record = Reads()
    real_read = h2dlint.runner.read_bytes

    def read_bytes(path: str) -> bytes:
        record.names.append(os.path.basename(path))
        return real_read(path)

    monkeypatch.setattr(h2dlint.runner, "read_bytes", read_bytes)
    return record


@pytest.fixture
def no_racy_window(monkeypatch: pytest.MonkeyPatch) -> None:
    """The files of a test are seconds old: trust their status as if they were older."""
    monkeypatch.setattr(h2dlint.cache, "RACY_WINDOW_NS", 0)


def test_files_whose_status_is_unchanged_are_not_read(
    project: Path, checked: Checked, reads: Reads, no_racy_window: None
) -> None:
    cache = project / "cache"
    cold = cached(cache, "--output-format", "json", "src")
    assert sorted(reads.names) == ALL_FILES
    reads.names.clear()
    checked.clear()
    warm = cached(cache, "--output-format", "json", "src")
    assert reads.names == [] and checked.names == []
    assert warm.stdout == cold.stdout
    # An edit changes the size or the times: that file alone is read and checked again.
    flagged = project / "src" / "flagged.py"
    flagged.write_text("import torch\n\n\n" + FILES["flagged.py"].split("\n", 1)[1])
    edited = cached(cache, "--output-format", "json", "src")
    assert reads.names == ["flagged.py"] and checked.names == ["src/flagged.py"]
    assert ("flagged.py", "HTD102", 4, 5) in findings(edited)


def test_a_touched_file_is_read_but_not_checked_again(
    project: Path, checked: Checked, reads: Reads, no_racy_window: None
) -> None:
    cache = project / "cache"
    cached(cache, "src")
    os.utime(project / "src" / "clean.py", (1_000_000, 1_000_000))
    reads.names.clear()
    checked.clear()
    cached(cache, "src")
    assert reads.names == ["clean.py"] and checked.names == []


def test_same_size_same_mtime_edit_is_seen(
    project: Path, checked: Checked, no_racy_window: None
) -> None:
    """An edit that keeps the size and puts the old mtime back (``cp -p``, a restore) still
    changes the ctime (and here the inode): the file is read and checked again."""
    cache = project / "cache"
    flagged = project / "src" / "flagged.py"
    before = flagged.stat()
    cached(cache, "src")
    replacement = project / "replacement.py"
    replacement.write_text(FILES["flagged.py"].replace("[1, 2]", "[3, 4]"))
    os.utime(replacement, ns=(before.st_atime_ns, before.st_mtime_ns))
    os.replace(replacement, flagged)
    assert flagged.stat().st_size == before.st_size
    assert flagged.stat().st_mtime_ns == before.st_mtime_ns
    checked.clear()
    cached(cache, "src")
    assert checked.names == ["src/flagged.py"]


def test_files_changed_within_the_racy_window_are_always_read(
    project: Path, checked: Checked, reads: Reads
) -> None:
    cache = project / "cache"
    cached(cache, "src")
    reads.names.clear()
    checked.clear()
    cached(cache, "src")
    assert sorted(reads.names) == ALL_FILES  # written a moment ago: the status is not trusted
    assert checked.names == []  # but the content is known


def _run_and_list_modules(project: Path, *args: str) -> tuple[str, str]:
    script = (
        "import sys\n"
        "from h2dlint.cli import main\n"
        "try:\n"
        "    main(sys.argv[1:])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print('MODULES', ' '.join(sorted(sys.modules)), file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, *args],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    modules = done.stderr.rpartition("MODULES ")[2].split()
    return done.stdout, " ".join(modules)


def test_a_run_the_cache_answers_imports_neither_libcst_nor_the_rules(project: Path) -> None:
    args = ("check", "--cache-dir", "cache", "--output-format", "json", "src")
    cold_out, cold_modules = _run_and_list_modules(project, *args)
    assert "libcst" in cold_modules.split()
    warm_out, warm_modules = _run_and_list_modules(project, *args)
    assert warm_out == cold_out
    loaded = warm_modules.split()
    assert "libcst" not in loaded
    assert not [m for m in loaded if m.startswith(("h2dlint.rules.", "h2dlint.engine"))]
    # A selection the catalogue does not know is still refused.
    bad_out, _ = _run_and_list_modules(
        project, "check", "--cache-dir", "cache", "--select", "HTD999", "src"
    )
    assert bad_out == ""


def test_unknown_code_is_refused_with_a_warm_cache(project: Path) -> None:
    cache = project / "cache"
    cached(cache, "src")
    result = CliRunner().invoke(
        main, ["--cache-dir", str(cache), "--select", "HTD999", "src"], catch_exceptions=False
    )
    assert result.exit_code == 2
    assert "HTD999" in result.stderr


@pytest.mark.parametrize(
    "stored",
    [{"build": "another build", "rules": []}, {"build": None}, "garbage", [1, 2], None],
    ids=["other-build", "no-rules", "string", "list", "none"],
)
def test_a_stale_or_broken_catalogue_is_replaced(
    project: Path, checked: Checked, stored: object
) -> None:
    from h2dlint.cache import ResultCache
    from h2dlint.catalogue import from_registry, known_rules

    cache = project / "cache"
    cached(cache, "src")
    data = json.loads(cache_file(cache).read_bytes())
    data["rules"] = stored
    cache_file(cache).write_text(json.dumps(data))
    opened = ResultCache(cache, lambda message: None)
    assert known_rules(opened) == from_registry()
    assert opened.dirty  # it will be rewritten with this build's catalogue
    checked.clear()
    result = cached(cache, "--output-format", "json", "src")
    assert checked.names == []  # the results themselves were still good
    assert result.stderr == ""


# -- fixes and the cache ------------------------------------------------------------------------

FIXABLE = (
    "import torch\n\n\ndef step(xs, dev):\n    return torch.cat(xs).to(dev, non_blocking=True)\n"
)


def test_fix_with_a_warm_cache_fixes_and_the_fixed_file_is_answered_after(
    project: Path, checked: Checked, no_racy_window: None
) -> None:
    (project / "src" / "fixable.py").write_text(FIXABLE)
    cache = project / "cache"
    before = cached(cache, "--output-format", "json", "src")
    assert ("fixable.py", "HTD104", 5, 12) in findings(before)
    # The entry holds a fix: a --fix run must not take the cache's word for the file.
    checked.clear()
    fixed = cached(cache, "--fix", "--unsafe-fixes", "--output-format", "json", "src")
    assert "src/fixable.py" in checked.names
    assert (project / "src" / "fixable.py").read_text() != FIXABLE
    assert [f for f in findings(fixed) if f[0] == "fixable.py"] == []
    # The fixed content's findings were stored: the next run checks nothing again.
    checked.clear()
    after = cached(cache, "--output-format", "json", "src")
    assert checked.names == []
    assert after.stdout == lint("--no-cache", "--output-format", "json", "src").stdout


@pytest.mark.parametrize(
    "files",
    ["garbage", [1, 2], {"x": "y"}, "wrong-shapes", "wrong-digests"],
)
def test_a_broken_status_table_only_costs_reading_the_files(
    project: Path, checked: Checked, reads: Reads, no_racy_window: None, files: object
) -> None:
    expected = lint("--no-cache", "--output-format", "json", "src")
    cache = project / "cache"
    cached(cache, "src")
    data = json.loads(cache_file(cache).read_bytes())
    if files == "wrong-shapes":
        files = {path: [1, "two"] for path in data["files"]}
    elif files == "wrong-digests":  # the status matches; the digest is of nothing stored
        files = {path: [*row[:-2], "0" * 40, row[-1]] for path, row in data["files"].items()}
    data["files"] = files
    cache_file(cache).write_text(json.dumps(data))
    reads.names.clear()
    checked.clear()
    result = cached(cache, "--output-format", "json", "src")
    assert result.stdout == expected.stdout and result.stderr == ""
    assert checked.names == []  # the findings by content were still good
    if files != "wrong-digests":
        assert sorted(reads.names) == ALL_FILES
    reads.names.clear()
    cached(cache, "src")
    assert reads.names == []  # and the table is whole again

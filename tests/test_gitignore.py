"""The .gitignore matcher (h2dlint.gitignore), checked against gitignore(5) and real git."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from h2dlint.gitignore import GitIgnore, IgnoreStack, load_repo_ignores


def ignored(text: str, path: str, is_dir: bool = False, base: str = "") -> bool:
    return IgnoreStack.of([GitIgnore.from_text(text, base)]).is_ignored(path, is_dir)


# --- the examples of gitignore(5) ----------------------------------------------------------


def test_doc_frotz_is_anchored_frotz_is_not() -> None:
    # "doc/frotz/" matches doc/frotz but not a/doc/frotz; "frotz/" matches both.
    assert ignored("doc/frotz/", "doc/frotz", is_dir=True)
    assert not ignored("doc/frotz/", "a/doc/frotz", is_dir=True)
    assert ignored("frotz/", "doc/frotz", is_dir=True)
    assert ignored("frotz/", "a/doc/frotz", is_dir=True)
    assert ignored("frotz/", "frotz", is_dir=True)


def test_trailing_slash_matches_directories_only() -> None:
    assert ignored("foo/", "foo", is_dir=True)
    assert not ignored("foo/", "foo", is_dir=False)
    assert ignored("foo", "foo", is_dir=False)
    assert ignored("foo", "foo", is_dir=True)
    assert ignored("a/b/", "a/b", is_dir=True)
    assert not ignored("a/b/", "a/b", is_dir=False)


def test_leading_slash_anchors_to_the_gitignore_directory() -> None:
    # "/*.c" matches cat-file.c but not mozilla-sha1/sha1.c.
    assert ignored("/*.c", "cat-file.c")
    assert not ignored("/*.c", "mozilla-sha1/sha1.c")
    assert ignored("*.c", "mozilla-sha1/sha1.c")


def test_slash_in_the_middle_anchors() -> None:
    assert ignored("a/b.txt", "a/b.txt")
    assert not ignored("a/b.txt", "x/a/b.txt")
    assert ignored("doc/*.txt", "doc/notes.txt")
    assert not ignored("doc/*.txt", "doc/server/arch.txt")


def test_leading_double_star_matches_in_all_directories() -> None:
    # "**/foo" matches foo anywhere; "**/foo/bar" matches bar directly under any foo.
    assert ignored("**/foo", "foo")
    assert ignored("**/foo", "a/b/foo")
    assert ignored("**/foo", "a/foo", is_dir=True)
    assert not ignored("**/foo", "a/xfoo")
    assert ignored("**/foo/bar", "foo/bar")
    assert ignored("**/foo/bar", "x/y/foo/bar")
    assert not ignored("**/foo/bar", "x/foo/y/bar")


def test_trailing_double_star_matches_everything_inside() -> None:
    # "abc/**" matches all files inside abc, but not abc itself.
    assert ignored("abc/**", "abc/x")
    assert ignored("abc/**", "abc/x/y/z", is_dir=True)
    assert not ignored("abc/**", "abc", is_dir=True)
    assert not ignored("abc/**", "x/abc/y")


def test_middle_double_star_matches_zero_or_more_directories() -> None:
    # "a/**/b" matches a/b, a/x/b, a/x/y/b.
    for path in ("a/b", "a/x/b", "a/x/y/b"):
        assert ignored("a/**/b", path)
    assert not ignored("a/**/b", "a/xb")
    assert not ignored("a/**/b", "a/x/yb")
    assert not ignored("a/**/b", "x/a/b")


def test_double_star_not_a_whole_component_is_a_plain_star() -> None:
    assert ignored("a/x**y", "a/xzzy")
    assert not ignored("a/x**y", "a/x/y")
    assert ignored("a/**x", "a/zzx")
    assert not ignored("a/**x", "a/b/x")


def test_double_star_right_after_the_literal_prefix_acts_as_leading() -> None:
    # A quirk of git: it strips the pattern's literal prefix before wildmatch, so in
    # "foo**/bar" the "**" counts as a leading one ("foo" + "**/bar").
    for path in ("foobar", "foo/bar", "foox/y/bar"):
        assert ignored("foo**/bar", path)


def test_negation_re_includes() -> None:
    text = "*.log\n!important.log\n"
    assert ignored(text, "debug.log")
    assert ignored(text, "logs/debug.log")
    assert not ignored(text, "important.log")
    assert not ignored(text, "logs/important.log")


def test_last_matching_pattern_wins() -> None:
    assert ignored("!important.log\n*.log\n", "important.log")
    assert not ignored("*.log\n!*.log\n", "a.log")
    assert ignored("*.log\n!*.log\n*.log\n", "a.log")


def test_negated_directory_pattern() -> None:
    text = "build*\n!build/\n"
    assert not ignored(text, "build", is_dir=True)
    assert ignored(text, "build", is_dir=False)
    assert ignored(text, "build.txt")


def test_excluding_everything_but_one_directory() -> None:
    # From gitignore(5): exclude everything except directory foo/bar.
    text = "/*\n!/foo\n/foo/*\n!/foo/bar\n"
    assert ignored(text, "other", is_dir=True)
    assert ignored(text, "file.txt")
    assert not ignored(text, "foo", is_dir=True)
    assert ignored(text, "foo/baz", is_dir=True)
    assert not ignored(text, "foo/bar", is_dir=True)


# --- parsing -------------------------------------------------------------------------------


def test_blank_lines_and_comments_are_skipped() -> None:
    ignore = GitIgnore.from_text("\n# a comment\n\n   # not a comment\n*.pyc\n", "")
    assert [p.text for p in ignore.patterns] == ["   # not a comment", "*.pyc"]
    assert not ignored("# a comment\n", "# a comment")
    assert ignored("   # not a comment\n", "   # not a comment")


def test_escaped_hash_and_bang() -> None:
    assert ignored("\\#notes\n", "#notes")
    assert ignored("\\!important\n", "!important")
    assert not ignored("\\!important\n", "important")
    assert not ignored("#notes\n", "#notes")


def test_trailing_spaces_are_trimmed_unless_escaped() -> None:
    assert ignored("foo   \n", "foo")
    assert not ignored("foo   \n", "foo   ")
    assert ignored("foo\\ \n", "foo ")
    assert not ignored("foo\\ \n", "foo")
    assert ignored("foo\\  \n", "foo ")  # the escaped space stays, the next is trimmed
    assert ignored("a b  \n", "a b")
    assert not ignored("foo\t\n", "foo")  # only spaces are trimmed


def test_windows_line_endings_and_bom() -> None:
    text = "\ufeff*.log\r\n!keep.log\r\nbuild/\r\n"
    assert ignored(text, "a.log")
    assert not ignored(text, "keep.log")
    assert ignored(text, "build", is_dir=True)


def test_file_without_trailing_newline() -> None:
    assert ignored("a\nb", "b")


def test_escaped_wildcards_are_literal() -> None:
    assert ignored("\\*.c\n", "*.c")
    assert not ignored("\\*.c\n", "x.c")
    assert ignored("a\\?\n", "a?")
    assert not ignored("a\\?\n", "ab")
    assert ignored("\\[x]\n", "[x]")


def test_question_mark_and_star_do_not_match_slash() -> None:
    assert ignored("a?b\n", "axb")
    assert not ignored("a/?b\n", "a//b")
    assert not ignored("a?b\n", "a/b")
    assert not ignored("a*/c\n", "ab/x/c")


def test_character_classes() -> None:
    assert ignored("[abc].txt", "b.txt")
    assert not ignored("[abc].txt", "d.txt")
    assert ignored("[a-c].txt", "c.txt")
    assert ignored("[!a-c].txt", "d.txt")
    assert not ignored("[!a-c].txt", "a.txt")
    assert ignored("[^a-c].txt", "d.txt")
    assert ignored("[]a].txt", "].txt")
    assert ignored("[a-].txt", "-.txt")
    assert ignored("[[:digit:]]*.txt", "1st.txt")
    assert not ignored("[[:digit:]]*.txt", "first.txt")
    assert ignored("[[:upper:][:digit:]].txt", "Q.txt")
    assert ignored("[z-a].txt", "z.txt")  # a reversed range: just its first character
    assert not ignored("[z-a].txt", "m.txt")


def test_patterns_that_never_match() -> None:
    # Unclosed classes, unknown [:class:] names and a dangling backslash never match in git.
    for text in ("[abc", "foo\\", "[[:bogus:]]x", "!", "/", ""):
        ignore = GitIgnore.from_text(text + "\n", "")
        for path in ("[abc", "abc", "foo", "foo\\", "x", "bx"):
            assert ignore.match(path, False) is None
            assert ignore.match(path, True) is None


def test_match_reports_negation_separately_from_no_match() -> None:
    ignore = GitIgnore.from_text("*.log\n!keep.log\n", "")
    assert ignore.match("a.log", False) is True
    assert ignore.match("keep.log", False) is False
    assert ignore.match("a.py", False) is None


# --- nested .gitignore files and the stack ---------------------------------------------------


def test_patterns_apply_only_below_their_directory() -> None:
    ignore = GitIgnore.from_text("*.tmp\n/top.txt\nsub/x\n", "pkg")
    assert ignore.match("pkg/a.tmp", False) is True
    assert ignore.match("pkg/deep/er/a.tmp", False) is True
    assert ignore.match("a.tmp", False) is None
    assert ignore.match("pkgx/a.tmp", False) is None
    assert ignore.match("pkg/top.txt", False) is True
    assert ignore.match("pkg/a/top.txt", False) is None
    assert ignore.match("top.txt", False) is None
    assert ignore.match("pkg/sub/x", False) is True
    assert ignore.match("pkg/a/sub/x", False) is None
    assert ignore.match("pkg", True) is None


def test_nested_gitignore_overrides_its_parent() -> None:
    root = GitIgnore.from_text("*.log\ngenerated/\n", "")
    child = GitIgnore.from_text("!keep.log\n", "pkg")
    stack = IgnoreStack.of([root]).push(child)
    assert stack.is_ignored("pkg/a.log", False)
    assert not stack.is_ignored("pkg/keep.log", False)
    assert not stack.is_ignored("pkg/deeper/keep.log", False)
    assert stack.is_ignored("keep.log", False)  # the child does not reach outside pkg/
    assert stack.is_ignored("pkg/generated", True)


def test_deeper_file_wins_even_against_a_later_parent_pattern() -> None:
    root = GitIgnore.from_text("!special.txt\n", "")
    child = GitIgnore.from_text("*.txt\n", "a")
    stack = IgnoreStack.of([root, child])
    assert stack.is_ignored("a/special.txt", False)
    assert not stack.is_ignored("special.txt", False)


def test_parent_decides_when_child_has_no_matching_pattern() -> None:
    root = GitIgnore.from_text("*.pyc\n", "")
    child = GitIgnore.from_text("*.log\n", "a")
    stack = IgnoreStack.of([root, child])
    assert stack.is_ignored("a/x.pyc", False)
    assert stack.is_ignored("a/x.log", False)
    assert not stack.is_ignored("a/x.py", False)


def test_stack_push_is_functional_and_skips_empty_files() -> None:
    base = IgnoreStack.of([GitIgnore.from_text("*.a\n", "")])
    pushed = base.push(GitIgnore.from_text("*.b\n", "x"))
    assert not base.is_ignored("x/f.b", False)
    assert pushed.is_ignored("x/f.b", False)
    assert base.push(GitIgnore.from_text("# nothing\n", "x")) is base
    assert IgnoreStack.of([GitIgnore.from_text("", "")]).ignores == ()
    assert not IgnoreStack().is_ignored("anything", False)


def test_stack_enter_reads_the_directorys_gitignore(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / ".gitignore").write_text("*.out\n")
    stack = IgnoreStack().enter(tmp_path, "").enter(tmp_path / "sub", "sub")
    assert stack.is_ignored("sub/x.out", False)
    assert not stack.is_ignored("x.out", False)
    assert len(stack.ignores) == 1


# --- reading files -------------------------------------------------------------------------


def test_from_file_reads_and_decodes_with_replacement(tmp_path: Path) -> None:
    path = tmp_path / ".gitignore"
    path.write_bytes(b"\xff\xfe bad bytes\n*.log\n")
    ignore = GitIgnore.from_file(path, "")
    assert ignore.match("a.log", False) is True


def test_from_file_unreadable_gives_an_empty_gitignore(tmp_path: Path) -> None:
    assert not GitIgnore.from_file(tmp_path / "missing", "")
    assert not GitIgnore.from_file(tmp_path, "")  # a directory


# --- load_repo_ignores ---------------------------------------------------------------------


def make_repo(root: Path) -> None:
    (root / ".git" / "info").mkdir(parents=True)
    (root / ".git" / "info" / "exclude").write_text("*.excluded\n")
    (root / ".gitignore").write_text("*.log\n")
    (root / "a" / "b" / "c").mkdir(parents=True)
    (root / "a" / ".gitignore").write_text("!keep.log\n")
    (root / "a" / "b" / "c" / ".gitignore").write_text("*.tmp\n")
    (root / "x").mkdir()
    (root / "x" / ".gitignore").write_text("*.py\n")


def test_load_repo_ignores_from_a_subdirectory(tmp_path: Path) -> None:
    make_repo(tmp_path)
    root, ignores = load_repo_ignores(tmp_path / "a" / "b" / "c")
    assert root == tmp_path.resolve()
    assert [i.base for i in ignores] == ["", "", "a", "a/b/c"]
    stack = IgnoreStack.of(ignores)
    assert stack.is_ignored("a/b/c/x.excluded", False)
    assert stack.is_ignored("a/b/c/x.log", False)
    assert not stack.is_ignored("a/b/c/keep.log", False)
    assert stack.is_ignored("a/b/c/d.tmp", False)
    assert not stack.is_ignored("a/b/c/x.py", False)  # x/.gitignore is not on the way


def test_info_exclude_has_the_lowest_precedence(tmp_path: Path) -> None:
    make_repo(tmp_path)
    (tmp_path / ".gitignore").write_text("!*.excluded\n")
    _, ignores = load_repo_ignores(tmp_path)
    assert [i.base for i in ignores] == ["", ""]
    assert not IgnoreStack.of(ignores).is_ignored("f.excluded", False)


def test_load_repo_ignores_at_the_root_and_from_a_file(tmp_path: Path) -> None:
    make_repo(tmp_path)
    root, ignores = load_repo_ignores(tmp_path)
    assert root == tmp_path.resolve()
    assert len(ignores) == 2
    (tmp_path / "a" / "f.py").write_text("")
    root, ignores = load_repo_ignores(tmp_path / "a" / "f.py")
    assert [i.base for i in ignores] == ["", "", "a"]


def test_load_repo_ignores_without_a_repository(tmp_path: Path) -> None:
    if any((p / ".git").exists() for p in (tmp_path, *tmp_path.parents)):
        pytest.skip("the temporary directory is inside a git repository")
    assert load_repo_ignores(tmp_path) == (None, [])


def test_git_file_worktree(tmp_path: Path) -> None:
    # A linked worktree: .git is a file pointing at <common>/worktrees/<name>.
    main = tmp_path / "main"
    (main / ".git" / "info").mkdir(parents=True)
    (main / ".git" / "info" / "exclude").write_text("*.secret\n")
    gitdir = main / ".git" / "worktrees" / "wt"
    gitdir.mkdir(parents=True)
    (gitdir / "commondir").write_text("../..\n")
    worktree = tmp_path / "wt"
    (worktree / "sub").mkdir(parents=True)
    (worktree / ".git").write_text(f"gitdir: {gitdir}\n")
    root, ignores = load_repo_ignores(worktree / "sub")
    assert root == worktree.resolve()
    assert IgnoreStack.of(ignores).is_ignored("sub/x.secret", False)


def test_unreadable_and_undecodable_files_are_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_repo(tmp_path)
    (tmp_path / "a" / ".gitignore").write_bytes(b"\xc3\x28*.bin\n\x80\x81\n*.dat\n")
    real_read_bytes = Path.read_bytes

    def read_bytes(self: Path) -> bytes:
        if self.parent.name == "c":
            raise PermissionError(13, "Permission denied", str(self))
        return real_read_bytes(self)

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    root, ignores = load_repo_ignores(tmp_path / "a" / "b" / "c")
    assert root is not None
    assert [i.base for i in ignores] == ["", "", "a"]
    assert IgnoreStack.of(ignores).is_ignored("a/x.dat", False)


def test_symlinked_gitignore_is_not_read(tmp_path: Path) -> None:
    make_repo(tmp_path)
    (tmp_path / "a" / "real").write_text("*.py\n")
    (tmp_path / "a" / ".gitignore").unlink()
    try:
        (tmp_path / "a" / ".gitignore").symlink_to(tmp_path / "a" / "real")
    except OSError:
        pytest.skip("symlinks unsupported")
    _, ignores = load_repo_ignores(tmp_path / "a")
    assert [i.base for i in ignores] == ["", ""]


# --- against real git ----------------------------------------------------------------------

GIT = shutil.which("git")
needs_git = pytest.mark.skipif(GIT is None, reason="git is not installed")


def git_check_ignore(repo: Path, paths: list[str]) -> set[str]:
    env = {
        **os.environ,
        "HOME": str(repo),
        "XDG_CONFIG_HOME": str(repo),
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    assert GIT is not None
    subprocess.run([GIT, "init", "-q", str(repo)], check=True, env=env)
    result = subprocess.run(
        [GIT, "-c", "core.ignorecase=false", "check-ignore", "--no-index", "-z", "--stdin"],
        cwd=repo,
        input="\0".join(paths) + "\0",
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert result.returncode in (0, 1), result.stderr
    return {path for path in result.stdout.split("\0") if path}


def walk_model(tree: dict[str, bool], gitignores: dict[str, str]) -> set[str]:
    """What a walker using IgnoreStack would ignore: the path, or a directory above it."""
    ignored_paths = set()
    for path, is_dir in tree.items():
        parts = path.split("/")
        stack = IgnoreStack()
        for depth in range(len(parts)):
            directory = "/".join(parts[:depth])
            if directory in gitignores:
                stack = stack.push(GitIgnore.from_text(gitignores[directory], directory))
            here = "/".join(parts[: depth + 1])
            if stack.is_ignored(here, is_dir if here == path else True):
                ignored_paths.add(path)
                break
    return ignored_paths


def build(repo: Path, tree: dict[str, bool], gitignores: dict[str, str]) -> None:
    for path, is_dir in sorted(tree.items()):
        target = repo / path
        if is_dir:
            target.mkdir(parents=True, exist_ok=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.touch()
    for directory, text in gitignores.items():
        (repo / directory / ".gitignore").write_text(text)


CURATED_PATHS = """
    a.log important.log keep.log cat-file.c x.c f.txt #notes !bang trailing foobar
    doc/ doc/frotz/ doc/frotz/f.txt doc/notes.txt doc/server/ doc/server/arch.txt
    a/ a/doc/ a/doc/frotz/ a/doc/frotz/g.txt a/b/ a/b/c.log a/x/ a/x/y/ a/x/y/b a/xb
    abc/ abc/x abc/sub/ abc/sub/y
    mozilla-sha1/ mozilla-sha1/sha1.c
    foo/ foo/bar foo/keep.txt foox/ foox/y/ foox/y/bar
    build/ build/out.o build.txt
    pkg/ pkg/a.log pkg/keep.log pkg/sub/ pkg/sub/keep.log pkg/sub/z.tmp pkg/t.tmp
    n1/ n1/A.txt n1/b1.txt n1/-.txt n1/].txt
"""  # a trailing "/" marks a directory
CURATED_TREE = {path.rstrip("/"): path.endswith("/") for path in CURATED_PATHS.split()}

CURATED_GITIGNORES = {
    "": "\n".join(
        [
            "# comment",
            "*.log",
            "!important.log",
            "doc/frotz/",
            "/*.c",
            "**/foo/bar",
            "abc/**",
            "!abc/sub/",
            "a/**/b",
            "a/*b",
            "build/",
            "\\#notes",
            "\\!bang",
            "foo**/bar",
            "trailing   ",
            "n1/[[:upper:]].txt",
            "n1/[!a-c][0-9].txt",
            "n1/[]-].txt",
            "",
        ]
    ),
    "pkg": "!keep.log\n*.tmp\n",
    "pkg/sub": "!*.tmp\n/keep.log\n",
}


@needs_git
def test_curated_cases_agree_with_git(tmp_path: Path) -> None:
    build(tmp_path, CURATED_TREE, CURATED_GITIGNORES)
    expected = git_check_ignore(tmp_path, sorted(CURATED_TREE))
    assert walk_model(CURATED_TREE, CURATED_GITIGNORES) == expected
    assert "doc/frotz" in expected and "a/doc/frotz" not in expected  # the checks had teeth
    assert "important.log" not in expected and "pkg/keep.log" not in expected


NAMES = ["a", "b", "ab", "foo", "foobar", "x.c", "A", "c-d", "#h", "!e", "a b", "[x]"]
ATOMS = ["a", "b", "*", "**", "?", "/", "[ab]", "[!a]", "[a-c]", ".c", "foo", "\\*", "[]x]"]
ATOMS += ["[[:alpha:]]", "-", "[a-]", "[z-a]", "\\", " ", "\\ ", "[", "!", "#", "A"]


def random_tree(rng: random.Random) -> dict[str, bool]:
    tree: dict[str, bool] = {}

    def fill(prefix: str, depth: int) -> None:
        for name in rng.sample(NAMES, rng.randint(1, 4)):
            path = f"{prefix}/{name}" if prefix else name
            is_dir = depth < 3 and rng.random() < 0.45
            tree[path] = is_dir
            if is_dir:
                fill(path, depth + 1)

    fill("", 0)
    return tree


def random_pattern(rng: random.Random, tree: dict[str, bool], base: str) -> str:
    below = [
        p[len(base) + 1 :] if base else p for p in tree if not base or p.startswith(base + "/")
    ]
    if below and rng.random() < 0.7:
        parts = rng.choice(below).split("/")
        parts = parts[rng.randint(0, len(parts) - 1) :] if rng.random() < 0.4 else parts
        swaps = ["*", "**", "{0}*", "?{1}", "[{0}q]{1}", "*{2}", "{0}**{1}"]
        parts = [
            rng.choice(swaps).format(p[:1], p[1:], p[-1:]) if rng.random() < 0.6 else p
            for p in parts
        ]
        text = "/".join(parts)
    else:
        text = "".join(rng.choice(ATOMS) for _ in range(rng.randint(1, 5)))
    prefix = rng.choice(["", "", "", "!", "/", "**/", "!/"])
    suffix = rng.choice(["", "", "", "/", "/**", "  "])
    return prefix + text + suffix


@needs_git
@pytest.mark.parametrize("seed", range(40))
def test_random_cases_agree_with_git(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    tree = random_tree(rng)
    dirs = [""] + [path for path, is_dir in tree.items() if is_dir]
    gitignores = {
        directory: "\n".join(random_pattern(rng, tree, directory) for _ in range(rng.randint(1, 6)))
        + "\n"
        for directory in rng.sample(dirs, min(len(dirs), rng.randint(1, 3)))
    }
    build(tmp_path, tree, gitignores)
    expected = git_check_ignore(tmp_path, sorted(tree))
    assert walk_model(tree, gitignores) == expected, gitignores

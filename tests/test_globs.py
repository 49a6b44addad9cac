"""Glob patterns for exclude / extend-exclude / per-file-ignores (h2dlint.globs)."""

from __future__ import annotations

import re

import pytest

from h2dlint.globs import Glob


def matches(pattern: str, path: str) -> bool:
    return Glob.compile(pattern).matches(path)


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        # A pattern without "/" matches the basename...
        ("*_pb2.py", "pkg/foo_pb2.py", True),
        ("*_pb2.py", "foo_pb2.py", True),
        ("*_pb2.py", "a/b/c/foo_pb2.py", True),
        ("*_pb2.py", "pkg/foo_pb2.pyi", False),
        ("*_pb2.py", "pkg/foo_pb2.py.bak", False),
        ("setup.py", "setup.py", True),
        ("setup.py", "sub/setup.py", True),
        ("setup.py", "sub/my_setup.py", False),
        # ... or any directory component's name, excluding everything below it.
        ("build", "build", True),
        ("build", "build/x.py", True),
        ("build", "a/build/x.py", True),
        ("build", "a/build/deep/er/x.py", True),
        ("build", "a/builds/x.py", False),
        ("build", "a/rebuild/x.py", False),
        ("build", "build.py", False),
        (".venv", "proj/.venv/lib/site.py", True),
        ("*.egg-info", "src/pkg.egg-info/x.py", True),
        # A trailing slash does not anchor.
        ("build/", "a/build/x.py", True),
        # A pattern with "/" is anchored at the config directory.
        ("tests/fixtures", "tests/fixtures", True),
        ("tests/fixtures", "tests/fixtures/a/b.py", True),
        ("tests/fixtures", "tests/fixtures/b.py", True),
        ("tests/fixtures", "a/tests/fixtures/b.py", False),
        ("tests/fixtures", "tests/fixturesx/b.py", False),
        ("tests/fixtures", "tests/fix/b.py", False),
        ("tests/fixtures/", "tests/fixtures/b.py", True),
        ("pkg/*.py", "pkg/a.py", True),
        ("pkg/*.py", "pkg/sub/a.py", False),
        ("pkg/*.py", "other/pkg/a.py", False),
        ("fixtures/**/*.py", "fixtures/a.py", True),
        ("fixtures/**/*.py", "fixtures/x/y/a.py", True),
        ("examples/*.py", "examples/a.py", True),
        ("examples/*.py", "examples/sub/a.py", False),
        # "**" is any number of components, including none.
        ("src/**/gen_*.py", "src/gen_a.py", True),
        ("src/**/gen_*.py", "src/x/gen_a.py", True),
        ("src/**/gen_*.py", "src/x/y/gen_a.py", True),
        ("src/**/gen_*.py", "src/x/y/notgen_a.py", False),
        ("src/**/gen_*.py", "lib/src/gen_a.py", False),
        ("src/**/gen_*.py", "srcx/gen_a.py", False),
        ("**/gen_*.py", "gen_a.py", True),
        ("**/gen_*.py", "a/b/gen_a.py", True),
        ("**/migrations/*.py", "app/migrations/0001.py", True),
        ("**/migrations/*.py", "migrations/0001.py", True),
        ("**/migrations/*.py", "app/migrations/sub/0001.py", False),
        ("tests/**", "tests/a.py", True),
        ("tests/**", "tests/a/b.py", True),
        ("tests/**", "tests", False),
        ("tests/**", "testsx/a.py", False),
        ("a/**/b/**/c.py", "a/b/c.py", True),
        ("a/**/b/**/c.py", "a/x/b/y/z/c.py", True),
        ("a/**/b/**/c.py", "a/x/c.py", False),
        ("**", "anything/at/all.py", True),
        # "*" does not cross "/".
        ("src/*/x.py", "src/a/x.py", True),
        ("src/*/x.py", "src/a/b/x.py", False),
        ("src/*", "src/a/b.py", True),  # "src/a" matches, so does everything under it
        ("a*b", "ab", True),
        ("a*b", "axxb", True),
        ("a*b", "dir/axxb", True),
        # "?"
        ("test_?.py", "test_a.py", True),
        ("test_?.py", "test_ab.py", False),
        ("test_?.py", "test_.py", False),
        ("a?b/c", "a/b/c", False),
        # Character classes.
        ("test_[abc].py", "test_b.py", True),
        ("test_[abc].py", "test_d.py", False),
        ("test_[a-c].py", "test_c.py", True),
        ("test_[a-c].py", "test_d.py", False),
        ("test_[!a-c].py", "test_d.py", True),
        ("test_[!a-c].py", "test_a.py", False),
        ("test_[^a-c].py", "test_z.py", True),
        ("test_[^a-c].py", "test_b.py", False),
        ("[]]x", "]x", True),
        ("[!]]x", "ax", True),
        ("[!]]x", "]x", False),
        ("[a-]x", "-x", True),
        ("[-a]x", "-x", True),
        ("[0-9][0-9]_*.py", "db/01_init.py", True),
        ("[0-9][0-9]_*.py", "db/1_init.py", False),
        ("x[!a]y", "x/y", False),
        # Escapes.
        (r"\*.py", "*.py", True),
        (r"\*.py", "a.py", False),
        (r"a\?", "a?", True),
        (r"a\?", "ab", False),
        (r"\[x]", "[x]", True),
        # Leading "./" is dropped; it anchors the pattern at the config directory.
        ("./build", "build/x.py", True),
        ("./build", "a/build/x.py", False),
        ("./tests/fixtures", "tests/fixtures/a.py", True),
        (".//tests/fixtures", "tests/fixtures/a.py", True),
        ("./././x.py", "x.py", True),
        ("/build", "build/x.py", True),
        ("/build", "a/build/x.py", False),
        # Literal characters that are special in regexes.
        ("a+b(c).py", "a+b(c).py", True),
        ("a+b(c).py", "aab(c).py", False),
        ("v1.0", "v1x0/a.py", False),
        ("$x{1}", "$x{1}", True),
        # Case-sensitive.
        ("Build", "build/x.py", False),
    ],
)
def test_matches(pattern: str, path: str, expected: bool) -> None:
    assert matches(pattern, path) is expected


def test_star_star_inside_a_component_is_a_plain_star() -> None:
    glob = Glob.compile("src/foo**.py")
    assert glob.matches("src/foobar.py")
    assert not glob.matches("src/foo/bar.py")


@pytest.mark.parametrize(
    ("pattern", "fragment"),
    [
        ("a[b", "unclosed character class"),
        ("[]", "unclosed character class"),
        ("[!]", "unclosed character class"),
        ("src/[abc", "unclosed character class"),
        ("[z-a].py", "invalid range"),
        ("x\\", "dangling"),
        ("", "empty pattern"),
        ("   ", "empty pattern"),
        ("./", "empty pattern"),
        ("/", "empty pattern"),
    ],
)
def test_invalid_patterns_raise_value_error_naming_the_pattern(pattern: str, fragment: str) -> None:
    with pytest.raises(ValueError, match=re.escape(repr(pattern))) as info:
        Glob.compile(pattern)
    assert fragment in str(info.value)


def test_glob_is_a_frozen_value_compiled_once() -> None:
    glob = Glob.compile("src/**/*.py")
    assert glob == Glob.compile("src/**/*.py")
    assert hash(glob) == hash(Glob.compile("src/**/*.py"))
    assert glob != Glob.compile("src/*.py")
    assert glob.pattern == "src/**/*.py"
    assert isinstance(glob.regex, re.Pattern)
    with pytest.raises(AttributeError):
        glob.pattern = "x"  # type: ignore[misc]


def test_globs_usable_in_sets_and_dicts() -> None:
    globs = {Glob.compile("a"), Glob.compile("a"), Glob.compile("b")}
    assert len(globs) == 2


def test_long_paths_match_quickly() -> None:
    # No pathological backtracking on deep paths.
    glob = Glob.compile("**/a*a*a*a*b/**/x*y*z.py")
    path = "/".join(["a" * 30] * 40) + "/aaaaaaaaaaaa.py"
    assert not glob.matches(path)
    assert Glob.compile("*_pb2.py").matches("/".join(["d"] * 200) + "/x_pb2.py")


@pytest.mark.parametrize(
    ("pattern", "literal"),
    [
        (".git", True),
        ("build", True),
        ("*.py", False),
        ("a/b", False),
        ("./build", False),
        ("x\\y", False),
        ("[ab]", False),
        ("a?", False),
    ],
)
def test_plain_names_are_literal(pattern: str, literal: bool) -> None:
    """Plain names are looked up in a set by the walk; they must match exactly what the regex
    matches."""
    glob = Glob.compile(pattern)
    assert glob.is_literal is literal
    if literal:
        assert glob.matches_entry("x/" + pattern, pattern)
        assert not glob.matches_entry("x/" + pattern + "x", pattern + "x")

"""A file's findings depend on its code and its own package, never on which other files one
``check`` call holds (h2dlint/project/roots.py: an index per top-level package).

Before, one call built one layout keyed by dotted module name for all the packages given: two
packages with the same top-level name (``src``, ``app``, two versions of ``transformers``) left
the second one's modules nameless, so its helpers lost the callers that make them hot.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from h2dlint.cli import main
from h2dlint.project.index import ProjectIndex
from h2dlint.project.roots import ProjectIndexes, root_of

HELPER = """\
import torch


def scale_rows(batch):
    x = torch.ones(4, device="cuda")
    total = x.item()
    return batch * total
"""

# The helper's only caller: per step (``training_step``) or once (``setup``).
CALLER = """\
from {dot}helpers import scale_rows


class Model:
    def {method}(self, batch):
        return scale_rows(batch)
"""


def _project(root: Path, hot: bool, package: bool) -> Path:
    """A project holding ``helpers.py`` and its caller: a package ``app`` under ``root``, or
    loose modules in ``root`` (scripts importing each other); returns the helper's path."""
    home = root / "app" if package else root
    home.mkdir(parents=True)
    if package:
        (home / "__init__.py").write_text("")
    (home / "helpers.py").write_text(HELPER)
    method = "training_step" if hot else "setup"
    (home / "loop.py").write_text(CALLER.format(dot="app." if package else "", method=method))
    return home / "helpers.py"


def _found(paths: list[Path], *options: str) -> set[tuple[str, int, str, str]]:
    result = CliRunner().invoke(
        main,
        [
            *([] if "--cache-dir" in options else ["--no-cache"]),
            "--output-format",
            "json",
            "--exit-zero",
            "--select",
            "ALL",
            *options,
            *[str(p) for p in paths],
        ],
    )
    assert result.exit_code == 0, result.output
    return {
        (d["filename"], d["location"]["row"], d["code"], d["message"])
        for d in json.loads(result.output)
    }


@pytest.mark.parametrize("package", [True, False], ids=["package app", "loose scripts"])
def test_a_multi_root_call_gives_the_per_root_findings(tmp_path: Path, package: bool) -> None:
    # The hot project sorts last: the old single layout named the cold one's modules first.
    cold = _project(tmp_path / "proj_a", hot=False, package=package)
    hot = _project(tmp_path / "proj_b", hot=True, package=package)
    alone_cold, alone_hot = _found([cold]), _found([hot])
    assert alone_cold == set()
    assert {(row, code) for _f, row, code, _m in alone_hot} == {(6, "HTD202")}
    assert "training_step" in next(iter(alone_hot))[3]
    both = alone_cold | alone_hot
    assert _found([cold, hot]) == both
    assert _found([hot, cold]) == both
    # whole folders, every module of both projects checked
    assert _found([tmp_path / "proj_b", tmp_path / "proj_a"]) == both
    # in a pool of workers, which switch between the two projects' indexes
    files = sorted(tmp_path.rglob("*.py"))
    assert _found(files, "--jobs", "2") == both


def test_a_file_given_alone_gets_its_packages_facts(tmp_path: Path) -> None:
    hot = _project(tmp_path / "proj", hot=True, package=True)
    nested = tmp_path / "proj" / "app" / "sub"
    nested.mkdir()
    (nested / "__init__.py").write_text("")
    (nested / "other.py").write_text("")
    # the helper alone, with a file of a subpackage, or with the package's folder
    expected = _found([hot])
    assert expected
    assert _found([hot, nested / "other.py"]) == expected
    assert _found([tmp_path / "proj" / "app"]) == expected


def test_two_versions_of_one_package_keep_their_own_facts(tmp_path: Path) -> None:
    old = _project(tmp_path / "pkg-1.0", hot=False, package=True)
    new = _project(tmp_path / "pkg-2.0", hot=True, package=True)
    # the new version also changes the helper's text: its own module must be read
    new.write_text(HELPER.replace("total = x.item()", "total = x.sum().item()"))
    found = _found([old, new])
    assert found == _found([old]) | _found([new])
    assert {(Path(f).parent.parent.name, row) for f, row, _c, _m in found} == {("pkg-2.0", 6)}


def test_root_of_is_the_folder_packages_are_imported_from(tmp_path: Path) -> None:
    package = tmp_path / "src" / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("")
    (package / "sub" / "mod.py").write_text("")
    (tmp_path / "src" / "script.py").write_text("")
    # a namespace package (no ``__init__.py``) above a package: megatron/core
    core = tmp_path / "megatron" / "core"
    core.mkdir(parents=True)
    (core / "__init__.py").write_text("")
    # a folder without ``__init__.py`` two levels inside it: the package's walk names it
    nested = core / "contexts" / "triton"
    nested.mkdir(parents=True)
    (nested / "ops.py").write_text("")
    # an unpacked distribution, named as no module can be
    dist = tmp_path / "pkg-1.0" / "pkg"
    dist.mkdir(parents=True)
    (dist / "__init__.py").write_text("")
    real = Path(os.path.realpath(tmp_path))
    # the folder the top-level package is imported from, whatever its name
    assert Path(root_of(str(package / "sub" / "mod.py"))) == real / "src"
    assert Path(root_of(str(package))) == real / "src"
    assert Path(root_of(str(tmp_path / "src" / "script.py"))) == real / "src"
    assert Path(root_of(str(core / "__init__.py"))) == real / "megatron"
    assert Path(root_of(str(nested / "ops.py"))) == real / "megatron"
    assert Path(root_of(str(dist / "__init__.py"))) == real / "pkg-1.0"


def test_each_index_knows_only_its_own_project(tmp_path: Path) -> None:
    one = _project(tmp_path / "one", hot=True, package=True)
    two = _project(tmp_path / "two", hot=True, package=True)
    indexes = ProjectIndexes([str(one), str(two)], ProjectIndex)
    first, second = indexes.of(str(one)), indexes.of(str(two))
    assert first is not None and second is not None and first is not second
    assert first.module_name_of(str(one)) == second.module_name_of(str(two)) == "app.helpers"
    assert first.layout.path_of("app.helpers") == str(one.resolve())
    assert second.layout.path_of("app.helpers") == str(two.resolve())
    assert indexes.of("-") is None  # standard input: no project of its own among several
    single = ProjectIndexes([str(one)], ProjectIndex)
    assert single.of("-") is single.of(str(one))
    assert ProjectIndexes([], ProjectIndex).of("-") is not None  # an index of nothing


def test_the_cache_never_answers_for_the_same_text_in_another_package(tmp_path: Path) -> None:
    # The two helpers have the same text (one cache digest) but not the same callers: the
    # cold one checked first must not answer for the hot one.
    cold = _project(tmp_path / "proj_a", hot=False, package=True)
    hot = _project(tmp_path / "proj_b", hot=True, package=True)
    cache = ("--cache-dir", str(tmp_path / "cache"))
    assert _found([cold], *cache) == set()
    expected = _found([hot])
    assert expected
    assert _found([hot], *cache) == expected
    assert _found([hot], *cache) == expected  # from the cache now
    assert _found([cold, hot], *cache) == expected


def test_the_parts_of_a_namespace_package_are_one_project(tmp_path: Path) -> None:
    # ``ns`` has no ``__init__.py``: ``ns/app`` holds the helper, ``ns/runner`` its per-step
    # caller. Checked alone, with the caller or as the whole folder, the helper has its caller
    # (before, only when one call held both parts).
    home = tmp_path / "ns"
    helper = _project(home, hot=False, package=True)
    (home / "app" / "loop.py").unlink()
    runner = home / "runner"
    runner.mkdir()
    (runner / "__init__.py").write_text("")
    (runner / "steps.py").write_text(CALLER.format(dot="app.", method="training_step"))
    alone = _found([helper])
    assert {(row, code) for _f, row, code, _m in alone} == {(6, "HTD202")}
    assert _found([helper, runner / "steps.py"]) == alone
    assert _found([home]) == alone


def test_packages_of_one_distribution_see_each_other(tmp_path: Path) -> None:
    # ``dist-1.0/`` (an unpacked distribution: autodraft-sd's ``opt_classic/`` and
    # ``evaluation/``) holds ``app`` and ``runner``: one project, however the call groups them.
    home = tmp_path / "dist-1.0"
    helper = _project(home, hot=False, package=True)
    (home / "app" / "loop.py").unlink()
    runner = home / "runner"
    runner.mkdir()
    (runner / "__init__.py").write_text("")
    (runner / "steps.py").write_text(CALLER.format(dot="app.", method="training_step"))
    alone = _found([helper])
    assert {(row, code) for _f, row, code, _m in alone} == {(6, "HTD202")}
    assert _found([helper, runner / "steps.py"]) == alone
    assert _found([home]) == alone

"""The ``syncing`` summary part and the index's gate before a syncing helper is resolved."""

from __future__ import annotations

import ast
from pathlib import Path

from h2dlint.analysis import sync_basics
from h2dlint.project import syncing_functions as part
from h2dlint.project.index import ProjectIndex
from h2dlint.project.layout import build_layout
from h2dlint.project.summary import SummaryStore


def _part(code: str) -> dict[str, list[list[str]]]:
    return part.syncing_functions(ast.parse(code))


def test_the_words_are_the_analysis_words() -> None:
    assert part.SYNC_METHODS == sync_basics.SYNC_METHODS
    assert part.SYNC_BUILTINS == sync_basics.SYNC_BUILTINS


def test_functions_that_read_in_every_return_are_listed() -> None:
    found = _part(
        "def dist_max(x, mesh):\n"
        "    return funcol.all_reduce(x, 'max', mesh).item()\n"
        "def count(x):\n"
        "    if x is None:\n"
        "        return int(x.sum().item())\n"
        "    return float(x.item())\n"
        "class Stats:\n"
        "    def mean(self, x):\n"
        "        return x.mean().tolist()\n"
    )
    assert found == {"dist_max": [[]], "count": [[]], "mean": [[]]}


def test_a_return_through_another_function_names_it() -> None:
    found = _part(
        "def dist_sum(x, mesh):\n"
        "    return _dist_reduce(x, 'sum', mesh)\n"
        "def total(x):\n"
        "    return int(helpers.reduce_all(x))\n"
    )
    assert found == {"dist_sum": [["_dist_reduce"]], "total": [["reduce_all"]]}


def test_functions_that_cannot_read_in_every_return_are_left_out() -> None:
    found = _part(
        "def maybe(x):\n"
        "    if x is None:\n"
        "        return 0\n"  # not a call
        "    return x.item()\n"
        "def bare(x):\n"
        "    x.item()\n"
        "    return\n"
        "def none(x):\n"
        "    x.item()\n"
        "def outer(x):\n"
        "    def inner(y):\n"
        "        return y.item()\n"  # inner's own return, listed as inner
        "    return inner\n"
        "def cast(x):\n"
        "    return float(x)\n"  # a Python number in, no read
    )
    assert found == {"inner": [[]]}


def test_two_definitions_of_one_name_are_kept_apart() -> None:
    found = _part(
        "class A:\n"
        "    def read(self, x):\n"
        "        return x.item()\n"
        "class B:\n"
        "    def read(self, x):\n"
        "        return self.inner(x)\n"
    )
    assert found == {"read": [[], ["inner"]]}


def _project(tmp_path: Path, files: dict[str, str]) -> ProjectIndex:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for name, text in files.items():
        (package / name).write_text(text)
    return ProjectIndex(build_layout([str(package / "user.py")]), SummaryStore())


def test_the_gate_follows_delegates_and_rejects_the_rest(tmp_path: Path) -> None:
    index = _project(
        tmp_path,
        {
            "dist.py": (
                "def _dist_reduce(x, op, mesh):\n"
                "    return funcol.all_reduce(x, op, mesh).item()\n"
                "def dist_sum(x, mesh):\n"
                "    return _dist_reduce(x, 'sum', mesh)\n"
                "def dist_norm(x, mesh):\n"
                "    return scale(x, 2)\n"
                "def scale(x, k):\n"
                "    return x.mul(k)\n"
                "def reshape(x):\n"
                "    return x.reshape(-1)\n"
                "def first(x):\n"
                "    return x[0].item()\n"
            ),
            "user.py": "from .dist import dist_sum\n",
        },
    )
    assert index.may_define_syncing_helper("first")
    assert index.may_define_syncing_helper("dist_sum")  # through _dist_reduce
    assert not index.may_define_syncing_helper("dist_norm")  # scale returns a tensor
    assert not index.may_define_syncing_helper("reshape")  # a module that syncs elsewhere
    assert not index.may_define_syncing_helper("absent")


def test_a_module_without_a_read_is_not_parsed(tmp_path: Path) -> None:
    index = _project(
        tmp_path,
        {
            "ops.py": "def forward(x):\n    return x.mean()\n",
            "user.py": "def forward(x):\n    return x.sum().item()\n",
        },
    )
    assert index.may_define_syncing_helper("forward")  # user.py's reads
    digests = list(index.summaries.entries)
    parsed = [d for d in digests if index.summaries.stored(d, "syncing") not in (None, ({},))]
    assert len(parsed) == 1

"""The ``subclassing`` summary part: what a caller scan reads of a module's call edges to learn
whether its classes inherit another module's method, computed without resolving any call.

It must give :func:`importing_subclasses` and :func:`inheriting_classes` exactly the answers the
whole :func:`call_edges` part gives: for every module of h2dlint, of the test projects and a few
small texts, its three fields equal ``call_edges``' own.
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from h2dlint.project.call_edges import (
    call_edges,
    importing_subclasses,
    inheriting_classes,
    subclassing,
)

ROOT = Path(__file__).resolve().parents[1]

TEXTS = [
    """
    import torch
    import torch.nn as nn
    from ..generation import GenerationMixin
    from .base import *
    from . import utils as u
    class Model(nn.Module, GenerationMixin):
        def forward(self, x):
            return x
        async def stream(self):
            pass
    class Plain:
        def f(self):
            pass
    class Sub(Model):
        pass
    class Other(u.Base[int], metaclass=Meta):
        def generate(self):
            from .late import helper
            return helper()
    def top():
        import os as o
        return o.sep
    """,
    "x = 1\n",
    """
    try:
        from a import B
    except ImportError:
        from c import B
    if True:
        class Hidden(B):
            pass
    class Shown(B):
        def run(self):
            pass
    """,
]


def _sources() -> list[tuple[str, str]]:
    files = sorted((ROOT / "h2dlint").rglob("*.py")) + sorted(
        (ROOT / "tests" / "projects").rglob("*.py")
    )
    return [(str(p), p.read_text()) for p in files] + [
        (f"text {i}", textwrap.dedent(t)) for i, t in enumerate(TEXTS)
    ]


@pytest.mark.parametrize(("name", "text"), _sources(), ids=lambda v: str(v)[-60:])
def test_subclassing_equals_the_call_edges_fields(name: str, text: str) -> None:
    edges = call_edges(ast.parse(text))
    part = subclassing(ast.parse(text))  # a tree of its own: nothing shared through the memo
    assert part == {k: edges[k] for k in ("imports", "bases", "methods")}, name


def test_subclasses_answered_alike_from_either_part() -> None:
    text = textwrap.dedent(TEXTS[0])
    edges, part = call_edges(ast.parse(text)), subclassing(ast.parse(text))
    absolute = {"GenerationMixin": "pkg.generation.GenerationMixin", "nn": "torch.nn"}.get
    resolve = lambda n: absolute(n.split(".")[-1]) or absolute(n) or n  # noqa: E731
    bases = {"pkg.generation.GenerationMixin"}
    for method in ("generate", "forward", "stream"):
        found = importing_subclasses(part, bases, method, resolve)
        assert found == importing_subclasses(edges, bases, method, resolve)
        assert inheriting_classes(part, "Model", method) == inheriting_classes(
            edges, "Model", method
        )
    assert importing_subclasses(part, bases, "generate", resolve) == ("Model", "Sub")
    assert importing_subclasses(part, bases, "forward", resolve) == ()


def _project(tmp_path: Path) -> Path:
    package = tmp_path / "gen"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "mixin.py").write_text(
        "class Mixin:\n    def prepare(self, x):\n        return x.cpu()\n"
    )
    # Names Mixin and subclasses it, inheriting ``prepare``: its forward calls the mixin's.
    (package / "model.py").write_text(
        "from gen.mixin import Mixin\n\n"
        "class Model(Mixin):\n    def forward(self, x):\n        return self.prepare(x)\n"
    )
    # Names Mixin and subclasses it, but overrides ``prepare``: no caller of the mixin's.
    (package / "other.py").write_text(
        "from gen.mixin import Mixin\n\n"
        "class Other(Mixin):\n    def prepare(self, x):\n        return x\n"
        "    def forward(self, x):\n        return self.prepare(x)\n"
    )
    return package


def test_a_caller_through_a_subclass_is_found_and_the_others_computed_small(
    tmp_path: Path,
) -> None:
    from h2dlint.project.index import ProjectIndex
    from h2dlint.project.layout import build_layout

    package = _project(tmp_path)
    index = ProjectIndex(build_layout([str(package / "mixin.py")]))

    def hot(name: str, cls: str | None, bases: tuple[str, ...]) -> bool:
        return name == "forward"

    assert index.hot_reason("gen.mixin.Mixin.prepare", hot) == (
        "called from `Model.forward()` in gen.model"
    )
    # Only Other.forward hot: no caller (Other overrides ``prepare``), every module is asked;
    # other.py's subclasses (none inherit) come from the small part, its edges never computed.
    index = ProjectIndex(build_layout([str(package / "mixin.py")]))

    def other_hot(name: str, cls: str | None, bases: tuple[str, ...]) -> bool:
        return name == "forward" and cls == "Other"

    assert index.hot_reason("gen.mixin.Mixin.prepare", other_hot) is None
    other = index.known_digest(str(package / "other.py"))
    assert other is not None
    assert index.summaries.stored(other, "subclassing") is not None
    assert index.summaries.stored(other, "edges") is None


def test_known_call_edges_answer_without_the_small_part(tmp_path: Path) -> None:
    from h2dlint.project.index import ProjectIndex
    from h2dlint.project.layout import build_layout
    from h2dlint.project.subclassing_part import subclassing_part

    package = _project(tmp_path)
    index = ProjectIndex(build_layout([str(package / "mixin.py")]))
    callers = index.caller_index()
    edges = callers.tree_part("gen.other", "edges", call_edges)
    assert subclassing_part(callers, "gen.other") is edges
    small = subclassing_part(callers, "gen.model")
    assert small == {
        k: v
        for k, v in call_edges(ast.parse((package / "model.py").read_text())).items()
        if k != "functions"
    }

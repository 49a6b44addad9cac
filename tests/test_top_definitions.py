"""The summary's ``body`` and ``functions`` (``summary.top_level``) against the analysis's own
index of a module's functions and classes (``frames.ModuleIndex``, from libcst): every name in
``body`` is indexed as a function or class, and every indexed function is in ``functions``, so
that ``project/top_definitions.py`` answers as the tree would."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import libcst as cst
import pytest

from h2dlint.analysis.frames import ModuleIndex
from h2dlint.project.summary import top_level

SOURCES = [
    """
    import torch
    from .outputs import ModelOutput

    def helper(x):
        return x

    async def fetch():
        pass

    @dataclass
    class Output(ModelOutput):
        logits: torch.Tensor = None

        def to_tuple(self):
            def inner():
                pass
            return ()

    if torch.cuda.is_available():
        def on_gpu(x):
            return x.cuda()
        class GpuBuffer:
            pass
    elif FLAG:
        def flagged():
            pass
    else:
        def off_gpu(x):
            return x

    try:
        from fast import kernel
    except ImportError:
        def kernel(x):
            return x
    else:
        def checked():
            pass
    finally:
        def cleanup():
            pass

    with context():
        def scoped():
            pass
        with inner():
            def deeper():
                pass

    for name in NAMES:
        def looped():
            pass

    while False:
        def waiting():
            pass

    match MODE:
        case 1:
            def matched():
                pass

    helper = Output
    """,
    """
    def twice():
        pass

    class twice:
        pass

    if A:
        if B:
            def nested_if():
                pass
    """,
]


def _check(text: str) -> None:
    top = top_level(ast.parse(text))
    index = ModuleIndex.build(cst.parse_module(text))
    indexed = set(index.functions) | set(index.classes)
    assert set(top["body"]) <= indexed
    assert set(index.functions) <= set(top["functions"])


@pytest.mark.parametrize("source", SOURCES)
def test_summary_agrees_with_the_index(source: str) -> None:
    _check(textwrap.dedent(source))


def test_summary_agrees_on_this_project() -> None:
    root = Path(__file__).resolve().parent.parent
    files = sorted((root / "h2dlint").rglob("*.py")) + sorted((root / "rules").glob("*.py"))
    assert files
    for path in files:
        _check(path.read_text(encoding="utf-8"))


def test_body_names_only_the_body() -> None:
    top = top_level(ast.parse(textwrap.dedent(SOURCES[0])))
    assert top["body"] == ["Output", "fetch", "helper"]
    assert "to_tuple" not in top["functions"] and "inner" not in top["functions"]
    assert {"on_gpu", "kernel", "looped", "matched", "deeper"} <= set(top["functions"])

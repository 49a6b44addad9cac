"""Locating reported nodes from their top-level statement's code alone gives the positions the
whole-module pass gives, and falls back to it where the source and libcst's code differ."""

from __future__ import annotations

import ast

import libcst as cst
import pytest

from h2dlint.context import Positions
from h2dlint.statement_positions import statement_lines
from h2dlint.walk import visit_read_only

SOURCES = {
    "plain": "import torch\n\nx = torch.zeros(3)\n\n\ndef f(a):\n    return a.cpu()\n",
    "header and comments": (
        "#!/usr/bin/env python\n# header\n\nimport torch  # why\n\n# about f\n\n"
        "def f(a):\n    # inside\n    return a.item()\n\n\n# trailing\n"
    ),
    "decorators": (
        "import functools\n\n\n# owned by g\n@functools.cache\n# between\n@staticmethod\n"
        "def g(x):\n    return x.tolist()\n\n\nclass C:\n    @property\n    def p(self):\n"
        "        return self.t.item()\n"
    ),
    "semicolons and continuations": (
        "a = 1; b = a.cpu()\nc = (1 +\n     2)\nd = '''x\ny'''.strip(); e = d.upper()\n"
        "if a:\n    f = b \\\n        .item()\n"
    ),
    "crlf": "import torch\r\n\r\ndef f(a):\r\n    return a.cpu()\r\n",
    "no final newline": "import torch\ndef f(a):\n    return a.cpu()",
    "form feed": "import torch\n\x0c\ndef f(a):\n    return a.cpu()\n",
    "class members": (
        "import torch\n\n\nclass M(torch.nn.Module):\n    # the scale\n"
        "    scale = torch.ones(1)\n\n"
        "    @torch.no_grad()\n    def forward(self, x):\n        return x.cpu()\n\n"
        "    def step(self, x): return x.item()\n\n\nclass Empty: pass\n\n"
        "class Tabs:\n\tdef f(self, x):\n\t\treturn x.tolist()\n"
    ),
    "async and compound": (
        "async def f(a):\n    async with a as b:\n        return await b.cpu()\n\n"
        "try:\n    import x\nexcept ImportError:\n    x = None\nelse:\n    y = x.cpu()\n"
        "finally:\n    pass\nwhile False:\n    z = 1\n"
    ),
}


class _Calls(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found: list[cst.Call] = []

    def visit_Call(self, node: cst.Call) -> None:
        self.found.append(node)


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_statement_positions_match_the_whole_pass(name: str) -> None:
    source = SOURCES[name]
    module = cst.parse_module(source)
    tree = ast.parse(source)
    whole = Positions.of(module, source)
    members = [
        member
        for top in module.body
        if isinstance(top, cst.ClassDef) and isinstance(top.body, cst.IndentedBlock)
        for member in top.body.body
    ]
    for statement in [*module.body, *members]:
        collector = _Calls()
        visit_read_only(statement, collector)
        if not collector.found:
            continue
        found = Positions.of_statements(module, source, tree, {statement}, collector.found)
        if found is None:
            # Only where libcst's code is not the source's at that place.
            assert name in ("no final newline", "form feed")
            continue
        for call in collector.found:
            assert found.range(call) == whole.range(call), (name, source)


def test_lines_follow_cpython_statement_by_statement() -> None:
    source = SOURCES["decorators"]
    module = cst.parse_module(source)
    lines = statement_lines(module, ast.parse(source))
    assert lines is not None
    # The blank and comment lines before a statement are its own in libcst; a class's
    # statements are placed too.
    assert list(lines.values()) == [1, 2, 10, 13]
    assert isinstance(list(lines)[3], cst.FunctionDef)


def test_trees_that_do_not_line_up_give_none() -> None:
    module = cst.parse_module("a = 1\nb = 2\n")
    assert statement_lines(module, ast.parse("a = 1\n")) is None

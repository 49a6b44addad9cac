"""What the hot-path tests ask of a source text: why each of its functions is hot."""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.hot_paths import HotPaths
from h2dlint.context import FileContext
from h2dlint.walk import visit_read_only

Options = tuple[tuple[str, tuple[str, ...]], ...]


class FunctionsByName(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found: dict[str, cst.FunctionDef] = {}
        self.stack: list[str] = []

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.stack.append(node.name.value)

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.stack.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.found[".".join([*self.stack, node.name.value])] = node
        self.stack.append(node.name.value)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.stack.pop()


def reasons(code: str, options: Options = (), path: str = "m.py") -> dict[str, str | None]:
    """Every function of ``code`` (by dotted name) -> why it is hot."""
    module = cst.parse_module(code)
    context = FileContext(path, code, module, dict(options))
    functions = FunctionsByName()
    visit_read_only(module, functions)
    hot = HotPaths.of(context)
    assert HotPaths.of(context) is hot  # shared per file
    return {name: hot.why_hot(node) for name, node in functions.found.items()}

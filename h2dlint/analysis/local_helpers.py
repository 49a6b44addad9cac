"""Whether a function defined inside another is only called there: a local helper.

A helper nested in a function and called by name only in that function's body (not returned,
not passed on, not registered as a hook, not called from a lambda or another nested function)
runs when, and only when, the function around it runs it: as often as that function does.
"""

from __future__ import annotations

import libcst as cst

from h2dlint.walk import visit_read_only


class _Uses(cst.CSTVisitor):
    """The uses of ``helper``'s name in the function around it."""

    def __init__(self, helper: cst.FunctionDef) -> None:
        self.helper = helper
        self.name = helper.name.value
        self.depth = 0  # inside a lambda, a class or another nested function
        self.defined = False  # ``helper`` met outside any class
        self.callees: set[int] = set()
        self.calls = 0
        self.other = False  # any use but a plain call: returned, passed, rebound, shadowed

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        if node is self.helper:
            self.defined = self.depth == 0
            return False  # its own body: a recursive call is no use from outside
        if node.name.value == self.name:
            self.other = True  # another definition of the name
        self.depth += 1
        return True

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        if original_node is not self.helper:
            self.depth -= 1

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.depth += 1

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.depth -= 1

    def visit_Lambda(self, node: cst.Lambda) -> None:
        self.depth += 1

    def leave_Lambda(self, original_node: cst.Lambda) -> None:
        self.depth -= 1

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value == self.name:
            self.callees.add(id(node.func))

    def visit_Name(self, node: cst.Name) -> None:
        if node.value != self.name:
            return
        if self.depth == 0 and id(node) in self.callees:
            self.calls += 1
        else:
            self.other = True


def local_helper(helper: cst.FunctionDef, around: cst.FunctionDef) -> bool:
    """Whether ``helper``, defined in ``around`` (not in a class there) and undecorated, is
    only called by name in ``around``'s own code, at least once: it runs as often as
    ``around`` does. Not a closure returned or handed on (a hook, a callback), nor one called
    from a lambda or another nested function (they may run later, per call)."""
    if helper.decorators:
        return False
    uses = _Uses(helper)
    visit_read_only(around.body, uses)
    params = around.params
    for param in (*params.posonly_params, *params.params, *params.kwonly_params):
        if param.name.value == uses.name:
            return False  # a parameter of the same name: the helper is shadowed
    return uses.defined and uses.calls > 0 and not uses.other

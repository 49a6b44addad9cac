"""Diagnostic switches read from the environment: ``if check:`` where ``check`` is bound
(in the function, or at module level) to ``os.environ.get("EXL3_TP_ROUTING_CHECK", "0") !=
"0"``. A variable that is off unless someone sets it at launch, named for a check or a dump,
guards a debugging aid: what it runs does not run per step in a deployment.

Both facts are needed: an opt-in variable named for a feature (``USE_FAST_PATH``) guards code
that does run per step for those who set it, and a variable on by default runs always.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import libcst as cst

from h2dlint.analysis.docstrings import is_docstring
from h2dlint.walk import visit_read_only

# Words of a variable's name (its environment name, or the Python name bound to it) that say
# it switches on a diagnostic.
DIAGNOSTIC_WORDS = ("debug", "check", "verify", "validate", "sanity", "dump", "trace", "compare")
# Defaults of an environment read that leave the switch off.
_OFF_DEFAULTS = frozenset({"", "0", "false", "no", "off", "none"})
_ENV_READS = frozenset({"os.environ.get", "environ.get", "os.getenv", "getenv"})
_MAX_DEPTH = 3
_EMPTY = cst.Module(body=[])


def may_read_environment(source: str) -> bool:
    """Whether a file's source may read an environment variable (a cheap test that spares
    the others the walk)."""
    return "environ" in source or "getenv" in source


def diagnostic_switch(
    test: cst.BaseExpression, module: cst.Module, function: cst.FunctionDef | None
) -> bool:
    """Whether ``test`` reads an off-by-default environment variable named for a diagnostic
    (its environment name, or a name bound to it on the way), directly or through names bound
    in ``function`` or at module level."""
    return _reads_switch(test, module, function, set(), 0, named=False)


def under_switch(ancestors: Sequence[cst.CSTNode], module: cst.Module) -> bool:
    """Whether the innermost node of ``ancestors`` (root first) is in the body of an ``if``
    of its function that runs only with a diagnostic switch on: the test is the switch, or an
    ``and`` one of whose operands is (``if _NAN_DEBUG and rank == 0:`` with ``_NAN_DEBUG =
    os.environ.get("BAILING_NAN_DEBUG", "0") == "1"``). Not an ``or``: its body runs without."""
    function = next((a for a in reversed(ancestors) if isinstance(a, cst.FunctionDef)), None)
    return any(
        isinstance(parent, cst.If)
        and child is parent.body
        and any(
            not isinstance(o, cst.BooleanOperation) and diagnostic_switch(o, module, function)
            for o in _conjuncts(parent.test)
        )
        for parent, child in itertools.pairwise(ancestors)
    )


def _conjuncts(test: cst.BaseExpression) -> list[cst.BaseExpression]:
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return _conjuncts(test.left) + _conjuncts(test.right)
    return [test]


def debug_only(module: cst.Module, function: cst.FunctionDef) -> bool:
    """Whether ``function`` returns at once unless a diagnostic switch is on: its first
    statement (after a docstring) is ``if <diagnostic_switch>: return``
    (``if os.getenv("LTX2_PIPELINE_DEBUG_LOG", "0") != "1" or args is None: return``)."""
    body = function.body.body if isinstance(function.body, cst.IndentedBlock) else ()
    for statement in body[:2]:
        if isinstance(statement, cst.If):
            inner = statement.body.body if isinstance(statement.body, cst.IndentedBlock) else ()
            bare = [
                s for line in inner if isinstance(line, cst.SimpleStatementLine) for s in line.body
            ]
            if statement.orelse is None and len(bare) == 1 and isinstance(bare[0], cst.Return):
                return (bare[0].value is None or isinstance(bare[0].value, cst.Name)) and (
                    diagnostic_switch(statement.test, module, function)
                )
            return False
        if not is_docstring(statement):
            return False
    return False


def _reads_switch(
    node: cst.CSTNode,
    module: cst.Module,
    function: cst.FunctionDef | None,
    seen: set[str],
    depth: int,
    *,
    named: bool,
) -> bool:
    finder = _Parts()
    visit_read_only(node, finder)
    for call in finder.calls:
        key = _off_read(call)
        if key is not None and (named or _diagnostic(key)):
            return True
    if depth >= _MAX_DEPTH:
        return False
    for name in sorted(finder.names - seen):
        seen.add(name)
        for bound, local in _bindings(name, module, function):
            inner = function if local else None
            if _reads_switch(
                bound, module, inner, seen, depth + 1, named=named or _diagnostic(name)
            ):
                return True
    return False


def _off_read(call: cst.Call) -> str | None:
    """The variable's name of ``os.environ.get("X", "0")``/``os.getenv("X")``, a read that is
    off unless the variable is set; None for anything else."""
    if _EMPTY.code_for_node(call.func) not in _ENV_READS or not call.args:
        return None
    key = call.args[0].value
    if not isinstance(key, cst.SimpleString) or not isinstance(key.evaluated_value, str):
        return None
    if len(call.args) > 1:
        default = call.args[1].value
        if isinstance(default, cst.SimpleString):
            value = default.evaluated_value
            if not isinstance(value, str) or value.strip().lower() not in _OFF_DEFAULTS:
                return None
        elif isinstance(default, cst.Name):
            if default.value not in ("None", "False"):
                return None
        elif not (isinstance(default, cst.Integer) and default.value == "0"):
            return None
    return key.evaluated_value


def _diagnostic(name: str) -> bool:
    lowered = name.lower()
    return any(word in lowered for word in DIAGNOSTIC_WORDS)


def _bindings(
    name: str, module: cst.Module, function: cst.FunctionDef | None
) -> list[tuple[cst.BaseExpression, bool]]:
    """The values ``name = value`` binds in ``function``'s own statements (True) and in the
    module's top-level statements (False)."""
    found: list[tuple[cst.BaseExpression, bool]] = []
    if function is not None:
        values = _assigned_in(function).get(name, ())
        found.extend((value, True) for value in values)
        if values:
            return found
    # By exact class (none of these has subclasses): a failed ``isinstance`` of a libcst class
    # calls ``ABCMeta.__instancecheck__`` (see walk.node_classes), on every top-level statement.
    for statement in module.body:
        if type(statement) is cst.SimpleStatementLine:
            for small in statement.body:
                if type(small) is cst.Assign and any(
                    type(t.target) is cst.Name and t.target.value == name for t in small.targets
                ):
                    found.append((small.value, False))
    return found


class _Parts(cst.CSTVisitor):
    """The calls and the bare names of an expression."""

    def __init__(self) -> None:
        self.calls: list[cst.Call] = []
        self.names: set[str] = set()

    def visit_Call(self, node: cst.Call) -> None:
        self.calls.append(node)

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        return False  # ``self.check`` is state, not a module switch

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)


# The last functions whose assignments were collected (nodes hash by identity; a key keeps its
# node alive): every ``if`` test of a function asks about its names, one walk of the body per
# function, not one per name.
_ASSIGNED: dict[cst.FunctionDef, dict[str, list[cst.BaseExpression]]] = {}
_ASSIGNED_KEPT = 8


def _assigned_in(function: cst.FunctionDef) -> dict[str, list[cst.BaseExpression]]:
    """Per name: the values ``name = value`` binds in ``function``'s own statements."""
    found = _ASSIGNED.get(function)
    if found is None:
        assigns = _Assigns()
        visit_read_only(function.body, assigns)
        if len(_ASSIGNED) >= _ASSIGNED_KEPT:
            _ASSIGNED.pop(next(iter(_ASSIGNED)))
        found = _ASSIGNED[function] = assigns.values
    return found


class _Assigns(cst.CSTVisitor):
    """``name = value`` in a function's own statements (not nested functions), by name."""

    def __init__(self) -> None:
        self.values: dict[str, list[cst.BaseExpression]] = {}

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_Assign(self, node: cst.Assign) -> None:
        names = {t.target.value for t in node.targets if isinstance(t.target, cst.Name)}
        for name in names:
            self.values.setdefault(name, []).append(node.value)

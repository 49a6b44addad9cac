"""Functions that run once though no name or decorator says so (see
:mod:`h2dlint.analysis.once`): methods memoised by hand (they first return what they keep on
``self`` when they have it, and keep what they compute there), and model surgery (functions
that rewrite a module's parameters in place, ``W.weight.data = ...``: a rotation, a fusion or
a conversion of the weights before the model runs, never a step of it), functions memoised
by key (they return what a mapping holds for the key when it has it, and store what they
compute there: their work runs once per key), and compiler passes (they rewrite a
``torch.fx`` graph, once per compilation)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypeVar

import libcst as cst

from h2dlint.analysis.last_input_memos import keeps_last_input
from h2dlint.imports import statements
from h2dlint.walk import visit_read_only

T = TypeVar("T")


def memoised(function: cst.FunctionDef, cls: cst.ClassDef | None = None) -> bool:
    """Whether ``function`` returns the value it keeps on ``self`` when it has one, before it
    does anything else, and keeps what it computes there: its work runs once per object.
    ``cached = getattr(self, "x", None)`` / ``if cached is not None: return cached`` ...
    ``self.x = value`` (also ``if self.x is not None: return self.x``). Also a cache grown on
    demand (:func:`grown_cache`)."""
    return _memoised(function) or grown_cache(function, cls)


def _memoised(function: cst.FunctionDef) -> bool:
    aliases: dict[str, str] = {}  # local name -> the attribute of self it holds
    kept: str | None = None
    for statement in _body(function):
        if isinstance(statement, cst.SimpleStatementLine):
            _bind_reads(statement, _kept_attribute, aliases)
            continue
        if not isinstance(statement, cst.If) or kept is not None:
            break
        returned = _only_return(statement.body)
        if returned is None:
            break
        kept = _kept_attribute(returned) or (
            aliases.get(returned.value) if isinstance(returned, cst.Name) else None
        )
        if kept is None:
            break
    if kept is None:
        return False
    return any(
        _self_attribute(target) and isinstance(target, cst.Attribute) and target.attr.value == kept
        for target in assigned_anywhere(function.body)
    )


def grown_cache(function: cst.FunctionDef, cls: cst.ClassDef | None) -> bool:
    """Whether ``function`` first returns the table it keeps when the table is there (and, in
    nested tests, big enough), and rebuilds it only otherwise: ``if self.pe is not None:`` /
    ``if self.pe.size(1) >= n: return`` ... ``self.pe = pe`` (the two tests may be one ``and``:
    ``if self.pe is not None and n <= self.pe.size(1): return``); or, with the table passed in,
    ``if pe is not None: ... return pe`` ... ``return pe`` where every call of the method in
    its class (but in ``__init__``) is ``self.pe = self.extend_pe(x, self.pe)``. The rebuild
    runs when sequences outgrow the table, not per call."""
    first = next((s for s in _body(function) if not _docstring(s)), None)
    if not isinstance(first, cst.If) or first.orelse is not None:
        return False
    test = _leftmost_conjunct(first.test)
    if not (
        isinstance(test, cst.Comparison)
        and len(test.comparisons) == 1
        and isinstance(test.comparisons[0].operator, cst.IsNot)
        and _is_none(test.comparisons[0].comparator)
    ):
        return False
    kept = test.left
    if not _returns_on_hit(first.body, kept):
        return False
    if _self_attribute(kept):
        return any(target.deep_equals(kept) for target in assigned_anywhere(function.body))
    if not isinstance(kept, cst.Name) or cls is None:
        return False
    names = [p.name.value for p in (*function.params.posonly_params, *function.params.params)]
    if kept.value not in names or not names or names[0] != "self":
        return False
    finder = _CallsBack(function.name.value, kept.value, names.index(kept.value) - 1)
    visit_read_only(cls.body, finder)
    return finder.passed_back and not finder.other


def _leftmost_conjunct(test: cst.BaseExpression) -> cst.BaseExpression:
    """The first test of an ``and`` chain (the test itself otherwise): in ``if self.pe is not
    None and n <= self.pe.size(0): return`` the table is kept and, when big enough, returned."""
    while isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        test = test.left
    return test


def _returns_on_hit(body: cst.BaseSuite, kept: cst.BaseExpression) -> bool:
    """Whether ``body`` (through the last of its nested ``if`` tests) ends with ``return`` or
    ``return kept``."""
    while isinstance(body, cst.IndentedBlock) and body.body:
        last = body.body[-1]
        if isinstance(last, cst.If) and last.orelse is None:
            body = last.body
            continue
        if not isinstance(last, cst.SimpleStatementLine):
            return False
        small = last.body[-1]
        return isinstance(small, cst.Return) and (
            small.value is None or small.value.deep_equals(kept)
        )
    return False


class _CallsBack(cst.CSTVisitor):
    """The calls ``self.<method>(...)`` in a class: ``passed_back`` when one is
    ``self.a = self.<method>(..., self.a)`` (the table passed at ``position`` or by
    ``keyword``, the result kept in its place), ``other`` when any other call is, outside
    ``__init__``."""

    def __init__(self, method: str, keyword: str, position: int) -> None:
        self.method, self.keyword, self.position = method, keyword, position
        self.functions: list[str] = []
        self.passed_back = False
        self.other = False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.functions.append(node.name.value)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.functions.pop()

    def visit_Assign(self, node: cst.Assign) -> bool:
        call = node.value
        if len(node.targets) == 1 and self._call(call):
            assert isinstance(call, cst.Call)
            target = node.targets[0].target
            passed = [a.value for a in call.args if a.keyword and a.keyword.value == self.keyword]
            plain = [a.value for a in call.args if a.keyword is None]
            if len(plain) > self.position:
                passed.append(plain[self.position])
            if _self_attribute(target) and any(p.deep_equals(target) for p in passed):
                self.passed_back = True
                for arg in call.args:
                    visit_read_only(arg, self)
                return False
        return True

    def visit_Call(self, node: cst.Call) -> None:
        if self._call(node) and self.functions[-1:] != ["__init__"]:
            self.other = True

    def _call(self, node: cst.BaseExpression) -> bool:
        return (
            isinstance(node, cst.Call)
            and _self_attribute(node.func)
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value == self.method
        )


def _docstring(statement: cst.BaseStatement) -> bool:
    return (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(statement.body[0], cst.Expr)
        and isinstance(statement.body[0].value, cst.SimpleString)
    )


def memoised_by_key(function: cst.FunctionDef) -> bool:
    """Whether ``function`` returns what a mapping holds for its key when it holds it, and
    stores what it computes there: ``cached = cache.get(key)`` / ``if cached is not None:
    return cached`` (or ``if key in cache: return cache[key]``) ... ``cache[key] = value``. The
    work after the lookup runs once per key (a compiled kernel, a descriptor per buffer)."""
    lookups: dict[str, cst.BaseExpression] = {}  # local name -> the mapping it was read from
    keys: dict[str, cst.BaseExpression] = {}  # local name -> the key it was read with
    before: list[cst.BaseStatement] = []  # the statements up to the hit test
    for statement in _body(function):
        before.append(statement)
        if isinstance(statement, cst.SimpleStatementLine):
            _bind_reads(statement, _mapping_read, lookups)
            _bind_reads(statement, _key_read, keys)
            continue
        if not isinstance(statement, cst.If):
            continue
        mapping = _hit_returned(statement, lookups)
        if mapping is not None:
            # Read last (a walk of each statement): most functions have no lookup at all.
            if any(_reads_values(earlier) for earlier in before):
                return False  # a key read from a tensor's values: that read runs every call
            entry = _tested_name(statement.test)
            if entry in keys and keeps_last_input(function, statement, entry, keys[entry]):
                return False  # one entry per key, replaced by each new input: work per call
            return any(
                isinstance(target, cst.Subscript) and target.value.deep_equals(mapping)
                for target in assigned_anywhere(function.body)
            )
    return False


# Methods that read a tensor's values on the host (a sync if it is on the device).
VALUE_READS = frozenset({"item", "tolist", "cpu", "numpy", "nonzero", "unique", "any", "all"})


def _reads_values(statement: cst.BaseStatement) -> bool:
    """Whether ``statement`` (before the lookup's hit test) calls a method that reads values
    (``key = int(lengths.max().item())``): it runs on every call, hit or miss."""
    finder = _ValueReads()
    visit_read_only(statement, finder)
    return finder.found


class _ValueReads(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found = False

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in VALUE_READS:
            self.found = True


def _bind_reads(
    statement: cst.SimpleStatementLine,
    read: Callable[[cst.BaseExpression], T | None],
    into: dict[str, T],
) -> None:
    """For each ``name = value`` of ``statement`` whose value ``read`` recognises (the
    attribute a cache keeps, the mapping a lookup reads): name -> what ``read`` returned."""
    for small in statement.body:
        if isinstance(small, cst.Assign) and len(small.targets) == 1:
            target, found = small.targets[0].target, read(small.value)
            if isinstance(target, cst.Name) and found is not None:
                into[target.value] = found


def _mapping_read(node: cst.BaseExpression) -> cst.BaseExpression | None:
    """``cache`` of ``cache.get(key)`` (or ``cache.get(key, None)``)."""
    if (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value == "get"
        and 1 <= len(node.args) <= 2
        and (len(node.args) == 1 or _is_none(node.args[1].value))
    ):
        return node.func.value
    return None


def _key_read(node: cst.BaseExpression) -> cst.BaseExpression | None:
    """``key`` of ``cache.get(key)`` (the lookups :func:`_mapping_read` recognises)."""
    if isinstance(node, cst.Call) and _mapping_read(node) is not None:
        return node.args[0].value
    return None


def _tested_name(test: cst.BaseExpression) -> str | None:
    """``cached`` of ``if cached is not None and ...:``."""
    while isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        test = test.left
    if isinstance(test, cst.Comparison) and isinstance(test.left, cst.Name):
        return test.left.value
    return None


def _hit_returned(
    node: cst.If, lookups: dict[str, cst.BaseExpression]
) -> cst.BaseExpression | None:
    """The mapping of a cache hit that ``node`` returns: ``if cached is not None: ...
    return cached`` of a name read from it, or ``if key in cache: return cache[key]``."""
    lines = node.body.body if isinstance(node.body, cst.IndentedBlock) else [node.body]
    last = lines[-1] if lines else None
    if not isinstance(last, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
        return None
    returned = last.body[-1].value if isinstance(last.body[-1], cst.Return) else None
    test = node.test
    while isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        test = test.left  # ``if cached is not None and cached[1] is plan:``: a narrower hit
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1 or returned is None:
        return None
    comparison = test.comparisons[0]
    if (
        isinstance(comparison.operator, cst.IsNot)
        and _is_none(comparison.comparator)
        and isinstance(test.left, cst.Name)
        and _returns_from(returned, test.left.value)
    ):
        return lookups.get(test.left.value)
    if (
        isinstance(comparison.operator, cst.In)
        and isinstance(returned, cst.Subscript)
        and returned.value.deep_equals(comparison.comparator)
    ):
        return comparison.comparator
    return None


def _returns_from(returned: cst.BaseExpression, name: str) -> bool:
    """Whether ``returned`` is the name ``name``, items of it (``cached[0]``), or a tuple of
    those (``return cached[0], cached[1]``)."""
    if isinstance(returned, cst.Tuple):
        return bool(returned.elements) and all(
            _returns_from(element.value, name) for element in returned.elements
        )
    if isinstance(returned, cst.Subscript):
        returned = returned.value
    return isinstance(returned, cst.Name) and returned.value == name


def _is_none(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "None"


def _kept_attribute(node: cst.BaseExpression) -> str | None:
    """``x`` of ``self.x`` or ``getattr(self, "x", default)``."""
    if _self_attribute(node) and isinstance(node, cst.Attribute):
        return node.attr.value
    return getattr_of_self(node)


def getattr_of_self(node: cst.BaseExpression) -> str | None:
    """``"x"`` of ``getattr(self, "x")`` or ``getattr(self, "x", default)``."""
    if not (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Name)
        and node.func.value == "getattr"
        and len(node.args) >= 2
        and isinstance(node.args[0].value, cst.Name)
        and node.args[0].value.value == "self"
        and isinstance(node.args[1].value, cst.SimpleString)
    ):
        return None
    name = node.args[1].value.evaluated_value
    return name if isinstance(name, str) else None


def _only_return(body: cst.BaseSuite) -> cst.BaseExpression | None:
    """The value of a block that is one ``return value``."""
    lines = body.body if isinstance(body, cst.IndentedBlock) else [body]
    if len(lines) != 1 or not isinstance(
        lines[0], (cst.SimpleStatementLine, cst.SimpleStatementSuite)
    ):
        return None
    smalls = lines[0].body
    if len(smalls) != 1 or not isinstance(smalls[0], cst.Return):
        return None
    return smalls[0].value


def _self_attribute(node: cst.BaseExpression) -> bool:
    return (
        isinstance(node, cst.Attribute)
        and isinstance(node.value, cst.Name)
        and node.value.value == "self"
    )


def _body(function: cst.FunctionDef) -> list[cst.BaseStatement]:
    body = function.body
    return list(body.body) if isinstance(body, cst.IndentedBlock) else []


def assigned_anywhere(body: cst.BaseSuite) -> list[cst.BaseExpression]:
    """The targets of the simple assignments anywhere in ``body``'s statements."""
    targets: list[cst.BaseExpression] = []
    for small in statements(body):
        if isinstance(small, cst.Assign):
            targets.extend(t.target for t in small.targets)
        elif isinstance(small, cst.AnnAssign):
            targets.append(small.target)
    return targets


PARAMETER_NAMES = frozenset({"weight", "bias"})


# The text a parameter rewrite needs (``W.weight.data = ...``, ``setattr(...)``).
_REWRITE_TEXT = re.compile(r"setattr|\.[\s\\]*data\b")


def parameter_rewrites(source: str) -> Callable[[cst.FunctionDef], bool] | None:
    """:func:`rewrites_parameters` for the functions of ``source``; None when its text cannot
    rewrite a parameter (most files: the question walks each function's body), and without
    the walk for a ``setattr`` call when its text names none."""
    if _REWRITE_TEXT.search(source) is None:
        return None
    if "setattr" in source:
        return rewrites_parameters
    return lambda function: rewrites_parameters(function, setattr_named=False)


def rewrites_parameters(function: cst.FunctionDef, setattr_named: bool = True) -> bool:
    """Whether ``function`` assigns the ``.data`` of a module's parameter (``W.weight.data =
    ...``, ``layer.bias.data = ...``) or replaces the parameter (``setattr(layer, "weight",
    new)``): it changes the model, which a step never does. ``setattr_named``: False when the
    file's text does not say ``setattr``, so that no call of it needs looking for."""
    for target in assigned_anywhere(function.body):
        if (
            isinstance(target, cst.Attribute)
            and target.attr.value == "data"
            and isinstance(target.value, cst.Attribute)
            and target.value.attr.value in PARAMETER_NAMES
        ):
            return True
    if not setattr_named:
        return False
    finder = _ParameterSetattr()
    visit_read_only(function.body, finder)
    return finder.found


class _ParameterSetattr(cst.CSTVisitor):
    """``setattr(module, "weight", value)``: a parameter replaced by name."""

    def __init__(self) -> None:
        self.found = False

    def visit_Call(self, node: cst.Call) -> None:
        func, args = node.func, node.args
        if (
            isinstance(func, cst.Name)
            and func.value == "setattr"
            and len(args) == 3
            and isinstance(args[1].value, cst.SimpleString)
            and args[1].value.evaluated_value in PARAMETER_NAMES
        ):
            self.found = True


# Annotations of a ``torch.fx`` graph: a function taking one rewrites or plans a graph.
_GRAPH_TYPES = frozenset({"GraphModule", "Graph"})


def compile_pass(function: cst.FunctionDef) -> bool:
    """Whether ``function`` is a compiler pass: its first parameter (after ``self``) is
    annotated as a ``torch.fx`` graph (``gm: GraphModule``, ``graph: fx.Graph``). It runs once
    per compilation, however its name reads (``_plan_offload_fwd(gm, ...)``)."""
    params = [*function.params.posonly_params, *function.params.params]
    if params and params[0].name.value in ("self", "cls"):
        params = params[1:]
    if not params or params[0].annotation is None:
        return False
    annotation = params[0].annotation.annotation
    while isinstance(annotation, cst.Attribute):
        annotation = annotation.attr
    return isinstance(annotation, cst.Name) and annotation.value in _GRAPH_TYPES


def closure_factory(function: cst.FunctionDef) -> bool:
    """Whether ``function`` returns a nested function or a lambda (it builds a closure)."""
    nested = {
        s.name.value for s in _body(function) if isinstance(s, cst.FunctionDef)
    }  # defined directly in its body
    returns = _returns(function.body)
    return bool(returns) and all(
        isinstance(r.value, cst.Lambda)
        or (isinstance(r.value, cst.Name) and r.value.value in nested)
        for r in returns
    )


def _returns(root: cst.CSTNode) -> list[cst.Return]:
    """The ``return`` statements of a function's body, not of functions or classes in it."""
    return [s for s in statements(root, into_definitions=False) if isinstance(s, cst.Return)]

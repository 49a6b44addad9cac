"""Which rules could flag a file, decided on the CPython ``ast`` tree before any libcst parse.

``engine.cpython_parse`` parses every file with CPython's ``ast`` anyway (syntax errors, and the
guard against nesting that would crash libcst). One walk of that tree makes a small
:class:`Summary` of the file's calls; each rule declares as data which calls it needs
(:attr:`h2dlint.rule.Rule.candidates`). A file with no candidate for any enabled rule is never
parsed with libcst, and a rule without a candidate in a file is not run on it.

A declaration is a tuple of patterns, of which one must match (a bare string is one pattern)::

    candidates = ("loop .to|.cuda|.copy_ on loop",)
    candidates = (".to|.cuda|.copy_(non_blocking=True)",)
    candidates = ("def .tensor|tensor(device=) arg Name|Call|List",)
    candidates = (".to|.pin_memory on .cat|cat",)

``PATTERN := TERM (" & " TERM)*``: every term must match, each with a call of its own. A term
describes one call, in this order::

    TERM := [loop] [iter] [def] NAMES ["(" KEYWORD ("|" KEYWORD)* ")"]
            [on (loop [over NAMES] | NAMES) | of NAMES] [arg KINDS] [in KINDS]

- ``NAMES``, ``|``-separated: ``.name`` is a method call (``x.name(...)``, ``torch.name(...)``);
  ``name`` is a call of a bare name (``name(...)``), also of a name imported as ``name`` under
  another one (``from torch import cat as c; c(...)``). ``.cat|cat`` is both; ``*`` alone is
  any call (a helper of the project, whose name no rule can list);
- ``(kw=)``: with one of these keyword arguments; ``(kw=True)``: with it set to that literal
  (``True``, ``False`` or ``None``);
- ``loop``: inside a ``for``/``while`` loop or a comprehension (anywhere in it, its iterables,
  ``else`` and nested functions included);
- ``iter``: the call is the iterable of a ``for`` loop or of a comprehension's ``for``;
- ``def``: inside a function (``def``/``async def``, its decorators and defaults included);
- ``on loop``: an *operand* of the call (the object of a method call, or the first positional
  argument) mentions a name that an enclosing ``for`` or comprehension binds; ``over K1|K2``:
  one whose iterable is of those kinds (``.name``/``name`` for calls as in ``NAMES``, else the
  ``ast`` kind: ``Name``, ``Attribute``, ``Subscript``...);
- ``on n1|n2``: an operand is a call named so (as in ``NAMES``), or a name that the file binds
  (``=``, ``:=``, ``+=``, ``for``, ``with ... as``, a comprehension's ``for``) to an expression
  holding such a call, or to another such name (``y = x[0]``); an operand indexed
  (``x[:8].cpu()``) counts as what it indexes;
- ``of n1|n2``: an operand is itself a call named so (``torch.zeros(n).cuda()``), not a name;
- ``arg K1|K2``: the first positional argument is an ``ast`` node of one of these kinds
  (``Name``, ``Call``, ``List``, ...). A display of literals only (``[0.5, -1]``, ``((1, 2),)``)
  is of kind ``Literal``, as a constant is;
- ``in K1|K2``: inside a ``for`` loop or comprehension whose iterable is of one of these kinds
  (as for ``over``), or ``While``: inside a ``while`` loop.

Some rules flag code that holds no call (``if n > 3:`` of a parameter annotated as a tensor, a
slice bound that is a device tensor built in another module). Three names stand for such syntax,
as if it were a call of a bare name (with ``loop``, ``def`` and ``arg`` as for a call):

- ``@if``: an ``if`` statement or an ``a if test else b``; its ``arg`` is the test's kind;
- ``@subscript``: ``x[...]``; its ``arg`` is ``Store`` when it is assigned to (``x[i] = v``,
  ``x[m] += v``), else ``Slice`` when a slice of it has a bound that is not a literal
  (``x[:n]``, ``x[:, a:b]``), else ``Index``;
- ``@compare``: a comparison by value (only ``==``, ``!=``, ``<``, ``<=``, ``>``, ``>=``).

A term may also be ``text w1|w2``: the file's text holds one of these words, in any case
(``text cpu`` for a name or string that says ``cpu``); a file whose strings may spell a word
with escapes (``"\x63pu"``) or that cannot be read as UTF-8 holds every word.

A declaration must describe a superset of what the rule can flag: a pattern that drops a real
finding is a bug. ``tests/test_candidates.py`` checks every rule's examples and fixtures, and
``scripts/check_candidates.py`` compares findings with and without this filter on whole trees.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from h2dlint.candidate_syntax import SYNTAX, item_aliases, kind_of, searchable, syntax_name

# A call's shape: (method call, in a loop, is an iterable, in a function, keywords, the kinds of
# the iterables of the loop variables its operands mention, the calls that operands are, the
# names that operands are, the kind of the first argument, the kinds of the loops around it).
Shape = tuple[
    bool,
    bool,
    bool,
    bool,
    frozenset[str],
    frozenset[str],
    frozenset[str],
    frozenset[str],
    str,
    frozenset[str],
]

_COMPREHENSIONS = frozenset({ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp})
_FOR_LOOPS = frozenset({ast.For, ast.AsyncFor})
_FUNCTIONS = frozenset({ast.FunctionDef, ast.AsyncFunctionDef})
_LITERAL_VALUES = (True, False, None)
# Fields that never hold a node that can contain a call.
_LEAF_FIELDS = frozenset(
    {
        "ctx",
        "op",
        "id",
        "attr",
        "arg",
        "name",
        "names",
        "module",
        "level",
        "asname",
        "kind",
        "conversion",
        "is_async",
        "type_comment",
        "type_ignores",
    }
)
# Nodes that hold no call, loop or binding.
_LEAF_TYPES = frozenset(
    {ast.Constant, ast.Pass, ast.Break, ast.Continue, ast.Global, ast.Nonlocal, ast.alias}
)
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}
_CONSTANT = frozenset({ast.Constant})
_NAME_OR_CONSTANT = frozenset({ast.Name, ast.Constant})


def _child_fields(kind: type) -> tuple[str, ...]:
    fields = _CHILD_FIELDS.get(kind)
    if fields is None:
        if kind in _LEAF_TYPES or kind is ast.Name:
            fields = ()
        else:
            fields = tuple(f for f in kind._fields if f not in _LEAF_FIELDS)  # type: ignore[attr-defined]
        _CHILD_FIELDS[kind] = fields
    return fields


def stored_names(target: ast.AST) -> frozenset[str]:
    """The names a binding target binds (``a``, ``a, (b, *c)``; not ``x.a`` or ``x[a]``)."""
    stack, names = [target], []
    while stack:
        node = stack.pop()
        if type(node) is ast.Name:
            names.append(node.id)
        elif isinstance(node, (ast.Tuple, ast.List)):
            stack.extend(node.elts)
        elif type(node) is ast.Starred:
            stack.append(node.value)
    return frozenset(names)


class _Call:
    """What the walk learns about one call before it becomes a :data:`Shape`."""

    __slots__ = (
        "arg",
        "in_def",
        "iter",
        "keywords",
        "loop",
        "method",
        "of",
        "reads_loop",
        "tail",
        "within",
    )

    reads_loop: set[str]

    def __init__(
        self,
        tail: str,
        method: bool,
        loop: bool,
        is_iter: bool,
        in_def: bool,
        node: ast.Call,
        within: frozenset[str],
    ) -> None:
        self.tail = tail
        self.within = within
        self.method = method
        self.loop = loop
        self.iter = is_iter
        self.in_def = in_def
        keywords = []
        for keyword in node.keywords:
            if keyword.arg:
                keywords.append(keyword.arg)
                value = keyword.value
                if type(value) is ast.Constant and value.value in _LITERAL_VALUES:
                    keywords.append(f"{keyword.arg}={value.value}")
        self.keywords = frozenset(keywords)
        self.reads_loop = set()  # the iterable kinds of the loop variables operands mention
        # Operands: (True, ".name" or "name") for a call, (False, name) for a name.
        self.of: list[tuple[bool, str]] = []
        first = node.args[0] if node.args else None
        self.arg = "" if first is None or type(first) is ast.Starred else kind_of(first)


# The context of a node: (in a loop, in a function, the loop variables in scope with the kinds of
# the iterables they come from (under _WITHIN: the kinds of all loops around it), the names that
# enclosing binding constructs bind, the calls whose operand the node is part of).
_Context = tuple[bool, bool, dict[str, frozenset[str]], frozenset[str], tuple[_Call, ...]]
_EMPTY: frozenset[str] = frozenset()
_WITHIN = ""  # never a name
_WHILE = frozenset({"While"})


def _iterable_kind(node: ast.AST) -> str:
    """What a loop iterates, as patterns name it: ``.name`` for a method call, ``name`` for a
    call of a bare name, else the ``ast`` kind (``Name``, ``Attribute``, ``Subscript``...)."""
    if type(node) is ast.Call:
        func = node.func
        if type(func) is ast.Attribute:
            return "." + func.attr
        if type(func) is ast.Name:
            return func.id
    return type(node).__name__


def _loop_variables(
    loopvars: dict[str, frozenset[str]], targets: Iterable[tuple[ast.AST, ast.AST]]
) -> dict[str, frozenset[str]]:
    """``loopvars`` with the names each (target, iterable) pair binds."""
    out = dict(loopvars)
    for target, iterable in targets:
        kinds = frozenset({_iterable_kind(iterable)})
        out[_WITHIN] = out.get(_WITHIN, _EMPTY) | kinds
        for name in stored_names(target):
            out[name] = out.get(name, _EMPTY) | kinds
    return out


@dataclass
class Summary:
    """The calls of one file, by the name each ends in, and what the file binds names to."""

    calls: dict[str, set[Shape]]
    # Name -> the names of the calls in the expressions the file binds it to.
    bound: dict[str, set[str]]
    # The file's bytes, for ``text`` terms; None: unknown (every word counts as there).
    source: bytes | None = None
    _searchable: bytes | None = None

    def mentions(self, words: Iterable[bytes]) -> bool:
        """Whether the file's text holds one of ``words`` (lower case), in any case."""
        if self._searchable is None:
            self._searchable = searchable(self.source)
        text = self._searchable
        return not text or any(word in text for word in words)


def summarize(tree: ast.AST, source: bytes | None = None) -> Summary:
    """One walk of ``tree``: every call's :data:`Shape`, and the names bindings hold;
    ``source``: the file's bytes, for ``text`` terms."""
    found: list[_Call] = []
    # Syntax names (``@if``...): (name, in a loop, in a function, arg, the loops around it).
    syntax: set[tuple[str, bool, bool, str, frozenset[str]]] = set()
    bound: dict[str, set[str]] = {}
    aliases: dict[str, set[str]] = {}
    iterables: set[int] = set()
    start: _Context = (False, False, {}, _EMPTY, ())
    stack: list[tuple[Any, _Context]] = [(tree, start)]
    pop, push = stack.pop, stack.append
    call_type, attribute_type, name_type, starred_type, subscript_type = (
        ast.Call,
        ast.Attribute,
        ast.Name,
        ast.Starred,
        ast.Subscript,
    )
    # Name -> the names it is bound to (``y = x``, ``y = x[0]``): it holds what they hold.
    copies: dict[str, set[str]] = {}
    node_type, fields_of = ast.AST, _CHILD_FIELDS
    while stack:
        node, context = pop()
        kind = type(node)
        if kind is name_type:
            watchers = context[4]
            if watchers:
                kinds = context[2].get(node.id)
                if kinds:
                    for watcher in watchers:
                        watcher.reads_loop |= kinds
            continue
        in_loop, in_def, loopvars, binders, watchers = context
        if kind is call_type:
            func = node.func
            func_kind = type(func)
            within = loopvars.get(_WITHIN, _EMPTY)
            receiver = None
            if func_kind is attribute_type:
                record = _Call(
                    func.attr, True, in_loop, id(node) in iterables, in_def, node, within
                )
                receiver = func.value
            elif func_kind is name_type:
                record = _Call(func.id, False, in_loop, id(node) in iterables, in_def, node, within)
            else:
                record = None
            args = node.args
            first = args[0] if args and type(args[0]) is not starred_type else None
            if record is not None:
                found.append(record)
                for name in binders:
                    targets = bound.get(name)
                    if targets is None:
                        bound[name] = targets = set()
                    targets.add("." + record.tail if record.method else record.tail)
                operand_context = (in_loop, in_def, loopvars, binders, (*watchers, record))
                for operand in (receiver, first):
                    if operand is None:
                        continue
                    inner = operand
                    while type(inner) is subscript_type:
                        inner = inner.value
                    operand_kind = type(inner)
                    if operand_kind is call_type:
                        callee = inner.func
                        if type(callee) is attribute_type:
                            record.of.append((True, "." + callee.attr))
                        elif type(callee) is name_type:
                            record.of.append((True, callee.id))
                    elif operand_kind is name_type:
                        record.of.append((False, inner.id))
                    push((operand, operand_context))
                if receiver is None:
                    push((func, context))
            else:
                push((func, context))
                first = None  # not an operand: pushed with the other arguments
            skip = _CONSTANT if watchers else _NAME_OR_CONSTANT
            for arg in args:
                if arg is not first and type(arg) not in skip:
                    push((arg, context))
            for keyword in node.keywords:
                if type(keyword.value) not in skip:
                    push((keyword.value, context))
            continue
        if kind is ast.Import or kind is ast.ImportFrom:
            for alias in node.names:
                if alias.asname:
                    aliases.setdefault(alias.asname, set()).add(alias.name.rsplit(".", 1)[-1])
            continue
        if kind in _FOR_LOOPS:
            names = stored_names(node.target)
            iterable = node.iter
            iterables.add(id(iterable))
            inner = (
                True,
                in_def,
                item_aliases(_loop_variables(loopvars, [(node.target, iterable)]), node.body),
                binders,
                watchers,
            )
            push((node.target, inner))
            _copies(copies, names, iterable)
            push((iterable, (True, in_def, inner[2], binders | names, watchers)))
            for statement in (*node.body, *node.orelse):
                push((statement, inner))
            continue
        if kind in _COMPREHENSIONS:
            pairs = [(g.target, g.iter) for g in node.generators]
            inner = (True, in_def, _loop_variables(loopvars, pairs), binders, watchers)
            for generator in node.generators:
                iterables.add(id(generator.iter))
                push(
                    (
                        generator.iter,
                        (*inner[:3], binders | stored_names(generator.target), watchers),
                    )
                )
                push((generator.target, inner))
                for condition in generator.ifs:
                    push((condition, inner))
            for field in ("elt", "key", "value"):
                part = getattr(node, field, None)
                if part is not None:
                    push((part, inner))
            continue
        if kind is ast.Assign or kind is ast.AnnAssign or kind is ast.AugAssign:
            assigned = node.targets if kind is ast.Assign else [node.target]
            names = _EMPTY
            for target in assigned:
                names = names | stored_names(target)
                push((target, context))
            if kind is ast.AnnAssign:
                push((node.annotation, context))
            if node.value is not None:
                _copies(copies, names, node.value)
                push((node.value, (in_loop, in_def, loopvars, binders | names, watchers)))
            continue
        if kind is ast.NamedExpr:
            names = stored_names(node.target)
            _copies(copies, names, node.value)
            push((node.value, (in_loop, in_def, loopvars, binders | names, watchers)))
            continue
        if kind is ast.withitem:
            variables = node.optional_vars
            names = stored_names(variables) if variables is not None else _EMPTY
            if variables is not None:
                push((variables, context))
            _copies(copies, names, node.context_expr)
            push((node.context_expr, (in_loop, in_def, loopvars, binders | names, watchers)))
            continue
        if kind in SYNTAX:
            named = syntax_name(node, kind)
            if named is not None:
                syntax.add((named[0], in_loop, in_def, named[1], loopvars.get(_WITHIN, _EMPTY)))
        if kind is ast.While:
            loops = {**loopvars, _WITHIN: loopvars.get(_WITHIN, _EMPTY) | _WHILE}
            context = (True, in_def, loops, binders, watchers)
        elif kind in _FUNCTIONS:
            context = (in_loop, True, loopvars, binders, watchers)
        fields = fields_of.get(kind)
        if fields is None:
            fields = _child_fields(kind)
        # A name matters only inside an operand; a constant never: neither is pushed otherwise.
        skip = _CONSTANT if watchers else _NAME_OR_CONSTANT
        for field in fields:
            value = getattr(node, field, None)
            if type(value) is list:
                for item in value:
                    if type(item) not in skip and isinstance(item, node_type):
                        push((item, context))
            elif type(value) not in skip and isinstance(value, node_type):
                push((value, context))
    for name, others in copies.items():  # what the names they are bound to hold, too
        pending, seen = list(others), {name}
        while pending:
            other = pending.pop()
            if other not in seen:
                seen.add(other)
                bound.setdefault(name, set()).update(bound.get(other, ()))
                pending.extend(copies.get(other, ()))
    summary = _finish(found, bound, aliases, syntax)
    summary.source = source
    return summary


def _copies(copies: dict[str, set[str]], names: frozenset[str], value: ast.AST) -> None:
    """Note that ``names`` are bound to the names ``value`` is (``x``, ``x[0]``, ``(x, y)``)."""
    if not names:
        return
    parts = value.elts if isinstance(value, (ast.Tuple, ast.List)) else [value]
    for part in parts:
        while type(part) is ast.Subscript or type(part) is ast.Starred:
            part = part.value
        if type(part) is ast.Name:
            for name in names:
                copies.setdefault(name, set()).add(part.id)


def _finish(
    found: list[_Call],
    bound: dict[str, set[str]],
    aliases: dict[str, set[str]],
    syntax: set[tuple[str, bool, bool, str, frozenset[str]]],
) -> Summary:
    def expand(names: Iterable[str]) -> frozenset[str]:
        out = set(names)
        for name in list(out):  # ``names`` may be a generator, used up by ``set``
            out |= aliases.get(name, set())
        return frozenset(out)

    if aliases:
        bound = {name: set(expand(tails)) for name, tails in bound.items()}
    calls: dict[str, set[Shape]] = {}
    for record in found:
        made = expand(name for is_call, name in record.of if is_call)
        names = frozenset(name for is_call, name in record.of if not is_call)
        shape: Shape = (
            record.method,
            record.loop,
            record.iter,
            record.in_def,
            record.keywords,
            frozenset(record.reads_loop),
            made,
            names,
            record.arg,
            record.within,
        )
        tails = [record.tail]
        if not record.method:
            # ``from torch import cat as c``: a call of ``c`` is a call of ``cat`` too.
            tails += aliases.get(record.tail, ())
        for tail in tails:
            calls.setdefault(tail, set()).add(shape)
    for name, in_loop, in_def, arg, within in syntax:
        calls.setdefault(name, set()).add(
            (False, in_loop, False, in_def, _EMPTY, _EMPTY, _EMPTY, _EMPTY, arg, within)
        )
    return Summary(calls, bound)

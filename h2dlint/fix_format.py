"""Laying out the code a fix writes, so that it reads like code a person wrote.

A fix is a code suggestion: a project formatted by Ruff or Black should not get a second,
unrelated diff when its formatter runs over the fixed file, and no reviewer accepts one
200-character line. What a rule uses here:

- :func:`line_length`: the project's line length for the file under check. The configuration
  decides it (``[tool.h2dlint] line-length``, else ``[tool.ruff] line-length``, else
  ``[tool.black] line-length``, else 88, see h2dlint/config.py); it reaches the rules as the
  analysis option ``line-length``.
- :func:`string_literal`: a string literal in the quote style the file already uses (the
  quote most of its one-line strings use; double quotes in a tie, as formatters write).
- :func:`bind_before`: binds a helper value (a pinned buffer, a row count) on its own line
  before the statement that needs it, under a name derived from the original
  (``pos_ids_pinned``) that no code of the module uses, and rewrites the statement to read the
  name. It answers None where the statement cannot take a line before it without changing
  what the code does: the node inside a lambda, a comprehension, a conditional expression or
  the right side of ``and``/``or`` (evaluated only sometimes, or once per item), a compound
  statement's header (the condition of ``while``, an ``elif``, a default argument), a class
  body (the name would become a class attribute), or after a call or ``:=`` in the same
  statement (which could change what the helper reads). The rule then writes the value inline;
  where that makes the line too long, the comprehension, conditional expression or call that
  holds it is split first, as a formatter splits the outermost bracket.
- :func:`fit_statement`: wraps the calls a fix wrote or changed when a line of the statement
  grows past the line length, the way Ruff and Black split a line: first the whole bracket's
  content on one indented line (only where the bracket closes the line, as their right-hand
  split does), else one element a line with a trailing comma (the "magic trailing comma" that
  keeps both formatters from joining the lines again), each element split again as needed.
  Calls with comments inside, or with an argument that already spans lines, are left as they
  are.

``tests/test_fix_format.py`` runs every rule's fix on its examples and fixtures and checks that
``ruff format`` leaves the fixed code as it is.
"""

from __future__ import annotations

import itertools
import keyword
from collections.abc import Callable, Sequence

import libcst as cst

from h2dlint.context import FileContext, SharedKey
from h2dlint.fix_enclose import SMALL_STATEMENTS, element_of, enclosure_of, joined, split_enclosure
from h2dlint.fix_wrap import Layout, indent_unit, node_code, text_width
from h2dlint.jobs import DEFAULT_LINE_LENGTH, LINE_LENGTH_OPTION
from h2dlint.walk import visit_read_only

_MARKER = "__h2dlint_fix_marker__"
# What the helpers below compute once per file.
_QUOTE: SharedKey[str] = SharedKey("quote style")
_PARENTS: SharedKey[dict[cst.CSTNode, cst.CSTNode]] = SharedKey("parents")
_NAMES: SharedKey[set[str]] = SharedKey("identifiers")
_TAKEN: SharedKey[set[str]] = SharedKey("names taken by fixes")


def line_length(context: FileContext) -> int:
    value = context.options.get(LINE_LENGTH_OPTION, DEFAULT_LINE_LENGTH)
    return value if isinstance(value, int) and value > 0 else DEFAULT_LINE_LENGTH


# -- strings -----------------------------------------------------------------------------------
class _Quotes(cst.CSTVisitor):
    def __init__(self) -> None:
        self.single = 0
        self.double = 0

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        quote = node.quote
        if quote == "'":
            self.single += 1
        elif quote == '"':
            self.double += 1


def quote_style(context: FileContext) -> str:
    """The quote most one-line string literals of the file use: ``'`` or ``"``."""

    def count() -> str:
        quotes = _Quotes()
        visit_read_only(context.module, quotes)
        return "'" if quotes.single > quotes.double else '"'

    return context.shared(_QUOTE, count)


def string_literal(context: FileContext, value: str) -> cst.SimpleString:
    """``value`` as a string literal in the file's quote style."""
    quote = quote_style(context)
    other = "'" if quote == '"' else '"'
    body = repr(value)[1:-1]  # escapes of repr, for either quote
    if repr(value)[0] == other:
        body = body.replace("\\" + other, other)
    if repr(value)[0] != quote:
        body = body.replace(quote, "\\" + quote)
    return cst.SimpleString(f"{quote}{body}{quote}")


# -- where a node is -----------------------------------------------------------------------------
class _Parents(cst.CSTVisitor):
    def __init__(self) -> None:
        self.stack: list[cst.CSTNode] = []
        self.parents: dict[cst.CSTNode, cst.CSTNode] = {}

    def on_visit(self, node: cst.CSTNode) -> bool:
        if self.stack:
            self.parents[node] = self.stack[-1]
        self.stack.append(node)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self.stack.pop()


def parents(context: FileContext) -> dict[cst.CSTNode, cst.CSTNode]:
    """Every node's parent in the module (one walk per file, on first use)."""

    def build() -> dict[cst.CSTNode, cst.CSTNode]:
        visitor = _Parents()
        visit_read_only(context.module, visitor)
        return visitor.parents

    return context.shared(_PARENTS, build)


def ancestors(context: FileContext, node: cst.CSTNode) -> list[cst.CSTNode]:
    """The nodes around ``node``, outermost (the module) first; empty for a node not in it."""
    table = parents(context)
    chain: list[cst.CSTNode] = []
    current = table.get(node)
    while current is not None:
        chain.append(current)
        current = table.get(current)
    chain.reverse()
    return chain


class _Identifiers(cst.CSTVisitor):
    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)


def fresh_name(context: FileContext, base: str) -> str:
    """``base``, or ``base_2``, ``base_3``...: a name no code of the module uses (so binding it
    shadows nothing and no read of a global or of an enclosing function's name changes
    meaning), nor another fix of this check has taken."""

    def collect() -> set[str]:
        visitor = _Identifiers()
        visit_read_only(context.module, visitor)
        return visitor.names

    used = context.shared(_NAMES, collect)
    taken = context.shared(_TAKEN, set)
    if not base.isidentifier() or keyword.iskeyword(base):
        base = "value"
    name, suffix = base, 1
    while name in used or name in taken:
        suffix += 1
        name = f"{base}_{suffix}"
    taken.add(name)
    return name


# -- binding a helper value before a statement ---------------------------------------------------
# Where a node is evaluated only sometimes, once per item, or in another scope.
_CONDITIONAL = (
    cst.Lambda,
    cst.ListComp,
    cst.SetComp,
    cst.DictComp,
    cst.GeneratorExp,
    cst.IfExp,
    cst.BooleanOperation,
)
_SMALL = SMALL_STATEMENTS


class _SideEffectsBefore(cst.CSTVisitor):
    """Whether a call, ``await``, ``yield`` or ``:=`` is evaluated before ``target`` (visited
    earlier in source order, and not around it)."""

    def __init__(self, target: cst.CSTNode, around: set[int]) -> None:
        self.target = target
        self.around = around
        self.done = False
        self.found = False

    def on_visit(self, node: cst.CSTNode) -> bool:
        if self.done or self.found:
            return False
        if node is self.target:
            self.done = True
            return False
        if id(node) not in self.around and isinstance(
            node, (cst.Call, cst.Await, cst.Yield, cst.NamedExpr)
        ):
            self.found = True
            return False
        return True


def _statement_place(
    context: FileContext, node: cst.CSTNode
) -> tuple[cst.SimpleStatementLine, list[cst.CSTNode]] | None:
    """The line of one simple statement around ``node`` that a statement may go before, and
    the nodes from it down to ``node``; None where a line before it would change what runs."""
    chain = ancestors(context, node)
    index = next(
        (i for i in range(len(chain) - 1, -1, -1) if isinstance(chain[i], cst.SimpleStatementLine)),
        None,
    )
    if index is None or index == 0:
        return None
    line = chain[index]
    assert isinstance(line, cst.SimpleStatementLine)
    if not isinstance(chain[index - 1], (cst.IndentedBlock, cst.Module)):
        return None
    if len(line.body) != 1 or not isinstance(line.body[0], _SMALL):
        return None
    inner = chain[index + 1 :]
    if any(isinstance(n, _CONDITIONAL) for n in inner):
        return None
    scope = next(
        (n for n in reversed(chain[:index]) if isinstance(n, (cst.FunctionDef, cst.ClassDef))),
        None,
    )
    if isinstance(scope, cst.ClassDef):
        return None
    around = {id(n) for n in inner}
    effects = _SideEffectsBefore(node, around)
    visit_read_only(line, effects)
    if effects.found:
        return None
    return line, chain[: index + 1]


def block_indent(context: FileContext, chain: Sequence[cst.CSTNode]) -> str:
    """The indentation of a statement whose ancestors are ``chain``."""
    default = context.module.default_indent
    return "".join(
        (n.indent if n.indent is not None else default)
        for n in chain
        if isinstance(n, cst.IndentedBlock)
    )


def bind_before(
    context: FileContext,
    node: cst.BaseExpression,
    base: str,
    value: cst.BaseExpression,
    rewrite: Callable[[cst.Name], cst.BaseExpression],
) -> tuple[cst.CSTNode, cst.FlattenSentinel[cst.BaseStatement]] | None:
    """A fix that binds ``value`` to a fresh name derived from ``base`` on a line of its own
    before the statement holding ``node``, and replaces ``node`` by ``rewrite(name)``; both
    statements are fitted to the line length. None where the statement cannot take a line
    before it (see the module's docstring): the rule writes the inline form instead."""
    place = _statement_place(context, node)
    if place is None:
        return None
    line, chain = place
    name = fresh_name(context, base)
    new_node = rewrite(cst.Name(name))
    indent = block_indent(context, chain[:-1])
    helper = cst.SimpleStatementLine(
        body=[cst.Assign(targets=[cst.AssignTarget(cst.Name(name))], value=value)],
        leading_lines=line.leading_lines,
    )
    helper = fit_statement(context, helper, indent, [value], old=None)
    inner = ancestors(context, node)[len(chain) :]
    statement: cst.SimpleStatementLine | None = None
    if not _heads_statement(inner, node):
        statement = _fit_in_enclosure(context, line, inner, node, new_node, indent)
    if statement is None:
        replaced = line.deep_replace(node, new_node)
        assert isinstance(replaced, cst.SimpleStatementLine)
        changed = [new_node] if isinstance(new_node, (cst.Call, cst.Tuple)) else []
        statement = fit_statement(context, replaced, indent, changed, old=line)
    statement = statement.with_changes(leading_lines=[])
    return line, cst.FlattenSentinel([helper, statement])


# -- fitting to the line length ------------------------------------------------------------------
def _too_long(lines: Sequence[str], indent: str, limit: int, old: set[str]) -> bool:
    return any(text_width(indent + text) > limit for text in lines if text not in old)


def fit_statement(
    context: FileContext,
    statement: cst.SimpleStatementLine,
    indent: str,
    changed: Sequence[cst.CSTNode],
    old: cst.SimpleStatementLine | None,
    *,
    chained: bool = False,
) -> cst.SimpleStatementLine:
    """``statement`` (to stand at ``indent``) with the calls and tuples in ``changed`` (nodes of
    it that a fix wrote) wrapped where one of its lines that ``old`` does not have is longer
    than the line length."""
    limit = line_length(context)
    old_lines = set(node_code(old).splitlines()) if old is not None else set()
    for node in changed:
        if not _too_long(node_code(statement).splitlines(), indent, limit, old_lines):
            break
        marked = node_code(statement.deep_replace(node, cst.Name(_MARKER)))
        line = next((text for text in marked.splitlines() if _MARKER in text), None)
        if line is None:
            continue
        relative = line[: len(line) - len(line.lstrip())]
        column = text_width(indent + line[: line.index(_MARKER)])
        tail = line[line.index(_MARKER) + len(_MARKER) :]
        ends_line = tail.split("#", 1)[0].strip() in ("", ",")
        if chained and tail.startswith("."):
            ends_line = True  # a call chain on a line of its own: its head's content is hugged
        layout = Layout(limit, text_width(indent), indent_unit(context))
        fitted = layout.fit(node, column, len(tail.rstrip()), relative, hug=ends_line)
        if fitted is not node:
            replaced = statement.deep_replace(node, fitted)
            assert isinstance(replaced, cst.SimpleStatementLine)
            statement = replaced
    return statement


def replace_fitted(
    context: FileContext,
    node: cst.CSTNode,
    new_node: cst.CSTNode,
    changed: Sequence[cst.CSTNode] = (),
) -> tuple[cst.CSTNode, cst.CSTNode]:
    """The replacement of ``node`` by ``new_node``, with the calls and tuples in ``changed``
    (default: ``new_node`` itself) wrapped when a line of the statement around grows past the
    line length: then the whole line of the statement is replaced."""
    if not changed:
        changed = [new_node]
    chain = ancestors(context, node)
    index = next(
        (i for i in range(len(chain) - 1, -1, -1) if isinstance(chain[i], cst.SimpleStatementLine)),
        None,
    )
    if index is None:
        return node, new_node
    line = chain[index]
    assert isinstance(line, cst.SimpleStatementLine)
    indent = block_indent(context, chain[:index])
    if not _heads_statement(chain[index + 1 :], node):
        return _fitted_in_enclosure(context, line, chain[index + 1 :], node, new_node, indent)
    replaced = line.deep_replace(node, new_node)
    assert isinstance(replaced, cst.SimpleStatementLine)
    fitted = fit_statement(context, replaced, indent, changed, old=line)
    if fitted is replaced:
        return node, new_node
    return line, fitted


def _fitted_in_enclosure(
    context: FileContext,
    line: cst.SimpleStatementLine,
    inner: Sequence[cst.CSTNode],
    node: cst.CSTNode,
    new_node: cst.CSTNode,
    indent: str,
) -> tuple[cst.CSTNode, cst.CSTNode]:
    """The replacement of ``node`` by ``new_node`` where ``node`` heads the element of a
    comprehension, the body of a conditional expression or an argument of a call that is the
    statement's value: when the line grows too long, that enclosure is split first, as Ruff and
    Black split the outermost bracket (its content on one line of its own where that fits; else
    a comprehension's parts and a conditional's one a line, a call's arguments one a line), and
    what is still too long is fitted on its own line."""
    fitted = _fit_in_enclosure(context, line, inner, node, new_node, indent)
    return (node, new_node) if fitted is None else (line, fitted)


def _fit_in_enclosure(
    context: FileContext,
    line: cst.SimpleStatementLine,
    inner: Sequence[cst.CSTNode],
    node: cst.CSTNode,
    new_node: cst.CSTNode,
    indent: str,
) -> cst.SimpleStatementLine | None:
    """``line`` with ``node`` replaced by ``new_node`` and laid out (see
    :func:`_fitted_in_enclosure`); None where it is left as it is."""
    path = [*inner, node]
    enclosure = enclosure_of(path)
    if enclosure is None:
        return None
    limit = line_length(context)
    old_lines = set(node_code(line).splitlines())
    flat = line.deep_replace(node, new_node)
    assert isinstance(flat, cst.SimpleStatementLine)
    if not _too_long(node_code(flat).splitlines(), indent, limit, old_lines):
        return None
    unit = indent_unit(context)
    room = limit - text_width(indent + unit)
    rebuilt = enclosure.deep_replace(node, new_node)
    assert isinstance(rebuilt, cst.BaseExpression)
    split = split_enclosure(rebuilt, unit, room)
    if split is None:
        return None
    replaced = line.deep_replace(enclosure, split)
    assert isinstance(replaced, cst.SimpleStatementLine)
    top = element_of(split, path)
    if top is not new_node and isinstance(top, cst.Call):
        rejoined = joined(top)
        if rejoined is not top:
            replaced = replaced.deep_replace(top, rejoined)
            assert isinstance(replaced, cst.SimpleStatementLine)
            top = rejoined
    if top is not new_node and isinstance(top, cst.Call) and "\n" not in node_code(top):
        # The chain's last call is split where the line up to its bracket fits (Black's
        # right-hand split: the last bracket first, its trailers omitted only when needed).
        head = node_code(top.with_changes(args=()))[:-1]
        if len(head) <= room:
            return fit_statement(context, replaced, indent, [top], old=line)
    changed = [new_node] if isinstance(new_node, (cst.Call, cst.Tuple)) else []
    return fit_statement(context, replaced, indent, changed, old=line, chained=True)


def _heads_statement(inner: Sequence[cst.CSTNode], node: cst.CSTNode) -> bool:
    """Whether ``node`` starts the value of its statement, alone or as the head of a chain of
    calls and attributes (``node.to(device)``): there a formatter splits ``node``'s own
    brackets as :func:`fit_statement` does. Elsewhere (inside a comprehension, an argument of
    another call) it would split the brackets around first, so a fix there is left unwrapped."""
    path = [*inner, node]
    if not path or not isinstance(path[0], _SMALL):
        return False
    for parent, child in itertools.pairwise(path[1:]):
        if isinstance(parent, cst.Call) and parent.func is child:
            continue
        if isinstance(parent, cst.Attribute) and parent.value is child:
            continue
        return False
    return len(path) < 2 or getattr(path[0], "value", None) is path[1]

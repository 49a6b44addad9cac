"""Wrapping a fix's call over lines as the formatter would (hugging a sole argument, or one
element per line with a magic trailing comma). Moved out of ``fix_format.py`` as it was."""

from __future__ import annotations

import libcst as cst

from h2dlint.context import FileContext
from h2dlint.walk import visit_read_only


def node_code(node: cst.CSTNode) -> str:
    return cst.Module(body=[]).code_for_node(node)


def text_width(text: str) -> int:
    """Columns, a tab counting as 4 (Ruff's default indent width)."""
    return len(text.expandtabs(4)) if "\t" in text else len(text)


def indent_unit(context: FileContext) -> str:
    """One level of indentation, as the file indents its blocks."""
    default = context.module.default_indent
    return default if default and default.strip(" \t") == "" else "    "


def newline_at(indent: str) -> cst.ParenthesizedWhitespace:
    return cst.ParenthesizedWhitespace(
        first_line=cst.TrailingWhitespace(),
        empty_lines=[],
        indent=True,
        last_line=cst.SimpleWhitespace(indent),
    )


class Layout:
    """Black's and Ruff's way of splitting one bracket: flat; else the content on one line of
    its own (only where the bracket ends the line); else one element a line, trailing comma."""

    def __init__(self, limit: int, block: int, unit: str) -> None:
        self.limit = limit
        self.block = block
        self.unit = unit

    def fit(
        self, node: cst.CSTNode, column: int, tail: int, indent: str, *, hug: bool
    ) -> cst.CSTNode:
        """``node`` starting at ``column`` with ``tail`` characters after it on its line, its
        line indented ``indent`` past the block."""
        code = node_code(node)
        if "\n" in code or ("#" in code and has_comment(node)):
            return node  # laid out by hand: leave it
        if column + len(code) + tail <= self.limit:
            return node
        elements = _elements(node)
        if elements is None:
            return node
        inner = indent + self.unit
        texts = [node_code(bare_element(e)) for e in elements]
        body = ", ".join(texts)
        if (hug and self.block + text_width(inner) + len(body) <= self.limit) or sole_generator(
            node
        ):
            # A call's sole bare generator takes no trailing comma: it is only ever hugged.
            return hug_elements(node, elements, inner, indent)
        laid: list[Element] = []
        for element in elements:
            value, prefix = _value_of(element)
            start = self.block + text_width(inner) + len(prefix)
            if value is not None and start + len(node_code(value)) + 1 > self.limit:
                element = _with_value(element, self.fit(value, start, 1, inner, hug=True))
            laid.append(element)
        return explode_elements(node, laid, inner, indent)


def sole_generator(node: cst.CSTNode) -> bool:
    return (
        isinstance(node, cst.Call)
        and len(node.args) == 1
        and isinstance(node.args[0].value, cst.GeneratorExp)
        and not node.args[0].value.lpar
    )


class _Comments(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found = False

    def visit_Comment(self, node: cst.Comment) -> None:
        self.found = True


def has_comment(node: cst.CSTNode) -> bool:
    collector = _Comments()
    visit_read_only(node, collector)
    return collector.found


Element = cst.Arg | cst.BaseElement


def _elements(node: cst.CSTNode) -> list[Element] | None:
    """The arguments of a call, or the elements of a parenthesized tuple of two or more."""
    if isinstance(node, cst.Call) and node.args:
        return list(node.args)
    if isinstance(node, cst.Tuple) and node.lpar and len(node.elements) > 1:
        return list(node.elements)
    return None


def bare_element(element: Element) -> Element:
    if isinstance(element, cst.Arg):
        return element.with_changes(
            comma=cst.MaybeSentinel.DEFAULT, whitespace_after_arg=cst.SimpleWhitespace("")
        )
    return element.with_changes(comma=cst.MaybeSentinel.DEFAULT)


def _value_of(element: Element) -> tuple[cst.BaseExpression | None, str]:
    """The element's value, when it is a call or tuple, and what comes before it on its line."""
    value = element.value
    if not isinstance(value, (cst.Call, cst.Tuple)):
        return None, ""
    if isinstance(element, cst.Arg):
        if element.keyword is not None:
            return value, element.keyword.value + "="
        return value, str(element.star)
    if isinstance(element, cst.StarredElement):
        return value, "*"
    return value, ""


def _with_value(element: Element, value: cst.CSTNode) -> Element:
    return element.with_changes(value=value)


def hug_elements(
    node: cst.CSTNode, elements: list[Element], inner: str, indent: str
) -> cst.CSTNode:
    items: list[Element] = []
    for i, element in enumerate(elements):
        bare = bare_element(element)
        if i < len(elements) - 1:
            bare = bare.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        items.append(bare)
    return _bracketed(node, items, inner, indent)


def explode_elements(
    node: cst.CSTNode, elements: list[Element], inner: str, indent: str
) -> cst.CSTNode:
    items: list[Element] = []
    for i, element in enumerate(elements):
        after = newline_at(inner if i < len(elements) - 1 else indent)
        items.append(bare_element(element).with_changes(comma=cst.Comma(whitespace_after=after)))
    return _bracketed(node, items, inner, indent, closed=True)


def _bracketed(
    node: cst.CSTNode, items: list[Element], inner: str, indent: str, *, closed: bool = False
) -> cst.CSTNode:
    """``node`` with ``items``, opened onto a new line at ``inner``; the closing bracket at
    ``indent`` on its own line (after the last item's comma when ``closed``)."""
    if not closed:
        last = items[-1]
        if isinstance(last, cst.Arg):
            items[-1] = last.with_changes(whitespace_after_arg=newline_at(indent))
    if isinstance(node, cst.Call):
        return node.with_changes(whitespace_before_args=newline_at(inner), args=items)
    assert isinstance(node, cst.Tuple)
    lpar = [node.lpar[0].with_changes(whitespace_after=newline_at(inner)), *node.lpar[1:]]
    rpar = list(node.rpar)
    if not closed:
        rpar[0] = rpar[0].with_changes(whitespace_before=newline_at(indent))
    return node.with_changes(lpar=lpar, rpar=rpar, elements=items)

"""Where a fix's code sits inside a comprehension, a conditional expression or a call's
arguments (the statement's value), how a formatter splits that enclosure first: its content on
one line of its own where it fits, else part by part (the comprehension's clauses, the
conditional's branches, the call's arguments one a line). :mod:`h2dlint.fix_format` fits the
fix inside it afterwards."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import libcst as cst

from h2dlint.fix_wrap import (
    Element,
    bare_element,
    explode_elements,
    has_comment,
    hug_elements,
    newline_at,
    node_code,
    sole_generator,
)

SMALL_STATEMENTS = (cst.Assign, cst.AnnAssign, cst.AugAssign, cst.Return, cst.Expr)
"""Statements whose value a fix may lay out."""


def joined(call: cst.Call) -> cst.Call:
    """``call`` with its arguments on its line again where a formatter split them only for
    length (no comment, no magic trailing comma, no argument spanning lines): the fix changed
    the line, so a formatter lays it out anew."""
    if not call.args or "\n" not in node_code(call.with_changes(func=cst.Name("f"))):
        return call
    last = call.args[-1]
    if isinstance(last.comma, cst.Comma) or has_comment(call.with_changes(func=cst.Name("f"))):
        return call
    args = [bare_element(a) for a in call.args]
    if any("\n" in node_code(a) for a in args):
        return call
    spaced = [
        a.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        for a in args[:-1]
    ]
    return call.with_changes(
        whitespace_before_args=cst.SimpleWhitespace(""), args=[*spaced, args[-1]]
    )


def element_of(split: cst.CSTNode, path: Sequence[cst.CSTNode]) -> cst.CSTNode | None:
    """In ``split`` (the enclosure, rebuilt), the element that ``path`` goes down through."""
    if isinstance(split, (cst.ListComp, cst.SetComp, cst.GeneratorExp)):
        return split.elt
    if isinstance(split, cst.IfExp):
        return split.body
    if sole_generator(split):
        assert isinstance(split, cst.Call) and isinstance(split.args[0].value, cst.GeneratorExp)
        return split.args[0].value.elt
    if isinstance(split, cst.Call):
        arg = _argument(split, path)
        return arg.value if arg is not None else None
    return None


def _argument(split: cst.Call, path: Sequence[cst.CSTNode]) -> cst.Arg | None:
    enclosure = getattr(path[0], "value", None)
    if isinstance(enclosure, cst.Call) and len(split.args) == len(enclosure.args):
        for index, arg in enumerate(enclosure.args):
            if arg is path[2]:
                return split.args[index]
    return None


def enclosure_of(path: Sequence[cst.CSTNode]) -> cst.BaseExpression | None:
    """The statement's value, where it is a comprehension, a conditional expression or a call
    whose element, body or argument ``path[-1]`` heads (alone or as the head of a chain of calls
    and attributes); None elsewhere."""
    if len(path) < 3 or not isinstance(path[0], SMALL_STATEMENTS):
        return None
    value = getattr(path[0], "value", None)
    if value is not path[1]:
        return None
    if sole_generator(value):
        # ``list(x.to(d) for x in xs)``: the call's brackets are the generator's
        assert isinstance(value, cst.Call)
        generator = value.args[0].value
        assert isinstance(generator, cst.GeneratorExp)
        heads = len(path) > 4 and path[4] is generator.elt and _heads(path[4:])
        return value if heads and not isinstance(path[0], cst.AugAssign) else None
    if not _heads(path[2:]):
        return None
    if isinstance(value, (cst.ListComp, cst.SetComp)) and path[2] is value.elt:
        return value
    if isinstance(value, cst.GeneratorExp) and value.lpar and path[2] is value.elt:
        return value
    if isinstance(value, cst.IfExp) and path[2] is value.body and len(value.lpar) < 2:
        if isinstance(path[0], cst.Expr) or isinstance(value.orelse, cst.IfExp):
            return None
        return value
    if isinstance(value, cst.Call) and isinstance(path[2], cst.Arg) and len(path) > 3:
        arg = path[2]
        if path[3] is not arg.value or arg.keyword is not None or arg.star:
            return None
        return value if not isinstance(path[0], cst.AugAssign) else None
    return None


def _heads(path: Sequence[cst.CSTNode]) -> bool:
    """Whether each node of ``path`` (after an argument) is the callee or the object of the one
    before it: ``node.to(device)`` is headed by ``node``."""
    steps = [n for n in path if not isinstance(n, cst.Arg)]
    for outer, child in itertools.pairwise(steps):
        if isinstance(outer, cst.Call) and outer.func is child:
            continue
        if isinstance(outer, cst.Attribute) and outer.value is child:
            continue
        return False
    return True


def split_enclosure(node: cst.BaseExpression, unit: str, room: int) -> cst.BaseExpression | None:
    """``node`` (a statement's value) split over lines as a formatter splits it: its content
    on one line of its own where that is at most ``room`` wide, else part by part."""
    if has_comment(node):
        return None
    if sole_generator(node):
        assert isinstance(node, cst.Call)
        generator = node.args[0].value
        assert isinstance(generator, cst.GeneratorExp)
        if len(node_code(generator)) > room:
            generator = generator.with_changes(for_in=_split_for(generator.for_in, unit))
        arg = node.args[0].with_changes(value=generator, whitespace_after_arg=newline_at(""))
        return node.with_changes(whitespace_before_args=newline_at(unit), args=[arg])
    if isinstance(node, cst.Call):
        elements: list[Element] = list(node.args)
        body = ", ".join(node_code(bare_element(e)) for e in elements)
        if len(elements) == 1 or len(body) <= room:
            split = hug_elements(node, elements, unit, "")
        else:
            split = explode_elements(node, elements, unit, "")
        assert isinstance(split, cst.Call)
        return split
    if isinstance(node, cst.IfExp):
        hugged = len(node_code(node.with_changes(lpar=(), rpar=()))) <= room
        parts = cst.SimpleWhitespace(" ") if hugged else newline_at(unit)
        return node.with_changes(
            lpar=[cst.LeftParen(whitespace_after=newline_at(unit))],
            rpar=[cst.RightParen(whitespace_before=newline_at(""))],
            whitespace_before_if=parts,
            whitespace_after_if=cst.SimpleWhitespace(" "),
            whitespace_before_else=parts,
            whitespace_after_else=cst.SimpleWhitespace(" "),
        )
    if isinstance(node, (cst.ListComp, cst.SetComp, cst.GeneratorExp)):
        content = node_code(node.with_changes(lpar=(), rpar=()))
        if not isinstance(node, cst.GeneratorExp):
            content = content[1:-1]
        for_in = node.for_in if len(content) <= room else _split_for(node.for_in, unit)
        if isinstance(node, cst.GeneratorExp):
            lpar = [node.lpar[0].with_changes(whitespace_after=newline_at(unit)), *node.lpar[1:]]
            rpar = [node.rpar[0].with_changes(whitespace_before=newline_at("")), *node.rpar[1:]]
            return node.with_changes(lpar=lpar, rpar=rpar, for_in=for_in)
        if isinstance(node, cst.SetComp):
            lbrace = node.lbrace.with_changes(whitespace_after=newline_at(unit))
            rbrace = node.rbrace.with_changes(whitespace_before=newline_at(""))
            return node.with_changes(lbrace=lbrace, rbrace=rbrace, for_in=for_in)
        lbracket = node.lbracket.with_changes(whitespace_after=newline_at(unit))
        rbracket = node.rbracket.with_changes(whitespace_before=newline_at(""))
        return node.with_changes(lbracket=lbracket, rbracket=rbracket, for_in=for_in)
    return None


def _split_for(for_in: cst.CompFor, unit: str) -> cst.CompFor:
    """A comprehension's ``for`` and ``if`` clauses, each on a line of its own."""
    ifs = [i.with_changes(whitespace_before=newline_at(unit)) for i in for_in.ifs]
    inner = _split_for(for_in.inner_for_in, unit) if for_in.inner_for_in is not None else None
    return for_in.with_changes(whitespace_before=newline_at(unit), ifs=ifs, inner_for_in=inner)

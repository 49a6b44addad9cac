"""A memoisation guard whose body fills the cache through a call: ``if key not in cache:``
followed by ``self._compile_variant(data, key, cache)``, the callee storing ``cache[key] = ...``
(session 48, triage48b: nequip 0.19.1's ``CompileGraphModel.forward``, ``nn/compile.py:310``,
compiles a variant per input signature, and the boolean-mask syncs of the example frame it
traces run on that cache miss only). The call must pass both the tested key and the cache, by
name (nested helpers of the body count: a closure handed to a warm-up wrapper), so that a body
that merely reads the cache (``log(cache)``) or passes it without the key stays a plain test."""

from __future__ import annotations

import ast

import libcst as cst

from h2dlint.walk import visit_read_only


class _Calls(cst.CSTVisitor):
    def __init__(self) -> None:
        self.calls: list[cst.Call] = []

    def visit_Call(self, node: cst.Call) -> None:
        self.calls.append(node)


def filled_by_call(key: cst.BaseExpression, cache: cst.BaseExpression, body: cst.BaseSuite) -> bool:
    """Whether a call in ``body`` passes both ``key`` and ``cache`` as arguments (the key a
    name, the cache a name or ``self``'s attribute)."""
    if not isinstance(key, cst.Name) or not isinstance(cache, (cst.Name, cst.Attribute)):
        return False
    finder = _Calls()
    visit_read_only(body, finder)
    for call in finder.calls:
        values = [arg.value for arg in call.args if not arg.star]
        if any(v.deep_equals(key) for v in values) and any(v.deep_equals(cache) for v in values):
            return True
    return False


def cache_fill_lines(nodes: list[ast.AST]) -> list[list[int]]:
    """The line ranges of the bodies of ``if key not in cache:`` among a function's own
    ``nodes`` (CPython's ``ast``) whose body passes both to a call: the callers the project
    index walks up from (:mod:`h2dlint.analysis.step_loops`) make such a call on a cache miss
    only, the ``ast`` side of :func:`filled_by_call`."""
    lines: list[list[int]] = []
    for node in nodes:
        if not (isinstance(node, ast.If) and isinstance(node.test, ast.Compare)):
            continue
        test = node.test
        if len(test.ops) != 1 or not isinstance(test.ops[0], ast.NotIn):
            continue
        key, cache = test.left, test.comparators[0]
        if not isinstance(key, ast.Name) or not isinstance(cache, (ast.Name, ast.Attribute)):
            continue
        wanted = {ast.dump(key), ast.dump(cache)}
        for part in node.body:
            for call in ast.walk(part):
                if not isinstance(call, ast.Call):
                    continue
                passed = {ast.dump(arg) for arg in call.args}
                passed |= {ast.dump(kw.value) for kw in call.keywords}
                if wanted <= passed:
                    first, last = node.body[0], node.body[-1]
                    lines.append([first.lineno, last.end_lineno or last.lineno])
                    break
            else:
                continue
            break
    return lines

"""A module's own self-test: a top-level ``test()`` that takes no parameters and that only the
module's own top-level code calls (``if __name__ == "__main__": test()``).

It makes its inputs itself and checks them (EnCodec's arithmetic coder, copied into many audio
packages: ``test()`` draws ``torch.randn`` pdfs on the host, encodes and decodes them); its
loops are the test's cases, not the steps of a program that serves or trains, so the project
index takes none of them for a loop of steps (:mod:`h2dlint.analysis.step_loops`): what they
call is not hot through them. The self-test's own lines keep their verdicts (a kernel file's
``test()`` harness reading device lengths per sequence is still HTD201's). A script's
``test(model, loader)`` takes its model and data from its caller: an evaluation loop, still a
driver whose loops are steps; a ``test()`` another function calls is a step of that one.
"""

from __future__ import annotations

import ast

# The names a module gives its own self-test.
SELF_TEST_NAMES = frozenset({"test", "_test", "selftest", "self_test", "_selftest"})


def ast_self_tests(tree: ast.Module) -> frozenset[str]:
    """The names of ``tree``'s self-tests (see the module docs), read with CPython's ``ast``
    for the project index's loops of steps (:mod:`h2dlint.analysis.step_loops`): top-level,
    parameterless, each name loaded only as the callee of a call in top-level code."""
    candidates = {
        node.name: node
        for node in tree.body
        if isinstance(node, ast.FunctionDef)
        and node.name in SELF_TEST_NAMES
        and not _ast_parameters(node.args)
    }
    if not candidates:
        return frozenset()
    top_calls: dict[str, int] = dict.fromkeys(candidates, 0)
    for statement in tree.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        callees = {id(node.func) for node in ast.walk(statement) if isinstance(node, ast.Call)}
        for node in ast.walk(statement):
            if isinstance(node, ast.Name) and node.id in top_calls:
                if id(node) not in callees:
                    candidates.pop(node.id, None)  # handed on: whoever receives it may loop
                top_calls[node.id] += 1
    for statement in tree.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for node in ast.walk(statement):
                if isinstance(node, ast.Name) and node.id in candidates:
                    candidates.pop(node.id)  # another function calls it: a step of that one
    return frozenset(name for name in candidates if top_calls[name])


def _ast_parameters(arguments: ast.arguments) -> bool:
    return bool(
        arguments.posonlyargs
        or arguments.args
        or arguments.kwonlyargs
        or arguments.vararg
        or arguments.kwarg
    )

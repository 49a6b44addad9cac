"""Reads on the error path: in an ``except`` handler that catches any error.

A loop's read inside ``except Exception:`` (or ``except BaseException:``, a bare ``except:``)
runs only when the ``try`` block failed: a log line that shows a row's length, a fallback
length taken from another tensor (funasr's LLM-ASR ``model.py:613``/``:615``, where the copy of
an encoder output into the embeddings raised). It is no per-row cost of a step that works; a
step that takes it on every row is broken anyway (session 44, fp201m44).

Narrow handlers are left to the rule: ``except KeyError:`` is often a cache miss, the normal
path of a lookup the first time a key is seen.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from h2dlint.walk import holds, visit_read_only

ANY_ERROR = frozenset({"Exception", "BaseException"})


def read_on_error_path(
    ancestors: Sequence[cst.CSTNode], loop: cst.CSTNode, read: cst.CSTNode
) -> bool:
    """Whether ``read``, in ``loop`` (whose ancestors are ``ancestors``), sits in a handler
    that catches any error: one in the loop around the read, or one around the loop."""
    if any(isinstance(node, cst.ExceptHandler) and _any_error(node) for node in ancestors):
        return True
    finder = _Handlers()
    visit_read_only(loop, finder)
    return any(holds(handler, read) for handler in finder.handlers)


class _Handlers(cst.CSTVisitor):
    def __init__(self) -> None:
        self.handlers: list[cst.ExceptHandler] = []

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        if _any_error(node):
            self.handlers.append(node)


def _any_error(handler: cst.ExceptHandler) -> bool:
    kind = handler.type
    if kind is None:
        return True
    kinds = [e.value for e in kind.elements] if isinstance(kind, cst.Tuple) else [kind]
    return any(isinstance(k, cst.Name) and k.value in ANY_ERROR for k in kinds)

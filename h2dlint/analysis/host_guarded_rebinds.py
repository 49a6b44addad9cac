"""An ``if`` with no ``else`` that rebinds a name only when a type test says it may be a tensor,
so that past it the name is never the tensor it was (session 48, triage48: lmql 0.7.3's token
streamer, ``lmql/models/lmtp/lmtp_scheduler.py:142``)::

    last_tokens = input_ids[:, -1]
    if not nputil.is_array(last_tokens):        # or: if torch.is_tensor(last_tokens):
        last_tokens = last_tokens.cpu().numpy()
    ... int(last_tokens[i].item())               # a numpy array on both paths

The path that skips the body is the one where the test says the value is no tensor (an array,
or anything but a tensor), so the earlier binding reaches what follows only as host data: for
the questions the bindings answer (is it a device tensor), the ``if`` binds the name on every
path, leaving the body's bindings. The test must name the rebound name itself:
``isinstance(x, torch.Tensor)``/``torch.is_tensor(x)`` (its false path: no tensor), or the
``not`` of ``isinstance(x, np.ndarray)`` or of a helper named for arrays (``is_array(x)``,
``is_ndarray(x)``, ``is_numpy(x)``: its false path: an array). The look-alike
``if not isinstance(x, torch.Tensor): x = torch.tensor(x)`` skips its body for the tensor, so
it is not one of these.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

_EMPTY = cst.Module([])
_TENSOR_TYPES = frozenset({"torch.Tensor", "Tensor"})
_ARRAY_TYPES = frozenset({"np.ndarray", "numpy.ndarray", "ndarray"})
_ARRAY_HELPERS = frozenset({"is_array", "is_ndarray", "is_numpy", "is_numpy_array"})


def skipped_only_for_host(test: cst.BaseExpression, bound: Sequence[cst.CSTNode]) -> bool:
    """Whether ``test`` (an ``if``'s, with no ``else``) is false only where the name it tests
    holds no tensor, and that name is one the statements ``bound`` (the body's bindings) bind."""
    negated = isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)
    inner = test.expression if isinstance(test, cst.UnaryOperation) and negated else test
    tested = _tested(inner, tensor=not negated)
    return tested is not None and any(tested in _targets(s) for s in bound)


def _tested(test: cst.BaseExpression, tensor: bool) -> str | None:
    """The name ``test`` tests: for a tensor (``tensor``) or for an array; None for any other."""
    if not isinstance(test, cst.Call) or not test.args or test.args[0].keyword is not None:
        return None
    first = test.args[0].value
    if not isinstance(first, cst.Name):
        return None
    func = _EMPTY.code_for_node(test.func)
    if func == "isinstance" and len(test.args) == 2:
        kinds = _TENSOR_TYPES if tensor else _ARRAY_TYPES
        return first.value if _EMPTY.code_for_node(test.args[1].value) in kinds else None
    if len(test.args) != 1:
        return None
    if tensor:
        return first.value if func in ("torch.is_tensor", "is_tensor") else None
    return first.value if func.rsplit(".", 1)[-1] in _ARRAY_HELPERS else None


def _targets(statement: cst.CSTNode) -> set[str]:
    """The plain names a line's assignments bind."""
    if not isinstance(statement, cst.SimpleStatementLine):
        return set()
    names: set[str] = set()
    for small in statement.body:
        targets: list[cst.BaseExpression] = []
        if isinstance(small, cst.Assign):
            targets = [t.target for t in small.targets]
        elif isinstance(small, cst.AnnAssign):
            targets = [small.target]
        names |= {t.value for t in targets if isinstance(t, cst.Name)}
    return names

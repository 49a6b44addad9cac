"""An ``if`` with no ``else`` that rebinds a name only when a type test says it may be a tensor,
so that past it the name is never the tensor it was (session 48, triage48: lmql 0.7.3's token
streamer, ``lmql/models/lmtp/lmtp_scheduler.py:142``)::

    last_tokens = input_ids[:, -1]
    if not nputil.is_array(last_tokens):        # or: if torch.is_tensor(last_tokens):
        last_tokens = last_tokens.cpu().numpy()
    ... int(last_tokens[i].item())               # a numpy array on both paths

A test that the value is off the host counts the same way (session 50, triage50a: SkyRL
0.3.0's workers, ``skyrl/backends/skyrl_train/workers/worker.py:1075``)::

    if output.device is not None and output.device != torch.device("cpu"):
        output = output.to("cpu")
    ... row_tensor[i].tolist()                    # host rows on both paths

(``x.device != torch.device("cpu")``, ``x.device.type != "cpu"``, ``x.device.type ==
"cuda"``, ``x.is_cuda``, also ``and`` a not-None test of ``x`` or its device): its false
path holds the name on the host.

The path that skips the body is the one where the test says the value is no tensor (an array,
or anything but a tensor, or a tensor on the host), so the earlier binding reaches what follows
only as host data: for the questions the bindings answer (is it a device tensor), the ``if``
binds the name on every path, leaving the body's bindings. The test must name the rebound name
itself: ``isinstance(x, torch.Tensor)``/``torch.is_tensor(x)`` (its false path: no tensor), the
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
    """The name ``test`` tests: for a tensor (``tensor``: also for a tensor off the host) or for
    an array; None for any other."""
    if tensor and (device := _device_tested(test)) is not None:
        return device
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


def _device_tested(test: cst.BaseExpression) -> str | None:
    """The name ``test`` asks to be off the host: ``x.device != torch.device("cpu")``,
    ``x.device.type != "cpu"``, ``x.device.type == "cuda"``, ``x.is_cuda``, also ``and`` a
    test that ``x`` (or its device) is not None; None for any other test. Its false path holds
    the name on the host (or no tensor at all)."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        left, right = _device_tested(test.left), _device_tested(test.right)
        if left is not None and right is not None:
            return left if left == right else None
        if left is not None and _not_none(test.right) == left:
            return left
        if right is not None and _not_none(test.left) == right:
            return right
        return None
    if isinstance(test, cst.Attribute) and test.attr.value == "is_cuda":
        return test.value.value if isinstance(test.value, cst.Name) else None
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return None
    target = test.comparisons[0]
    operator, other = target.operator, _EMPTY.code_for_node(target.comparator)
    name = _device_of(test.left)
    if name is None:
        return None
    on_type = isinstance(test.left, cst.Attribute) and test.left.attr.value == "type"
    if isinstance(operator, cst.NotEqual):
        cpu = ('"cpu"', "'cpu'") if on_type else ('torch.device("cpu")', "torch.device('cpu')")
        return name if other in cpu else None
    if isinstance(operator, cst.Equal) and on_type:
        return name if other in ('"cuda"', "'cuda'") else None
    return None


def _device_of(node: cst.BaseExpression) -> str | None:
    """``x`` of ``x.device`` or ``x.device.type``."""
    if isinstance(node, cst.Attribute) and node.attr.value == "type":
        node = node.value
    if isinstance(node, cst.Attribute) and node.attr.value == "device":
        return node.value.value if isinstance(node.value, cst.Name) else None
    return None


def _not_none(test: cst.BaseExpression) -> str | None:
    """``x`` of ``x is not None`` or ``x.device is not None``."""
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return None
    if not isinstance(test.comparisons[0].operator, cst.IsNot):
        return None
    if _EMPTY.code_for_node(test.comparisons[0].comparator) != "None":
        return None
    if isinstance(test.left, cst.Name):
        return test.left.value
    return _device_of(test.left)

"""A host copy a setting asks for: ``if self.cpu_cache: hr = hr.cpu()``.

A name rebound to its own host copy under a test of a setting (a flag, no ``else``) goes on,
after the ``if``, to code that works on the value wherever it is: the copy is optional, so
nothing after it needs the values on the host. It is an offload, chosen to free device memory
(BasicVSR++'s ``cpu_cache`` of flows and output frames for long videos), and the copy is the
operation, not a read of the values that could be avoided or moved (HTD202 leaves it alone,
as it leaves ``self.buf = self.buf.cpu()``, see ``unknown_tensors.moved_in_place``).

The same rebinding followed, in its block, by a call of the cache's ``empty_cache()``
(``torch.cuda.empty_cache()``) is an offload whatever tests it: the code moves the values off
the device to give their memory back (session 49, triage49b: Protenix's confidence head,
``if z_trunk.shape[-2] > 2000 and not self.training: pae_pred = pae_pred.cpu(); ...;
torch.cuda.empty_cache()``, a size test that no setting names). A copy to a new name, or an
``empty_cache()`` before the copy or in another block, proves nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from h2dlint.analysis.arguments import positional


def _host_copy(copy: cst.Call) -> cst.Name | None:
    """``x`` of ``x.cpu()`` or ``x.to("cpu")``."""
    func = copy.func
    if not isinstance(func, cst.Attribute) or not isinstance(func.value, cst.Name):
        return None
    if func.attr.value == "cpu" and not copy.args:
        return func.value
    if func.attr.value == "to":
        args = positional(copy)
        first = args[0].value if len(copy.args) == 1 and args else None
        if isinstance(first, cst.SimpleString) and first.evaluated_value == "cpu":
            return func.value
    return None


def _setting(test: cst.BaseExpression) -> bool:
    """``flag``, ``self.cpu_cache``, ``not self.cfg.keep_on_device``: a value the code is
    configured with, not a computed condition."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        test = test.expression
    while isinstance(test, cst.Attribute):
        test = test.value
    return isinstance(test, cst.Name)


def _empties_cache(statement: cst.BaseStatement) -> bool:
    """``torch.cuda.empty_cache()`` (or any ``<...>.empty_cache()``) as a statement."""
    if not isinstance(statement, cst.SimpleStatementLine):
        return False
    for small in statement.body:
        call = small.value if isinstance(small, cst.Expr) else None
        if (
            isinstance(call, cst.Call)
            and isinstance(call.func, cst.Attribute)
            and call.func.attr.value == "empty_cache"
        ):
            return True
    return False


def _frees_memory_after(block: cst.CSTNode, line: cst.CSTNode) -> bool:
    """Whether a statement after ``line`` in ``block`` (an indented block or a module)
    empties the device's cache."""
    if not isinstance(block, (cst.IndentedBlock, cst.Module)):
        return False
    body = block.body
    at = next((i for i, statement in enumerate(body) if statement is line), None)
    return at is not None and any(_empties_cache(statement) for statement in body[at + 1 :])


def optional_offload(ancestors: Sequence[cst.CSTNode], copy: cst.Call) -> bool:
    """Whether ``copy`` (below ``ancestors``, innermost last) is ``x = x.cpu()`` of a local
    name, a statement of the body of an ``if`` with no ``else`` that tests a setting, or one
    that a later statement of its block follows with ``empty_cache()``."""
    copied = _host_copy(copy)
    if copied is None or len(ancestors) < 4:
        return False
    assign, line, block, branch = ancestors[-1], ancestors[-2], ancestors[-3], ancestors[-4]
    if not (
        isinstance(assign, cst.Assign)
        and assign.value is copy
        and len(assign.targets) == 1
        and isinstance(assign.targets[0].target, cst.Name)
        and assign.targets[0].target.value == copied.value
    ):
        return False
    if isinstance(line, cst.SimpleStatementLine) and _frees_memory_after(block, line):
        return True
    return (
        isinstance(line, cst.SimpleStatementLine)
        and isinstance(branch, cst.If)
        and branch.body is block
        and branch.orelse is None
        and _setting(branch.test)
    )

"""A module's output returned on the host: ``return wave.squeeze().cpu()`` at the end of a
``forward``, or ``audio = audio.cpu()`` read by nothing but the ``return`` statements.

The host copy is what the module hands its caller (a vocoder's waveform, a TTS model's
audio). Whether it costs a stall each step depends on the callers: a module run once per
request hands over its result once, and its caller needs the values on the host. The
analysis cannot prove which from the module alone (a ``forward`` is hot by its own name), so
HTD202 reports such a copy at MEDIUM confidence even of a tensor proven on the device.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from h2dlint.analysis.batch_outputs import batch_output
from h2dlint.analysis.evaluation_passes import evaluation_copy
from h2dlint.analysis.host_io_calls import copied_output
from h2dlint.analysis.names import names_in
from h2dlint.analysis.numpy_outputs import declared_numpy_output
from h2dlint.analysis.optional_offloads import optional_offload
from h2dlint.analysis.plotted_copies import plotted_copy
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.request_outputs import request_output
from h2dlint.analysis.session_feeds import session_feed
from h2dlint.analysis.stored_offloads import stored_offload
from h2dlint.context import FileContext

# The methods that make an object's output: what they return goes to the caller.
_OUTPUT_METHODS = frozenset({"forward", "__call__"})


def _statement_in_body(
    ancestors: Sequence[cst.CSTNode], function: cst.FunctionDef
) -> cst.SimpleStatementLine | None:
    """The statement of ``function``'s own body (not nested in a loop, branch or closure)
    that holds the node below ``ancestors``."""
    try:
        start = next(i for i, node in enumerate(ancestors) if node is function)
    except StopIteration:
        return None
    rest = ancestors[start + 1 :]
    if len(rest) < 2 or rest[0] is not function.body:
        return None
    line = rest[1]
    if not isinstance(line, cst.SimpleStatementLine) or any(
        isinstance(node, (cst.Lambda, cst.FunctionDef, cst.BaseComp)) for node in rest[2:]
    ):
        return None
    return line


def returned_copy(
    ancestors: Sequence[cst.CSTNode],
    function: cst.FunctionDef,
    copy: cst.Call,
    any_name: bool = False,
) -> bool:
    """Whether ``copy`` (a host copy below ``ancestors``, innermost last) is what the
    ``forward`` or ``__call__`` ``function`` (any function with ``any_name``) returns: the
    value of a ``return`` of its own body (:func:`_output`), or bound to a name that its later
    statements read only as such."""
    if (not any_name and function.name.value not in _OUTPUT_METHODS) or not ancestors:
        return False
    line = _statement_in_body(ancestors, function)
    if line is None or len(line.body) != 1:
        return False
    statement = line.body[0]
    if isinstance(statement, cst.Return):
        return statement.value is not None and _output(statement.value, copy)
    parent = ancestors[-1]
    if not (
        isinstance(statement, cst.Assign)
        and parent is statement
        and statement.value is copy
        and len(statement.targets) == 1
        and isinstance(statement.targets[0].target, cst.Name)
    ):
        return False
    name = statement.targets[0].target.value
    body = list(function.body.body) if isinstance(function.body, cst.IndentedBlock) else []
    after = body[body.index(line) + 1 :] if line in body else []
    returned = False
    for later in after:
        if isinstance(later, cst.SimpleStatementLine) and all(
            isinstance(small, cst.Return) for small in later.body
        ):
            for small in later.body:
                value = small.value if isinstance(small, cst.Return) else None
                if value is not None and name in names_in(value):
                    if not _output(value, name):
                        return False  # a size or an index: a read of the values
                    returned = True
        elif name in names_in(later):
            return False  # read (or rebound) by other code: maybe more than an output
    return returned


def _output(value: cst.BaseExpression, copied: cst.BaseExpression | str) -> bool:
    """Whether the returned ``value`` hands over ``copied`` (the copy's node, or the name bound
    to it) as it is: the value itself, an element of a returned tuple, list or dict, an arm of
    a conditional, an argument of an output class (``self.Output(audio=audio)``), or the object
    of a method call (``audio.numpy()``). Not a size or an index (``x[: counts[0]]``), nor an
    operand: those read the values."""
    if value is copied or (isinstance(value, cst.Name) and value.value == copied):
        return True
    if isinstance(value, (cst.Tuple, cst.List)):
        return any(_output(element.value, copied) for element in value.elements)
    if isinstance(value, cst.Dict):
        return any(
            isinstance(e, cst.DictElement) and _output(e.value, copied) for e in value.elements
        )
    if isinstance(value, cst.IfExp):
        return _output(value.body, copied) or _output(value.orelse, copied)
    if not isinstance(value, cst.Call):
        return False
    func = value.func
    name = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", "")
    if isinstance(name, str) and (name[:1].isupper() or name in ("dict", "tuple", "list")):
        return any(_output(argument.value, copied) for argument in value.args)
    return isinstance(func, cst.Attribute) and _output(func.value, copied)


# What HTD202 adds to the message of a returned copy (the method's name goes in ``{}``).
RETURNED_NOTE = (
    " (`{}()` returns it: certain only if its callers run it every step, not once per request "
    "for its result)"
)


def copy_role(
    context: FileContext,
    function: cst.FunctionDef,
    copy: cst.BaseExpression | None,
    medium: bool = False,
    only_called: bool = False,
) -> str | None:
    """What the host copy ``copy`` being visited is besides an avoidable read: ``"output"``
    (what its code exists to produce, :func:`host_io_calls.copied_output`, or the numpy array
    its function declares it returns, :func:`numpy_outputs.declared_numpy_output`, or a
    plot's input, :func:`plotted_copies.plotted_copy`, or an inference session's input,
    :func:`session_feeds.session_feed`, or an evaluation pass's result,
    :func:`evaluation_passes.evaluation_copy`, or a batch's output collected in a pass over
    batches, :func:`batch_outputs.batch_output`, asked only with ``medium``),
    ``"offload"`` (one a setting asks for, :func:`optional_offloads.optional_offload`, or a
    calibration pass's input stored on the host, :func:`stored_offloads.stored_offload`),
    ``"returned"`` (the output ``function`` returns, :func:`returned_copy`), or None.
    ``medium``: the copied tensor's device is unknown; ``only_called``: its function is hot
    only through its callers. Where it is hot by itself and the device is unknown, a request's
    result handed to host code is an output too (:func:`request_outputs.request_output`)."""
    device_unknown = medium and not only_called
    ancestors = context.ancestors
    if copied_output(context.path, ancestors, copy if isinstance(copy, cst.Call) else None):
        return "output"
    if not isinstance(copy, cst.Call):
        return None
    if declared_numpy_output(ancestors, copy):
        return "output"
    if plotted_copy(Provenance.of(context), ancestors, copy):
        return "output"  # a plot's input (session 37)
    if session_feed(ancestors, function, copy):
        return "output"  # an inference session's input, fed as host arrays (session 45)
    if evaluation_copy(ancestors, copy, device_unknown):
        return "output"  # an evaluation pass's result for host code (session 46)
    if medium and batch_output(ancestors, copy):
        return "output"  # a batch's output collected in a pass over batches (session 47)
    if optional_offload(ancestors, copy):
        return "offload"
    if stored_offload(context.path, ancestors, function, copy):
        return "offload"  # a calibration pass's input stored on the host (session 43)
    if device_unknown and request_output(ancestors, copy):
        return "output"  # a request's result returned as host data (session 38)
    return "returned" if returned_copy(ancestors, function, copy) else None

"""A function's own tensor input handed to a host library (HTD202's ``.cpu()`` copies).

``pesq_backend.pesq(fs, target.cpu().numpy(), preds.cpu().numpy(), mode)``,
``librosa.resample(preds.cpu().numpy(), ...)``, ``stoi_backend(target_np, preds_np, fs)``: a
function that computes with a library outside PyTorch (an audio-quality score, a resampler, a
mask encoder) converts the tensor it was given to a host array for it. The values must reach the
host there, and where the tensor lives was its caller's choice: the copy is the hand-off the
library needs, with nothing to overlap it with (the library reads the array at once), not a
stall that a non-blocking copy could hide. Computed values (``scores.argmax(-1).cpu()
.numpy()``) are no input; an array that goes back into PyTorch (``torch.from_numpy(arr)``) is a
round trip and stays reported (the library's result moved to the device,
``pesq_val.to(preds.device)``, is not the array's round trip); numpy's own functions are no host
library (``np.argmax(x.cpu().numpy())`` is work a tensor op does on the device), and neither is
the project (its helper may be PyTorch code). A method of a class that may be a ``torch.nn``
module is left out: a module's forward computes on its inputs, and a host library there is a
step's stall (session 17's Hungarian matchers).
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from h2dlint.analysis.frames import Frame
from h2dlint.analysis.host_inputs import may_be_module, numpy_call, own_input
from h2dlint.analysis.names import calls_in
from h2dlint.analysis.provenance import Provenance
from h2dlint.imports import dotted_name

# Packages whose functions are PyTorch's, numpy's or Python's own arithmetic, not a host
# library's (``math.fsum(x.cpu().numpy())`` is work a tensor op does on the device).
_NOT_LIBRARIES = ("torch", "numpy", "np", "builtins", "math", "cmath", "statistics")


def input_handed_to_library(
    provenance: Provenance,
    ancestors: Sequence[cst.CSTNode],
    tensor: cst.BaseExpression,
    frame: Frame,
) -> bool:
    """Whether the ``.cpu()`` copy under ``ancestors`` (root first) of ``tensor`` hands the
    function's own tensor input, as a numpy array, to a host library's function: as an
    argument of the call (``librosa.resample(x.cpu().numpy(), ...)``) or through the name it is
    assigned to (``preds_np = preds.detach().cpu().numpy()`` then ``stoi_backend(t,
    preds_np[b, :], fs)``)."""
    numpy = numpy_call(ancestors)
    if numpy is None:
        return False
    function = frame.function
    if not isinstance(function, cst.FunctionDef):
        return False
    if frame.cls is not None and may_be_module(provenance, frame.cls, 0):
        return False
    if not own_input(provenance, tensor, frame, 0):
        return False
    end = _array_end(ancestors)  # ``x.cpu().numpy().squeeze(0)``: still the array
    names = _assigned_names(ancestors[: end + 2])
    calls = calls_in(function)
    outer = ancestors[end]
    array = outer if isinstance(outer, cst.Call) else numpy
    if any(_torch_call(provenance, call) and _passes(call, names, array) for call in calls):
        return False  # the array goes back into PyTorch: a round trip through the host
    if _library_argument(provenance, ancestors[:end], function):
        return True
    return bool(names) and any(
        _library_call(provenance, call, function) and _passes(call, names) for call in calls
    )


def _library_argument(
    provenance: Provenance, ancestors: Sequence[cst.CSTNode], function: cst.FunctionDef
) -> bool:
    """Whether the innermost call around the array (through an argument) is a library's."""
    for node in reversed(ancestors):
        if isinstance(node, cst.Arg):
            continue
        return isinstance(node, cst.Call) and _library_call(provenance, node, function)
    return False


# numpy's own methods that keep an array the array it was (its values, reshaped or retyped):
# ``audio.detach().cpu().numpy().squeeze(0)`` handed to ``resampy.resample`` (torchcrepe).
_ARRAY_METHODS = frozenset(
    {"squeeze", "reshape", "astype", "flatten", "ravel", "transpose", "copy"}
)


def _array_end(ancestors: Sequence[cst.CSTNode]) -> int:
    """The index in ``ancestors`` (ending in ``.numpy``'s attribute) of the outermost call of
    the array: the ``.numpy()`` call or a chain of :data:`_ARRAY_METHODS` calls around it."""
    end = len(ancestors) - 2
    while end >= 2:
        attribute, call = ancestors[end - 1], ancestors[end - 2]
        if not (
            isinstance(attribute, cst.Attribute)
            and attribute.attr.value in _ARRAY_METHODS
            and attribute.value is ancestors[end]
            and isinstance(call, cst.Call)
            and call.func is attribute
        ):
            break
        end -= 2
    return end


def _assigned_names(ancestors: Sequence[cst.CSTNode]) -> set[str]:
    """The names the array is assigned to whole (``preds_np = preds.cpu().numpy()``)."""
    if len(ancestors) < 3 or not isinstance(ancestors[-3], cst.Assign):
        return set()
    return {t.target.value for t in ancestors[-3].targets if isinstance(t.target, cst.Name)}


def _passes(call: cst.Call, names: set[str], array: cst.Call | None = None) -> bool:
    """Whether ``call`` is given the array, one of ``names``, or an element of one
    (``preds_np[b, :]``)."""
    for arg in call.args:
        value = arg.value
        if value is array:
            return True
        while isinstance(value, cst.Subscript):
            value = value.value
        if isinstance(value, cst.Name) and value.value in names:
            return True
    return False


def _torch_call(provenance: Provenance, call: cst.Call) -> bool:
    """``torch.from_numpy(arr)``, ``torch.tensor(arr)``: PyTorch takes the array back (the
    library's result going back to the device, ``score.to(preds.device)``, is no round trip of
    the array)."""
    return (provenance.qualify(call.func) or "").startswith("torch.")


def _library_call(provenance: Provenance, call: cst.Call, function: cst.FunctionDef) -> bool:
    """Whether ``call`` calls a function imported from a package outside PyTorch, numpy and
    the project (``pesq_backend.pesq``, ``librosa.resample``, ``stoi_backend`` imported in the
    function)."""
    qualified = provenance.qualify(call.func) or _locally_imported(call.func, function)
    if not qualified or qualified.startswith("."):
        return False
    if qualified.split(".", 1)[0] in _NOT_LIBRARIES:
        return False
    return provenance.resolve(qualified) is None and not _project_package(provenance, qualified)


def _project_package(provenance: Provenance, qualified: str) -> bool:
    """Whether ``qualified`` names a module of the project (``torchmetrics.utilities.x``)."""
    module = provenance.module_name or ""
    return bool(module) and qualified.split(".", 1)[0] == module.split(".", 1)[0]


def _locally_imported(func: cst.BaseExpression, function: cst.FunctionDef) -> str | None:
    """The qualified name of ``func`` when its first part is imported inside ``function``
    (``import pesq as pesq_backend``, ``from pystoi import stoi as stoi_backend``)."""
    dotted = dotted_name(func)
    if dotted is None:
        return None
    head, _, rest = dotted.partition(".")
    for node in _imports(function):
        for alias in node.names if not isinstance(node.names, cst.ImportStar) else ():
            bound = alias.asname.name if alias.asname is not None else alias.name
            if not isinstance(bound, cst.Name) or bound.value != head:
                if isinstance(node, cst.Import) and alias.asname is None:
                    full = dotted_name(alias.name) or ""
                    if full.split(".", 1)[0] == head:
                        return dotted
                continue
            target = dotted_name(alias.name) or ""
            if isinstance(node, cst.ImportFrom):
                if node.relative or node.module is None:
                    return None
                target = f"{dotted_name(node.module)}.{target}"
            return f"{target}.{rest}" if rest else target
    return None


def _imports(function: cst.FunctionDef) -> list[cst.Import | cst.ImportFrom]:
    found: list[cst.Import | cst.ImportFrom] = []
    for statement in function.body.body:
        if isinstance(statement, cst.SimpleStatementLine):
            found.extend(s for s in statement.body if isinstance(s, (cst.Import, cst.ImportFrom)))
    return found

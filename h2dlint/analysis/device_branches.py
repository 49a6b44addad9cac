"""Branches that run only off CUDA: the body of ``if device.type != "cuda":`` (or ``== "cpu"``,
``if not x.is_cuda:``, ``if x.device == torch.device("cpu"):``) and the ``else`` of ``if
device.type == "cuda":`` (or ``if x.is_cuda:``, ``if device.type in {"cpu", "cuda"}:``). A copy
or a sync there is a CPU or other backend's fallback, not a host-to-GPU copy or a GPU sync: on a
GPU the other branch runs (HTD101, HTD202, the hot calls of a module). So is the code after ``if
x.is_cuda: return ...``, and the operands of a test that Python evaluates only off CUDA (``not
x.is_cuda and int(x.max()) >= n``, ``x.is_cuda or bool(x.any())``). A tensor's flag for another
device (``x.is_mps``, ``x.is_cpu``) and a predicate named for another accelerator
(``is_mps_tensor_safe(x)``) hold only off CUDA too. A test of every item of a collection
(``all(x.device.type == "cuda" for x in tensors)``, ``any(x.is_cpu for x in xs)``) reads as its
items' test: ``if not all_cuda:`` is the fallback for tensors not all on CUDA. A caller that can
see a function's bindings passes ``resolve``: then a name bound only to a device test counts as
that test (``is_cuda = device.type == "cuda"`` ... ``if not is_cuda:``).

Two questions are asked of a test, each answered structurally (a ``type`` that is no device's,
``self.type == "tapas"``, is no device test):

- :func:`only_off_cuda`: the test holds only off CUDA, so its body never runs on CUDA;
- :func:`holds_on_cuda`: the test holds whenever the device is CUDA, so its ``else`` never runs
  on CUDA. ``x.is_cuda and flag`` holds only on CUDA, yet its ``else`` runs on CUDA when
  ``flag`` is false: it is neither.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import libcst as cst

from h2dlint.analysis.sync_basics import early_exits

# The types of ``torch.device`` other than ``"cuda"`` that code tests for.
# ``"privateuseone"`` is the slot of out-of-tree backends (torch-directml's DirectML devices).
DEVICE_TYPES = frozenset(
    {"cpu", "mps", "xpu", "npu", "hpu", "meta", "xla", "mtia", "musa", "privateuseone"}
)

# A tensor's flags for a device other than CUDA (``x.is_mps``): true only off CUDA.
OTHER_BACKEND_FLAGS = frozenset({"is_cpu", "is_mps", "is_xpu", "is_hpu", "is_meta", "is_mtia"})
# Accelerators other than CUDA that a predicate may be named for (``is_mps_tensor_safe(x)``,
# ``_is_xpu(device)``, ``_is_dml_device(device)``: DirectML, whose devices torch-directml puts in
# the ``privateuseone`` slot); not the CPU: ``is_cpu_offload_enabled()`` is a setting, not a
# device.
OTHER_ACCELERATORS = frozenset(
    {"mps", "xpu", "npu", "hpu", "xla", "mtia", "musa", "dml", "directml", "privateuseone"}
)

# The values of a name that may reach a use of it (``Bindings.reaching``), for tests that read
# a name bound to a device test.
Resolve = Callable[[cst.Name], Sequence[cst.BaseExpression | None]]


def off_cuda_branch(ancestors: Sequence[cst.CSTNode], resolve: Resolve | None = None) -> bool:
    """Whether the innermost node of ``ancestors`` (outermost first) is in a branch of its
    function that runs only when the device is not CUDA."""
    for i in range(len(ancestors) - 1, 0, -1):
        parent, child = ancestors[i - 1], ancestors[i]
        if isinstance(parent, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            return False
        if isinstance(parent, (cst.If, cst.IfExp)) and off_cuda_part(parent, child, resolve):
            return True
        if isinstance(parent, cst.BooleanOperation) and off_cuda_operand(parent, child, resolve):
            return True
        if isinstance(parent, cst.IndentedBlock) and after_cuda_exit(parent, child):
            return True
    return False


def off_cuda_part(
    branch: cst.If | cst.IfExp, part: cst.CSTNode, resolve: Resolve | None = None
) -> bool:
    """Whether ``part``, the body or the ``else`` of ``branch`` (a statement or a conditional
    expression: ``w.cpu() if x_is_mps else w``), runs only off CUDA."""
    if part is branch.body:
        return _reading(branch.test, off=True, resolve=resolve)
    return part is branch.orelse and _reading(branch.test, off=False, resolve=resolve)


def off_cuda_operand(
    test: cst.BooleanOperation, operand: cst.CSTNode, resolve: Resolve | None = None
) -> bool:
    """Whether Python evaluates ``operand``, the right side of ``test``, only off CUDA: after
    ``not x.is_cuda and`` (the left side held) or ``x.is_cuda or`` (it did not)."""
    if operand is not test.right:
        return False
    off = isinstance(test.operator, cst.And)
    return _reading(test.left, off=off, resolve=resolve)


def after_cuda_exit(block: cst.IndentedBlock, child: cst.CSTNode) -> bool:
    """Whether a statement before ``child`` in ``block`` leaves it on CUDA: ``if x.is_cuda:
    return ...`` (or ``raise``, ``continue``, ``break`` as its last statement, and no
    ``else``); what follows runs only on another backend or on the CPU."""
    return any(holds_on_cuda(branch.test) for branch in early_exits(block, child))


def only_off_cuda(test: cst.BaseExpression) -> bool:
    """Whether ``test`` holds only when the device is not CUDA (``dev.type != "cuda"``,
    ``x.device.type == "cpu"``, ``not x.is_cuda``, ``dev.type == "cpu" and flag``)."""
    return _reading(test, off=True)


def _scripting(node: cst.BaseExpression) -> bool:
    """``torch.jit.is_scripting()`` (also as ``jit.is_scripting()``): false whenever Python
    itself runs the code."""
    if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)):
        return False
    owner = node.func.value
    return (
        node.func.attr.value == "is_scripting"
        and isinstance(owner, (cst.Name, cst.Attribute))
        and (owner.value if isinstance(owner, cst.Name) else owner.attr.value) == "jit"
    )


def holds_on_cuda(test: cst.BaseExpression) -> bool:
    """Whether ``test`` holds whenever the device is CUDA (``x.is_cuda``, ``dev.type ==
    "cuda"``, ``dev.type in ("cpu", "cuda")``, ``dev.type != "cpu"``, ``x.is_cuda or flag``)."""
    return _reading(test, off=False)


def _reading(test: cst.BaseExpression, *, off: bool, resolve: Resolve | None = None) -> bool:
    """``off``: the test implies "not CUDA"; else: "CUDA" implies the test. ``resolve``: a
    name counts as the device tests it is bound to (one level: their names are not followed)."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return _reading(test.expression, off=not off, resolve=resolve)
    if isinstance(test, cst.Name) and resolve is not None:
        values = resolve(test)
        return bool(values) and all(v is not None and _reading(v, off=off) for v in values)
    if isinstance(test, cst.BooleanOperation):
        # ``torch.jit.is_scripting() or not x.is_cuda``: TorchScript's arm, never taken when
        # Python runs the code, leaves the other operand to decide.
        if isinstance(test.operator, cst.Or) and _scripting(test.left):
            return _reading(test.right, off=off, resolve=resolve)
        if isinstance(test.operator, cst.Or) and _scripting(test.right):
            return _reading(test.left, off=off, resolve=resolve)
        left = _reading(test.left, off=off, resolve=resolve)
        right = _reading(test.right, off=off, resolve=resolve)
        # ``a and b`` implies what either side implies; CUDA implies it when it implies both.
        either = isinstance(test.operator, cst.And) == off
        return (left or right) if either else (left and right)
    if isinstance(test, cst.Attribute):
        if test.attr.value == "is_cuda":
            return not off
        return off and test.attr.value in OTHER_BACKEND_FLAGS  # ``x.is_mps``, ``x.is_cpu``
    if isinstance(test, cst.Call):
        each = _each_item_test(test)
        if each is not None:  # ``all(x.device.type == "cuda" for x in xs)``: every item's
            return _reading(each, off=off)
        return off and _backend_predicate(test.func)  # ``is_mps_tensor_safe(x)``
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
        return False
    comparison = test.comparisons[0]
    if _device_type(test.left):
        kinds = _type_names(comparison.comparator)
    elif _device_like(test.left):
        kinds = _device_value_type(comparison.comparator)  # ``x.device == torch.device("cpu")``
    else:
        kinds = _cpu_choice(comparison.comparator)  # ``if mode == "cpu":``
    if kinds is None:
        return False
    operator = comparison.operator
    if isinstance(operator, (cst.NotEqual, cst.NotIn, cst.IsNot)):
        off = not off  # ``!=`` and ``not in`` hold where ``==`` and ``in`` do not
    elif not isinstance(operator, (cst.Equal, cst.In, cst.Is)):
        return False
    if off:  # the equality holds only off CUDA: every type named is another device's
        return "cuda" not in kinds and kinds <= DEVICE_TYPES
    return "cuda" in kinds  # CUDA makes the equality hold


def _each_item_test(call: cst.Call) -> cst.BaseExpression | None:
    """The test ``all(...)`` or ``any(...)`` asks of each item (``x.device.type == "cuda"`` of
    ``all(x.device.type == "cuda" for x in tensors)``). Where every item is on CUDA it holds of
    each, so the aggregate holds (of a collection that has items); where it holds only off
    CUDA, the aggregate holds only where not every item is on CUDA: a mixed or CPU collection,
    the fallback of code whose all-CUDA path is another (a cross-device gather's)."""
    if not (
        isinstance(call.func, cst.Name)
        and call.func.value in ("all", "any")
        and len(call.args) == 1
        and call.args[0].keyword is None
    ):
        return None
    generator = call.args[0].value
    if isinstance(generator, (cst.GeneratorExp, cst.ListComp)) and not generator.for_in.ifs:
        return generator.elt
    return None


def _type_names(node: cst.BaseExpression) -> frozenset[str] | None:
    """``"cuda"`` or a tuple, list or set of such strings; None for anything else."""
    if isinstance(node, cst.SimpleString):
        single = node.evaluated_value
        return frozenset({single}) if isinstance(single, str) else None
    if isinstance(node, (cst.Tuple, cst.List, cst.Set)):
        names: set[str] = set()
        for element in node.elements:
            item = element.value
            if not isinstance(element, cst.Element) or not isinstance(item, cst.SimpleString):
                return None
            text = item.evaluated_value
            if not isinstance(text, str):
                return None
            names.add(text)
        return frozenset(names) if names else None
    return None


def _cpu_choice(node: cst.BaseExpression) -> frozenset[str] | None:
    """The device types a value of any name is compared with where they name the CPU: ``"cpu"``,
    ``("cpu", "mps")``. Whatever holds a string that may be ``"cpu"`` (``mode``, ``backend``,
    ``accelerator``, ``args.offload``) chooses where the work runs: YOLOX's label assignment
    retried ``mode="cpu"`` after an out-of-memory error moves its inputs to the host in ``if
    mode == "cpu":``. Other words (``"meta"``, ``"xla"``) alone are not read so of any name."""
    kinds = _type_names(node)
    return kinds if kinds is not None and "cpu" in kinds and kinds <= DEVICE_TYPES else None


def _device_value_type(node: cst.BaseExpression) -> frozenset[str] | None:
    """The type of a device built from a literal: ``torch.device("cpu")`` (``"cuda:0"`` is a
    ``"cuda"``); None for anything else."""
    if not (isinstance(node, cst.Call) and node.args and node.args[0].keyword is None):
        return None
    func = node.func
    name = func.attr.value if isinstance(func, cst.Attribute) else None
    if isinstance(func, cst.Name):
        name = func.value
    if name != "device":
        return None
    literal = node.args[0].value
    text = literal.evaluated_value if isinstance(literal, cst.SimpleString) else None
    return frozenset({text.split(":", 1)[0]}) if isinstance(text, str) else None


def _device_type(node: cst.BaseExpression) -> bool:
    """``x.device.type``, ``dev.type``, ``device_type``, ``self.device_type``: a device's type
    (not ``self.type``, a model's)."""
    if isinstance(node, cst.Attribute) and node.attr.value == "type":
        return _device_like(node.value)
    name = node.attr.value if isinstance(node, cst.Attribute) else None
    if isinstance(node, cst.Name):
        name = node.value
    return name is not None and name.lower().endswith("device_type")


def _device_like(node: cst.BaseExpression) -> bool:
    """``x.device``, ``device``, ``dev``, ``self.target_device``: what ``.type`` is read of."""
    name = node.attr.value if isinstance(node, cst.Attribute) else None
    if isinstance(node, cst.Name):
        name = node.value
    return name is not None and ("device" in name.lower() or name.lower() in ("dev", "d"))


def _backend_predicate(func: cst.BaseExpression) -> bool:
    """A function named as a test of another accelerator: ``is_mps_tensor_safe``,
    ``utils.is_xpu``, ``_is_npu`` (``is_<accelerator>...``)."""
    name = func.attr.value if isinstance(func, cst.Attribute) else None
    if isinstance(func, cst.Name):
        name = func.value
    words = (name or "").lstrip("_").split("_")
    return len(words) >= 2 and words[0] == "is" and words[1] in OTHER_ACCELERATORS


def else_of_pinning_move(ancestors: Sequence[cst.CSTNode], source: cst.BaseExpression) -> bool:
    """Whether the innermost node of ``ancestors`` is in the ``else`` (of an ``if`` or a
    conditional expression) of a test that holds whenever the target is CUDA and ``source`` is
    on the CPU: torchrec's ``tensor.pin_memory().to(device, non_blocking=True) if device.type
    == "cuda" and tensor.device.type == "cpu" else tensor.to(device, non_blocking=True)``. For a
    source known to be on the host the ``else`` runs only off CUDA."""
    for i in range(len(ancestors) - 1, 0, -1):
        parent, child = ancestors[i - 1], ancestors[i]
        if isinstance(parent, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            return False
        if isinstance(parent, (cst.If, cst.IfExp)) and child is parent.orelse:
            parts = _conjuncts(parent.test)
            if any(holds_on_cuda(p) for p in parts) and any(_on_cpu(p, source) for p in parts):
                return True
    return False


def _conjuncts(test: cst.BaseExpression) -> list[cst.BaseExpression]:
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return [*_conjuncts(test.left), *_conjuncts(test.right)]
    return [test]


def _on_cpu(test: cst.BaseExpression, source: cst.BaseExpression) -> bool:
    """``source.device.type == "cpu"``, ``source.is_cpu``, ``not source.is_cuda``."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = test.expression
        return (
            isinstance(inner, cst.Attribute)
            and inner.attr.value == "is_cuda"
            and inner.value.deep_equals(source)
        )
    if isinstance(test, cst.Attribute):
        return test.attr.value == "is_cpu" and test.value.deep_equals(source)
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
        return False
    left, comparison = test.left, test.comparisons[0]
    return (
        isinstance(comparison.operator, cst.Equal)
        and _type_names(comparison.comparator) == frozenset({"cpu"})
        and isinstance(left, cst.Attribute)
        and left.attr.value == "type"
        and isinstance(left.value, cst.Attribute)
        and left.value.attr.value == "device"
        and left.value.value.deep_equals(source)
    )


def other_backend_device(device: cst.BaseExpression | None) -> bool:
    """A literal device of another accelerator than CUDA: ``"mps"``, ``"xpu:0"``,
    ``torch.device("mps")``. A copy there is that backend's (Apple's unified memory, Intel's),
    not a host-to-CUDA copy."""
    if isinstance(device, cst.SimpleString):
        text = device.evaluated_value
        kinds = frozenset({text.split(":", 1)[0]}) if isinstance(text, str) else None
    elif device is not None:
        kinds = _device_value_type(device)
    else:
        kinds = None
    return kinds is not None and kinds <= OTHER_ACCELERATORS

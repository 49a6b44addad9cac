"""The facts of calls: functions of the module and the project, tensor methods, torch
functions and factories, and allocations under a device context."""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.arguments import first_positional, is_false, is_true, keyword
from h2dlint.analysis.classes import ClassRef, class_of, is_module_class
from h2dlint.analysis.facts import (
    DEVICE_FRESH,
    PAGEABLE_FRESH,
    PINNED_FRESH,
    UNKNOWN_FACT,
    Fact,
    Where,
)
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.provenance.base import ProvenanceBase
from h2dlint.analysis.provenance.common import (
    CONVERTING_METHODS,
    DERIVING_METHODS,
    FUNCTION_VIEWS,
    MAX_DEPTH,
    NEW_FACTORIES,
    _DeviceContexts,
    _non_blocking,
    returns_joined,
)
from h2dlint.analysis.provenance.specialised import specialised_return
from h2dlint.analysis.provenance.unpacked import (
    element_fact,
    returned_element_fact,
    unpacked_position,
)
from h2dlint.analysis.structure_items import looped_structure_item
from h2dlint.analysis.targets import Target, asks_for_host, device_target, to_target
from h2dlint.analysis.tokenizer_batches import field_set, format_passed_on, moved_in_place
from h2dlint.analysis.torch_api import (
    ARITHMETIC_HELPERS,
    CONVERTERS,
    CUDA_TYPED_TENSORS,
    DRAWN_ON_INPUT_FUNCTIONS,
    FRESH_FACTORIES,
    HOST_WRAPPERS,
    JOINS,
    LIKE_FACTORIES,
    SAME_DEVICE_FUNCTIONS,
    SORTED_LOOKUPS,
)
from h2dlint.analysis.views import view_method_fact
from h2dlint.walk import visit_read_only

# Tensor methods that work in place and return their receiver.
SELF_RETURNING_METHODS = frozenset(
    {
        "copy_",
        "zero_",
        "fill_",
        "masked_fill_",
        "index_copy_",
        "index_fill_",
        "index_put_",
        "scatter_",
        "clamp_",
        "add_",
        "sub_",
        "mul_",
        "div_",
    }
)


class CallFacts(ProvenanceBase):
    """The facts of calls (``core.Provenance`` adds those of names, attributes and the rest)."""

    def _call(self, call: cst.Call, frame: Frame, depth: int) -> Fact:
        if asks_for_host(call) and not self._own_device_rules(call):
            # ``get_for_device(params, "slots", "cpu")``: a helper asked for the host copy,
            # whatever its return says of a ``device`` parameter it is given
            return Fact(Where.HOST)
        if self.tokenizer_batch(call, frame):
            # ``processor(text=..., return_tensors="pt")``: a tokenizer's or processor's batch
            # of host tensors (until the caller moves it)
            return Fact(Where.HOST)
        if _session_run(call):
            # ``session.run(None, {"feat": feat.cpu().numpy()})``: an ONNX Runtime (or
            # TensorFlow) session's outputs, numpy arrays on the host
            return Fact(Where.HOST)
        return self._call_fact(call, frame, depth)

    def tokenizer_batch(self, call: cst.Call, frame: Frame) -> bool:
        """Whether ``call`` asks a tokenizer or processor for a batch of host tensors."""
        if _tokenized(call):
            return True
        value = format_passed_on(call, frame.function)
        return value is not None and self.bindings(frame).is_parameter(value)

    def tokenizer_batch_field(self, node: cst.Attribute, frame: Frame) -> bool:
        """Whether ``node`` is a field (``enc.input_ids``) of a tokenizer's batch, a host
        tensor: of the call itself, or of a name every binding of which is one, that the
        function never moves in place (``enc.to(dev)`` moves a ``BatchEncoding``'s tensors and
        returns it) and whose field it never sets between the batch's binding and the read
        (``enc.input_ids = ids.to(dev)`` after ``old = enc.input_ids``, of a batch made anew
        each pass, does not count)."""
        base = node.value
        if isinstance(base, cst.Call):
            return self.tokenizer_batch(base, frame)
        if not isinstance(base, cst.Name):
            return False
        values = self.bindings(frame).reaching(base)
        return (
            bool(values)
            and all(isinstance(v, cst.Call) and self.tokenizer_batch(v, frame) for v in values)
            and not moved_in_place(frame.function, base.value)
            and not field_set(
                frame.function,
                base.value,
                node.attr.value,
                node,
                [v for v in values if v is not None],
            )
        )

    def _own_device_rules(self, call: cst.Call) -> bool:
        """Whether ``call`` is a torch or numpy function or a tensor method whose device
        argument its own facts read (``torch.empty(n, device="cpu")``, ``x.to("cpu",
        non_blocking=True)`` lands in pinned memory)."""
        qualified = self.qualify(call.func) or ""
        if qualified.startswith(("torch.", "numpy.", "np.")):
            return True
        func = call.func
        return isinstance(func, cst.Attribute) and (
            func.attr.value in ("to", "cuda", "cpu", "pin_memory", "copy_")
            or func.attr.value in NEW_FACTORIES
        )

    def _call_fact(self, call: cst.Call, frame: Frame, depth: int) -> Fact:
        func = call.func
        qualified = self.qualify(func)
        if qualified in ("copy.deepcopy", "copy.copy"):
            # A copy of a tensor (or of a structure of tensors) is where the original is.
            first = first_positional(call)
            return self.fact(first, frame, depth + 1) if first is not None else UNKNOWN_FACT
        if qualified in ARITHMETIC_HELPERS and len(call.args) == 2:
            # ``triton.cdiv(lens, n)`` is ``(lens + n - 1) // n``: where its operands are
            left, right = (a.value for a in call.args)
            return self._binary(cst.BinaryOperation(left, cst.FloorDivide(), right), frame, depth)
        if qualified is not None:
            fact = self._torch_call(qualified, call, frame, depth)
            if fact.known or qualified.startswith(("torch.", "numpy.", "np.")):
                return fact
            return self._project_call(call, frame, depth)
        if self._module_output(func, frame, depth):
            return Fact(Where.DEVICE)
        if isinstance(func, cst.Name):
            return self._helper_call(func.value, call, frame, depth)
        if isinstance(func, cst.Attribute):
            base = func.value
            if (
                isinstance(base, cst.Name)
                and frame.cls is not None
                and base.value == frame.self_name
                and func.attr.value in self.index.methods.get(frame.cls, {})
            ):
                method = self.index.methods[frame.cls][func.attr.value]
                return specialised_return(self, self, method, call, frame, depth)
            return self._method_call(func.attr.value, base, call, frame, depth)
        return UNKNOWN_FACT

    def _project_call(self, call: cst.Call, frame: Frame, depth: int) -> Fact:
        """A call of a function defined elsewhere in the project: what its returns agree on."""
        if depth > MAX_DEPTH:
            return UNKNOWN_FACT
        found = self.callee(call, frame, depth + 1)
        if found is None:
            return UNKNOWN_FACT
        owner, function = found
        assert isinstance(owner, ProvenanceBase)
        # ``Decoder._mask(obj, ...)``: called through its class, a method is passed its object
        through_class = isinstance(call.func, cst.Attribute) and self.qualify(call.func) is not None
        return specialised_return(self, owner, function, call, frame, depth + 1, through_class)

    def _module_output(self, func: cst.BaseExpression, frame: Frame, depth: int) -> bool:
        """Whether calling ``func`` runs an ``nn.Module`` (``self.encoder(x)``, or ``self(x)``
        in a method of the module: its own forward): its output is on the module's device, an
        accelerator in the code that moves it."""
        if isinstance(func, cst.Name) and frame.cls is not None and func.value == frame.self_name:
            name = frame.cls.name.value
            qualified = f"{self.module_name}.{name}" if self.module_name else name
            return is_module_class(ClassRef(qualified, self, frame.cls))
        if not isinstance(func, cst.Attribute):
            return False
        owner = class_of(self, func, frame, depth + 1)
        return owner is not None and is_module_class(owner)

    def _helper_call(self, name: str, call: cst.Call, frame: Frame, depth: int) -> Fact:
        if name in self.pinned_helpers:
            return PINNED_FRESH
        local = self.bindings(frame).of(name)
        function = self.index.functions.get(name)
        if local:
            return UNKNOWN_FACT
        if function is None:
            return self._builtin_pick(name, call, frame, depth)
        return specialised_return(self, self, function, call, frame, depth)

    def _builtin_pick(self, name: str, call: cst.Call, frame: Frame, depth: int) -> Fact:
        """``max(lens)`` / ``min(lens)`` of one device tensor: Python's builtin iterates it and
        returns one of its 0-d elements, a device tensor still (``int(max(lens))`` reads it
        back). Other iterables, and several arguments, stay unknown."""
        if name not in ("max", "min") or len(call.args) != 1 or call.args[0].keyword:
            return UNKNOWN_FACT
        if call.args[0].star:
            return UNKNOWN_FACT
        fact = self.fact(call.args[0].value, frame, depth + 1)
        return fact if fact.where is Where.DEVICE else UNKNOWN_FACT

    def return_fact(self, function: cst.FunctionDef, depth: int = 0) -> Fact:
        """What every ``return`` of ``function`` agrees on.

        A summary of the function that does not depend on who asks (its parameters stay
        unknown), so it is computed once with a depth budget of its own, whatever the depth
        of the call that asks: a helper that builds position ids from host ranges over a few
        statements (``torch.cat`` of a list appended in a loop of meshgrids) must be known
        to return a host tensor also when its caller is itself deep in a chain of facts.
        ``_in_progress`` guards recursion; ``depth`` is only noted."""
        if function in self._returns:
            return self._returns[function]
        self._note(depth)
        if not self._begin(function):
            return UNKNOWN_FACT
        outer = self._deepest
        self._deepest = 0
        try:
            result = returns_joined(self, function, lambda v, frame: self.fact(v, frame, 1))
        finally:
            self._in_progress.discard(function)
            self._deepest = outer
        self._returns[function] = result
        return result

    def unpacked_fact(self, name: str, statement: cst.CSTNode, frame: Frame, depth: int) -> Fact:
        """``name`` unpacked from a value by ``statement`` (``a, b = helper(...)``): the fact
        of its position (:mod:`~h2dlint.analysis.provenance.unpacked`); for the outputs of an
        ``nn.Module`` (``out, state = self.rnn(x)``), :meth:`_module_element`; else
        unknown."""
        found = unpacked_position(statement, name)
        if found is None:
            return UNKNOWN_FACT
        value, position, length = found
        fact = element_fact(self, value, position, length, frame, depth + 1)
        if fact.known or not isinstance(value, cst.Call):
            return fact
        return self._module_element(value, position, length, frame, depth + 1)

    def _module_element(
        self, call: cst.Call, position: int, length: int, frame: Frame, depth: int
    ) -> Fact:
        """Element ``position`` of what a module call returns: what the returns of the
        module's ``forward`` agree on there, where the project defines it (``return
        self.proj(x), torch.tensor([n])``: the second on the host); the module's device where
        the module is torch's or a library's (``nn.LSTM``, ``nn.MultiheadAttention``), as for
        ``self.rnn(x)[0]``. Unknown for any other call."""
        if not self._module_output(call.func, frame, depth):
            return UNKNOWN_FACT
        owner = None
        if isinstance(call.func, cst.Attribute):
            owner = class_of(self, call.func, frame, depth + 1)
        elif frame.cls is not None:  # ``self(x)``: the module's own forward
            owner = ClassRef(frame.cls.name.value, self, frame.cls)
        if owner is not None and owner.provenance is not None and owner.node is not None:
            forward = owner.provenance.index.methods.get(owner.node, {}).get("forward")
            if forward is not None:
                source = owner.provenance
                assert isinstance(source, ProvenanceBase)
                return returned_element_fact(source, forward, position, length)
        return Fact(Where.DEVICE)

    def _method_call(
        self, method: str, base: cst.BaseExpression, call: cst.Call, frame: Frame, depth: int
    ) -> Fact:
        if method == "pin_memory":
            return PINNED_FRESH
        if method == "cuda":
            return DEVICE_FRESH
        if method in ("cpu",):
            inner = self.fact(base, frame, depth + 1)
            if inner.where is Where.DEVICE:
                return PAGEABLE_FRESH
            return inner if inner.where.on_host else Fact(Where.HOST)
        if method == "to":
            target = to_target(self, call, frame)
            if target is Target.DEVICE:
                return DEVICE_FRESH
            inner = self.fact(base, frame, depth + 1)
            if target is Target.HOST:
                if inner.where is Where.DEVICE:
                    # A non-blocking copy to the host lands in pinned memory (measured).
                    return PINNED_FRESH if is_true(_non_blocking(call)) else PAGEABLE_FRESH
                return Fact(Where.HOST)
            if target is Target.DTYPE and inner.known:
                return _converted(inner)
            return UNKNOWN_FACT
        if method in NEW_FACTORIES:
            allocated = self._allocated(call, frame)
            if allocated.known:
                return (
                    allocated
                    if keyword(call, "device") or keyword(call, "pin_memory")
                    else (self.fact(base, frame, depth + 1).derived())
                )
            return UNKNOWN_FACT
        if method in SELF_RETURNING_METHODS:
            # ``buf[:n].copy_(src, non_blocking=True)`` returns ``buf[:n]``: engines bind the
            # result of the copy into a device buffer and read it next.
            receiver = self.fact(base, frame, depth + 1)
            if receiver.known:
                return receiver
        view = view_method_fact(self, method, base, call, frame, depth)
        if view is not None:
            return view
        if method not in DERIVING_METHODS and method not in CONVERTING_METHODS:
            return self._project_call(call, frame, depth)
        if method in DERIVING_METHODS:
            return self.fact(base, frame, depth + 1).derived()
        if method in CONVERTING_METHODS:
            inner = self.fact(base, frame, depth + 1)
            if method == "contiguous" and inner.contiguous is True:
                return inner
            if inner.where.on_host and inner.contiguous is False and method == "contiguous":
                return PAGEABLE_FRESH
            return _converted(inner)
        return UNKNOWN_FACT

    def _torch_call(self, qualified: str, call: cst.Call, frame: Frame, depth: int) -> Fact:
        if qualified in self.pinned_helpers:
            return PINNED_FRESH
        if qualified in FUNCTION_VIEWS and call.args:
            # torch.narrow(t, 1, 0, n) is t.narrow(1, 0, n)
            method = qualified.rsplit(".", 1)[1]
            rest = call.with_changes(args=call.args[1:])
            view = view_method_fact(self, method, call.args[0].value, rest, frame, depth)
            if view is not None:
                return view
        if qualified in CUDA_TYPED_TENSORS:
            return DEVICE_FRESH  # ``torch.cuda.FloatTensor([x])``: built on the current GPU
        if qualified in HOST_WRAPPERS:
            data = first_positional(call)
            if data is not None and self._tensor_memory(data, frame, depth + 1):
                return Fact(Where.HOST)  # a numpy view of a tensor's memory, pinned or not
            if data is not None and _foreign_memory(data):
                return Fact(Where.HOST)  # a view of a raw host address, pinned or not
            return PAGEABLE_FRESH
        if qualified == "torch.tensor" and keyword(call, "device") is None:
            # ``torch.tensor(t)`` of a tensor copies it on its own device.
            # Not ``for bl in gt[k]: torch.tensor(bl)``: Python data of a structure's item.
            data = first_positional(call)
            if (
                data is not None
                and not self.is_host_data(data, frame, depth)
                and not looped_structure_item(self.bindings(frame), data)
            ):
                inner = self.fact(data, frame, depth + 1)
                if inner.where is Where.DEVICE:
                    return DEVICE_FRESH
        if qualified in FRESH_FACTORIES:
            return self._allocated(call, frame)
        if qualified in LIKE_FACTORIES:
            allocated = self._allocated(call, frame)
            if keyword(call, "device") or keyword(call, "pin_memory"):
                return allocated
            source = first_positional(call)
            return self.fact(source, frame, depth + 1).derived() if source else UNKNOWN_FACT
        if qualified in CONVERTERS:
            data = first_positional(call)
            if data is None:
                return UNKNOWN_FACT
            if self.is_host_data(data, frame, depth):
                if keyword(call, "device") is None and self._tensor_memory(data, frame, depth):
                    return Fact(Where.HOST)  # a view of a tensor's memory, pinned or not
                return self._allocated(call, frame)
            if keyword(call, "device") is not None:
                return self._allocated(call, frame)
            inner = self.fact(data, frame, depth + 1)
            if keyword(call, "dtype") is None:
                return inner
            # A tensor converted to another dtype stays where it is (measured:
            # ``torch.as_tensor(cuda_row, dtype=torch.long)`` is on the GPU); a copy on the
            # host is not known to be pinned.
            if inner.where is Where.DEVICE:
                return Fact(Where.DEVICE)
            return Fact(Where.HOST) if inner.where.on_host else UNKNOWN_FACT
        if qualified in JOINS:
            out = keyword(call, "out")
            if out is not None:
                return self.fact(out.value, frame, depth + 1)
            seq = first_positional(call)
            where = self.sequence_where(seq, frame, depth + 1) if seq is not None else None
            if where is Where.DEVICE:
                return DEVICE_FRESH
            if where is not None and where.on_host:
                return PAGEABLE_FRESH
            return UNKNOWN_FACT  # tensors of unknown placement: so is their join
        if qualified in DRAWN_ON_INPUT_FUNCTIONS:
            # a draw from host probabilities (also ``input=``) is a host tensor; one from the
            # device's stays unknown, as before session 47 (samplers' labelled reads)
            given = keyword(call, "input")
            source = first_positional(call) or (given.value if given else None)
            drawn = self.fact(source, frame, depth + 1) if source else UNKNOWN_FACT
            return drawn.derived() if drawn.where.on_host else UNKNOWN_FACT
        if qualified in SORTED_LOOKUPS:  # both tensors on one device: a host one says host
            facts = (self.fact(a.value, frame, depth + 1) for a in call.args[:2] if not a.star)
            return next((f.derived() for f in facts if f.where.on_host), UNKNOWN_FACT)
        if qualified in SAME_DEVICE_FUNCTIONS or (
            qualified == "torch.where" and len(call.args) == 1
        ):
            # ``torch.where(cond)`` alone is ``cond.nonzero(as_tuple=True)``: its indices are
            # where ``cond`` is
            source = first_positional(call)
            return self.fact(source, frame, depth + 1).derived() if source else UNKNOWN_FACT
        return UNKNOWN_FACT

    def _allocated(self, call: cst.Call, frame: Frame) -> Fact:
        """A fresh tensor: where ``device=`` and ``pin_memory=`` put it, or, without
        ``device=``, the ``with torch.device(d):`` block around it."""
        device = keyword(call, "device")
        if device is None and call in self._device_context_calls(frame):
            return DEVICE_FRESH
        if device is not None and not is_false(device.value):
            target = device_target(self, device.value, frame, allocation=True)
            if target is Target.DEVICE:
                return DEVICE_FRESH
            if target is not Target.HOST:
                return UNKNOWN_FACT
        pin = keyword(call, "pin_memory")
        if pin is not None and not is_false(pin.value):
            return PINNED_FRESH if is_true(pin.value) else Fact(Where.MAYBE_PINNED, True, True)
        return PAGEABLE_FRESH

    def _device_context_calls(self, frame: Frame) -> frozenset[cst.CSTNode]:
        """The calls of ``frame``'s function made inside ``with torch.device(d):`` (or
        ``with d:`` where ``d`` is a device) blocks, where factories allocate on ``d``."""
        function = frame.function
        found = self._device_contexts.get(function)
        if found is None:
            collector = _DeviceContexts(self, frame)
            visit_read_only(function, collector)
            found = frozenset(collector.calls)
            self._device_contexts[function] = found
        return found


def _converted(inner: Fact) -> Fact:
    """A conversion that keeps the placement but may or may not copy (``.float()``,
    ``.to(dtype)``, ``.reshape(...)``: a no-op returns the tensor itself). Pageable memory
    stays pageable either way (a copy on the host is a fresh pageable tensor); of pinned
    memory only the host is known."""
    if inner.where is Where.DEVICE:
        return Fact(Where.DEVICE)
    if inner.where is Where.PAGEABLE:
        return Fact(Where.PAGEABLE, True if inner.fresh else None)
    return Fact(Where.HOST) if inner.where.on_host else UNKNOWN_FACT


def _foreign_memory(data: cst.BaseExpression) -> bool:
    """``(ctypes.c_uint8 * n).from_address(ptr)``: memory at an address someone else
    allocated (a serving engine's host pool, often pinned with ``cudaHostAlloc``), not a
    Python object's pageable buffer."""
    return (
        isinstance(data, cst.Call)
        and isinstance(data.func, cst.Attribute)
        and data.func.attr.value == "from_address"
    )


def _tokenized(call: cst.Call) -> bool:
    """Whether ``call`` asks a tokenizer or processor for tensors (``return_tensors="pt"``)
    without a device (a fast image processor given ``device=`` returns them there)."""
    keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    return isinstance(keywords.get("return_tensors"), cst.SimpleString) and "device" not in keywords


def _session_run(call: cst.Call) -> bool:
    """Whether ``call`` runs an inference session: ``<x>.run(fetches, feed)`` whose first
    argument is ``None`` or a list or tuple of output names and whose second is a dict
    display of the inputs (ONNX Runtime's ``InferenceSession.run(output_names, input_feed)``,
    TensorFlow's ``Session.run(fetches, feed_dict)``): its outputs are host arrays."""
    func = call.func
    if not (isinstance(func, cst.Attribute) and func.attr.value == "run"):
        return False
    positional = [a.value for a in call.args if a.keyword is None and not a.star]
    if len(positional) != 2 or not isinstance(positional[1], (cst.Dict, cst.DictComp)):
        return False
    fetches = positional[0]
    return (isinstance(fetches, cst.Name) and fetches.value == "None") or isinstance(
        fetches, (cst.List, cst.Tuple)
    )

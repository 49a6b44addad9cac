"""The torch side of a trace: what intercepts copies and syncs, and how each is measured.

- a ``TorchDispatchMode`` sees every aten op: the copies (``_to_copy``, ``copy_``), the scalar
  reads behind ``.item()``, ``bool(t)``, ``int(t)`` and a 0-d tensor used as a size
  (``_local_scalar_dense``), and the ops whose output shape depends on the data (``nonzero``,
  ``t[mask]``, ``unique``, ``repeat_interleave`` without ``output_size``, ``bincount``, ``equal``);
  each of these is timed (the host time lost is the measured wall time of the call);
- a few torch functions and ``Tensor`` methods are wrapped while the trace runs (``LABELLED``):
  they name what the user called (``.tolist()``, ``bool()``, ``torch.arange()``) and catch what
  the dispatch mode cannot see: ``torch.tensor(data, device=...)`` builds its tensor below the
  dispatcher's Python key. (A ``TorchFunctionMode`` would see every call, and doubled the cost of
  every op: measured, 8 us more per op on the development machine.);
- ``torch.cuda.synchronize``, ``Stream.synchronize`` and ``Event.synchronize`` are wrapped while the
  trace runs (explicit syncs).

Before a ``non_blocking`` H2D copy, an event is recorded on the stream if it has work queued: the
copy ran asynchronously when that work is still running once the call returned, and the host
waited when it finished during the call (``recorder.async_outcome``).

Only torch tensors reach this module's handlers; torch itself is passed in, never imported here at
module level, so the lint path never loads it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from h2dlint.trace.events import DATA_DEPENDENT, EXPLICIT, SCALAR, TO_HOST
from h2dlint.trace.frames import StackReader
from h2dlint.trace.recorder import WAITED, Recorder, async_outcome
from h2dlint.verify.copies import copy_record, op_arg

Marker = Callable[[Any], "Callable[[], bool] | None"]
"""Given a device: None when its current stream is idle, else a function that tells whether the
work queued on it so far has finished (an event recorded now, queried later)."""

DUNDER_LABELS = {
    "__bool__": "bool()",
    "__int__": "int()",
    "__float__": "float()",
    "__index__": "operator.index()",
    "__getitem__": "t[...]",
    "__setitem__": "t[...] = ...",
    "__len__": "len()",
    "__iter__": "iter()",
    "__repr__": "repr()",
    "__format__": "format()",
}
OP_LABELS = {
    "aten._local_scalar_dense": "tensor as a Python number",
    "aten._to_copy": ".to()",
    "aten.copy_": ".copy_()",
    "aten.copy": ".copy_()",
}
FACTORY = "factory"


class Interceptor:
    """The handlers both modes call, bound to one recorder. ``device_types``: the device types
    whose tensors live on the accelerator ("cuda"; the tests use "meta" for copies and "cpu" for
    syncs). ``marker``: marks a device's stream before a copy (None: cannot tell; see
    :data:`Marker`)."""

    def __init__(
        self,
        torch: Any,
        recorder: Recorder,
        stacks: StackReader,
        device_types: tuple[str, ...] = ("cuda",),
        marker: Marker | None = None,
    ) -> None:
        self.torch = torch
        self.rec = recorder
        self.stacks = stacks
        self.device_types = frozenset(device_types)
        self.marker = marker
        aten = torch.ops.aten
        self.to_copy = aten._to_copy
        handlers: dict[Any, Callable[[Any, Any, tuple[Any, ...], dict[str, Any]], Any]] = {}
        for name in ("_to_copy", "copy_", "copy"):
            handlers[getattr(aten, name)] = self._copy
        handlers[aten._local_scalar_dense] = self._scalar
        for name in (
            "nonzero",
            "masked_select",
            "_unique",
            "_unique2",
            "unique_dim",
            "unique_consecutive",
            "unique_dim_consecutive",
            "bincount",
            "equal",
        ):
            packet = getattr(aten, name, None)
            if packet is not None:
                handlers[packet] = self._data_dependent
        for name in ("index", "index_put", "index_put_", "_index_put_impl_"):
            packet = getattr(aten, name, None)
            if packet is not None:
                handlers[packet] = self._masked
        handlers[aten.repeat_interleave] = self._repeat
        self.handlers = handlers

    # -- helpers -------------------------------------------------------------------------------
    def on_device(self, value: Any) -> bool:
        return isinstance(value, self.torch.Tensor) and value.device.type in self.device_types

    def _what(self, packet: Any) -> str:
        api = self.rec.api
        if api is not None:
            return str(api)
        return OP_LABELS.get(str(packet), str(packet))

    def _mark(self, device: Any) -> tuple[bool | None, Callable[[], bool] | None]:
        """Whether the device's stream has work queued now, and how to ask if it finished."""
        if self.marker is None:
            return None, None
        try:
            check = self.marker(device)
        except Exception:
            return None, None
        return check is not None, check

    def _timed_sync(
        self, func: Any, packet: Any, args: tuple[Any, ...], kwargs: dict[str, Any], reason: str
    ) -> Any:
        start = time.perf_counter()
        out = func(*args, **kwargs)
        ms = (time.perf_counter() - start) * 1e3
        self.rec.sync(self.stacks.stack(), self._what(packet), str(packet), reason, ms)
        return out

    # -- the dispatch mode ---------------------------------------------------------------------
    def dispatch(self, func: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        self.rec.ops += 1
        packet = func.overloadpacket
        handler = self.handlers.get(packet)
        if handler is None:
            return func(*args, **kwargs)
        return handler(func, packet, args, kwargs)

    def _copy(self, func: Any, packet: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        tensor = self.torch.Tensor
        if packet is self.to_copy:
            src = args[0] if args else kwargs.get("self")
            device = kwargs.get("device")
            if device is None or not isinstance(src, tensor):
                return func(*args, **kwargs)
            target = self.torch.device(device)
            non_blocking = bool(kwargs.get("non_blocking", False))
        else:
            dst, src = args[0] if args else kwargs.get("self"), op_arg(args, kwargs, 1, "src")
            if not (isinstance(dst, tensor) and isinstance(src, tensor)):
                return func(*args, **kwargs)
            target = dst.device
            non_blocking = bool(op_arg(args, kwargs, 2, "non_blocking") or False)
        source, destination = src.device.type, target.type
        if source == "cpu" and destination != "cpu" and destination in self.device_types:
            return self._h2d(func, packet, args, kwargs, src, target, non_blocking)
        if destination == "cpu" and source != "cpu" and source in self.device_types:
            return self._d2h(func, packet, args, kwargs, non_blocking)
        return func(*args, **kwargs)

    def _h2d(
        self,
        func: Any,
        packet: Any,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        src: Any,
        target: Any,
        non_blocking: bool,
    ) -> Any:
        pending, check = self._mark(target) if non_blocking else (None, None)
        start = time.perf_counter()
        out = func(*args, **kwargs)
        ms = (time.perf_counter() - start) * 1e3
        done_after = None
        if check is not None:
            try:
                done_after = bool(check())
            except Exception:
                done_after = None
        dst = out if packet is self.to_copy or not args else args[0]
        record = copy_record(str(packet), src, dst, non_blocking, None)
        if record is not None and record.direction == "HTD":
            self.rec.copy(
                self.stacks.stack(),
                self._what(packet),
                str(packet),
                record.nbytes,
                non_blocking,
                record.host_pinned,
                record.host_dense,
                ms,
                async_outcome(non_blocking, pending, done_after),
            )
        return out

    def _d2h(
        self,
        func: Any,
        packet: Any,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        non_blocking: bool,
    ) -> Any:
        start = time.perf_counter()
        out = func(*args, **kwargs)
        ms = (time.perf_counter() - start) * 1e3
        dst = out if packet is self.to_copy or not args else args[0]
        if non_blocking and isinstance(dst, self.torch.Tensor) and dst.is_pinned():
            return out  # into pinned memory, non_blocking: returns at once
        self.rec.sync(self.stacks.stack(), self._what(packet), str(packet), TO_HOST, ms)
        return out

    def _scalar(self, func: Any, packet: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if not (args and self.on_device(args[0])):
            return func(*args, **kwargs)
        return self._timed_sync(func, packet, args, kwargs, SCALAR)

    def _data_dependent(
        self, func: Any, packet: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Any:
        if not any(self.on_device(value) for value in args[:2]):
            return func(*args, **kwargs)
        return self._timed_sync(func, packet, args, kwargs, DATA_DEPENDENT)

    def _masked(self, func: Any, packet: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """``t[mask]`` and ``t[mask] = v`` with a boolean mask on the device: a nonzero inside."""
        indices = op_arg(args, kwargs, 1, "indices") or ()
        masks = (self.torch.bool, self.torch.uint8)
        masked = any(
            self.on_device(index) and index.dtype in masks for index in indices if index is not None
        )
        if not (masked and args and self.on_device(args[0])):
            return func(*args, **kwargs)
        return self._timed_sync(func, packet, args, kwargs, DATA_DEPENDENT)

    def _repeat(self, func: Any, packet: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """``repeat_interleave`` with repeats in a device tensor and no ``output_size``."""
        if kwargs.get("output_size") is not None:
            return func(*args, **kwargs)
        overload = getattr(func, "_overloadname", "")
        repeats = args[0] if overload == "Tensor" and args else op_arg(args, kwargs, 1, "repeats")
        if not self.on_device(repeats):
            return func(*args, **kwargs)
        return self._timed_sync(func, packet, args, kwargs, DATA_DEPENDENT)

    # -- the wrapped torch functions ----------------------------------------------------------
    def wrap(self, func: Any, label: str, kind: str | None) -> Callable[..., Any]:
        """``func`` wrapped to name the events below it ``label`` and, for a ``kind`` of
        fallback, to record what the dispatch mode did not see inside it."""
        rec = self.rec

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if rec.api is not None:
                return func(*args, **kwargs)
            rec.api = label
            if kind is None:
                try:
                    return func(*args, **kwargs)
                finally:
                    rec.api = None
            h2d, syncs = rec.h2d_seen, rec.syncs_seen
            start = time.perf_counter()
            try:
                out = func(*args, **kwargs)
            finally:
                rec.api = None
            if rec.h2d_seen == h2d and rec.syncs_seen == syncs:
                ms = (time.perf_counter() - start) * 1e3
                self._fallback(label, kind, args, kwargs, out, ms)
            return out

        wrapper.__name__ = getattr(func, "__name__", "wrapper")
        wrapper.__doc__ = getattr(func, "__doc__", None)
        return wrapper

    def _fallback(
        self,
        label: str,
        kind: str,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        out: Any,
        ms: float,
    ) -> None:
        if kind != FACTORY:
            if args and self.on_device(args[0]):
                self.rec.sync(self.stacks.stack(), label, label, kind, ms)
            return
        if not (self.on_device(out) and out.device.type != "cpu"):
            return
        is_method = label.startswith(".")
        data = (args[1] if len(args) > 1 else None) if is_method else (args[0] if args else None)
        data = kwargs.get("data", data)
        tensor = self.torch.Tensor
        if isinstance(data, tensor) and data.device.type != "cpu":
            return  # device to device
        pinned = bool(data.is_pinned()) if isinstance(data, tensor) else False
        dense = bool(data.is_contiguous()) if isinstance(data, tensor) else True
        nbytes = int(out.numel() * out.element_size())
        self.rec.copy(self.stacks.stack(), label, label, nbytes, False, pinned, dense, ms, WAITED)

    # -- explicit syncs ------------------------------------------------------------------------
    def explicit(self, what: str, call: Callable[..., Any]) -> Callable[..., Any]:
        """``call`` wrapped to record each successful call as an explicit sync."""

        def synchronize(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            out = call(*args, **kwargs)
            ms = (time.perf_counter() - start) * 1e3
            self.rec.sync(self.stacks.stack(), what, what, EXPLICIT, ms)
            return out

        return synchronize


def make_mode(interceptor: Interceptor) -> Any:
    """A ``TorchDispatchMode`` that hands every aten op to ``interceptor``."""
    from torch.utils._python_dispatch import TorchDispatchMode

    dispatch = interceptor.dispatch

    class TraceDispatch(TorchDispatchMode):
        def __torch_dispatch__(
            self,
            func: Any,
            types: Any,
            args: tuple[Any, ...] = (),
            kwargs: dict[str, Any] | None = None,
        ) -> Any:
            return dispatch(func, args, kwargs or {})

    return TraceDispatch()


LABELLED: dict[str, tuple[str, ...]] = {
    # torch.Tensor methods ("" is the torch module)
    "Tensor": (
        "to",
        "cuda",
        "copy_",
        "cpu",
        "numpy",
        "item",
        "tolist",
        "__bool__",
        "__int__",
        "__float__",
        "__index__",
        "__getitem__",
        "__setitem__",
        "nonzero",
        "unique",
        "unique_consecutive",
        "masked_select",
        "repeat_interleave",
        "repeat",
        "expand",
        "bincount",
        "new_tensor",
        "new_zeros",
        "new_ones",
        "new_empty",
        "new_full",
    ),
    "": (
        "tensor",
        "as_tensor",
        "asarray",
        "nonzero",
        "argwhere",
        "where",
        "unique",
        "unique_consecutive",
        "masked_select",
        "repeat_interleave",
        "bincount",
        "equal",
        "allclose",
        "arange",
        "zeros",
        "ones",
        "empty",
        "full",
        "randn",
        "rand",
        "randint",
    ),
}
"""Functions wrapped to name the events below them (``.tolist()``, ``torch.arange()``): a
function mode would see every call, at twice the cost per op."""
FALLBACKS = (
    ("", "tensor", FACTORY),
    ("", "as_tensor", FACTORY),
    ("", "asarray", FACTORY),
    ("Tensor", "new_tensor", FACTORY),
    ("Tensor", "item", SCALAR),
    ("Tensor", "__bool__", SCALAR),
    ("Tensor", "__int__", SCALAR),
    ("Tensor", "__float__", SCALAR),
    ("Tensor", "__index__", SCALAR),
    ("Tensor", "tolist", TO_HOST),
    ("Tensor", "cpu", TO_HOST),
)
"""What a wrapped function records when the dispatch mode saw nothing inside it: torch.tensor(data,
device=...) builds its tensor below the dispatcher's Python key."""

EXPLICIT_SYNCS = (
    ("cuda", "synchronize", "torch.cuda.synchronize()"),
    ("cuda.Stream", "synchronize", "Stream.synchronize()"),
    ("cuda.Event", "synchronize", "Event.synchronize()"),
    ("accelerator", "synchronize", "torch.accelerator.synchronize()"),
)


class Patches:
    """Wraps torch's explicit synchronize calls while installed; :meth:`remove` puts back exactly
    what was there."""

    def __init__(self, torch: Any, interceptor: Interceptor) -> None:
        self.torch = torch
        self.interceptor = interceptor
        self._saved: list[tuple[Any, str, Any, bool]] = []

    def _owner(self, path: str) -> Any:
        owner: Any = self.torch
        for part in path.split(".") if path else ():
            owner = getattr(owner, part, None)
            if owner is None:
                return None
        return owner

    def _set(self, owner: Any, name: str, value: Any) -> None:
        own = name in vars(owner)
        self._saved.append((owner, name, vars(owner).get(name), own))
        setattr(owner, name, value)

    def install(self) -> None:
        interceptor = self.interceptor
        for path, name, what in EXPLICIT_SYNCS:
            owner = self._owner(path)
            original = getattr(owner, name, None) if owner is not None else None
            if original is not None:
                self._set(owner, name, interceptor.explicit(what, original))
        fallbacks = {(path, name): kind for path, name, kind in FALLBACKS}
        for path, names in LABELLED.items():
            owner = self._owner(path)
            for name in names:
                original = getattr(owner, name, None) if owner is not None else None
                if original is None:
                    continue
                label = DUNDER_LABELS.get(name) or (f".{name}()" if path else f"torch.{name}()")
                kind = fallbacks.get((path, name))
                self._set(owner, name, interceptor.wrap(original, label, kind))

    def remove(self) -> None:
        while self._saved:
            owner, name, value, own = self._saved.pop()
            if own:
                setattr(owner, name, value)
            else:
                delattr(owner, name)

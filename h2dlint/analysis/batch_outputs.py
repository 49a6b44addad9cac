"""Each batch's output copied to the host in an inference loop over batches (HTD202, session 47).

An encode, predict or feature-extraction pass runs the model over a loader or over slices of its
input and hands each batch's result to the host, where it is collected for the caller::

    all_scores = []
    for inputs in tqdm(dataloader):
        scores = self.model(**inputs.to(device)).logits[:, self.yes_loc]
        all_scores.extend(scores.cpu().float().tolist())

The labelled set was split on this shape (session 47, consist47: ``docs/precision.md``). Upstream
engineers keep the per-batch copy: Lightning's predict loop moves each batch's predictions to
the CPU inside the loop (``loops/prediction_loop.py:274``), sentence-transformers' ``encode``
copies each batch's embeddings with ``.cpu()`` whenever numpy is asked for (the default, 5.5.1
through 6.3.0), timm's ``validate`` appends ``predictions.cpu()`` per batch, and no fix in
``tests/data/upstream_fixes.tsv`` moved such a copy out of a loop over independent batches (the
moved ones carry a value the next iteration needs, or are per-row, per-head or per-chunk reads
of one batch). The copy bounds the device memory a long pass holds, the values must reach the
host anyway, and the stall is one per batch behind a whole forward. HTD202 leaves it unreported.

A host copy is such a batch output (asked only at MEDIUM, the copied tensor's device unknown:
a tensor the loop itself moved to the device and reads back stays reported, HIGH) when

- its innermost ``for`` loop walks batches: its iterable names a loader or batches
  (``tqdm(dataloader)``, ``enumerate(test_loader)``, ``range(len(batches))``), steps through a
  range by a batch size (``trange(0, n, batch_size)``), or its target names a batch (``for
  image_batch in ...``); a ``range(batch_size)`` walks the rows of one batch and is no such
  loop, nor are a stream's chunks (a streaming decoder's per-chunk copy stays reported);
- the loop is in the copy's own function (no lambda or comprehension between), which is not a
  module's ``forward`` (its callers may run it per step): a pass of its own, ``predict``,
  ``encode``, ``embed``, an inference wrapper's ``__call__``;
- the loop trains nothing: no ``backward``, ``step`` or ``zero_grad`` call in its body, and
  its function is not named for training (``train_epoch``, ``fit``: a training loop's
  per-step read is a stall every step);
- the copy, through value-keeping methods (``.float()``, ``.numpy()``, ``.tolist()``) and
  subscripts, is collected into a list (``.append``/``.extend``), or bound to a name in a loop
  body that collects (an ``.append``/``.extend`` call, a ``+=`` or a ``yield``).

A per-batch ``.item()`` of a loss or metric summed into a float is a different read (a scalar
the host could sum later: FunASR's and torchtitan's validation fixes): it stays reported.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from h2dlint.analysis.host_io_calls import VALUE_KEEPING_METHODS
from h2dlint.analysis.names import call_name, calls_in, names_in, target_names
from h2dlint.walk import visit_read_only

# Methods a copy's values pass through on their way into the list.
_ON_THE_WAY = VALUE_KEEPING_METHODS | {"astype", "tolist", "cpu", "numpy"}
# Words (of ``_``-separated names, lower case) of an iterable that yields batches.
_BATCHES = frozenset({"loader", "dataloader", "batches", "pbar"})
# Words of a range's step, or of a loop target, that name a batch.
_BATCH = frozenset({"batch", "bs"})
# Calls that make a loop a training loop.
_TRAINING = frozenset({"backward", "step", "zero_grad", "training_step"})
# Words of a function named for training (``train_epoch``, ``fit``).
_TRAINING_NAMES = frozenset({"train", "training", "fit", "finetune"})
_COLLECTORS = frozenset({"append", "extend"})
_RANGES = frozenset({"range", "trange"})


def batch_output(ancestors: Sequence[cst.CSTNode], copy: cst.CSTNode | None) -> bool:
    """Whether ``copy`` (a host copy's call below ``ancestors``, outermost first) is a batch's
    output collected in an inference loop over batches (see the module)."""
    if not isinstance(copy, cst.Call):
        return False
    loop = _batch_loop(ancestors)
    if loop is None or _trains(loop):
        return False
    path = [*ancestors, copy]
    at = _outermost(path)
    parent = path[at - 1]
    if isinstance(parent, cst.Arg) and at >= 2:
        call = path[at - 2]
        return isinstance(call, cst.Call) and _is_collector(call)
    if isinstance(parent, cst.Assign) and parent.value is path[at]:
        named = all(target_names(target.target) for target in parent.targets)
        return named and _collects(loop)
    return False


def _batch_loop(ancestors: Sequence[cst.CSTNode]) -> cst.For | None:
    """The innermost ``for`` loop around the node, in its own function, when it walks batches."""
    loop = None
    for node in reversed(ancestors):
        if isinstance(node, (cst.Lambda, cst.BaseComp)):
            return None
        if isinstance(node, cst.FunctionDef):
            # a module's ``forward`` may run per step of its callers (a streaming decoder's
            # chunks), a function named for training steps elsewhere: only a pass of its own
            # (``predict``, ``encode``, ``__call__``) counts
            name = node.name.value
            return loop if name != "forward" and not _words({name}) & _TRAINING_NAMES else None
        if isinstance(node, cst.For) and loop is None:
            if not _walks_batches(node):
                return None
            loop = node
    return None


def _words(names: set[str]) -> set[str]:
    return {word for name in names for word in name.lower().split("_") if word}


def _named(node: cst.CSTNode) -> set[str]:
    """The names ``node`` reads, with the attribute names of ``x.attr`` (``self.loader``)."""
    collector = _Attributes()
    visit_read_only(node, collector)
    return names_in(node) | collector.names


class _Attributes(cst.CSTVisitor):
    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self.names.add(node.attr.value)


def _walks_batches(loop: cst.For) -> bool:
    """Whether ``loop`` walks batches (see the module)."""
    if _words(target_names(loop.target)) & _BATCH:
        return True
    iterable = _unwrapped(loop.iter)
    if isinstance(iterable, cst.Call) and call_name(iterable) in _RANGES:
        if len(iterable.args) >= 3:
            return bool(_words(_named(iterable.args[2].value)) & (_BATCH | _BATCHES))
        return bool(_words(_named(iterable)) & _BATCHES)
    return bool(_words(_named(iterable)) & _BATCHES)


def _unwrapped(iterable: cst.BaseExpression) -> cst.BaseExpression:
    """The iterable inside progress bars and enumerations (``tqdm(enumerate(loader))``)."""
    while (
        isinstance(iterable, cst.Call)
        and call_name(iterable) in ("tqdm", "enumerate", "iter", "list")
        and iterable.args
    ):
        iterable = iterable.args[0].value
    return iterable


def _trains(loop: cst.For) -> bool:
    """Whether the loop's body calls a training step's methods."""
    return any(call_name(call) in _TRAINING for call in calls_in(loop.body))


def _is_collector(call: cst.Call) -> bool:
    return isinstance(call.func, cst.Attribute) and call.func.attr.value in _COLLECTORS


def _outermost(path: Sequence[cst.CSTNode]) -> int:
    """The index in ``path`` of the outermost expression that still holds the copy's values."""
    i = len(path) - 1
    while i >= 2:
        parent, node = path[i - 1], path[i]
        if isinstance(parent, cst.Attribute) and parent.value is node:
            above = path[i - 2]
            name = parent.attr.value
            if name in _ON_THE_WAY and isinstance(above, cst.Call) and above.func is parent:
                i -= 2
                continue
            if name in ("data", "T"):
                i -= 1
                continue
            return i
        if isinstance(parent, cst.Subscript) and parent.value is node:
            i -= 1
            continue
        break
    return i


class _Collecting(cst.CSTVisitor):
    """Finds a list collection (``.append``/``.extend``, ``+=``) or a ``yield``."""

    def __init__(self) -> None:
        self.found = False

    def visit_Call(self, node: cst.Call) -> None:
        self.found = self.found or _is_collector(node)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self.found = self.found or isinstance(node.operator, cst.AddAssign)

    def visit_Yield(self, node: cst.Yield) -> None:
        self.found = True


def _collects(loop: cst.For) -> bool:
    """Whether the loop's body collects results (see :class:`_Collecting`)."""
    collector = _Collecting()
    visit_read_only(loop.body, collector)
    return collector.found

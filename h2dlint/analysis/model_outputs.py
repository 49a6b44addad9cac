"""A model's outputs and tensors made like another tensor: collections whose items a loop
may move one by one without fault, since they are made where the model or the other tensor is
(``loop_iterables.iterable_excluded``). Moved out of ``loop_iterables.py``, which held the
model-call half."""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.frames import Frame
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.provenance.common import NEW_FACTORIES, SPLITTING_METHODS, ReturnedValues
from h2dlint.analysis.targets import name_words
from h2dlint.analysis.torch_api import LIKE_FACTORIES
from h2dlint.walk import visit_read_only


def iterated_collection(node: cst.BaseExpression) -> cst.BaseExpression:
    """The collection an iterable goes over: ``xs`` of ``enumerate(xs)``, ``reversed(xs)``."""
    while (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Name)
        and node.func.value in ("enumerate", "reversed", "list", "tuple", "sorted")
        and node.args
    ):
        node = node.args[0].value
    return node


# -- a model's outputs, through a callable attribute or a method returning one -----------------
# Words of a callable attribute's name that say it prepares host data rather than running a model.
HOST_CALLABLE_WORDS = frozenset(
    {
        "processor",
        "tokenizer",
        "transform",
        "transforms",
        "collate",
        "collator",
        "loader",
        "reader",
        "extractor",
        "preprocess",
        "preprocessor",
        "fetch",
        "load",
        "data",
        "dataset",
        "iterator",
    }
)


def called_outputs(iterable: cst.BaseExpression, provenance: Provenance, frame: Frame) -> bool:
    """Whether the collection is what a model call returned: ``outs = self.encoder(x)``, a
    callable attribute of ``self`` that is no method of its class (a submodule, a compiled
    forward), or a method of the class every ``return`` of which is such a call (``return
    self.block_forward(block, x)``); every binding of a name. Its tensors are made where the
    model ran; moving them aligns devices. Not a callable named for host work
    (``self.processor``, ``self.collate_fn``). A comprehension or a display of such calls, or
    of tensors made like another tensor (``[self.layer(x) for _ in range(n)]``,
    ``[x.new_zeros(4) for _ in heads]``, ``[torch.zeros_like(h) for h in hs]``), counts too:
    each item is made where the model or that tensor is (:func:`made_like`); so does a list
    bound empty and filled with them (``parts.append(self.proj(h))``)."""
    node = iterated_collection(iterable)
    values: list[cst.BaseExpression | None] = [node]
    if isinstance(node, cst.Name):
        values = []
        for value in provenance.bindings(frame).reaching(node):
            if isinstance(value, cst.List) and not value.elements:
                # ``parts = []`` filled by ``parts.append(self.proj(h))``: judged by what is added
                added = provenance.appended(frame, node.value)
                if not added:
                    return False
                values.append(cst.List([cst.Element(v) for v in added]))
            else:
                values.append(value)
    return bool(values) and all(
        value is not None and _made_items(value, provenance, frame) for value in values
    )


def _made_items(value: cst.BaseExpression, provenance: Provenance, frame: Frame) -> bool:
    """A model call's output, or a comprehension or a display whose every item is one or is
    made like another tensor."""
    if isinstance(value, (cst.ListComp, cst.GeneratorExp)):
        items = [value.elt]
    elif isinstance(value, (cst.List, cst.Tuple)):
        items = [e.value for e in value.elements if isinstance(e, cst.Element)]
        if not items or len(items) != len(value.elements):
            return False
    else:
        return _model_call(value, provenance, frame, 0)
    return all(
        _model_call(item, provenance, frame, 0) or made_like(item, provenance, frame)
        for item in items
    )


def made_like(node: cst.BaseExpression, provenance: Provenance, frame: Frame) -> bool:
    """A tensor made on another tensor's device: ``x.new_zeros(n)`` (any ``new_*`` factory) or
    ``torch.zeros_like(x)`` (any ``*_like`` factory) of a tensor not proven on the host. Only
    a host ``x`` makes it host memory, and the analysis says when it is."""
    if not isinstance(node, cst.Call):
        return False
    func = node.func
    if isinstance(func, cst.Attribute) and func.attr.value in NEW_FACTORIES:
        source: cst.BaseExpression = func.value
    elif provenance.qualify(func) in LIKE_FACTORIES and node.args:
        source = node.args[0].value
    else:
        return False
    device = next((a for a in node.args if a.keyword and a.keyword.value == "device"), None)
    return device is None and not provenance.where(source, frame).on_host


def _model_call(node: cst.BaseExpression, provenance: Provenance, frame: Frame, depth: int) -> bool:
    while (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value in SPLITTING_METHODS
    ):
        node = node.func.value  # ``self.encoder(x).split(sizes)``: pieces of its output
    if not (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and isinstance(node.func.value, cst.Name)
        and frame.cls is not None
        and node.func.value.value == frame.self_name
    ):
        return False
    name = node.func.attr.value
    if name_words(name) & HOST_CALLABLE_WORDS:
        return False
    method = provenance.index.methods.get(frame.cls, {}).get(name)
    if method is None:
        return True  # a callable attribute: a submodule or a stored forward
    if depth > 0:
        return False
    values = _returned(method)
    inner = provenance.index.frame_of(method)
    return bool(values) and all(_model_call(v, provenance, inner, depth + 1) for v in values)


def _returned(function: cst.FunctionDef) -> list[cst.BaseExpression]:
    """What every ``return`` of ``function`` gives (empty when one is bare or it yields)."""
    collector = ReturnedValues()
    visit_read_only(function.body, collector)
    return [] if collector.bare or collector.yields else collector.values

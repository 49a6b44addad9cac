"""A model's outputs and tensors made like another tensor: collections whose items a loop
may move one by one without fault, since they are made where the model or the other tensor is
(``loop_iterables.iterable_excluded``). Moved out of ``loop_iterables.py``, which held the
model-call half."""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.bindings import zipped_item
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.joined_outputs import (
    BindingsOnPath,
    joined_operands,
    past_target_rebinding,
)
from h2dlint.analysis.named_models import named_model_call
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.provenance.common import NEW_FACTORIES, SPLITTING_METHODS
from h2dlint.analysis.returns import returned_values
from h2dlint.analysis.targets import name_words
from h2dlint.analysis.torch_api import LIKE_FACTORIES


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
    bound empty and filled with them (``parts.append(self.proj(h))``), a field of a model's
    output (``result["hidden_states"]`` of ``result = self.model(...)``), and items that are
    such outputs through names, indexing and device-keeping methods (``cur =
    feats[i]`` of ``feats = self.encode_images(x)``, ``self.get_model().embed_tokens(ids)
    .detach()``: LLaVA's per-sample embedding list)."""
    return _made(_output_field(iterated_collection(iterable), frame), provenance, frame, 0)


# Tensor methods whose result lives where their receiver does.
KEEPING_METHODS = SPLITTING_METHODS | {
    "detach",
    "contiguous",
    "clone",
    "float",
    "half",
    "bfloat16",
    "flatten",
    "view",
    "reshape",
    "squeeze",
    "unsqueeze",
    "permute",
    "transpose",
}
_SPLITTING_FUNCTIONS = frozenset({"torch.split", "torch.chunk", "torch.unbind"})
_MAX_DEPTH = 24


def _output_field(node: cst.BaseExpression, frame: Frame) -> cst.BaseExpression:
    """``outs`` of ``outs["hidden_states"]`` or ``outs.hidden_states`` (a field of a model's
    output), when the chain starts at a name other than ``self``."""
    base = node
    while (
        isinstance(base, cst.Subscript)
        and len(base.slice) == 1
        and isinstance(base.slice[0].slice, cst.Index)
        and isinstance(base.slice[0].slice.value, cst.SimpleString)
    ) or isinstance(base, cst.Attribute):
        base = base.value
    if base is node or not isinstance(base, cst.Name) or base.value == frame.self_name:
        return node
    return base


def _made(value: cst.BaseExpression, provenance: Provenance, frame: Frame, depth: int) -> bool:
    """A model call's output or a tensor made like another one, through device-keeping
    methods, indexing, names, displays and comprehensions (see :func:`called_outputs`)."""
    while isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute):
        if value.func.attr.value not in KEEPING_METHODS or provenance.qualify(value.func):
            break  # ``torch.split(x, n)`` is a function of a module, not a method of ``torch``
        value = value.func.value  # ``self.encoder(x).split(sizes)``: pieces of its output
    if isinstance(value, cst.Subscript):
        return _made(value.value, provenance, frame, depth)
    if isinstance(value, cst.Attribute) and _output_field_name(value, frame):
        # ``self.vision(x).last_hidden_state``, ``out.logits``: a field of a model's output
        return _made(value.value, provenance, frame, depth)
    if (
        _model_call(value, provenance, frame, depth)
        or named_model_call(value, provenance, frame)
        or made_like(value, provenance, frame)
    ):
        return True
    if depth >= _MAX_DEPTH:
        return False
    if isinstance(value, cst.Call) and provenance.qualify(value.func) in _SPLITTING_FUNCTIONS:
        return bool(value.args) and _made(value.args[0].value, provenance, frame, depth + 1)
    operands = joined_operands(value, provenance)  # one device for all: made if one is
    if operands:
        return any(_made(operand, provenance, frame, depth + 1) for operand in operands)
    if isinstance(value, (cst.ListComp, cst.GeneratorExp)):
        if _made(value.elt, provenance, frame, depth + 1):
            return True
        element = value.elt
        while isinstance(element, cst.Call) and isinstance(element.func, cst.Attribute):
            if element.func.attr.value not in KEEPING_METHODS:
                return False
            element = element.func.value
        target = value.for_in.target
        return (  # ``[x.flatten(0, 1) for x in feats]``: the collection's own items
            isinstance(element, cst.Name)
            and isinstance(target, cst.Name)
            and element.value == target.value
            and value.for_in.inner_for_in is None
            and _made(value.for_in.iter, provenance, frame, depth + 1)
        )
    if isinstance(value, (cst.List, cst.Tuple)):
        items = [e.value for e in value.elements if isinstance(e, cst.Element)]
        return (
            bool(items)
            and len(items) == len(value.elements)
            and all(_made(item, provenance, frame, depth + 1) for item in items)
        )
    if not isinstance(value, cst.Name) or value.value == frame.self_name:
        return False
    values: list[tuple[cst.CSTNode, cst.BaseExpression | None]] = []
    for binding in past_target_rebinding(provenance.bindings(frame), value):
        bound = binding.value
        if bound is None:  # ``for i, feat in enumerate(feats)``: an item of ``feats``
            bound = zipped_item(binding.statement, value.value)
        if isinstance(bound, cst.List) and not bound.elements:
            # ``parts = []`` filled by ``parts.append(self.proj(h))``: judged by what is added
            added = provenance.appended(frame, value.value)
            if not added:
                return False
            values.extend((binding.statement, v) for v in added)
        else:
            values.append((binding.statement, bound))
    judged = False
    for statement, bound in values:
        if bound is None:
            return False
        if not _ON_PATH.entered(statement):
            continue  # met again while its own value is judged: no origin of its own
        try:
            if not _made(bound, provenance, frame, depth + 1):
                return False
        finally:
            _ON_PATH.leave(statement)
        judged = True
    return judged


# The binding statements :func:`_made` is judging (one path of the recursion).
_ON_PATH = BindingsOnPath()


# Words of the fields of a model's output (``transformers``' ``ModelOutput``s, ``diffusers``'
# ``.sample``): ``last_hidden_state``, ``logits``, ``image_embeds``, ``pooler_output``.
OUTPUT_FIELD_WORDS = frozenset(
    {"hidden", "logits", "embeds", "embedding", "embeddings", "pooler", "features", "sample"}
    | {"attentions", "latents", "latent"}
)


def _output_field_name(node: cst.Attribute, frame: Frame) -> bool:
    """``x.last_hidden_state``: a field named as a model's output's, of anything but ``self``
    (whose attributes are the object's state). Only such names: what a call on an attribute of
    ``self`` returns may be an environment's or a client's result (``self._env.get_steps(b)
    [0].action_mask``: a numpy array), not a model's."""
    owner = node.value
    if isinstance(owner, cst.Name) and owner.value == frame.self_name:
        return False
    return bool(name_words(node.attr.value) & OUTPUT_FIELD_WORDS)


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
    """A call of a callable attribute of ``self`` (``self.encoder(x)``), of a submodule's
    (``self.model.embed_tokens(x)``, ``self.get_model().embed_tokens(x)`` when ``get_model``
    returns an attribute of ``self``), or of a method of the class whose every ``return`` is
    made where the model runs (:func:`_made`, in the method's frame)."""
    if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and frame.cls):
        return False
    name = node.func.attr.value
    if name_words(name) & HOST_CALLABLE_WORDS:
        return False
    owner = node.func.value
    if not (isinstance(owner, cst.Name) and owner.value == frame.self_name):
        return _submodule(owner, provenance, frame)
    method = provenance.index.methods.get(frame.cls, {}).get(name)
    if method is None:
        return True  # a callable attribute: a submodule or a stored forward
    if depth >= _MAX_DEPTH:
        return False
    values = returned_values(method)
    inner = provenance.index.frame_of(method)
    return bool(values) and all(_made(v, provenance, inner, depth + 1) for v in values)


def _submodule(
    node: cst.BaseExpression, provenance: Provenance, frame: Frame, depth: int = 0
) -> bool:
    """``self.model`` (an attribute of ``self`` that is no method, not named for host work),
    or ``self.get_model()``: a method without arguments every ``return`` of which is one."""
    methods = provenance.index.methods.get(frame.cls, {}) if frame.cls is not None else {}
    if isinstance(node, cst.Call) and not node.args and isinstance(node.func, cst.Attribute):
        func = node.func
        method = methods.get(func.attr.value)
        if not (
            isinstance(func.value, cst.Name)
            and func.value.value == frame.self_name
            and method is not None
            and depth < 2
        ):
            return False
        if _abstract(method):  # ``get_model`` of a mixin whose subclasses give the model
            return bool(name_words(func.attr.value) & MODEL_GETTER_WORDS)
        inner = provenance.index.frame_of(method)
        values = returned_values(method)
        return bool(values) and all(_submodule(v, provenance, inner, depth + 1) for v in values)
    return (
        isinstance(node, cst.Attribute)
        and isinstance(node.value, cst.Name)
        and node.value.value == frame.self_name
        and not name_words(node.attr.value) & HOST_CALLABLE_WORDS
        and node.attr.value not in methods
    )


# Words of an abstract getter's name that say it gives a model or one of its submodules.
MODEL_GETTER_WORDS = frozenset({"model", "tower", "encoder", "decoder", "backbone", "projector"})


def _abstract(function: cst.FunctionDef) -> bool:
    """A body of only a docstring, ``pass``, ``...`` or ``raise NotImplementedError``."""
    for line in function.body.body if isinstance(function.body, cst.IndentedBlock) else ():
        if not isinstance(line, cst.SimpleStatementLine):
            return False
        for small in line.body:
            if isinstance(small, cst.Pass) or (
                isinstance(small, cst.Expr)
                and isinstance(small.value, (cst.Ellipsis, cst.SimpleString))
            ):
                continue
            if not (
                isinstance(small, cst.Raise)
                and "NotImplementedError" in cst.Module([]).code_for_node(small)
            ):
                return False
    return True

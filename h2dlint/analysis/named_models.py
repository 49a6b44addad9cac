"""Calls of a model held in a name other than ``self``: ``outs = model(**batch)`` of a
parameter or local named for a model, ``teacher_out = model.teacher(**inputs)`` (a submodule
of it named for a model), ``model.module(x)`` (DDP's wrapped module), ``net.forward(x)``.
What they return is made where the model ran; moving its fields' items one by one aligns
devices (``[a.to(loss_device) for a in teacher_out.attentions]``), it copies no host data.
Asked by :func:`model_outputs._made` beside the calls of ``self``'s submodules."""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.frames import Frame
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.targets import name_words

# Words of a name that say it holds a model (an ``nn.Module`` or a wrapper of one).
MODEL_WORDS = frozenset(
    {
        "model",
        "teacher",
        "student",
        "net",
        "network",
        "module",
        "encoder",
        "decoder",
        "backbone",
        "policy",
        "actor",
        "critic",
        "generator",
        "discriminator",
        "unet",
        "vae",
        "transformer",
    }
)
# Words that say the callable prepares or reads host data (``model_processor(x)``,
# ``model.tokenizer(x)``), or that it builds, loads or wraps a model rather than running one.
_HOST_WORDS = frozenset(
    {
        "processor",
        "tokenizer",
        "transform",
        "collate",
        "collator",
        "loader",
        "load",
        "reader",
        "extractor",
        "preprocess",
        "preprocessor",
        "postprocess",
        "data",
        "dataset",
        "build",
        "make",
        "create",
        "get",
        "init",
        "fn",
        "func",
        "cpu",
        "numpy",
        "np",
        "onnx",
        "session",
        "sklearn",
    }
)


def named_model_call(node: cst.BaseExpression, provenance: Provenance, frame: Frame) -> bool:
    """Whether ``node`` calls a model held in a name of this function other than ``self``:
    ``model(x)``, ``model.teacher(x)``, ``model.module(x)``, ``net.forward(x)``. The name
    and every attribute on the way say a model (:data:`MODEL_WORDS`; ``forward`` too), none
    says host work; the name is a variable of the function (not an import, nor a function or
    class of the module: ``build_model(cfg)`` makes a model, it does not run one) not proven
    on the host (``model = model.cpu()``)."""
    if not isinstance(node, cst.Call):
        return False
    func: cst.BaseExpression = node.func
    while isinstance(func, cst.Attribute):
        attr = func.attr.value
        if attr != "forward" and not _model_name(attr):
            return False
        func = func.value
    if not isinstance(func, cst.Name) or func.value == frame.self_name:
        return False
    name = func.value
    if not _model_name(name) or provenance.qualify(func) is not None:
        return False
    index = provenance.index
    if name in index.functions or name in index.classes:
        return False
    if not provenance.bindings(frame).reaching(func):
        return False  # a global or a closure's name: nothing says what it holds
    return not provenance.where(func, frame).on_host


def _model_name(name: str) -> bool:
    words = name_words(name)
    return bool(words & MODEL_WORDS) and not words & _HOST_WORDS

"""Names that say a function or class builds the state of every step, though they look like
initialisers (``init_forward_metadata``, ``ForwardBatch.init_new``, ``build`` of an attention
metadata builder): run-once detection (:mod:`h2dlint.analysis.once`) and hot paths both ask."""

from __future__ import annotations

import re

import libcst as cst

from h2dlint.analysis.class_bases import class_and_base_names

# Words that, with ``metadata``, name the per-step metadata of attention or of a batch
# (``init_forward_metadata``, ``build_attn_metadata``, ``_prepare_decode_metadata``).
METADATA_STEP_WORDS = frozenset(
    {"forward", "attn", "attention", "batch", "decode", "prefill", "step"}
)


def step_metadata_name(name: str) -> bool:
    """Whether a function's name says it builds the metadata of each step or forward pass
    (``init_forward_metadata``, ``build_attn_metadata``), not reads or sets it."""
    words = [w for w in name.lower().split("_") if w]
    return (
        "metadata" in words
        and bool(METADATA_STEP_WORDS & set(words))
        and words[0] not in ("get", "set", "is", "has")
    )


# Classes of the state an engine builds for every step, by the words of their names: a last word
# for state (``StepContext``, ``ForwardBatch``, ``InputBatch``, ``ForwardMeta``) after a word
# for a step (not pipeline blocks named ``...Step``, nor models named ``AceStep...``).
STATE_NOUNS = frozenset({"Context", "Batch", "Inputs", "Input", "Metadata", "Meta"})
PER_STEP_CLASS_WORDS = frozenset({"Step", "Forward", "Schedule", "Input"})


def per_step_state_builder(name: str, cls: str) -> bool:
    """Whether method ``name`` of class ``cls`` builds the state a serving engine makes for
    every step: an alternate constructor (``new``, ``init_new``, ``create``, ``build``,
    ``from_*``) or a ``prepare*`` method of a class named for per-step state
    (``StepContext.new``, ``ForwardBatch.init_new``, ``ScheduleBatch.prepare_for_decode``)."""
    words = re.findall(r"[A-Z][a-z0-9]*|[a-z0-9]+", cls)
    if len(words) < 2 or words[-1] not in STATE_NOUNS:
        return False
    if not PER_STEP_CLASS_WORDS & set(words[:-1]):
        return False
    first = name.lstrip("_").split("_")[0]
    return name in ("new", "init_new", "create", "build") or first in ("from", "prepare")


def builder_class(cls: cst.ClassDef) -> bool:
    """Whether a class builds per-step attention metadata: its name (or a base's) says
    ``...MetadataBuilder`` (``FlashAttentionMetadataBuilder``, ``AttnMetadataBuilder``)."""
    names = [name.rpartition(".")[2] for name in class_and_base_names(cls)]
    return any("Metadata" in n and n.endswith("Builder") for n in names)

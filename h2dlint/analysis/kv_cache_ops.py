"""Names that say a function writes or reads a KV cache in every decoding step: a paged
KV-cache op of a serving engine or kernel library (``append_paged_kv_cache``,
``batch_decode_with_paged_kv_cache``, ``nvfp4_quantize_append_paged_kv_cache``,
``update_kv_cache``) runs per layer of every forward pass, so a sync in it (or in a helper it
calls) waits once per layer and step. :func:`hot_names.name_reason` asks.

Both words must be there: ``kv`` then ``cache`` (or ``kvcache``) and a running word
(:data:`RUNNING_WORDS`). Not a name that allocates, sizes, swaps to disk or inspects the cache
(``allocate_kv_cache``, ``kv_cache_size``, ``save_kv_cache``: no running word), nor one that
configures or queries it (``get_``/``init_``/``set_`` first: ``hot_names`` drops those before
asking)."""

from __future__ import annotations

import itertools

# Verbs of the per-step work on a KV cache: a new token's K/V appended or written, the
# attention of a decode or prefill over it.
RUNNING_WORDS = frozenset({"append", "decode", "prefill", "write", "store", "update"})
# Words of names that configure an op, plan it or generate code for it, not run it
# (``update_quant_cfg_with_kv_cache_quant``, ``emit_kv_cache_update_layer``,
# ``prepare_nvfp4_batch_decode_with_kv_cache_mla``: a plan reads its lengths on the host by
# design, once before the layers run).
NOT_RUNNING_WORDS = frozenset({"cfg", "config", "emit", "quant", "plan", "prepare"})
KV_CACHE_REASON = (
    "`{}()` reads or writes the KV cache in every layer of each decoding step (its name says so)"
)


def kv_cache_words(words: list[str]) -> bool:
    """Whether the words name a KV cache: ``kv`` right before ``cache``, or ``kvcache``."""
    if "kvcache" in words:
        return True
    return any(a == "kv" and b == "cache" for a, b in itertools.pairwise(words))


def kv_cache_op_reason(name: str, words: list[str]) -> str | None:
    """Why ``name`` runs per layer and step when its words name a KV cache and per-step work
    on it (``append_paged_kv_cache``); None otherwise (``allocate_kv_cache``)."""
    if kv_cache_words(words) and RUNNING_WORDS & set(words) and not NOT_RUNNING_WORDS & set(words):
        return KV_CACHE_REASON.format(name)
    return None

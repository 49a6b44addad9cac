"""A text tokenizer's ``decode``: token ids turned back into text, on the host.

A class named for a tokenizer (``ExLlamaV2Tokenizer``, exllamav3's ``Tokenizer``) that is no
torch module decodes the ids its callers hand it: the generator's host sequence (exllama's
family samples on the CPU and keeps its sequences there), or ids a caller copied to the host
to print them. Its ``decode`` walking a batch of ids row by row (``ids[i].tolist()`` per
sequence) is where those ids leave for Python, not a per-row sync of a step: where the rows
are not proven on a device, HTD201 leaves the loop alone (session 44, fp201m44: exllama's
``tokenizer.py:116``, exllamav2's ``tokenizer/tokenizer.py:585``, exllamav3's
``tokenizer/tokenizer.py:618``).

A neural audio or image "tokenizer" is a model (``class WavTokenizer(nn.Module)``,
``Qwen3TTSTokenizerV2Model``): its decode runs on the device, and is not one of these.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from h2dlint.analysis.class_bases import module_subclass, written_bases

DECODE_METHODS = frozenset({"decode", "batch_decode"})


def in_tokenizer_decode(ancestors: Sequence[cst.CSTNode]) -> bool:
    """Whether the code under ``ancestors`` is in the ``decode`` (``batch_decode``,
    ``decode_*``) method of a tokenizer class that is no torch module."""
    for index in range(len(ancestors) - 1, -1, -1):
        cls = ancestors[index]
        if not isinstance(cls, cst.ClassDef):
            continue
        method = next((n for n in ancestors[index + 1 :] if isinstance(n, cst.FunctionDef)), None)
        if method is None or not _decode_name(method.name.value):
            return False
        return _text_tokenizer(cls)
    return False


def _decode_name(name: str) -> bool:
    return name in DECODE_METHODS or name.startswith("decode_")


def _text_tokenizer(cls: cst.ClassDef) -> bool:
    if not cls.name.value.endswith("Tokenizer") or module_subclass(cls):
        return False
    return not any(base.endswith(("Model", "Module", "Codec")) for base in written_bases(cls))

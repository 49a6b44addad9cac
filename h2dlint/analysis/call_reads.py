"""What a call reads of tensors on the host, besides an explicit read (``.item()``,
``.cpu()``): HTD202's question for the calls that answer on the host.

- A builtin that compares on the host (:func:`~h2dlint.analysis.accumulators.compared_reads`:
  ``max(x)``, ``max(s, best)``).
- ``torch.equal(a, b)``, ``torch.allclose(a, b)`` and their methods, which return a Python
  bool (:func:`~h2dlint.analysis.sync_basics.bool_comparison`).
- A tokenizer's ``decode``/``batch_decode`` of a tensor, which reads every id with
  ``.tolist()`` (:func:`~h2dlint.analysis.decoded_outputs.decoded_ids`): a copy of the ids, so
  the copies' judgements apply (the call is the copy: an output handed on once is no step).
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from h2dlint.analysis.accumulators import compared_reads
from h2dlint.analysis.decoded_outputs import decoded_ids
from h2dlint.analysis.sync_basics import bool_comparison

DECODE_READ = "A tokenizer's decode of {} (it copies the ids to the host)"


@dataclass(frozen=True)
class CallRead:
    """``tensor`` read on the host by the call, ``what`` (with ``{}`` for the tensor) says
    how, ``kind`` is HTD202's kind of read; ``copy``: the call itself is the copy."""

    tensor: cst.BaseExpression
    what: str
    kind: str
    copy: bool = False


def call_reads(call: cst.Call, qualified: str) -> list[CallRead]:
    """The tensors ``call`` (its qualified name ``qualified``, empty when not imported) reads
    on the host, in the order they are judged; empty for other calls."""
    ids = decoded_ids(call)
    if ids is not None:
        return [CallRead(ids, DECODE_READ, "copy", copy=True)]
    compared = bool_comparison(call, qualified)
    if compared is not None:
        name, tensors = compared
        what = f"`{name}()` of {{}} (it returns a Python bool)"
        return [CallRead(tensor, what, "read") for tensor in tensors]
    return [CallRead(*read) for read in compared_reads(call, qualified)]

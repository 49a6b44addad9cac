"""Lengths that PyTorch takes only from the host: the ``lengths`` of ``pack_padded_sequence``.

``torch.nn.utils.rnn.pack_padded_sequence(x, lengths)`` (and ``pack_padded_sequence(x,
lengths=...)``) requires a CPU tensor or a Python list for ``lengths``: a CUDA tensor raises
(``'lengths' argument should be a 1D CPU int64 tensor``). So code that runs hands it host
lengths, and a name holding the same value elsewhere in the function, the value that reaches
the call, is a host tensor (or a list): reading its rows (``for feat, length in zip(features,
lengths): feat[:length]``) reads host memory and syncs nothing. Sequence taggers and RNN
encoders keep their lengths on the CPU for this reason (flair's ``torch.LongTensor(lengths)``,
passed down to the CRF and the decoder).

Only the same value counts: a use whose reaching bindings are exactly those that reach the
call's ``lengths`` name (``lengths = lengths.cpu()`` before the call makes the earlier uses
another value). A helper's parameter that every call passes such a name gets the fact through
``argument_flow`` as any other parameter does.
"""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.arguments import keyword, positional
from h2dlint.analysis.fact_source import FactSource
from h2dlint.analysis.facts import Fact, Where
from h2dlint.analysis.frames import Frame
from h2dlint.context import SharedKey
from h2dlint.walk import OwnScopeVisitor, ReadOnlyVisitor, visit_read_only

# Functions that require their ``lengths`` argument (position 1) on the host.
HOST_LENGTHS_CALLS = frozenset({"torch.nn.utils.rnn.pack_padded_sequence"})

# What such a name holds: host memory (pinned or not; not made here, so no layout known).
HOST_LENGTHS = Fact(Where.HOST, False, None)

# Per function: the ``lengths`` names of its calls of :data:`HOST_LENGTHS_CALLS`.
_HANDED: SharedKey[tuple[cst.Name, ...]] = SharedKey("host lengths")
# Per file: whether its text names ``pack_padded`` at all (asked for every name's fact).
_PACKS: SharedKey[bool] = SharedKey("packs padded sequences")


class _LengthsNames(OwnScopeVisitor, ReadOnlyVisitor):
    def __init__(self, root: cst.FunctionDef, source: FactSource) -> None:
        self.root = root
        self.source = source
        self.found: list[cst.Name] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return node is self.root

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, cst.Call) and self.source.qualify(node.func) in HOST_LENGTHS_CALLS:
            arg = keyword(node, "lengths")
            if arg is None:
                given = positional(node)
                arg = given[1] if len(given) > 1 else None
            if arg is not None and isinstance(arg.value, cst.Name):
                self.found.append(arg.value)
        return True


def _handed_names(source: FactSource, function: cst.FunctionDef) -> tuple[cst.Name, ...]:
    def build() -> tuple[cst.Name, ...]:
        visitor = _LengthsNames(function, source)
        visit_read_only(function, visitor)
        return tuple(visitor.found)

    return source.context.shared(_HANDED, build, function)


def host_lengths(source: FactSource, name: cst.Name, frame: Frame) -> bool:
    """Whether ``name`` holds the value that its function hands to ``pack_padded_sequence``
    as ``lengths``: a host tensor or a Python list, since PyTorch takes no other."""
    function = frame.function
    context = source.context
    if not isinstance(function, cst.FunctionDef) or not context.shared(
        _PACKS, lambda: "pack_padded" in context.source
    ):
        return False
    handed = [n for n in _handed_names(source, function) if n.value == name.value]
    if not handed:
        return False
    bindings = source.bindings(frame)
    reaching = _identity(bindings.reaching_bindings(name))
    return bool(reaching) and any(
        _identity(bindings.reaching_bindings(n)) == reaching for n in handed
    )


def _identity(bindings: tuple[object, ...]) -> frozenset[int]:
    return frozenset(id(b) for b in bindings)

"""A tensor's host copy fed to an inference session (session 45, triage45): optimum-amd's
Ryzen AI models run ONNX Runtime sessions, whose ``forward`` turns a torch input into numpy
(``pixel_values = pixel_values.cpu().detach().numpy()``), puts it in the feed
(``onnx_inputs = {"pixel_values": pixel_values}``) and calls ``self.model.run(None,
onnx_inputs)``. The session takes host arrays: the copy is how the input reaches the runtime
that computes the forward, not a read of a device result that could stay on the device, and
the session's own run waits for its result anyway.

A copy counts when, through methods that keep its values (``detach``, ``numpy``,
``contiguous``, a cast), it is the value of an entry of the feed: a dict display given as the
second argument of ``<x>.run(fetches, feed)`` whose first is ``None`` or a list or tuple of
output names (ONNX Runtime's ``InferenceSession.run(output_names, input_feed)``, TensorFlow's
``Session.run(fetches, feed_dict)``, :func:`session_run`), directly or through names bound to
the copy or to the feed and used only there. A copy also read elsewhere in the function, or a
dict given to another call, stays reported.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import libcst as cst

from h2dlint.analysis.later_reads import later_reads

# ``_feeds_entry`` and ``_is_feed``: whether a value (below its parents, innermost first) is
# a feed's entry, or a feed.
_Test = Callable[[cst.CSTNode, Sequence[cst.CSTNode], cst.FunctionDef], bool]
# Methods whose result holds the same values (on the host, once copied there).
_KEEPS_VALUES = frozenset(
    {"detach", "numpy", "cpu", "contiguous", "float", "half", "astype", "to", "clone"}
)


def session_run(call: cst.Call) -> bool:
    """Whether ``call`` runs an inference session: ``<x>.run(fetches, feed)`` whose first
    argument is ``None`` or a list or tuple of output names and whose second is a dict
    display or a name."""
    func = call.func
    if not (isinstance(func, cst.Attribute) and func.attr.value == "run"):
        return False
    positional = [a.value for a in call.args if a.keyword is None and not a.star]
    if len(positional) != 2 or not isinstance(positional[1], (cst.Dict, cst.DictComp, cst.Name)):
        return False
    fetches = positional[0]
    return (isinstance(fetches, cst.Name) and fetches.value == "None") or isinstance(
        fetches, (cst.List, cst.Tuple)
    )


def session_feed(
    ancestors: Sequence[cst.CSTNode], function: cst.FunctionDef, copy: cst.Call
) -> bool:
    """Whether the host copy ``copy`` (visited under ``ancestors``) only feeds an inference
    session (module docstring)."""
    chain = list(reversed(ancestors))
    child: cst.CSTNode = copy
    for i, parent in enumerate(chain):
        if isinstance(parent, cst.Attribute) and parent.value is child:
            if parent.attr.value not in _KEEPS_VALUES:
                return False
            child = parent
            continue
        if isinstance(parent, cst.Call) and parent.func is child:
            child = parent
            continue
        if isinstance(parent, cst.Assign) and parent.value is child:
            return _name_only(parent, function, _feeds_entry)
        return _feeds_entry(child, chain[i:], function)
    return False


def _feeds_entry(
    child: cst.CSTNode, chain: Sequence[cst.CSTNode], function: cst.FunctionDef
) -> bool:
    """Whether ``child`` is an entry's value of a dict that is a session's feed."""
    if len(chain) < 2:
        return False
    entry, feed = chain[0], chain[1]
    if not (isinstance(entry, cst.DictElement) and entry.value is child):
        return False
    if not isinstance(feed, cst.Dict):
        return False
    return _is_feed(feed, chain[2:], function)


def _is_feed(feed: cst.CSTNode, chain: Sequence[cst.CSTNode], function: cst.FunctionDef) -> bool:
    parent = chain[0] if chain else None
    if isinstance(parent, cst.Arg) and parent.value is feed and len(chain) > 1:
        run = chain[1]
        return isinstance(run, cst.Call) and session_run(run) and _second(run, parent)
    if isinstance(parent, cst.Assign) and parent.value is feed:
        return _name_only(parent, function, _is_feed)
    return False


def _second(run: cst.Call, arg: cst.Arg) -> bool:
    positional = [a for a in run.args if a.keyword is None and not a.star]
    return len(positional) == 2 and positional[1] is arg


def _name_only(binding: cst.Assign, function: cst.FunctionDef, test: _Test) -> bool:
    """Whether the name ``binding`` binds is used after it, and every use passes ``test``."""
    if len(binding.targets) != 1 or not isinstance(binding.targets[0].target, cst.Name):
        return False
    reads = later_reads(function, binding.targets[0].target.value, binding).until_rebound()
    return bool(reads) and all(test(read.node, read.parents, function) for read in reads)

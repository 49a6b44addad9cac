"""A host copy handed to the caller by the ``return`` that ends a function's pass (session 47,
RL4CO's ``EvalBase.__call__``: a loop over the whole dataloader, then ``return {"actions":
actions.cpu(), "rewards": rewards.cpu(), ...}``).

:func:`generation_outputs.output_after_loop` clears a copy stored on an object or in a mapping
after the function's loop of steps, with only cheap statements between; a copy the function
returns is handed to its caller the same way, once per call of the function that ran the whole
loop. Judged: ``return x.cpu()`` / ``return x.to("cpu")``, or such a copy as a value of the
returned dict literal. A copy inside another call (``float(loss.cpu())``, ``x.cpu().numpy()``)
or an element of a returned tuple (a train step's ``return d_loss, gen_loss, y.cpu()``, which
the labels read as per step) is not.
"""

from __future__ import annotations

import libcst as cst

_COPY_METHODS = frozenset({"cpu", "to"})
# The host clocks a pass is timed with: they queue no device work and return Python floats
# (asked by generation_outputs' cheap statements, as is ``tqdm.write``'s log of the result, and
# by lightning_logs' host numbers).
HOST_CLOCKS = frozenset({"time.time", "time.perf_counter", "time.monotonic", "time.process_time"})


def returned_to_caller(statement: cst.CSTNode | None, copy: cst.Call) -> bool:
    """Whether ``statement`` is ``return <copy>`` or returns a dict literal with ``copy`` as
    one of its values, ``copy`` being a ``.cpu()`` or ``.to(...)`` call."""
    if not (isinstance(copy.func, cst.Attribute) and copy.func.attr.value in _COPY_METHODS):
        return False
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return False
    small = statement.body[0]
    if not isinstance(small, cst.Return) or small.value is None:
        return False
    value = small.value
    if value is copy:
        return True
    return isinstance(value, cst.Dict) and any(
        isinstance(element, cst.DictElement) and element.value is copy for element in value.elements
    )

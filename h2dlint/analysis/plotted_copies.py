"""A host copy handed straight to matplotlib (HTD202): ``plt.imshow(x.detach().cpu().numpy()
[0])``, ``plt.plot(wave.cpu().numpy()[0, 0, ::100])``.

A plot is a picture for a person, made on the host: the values must reach it, and the copy is
the plot's input, not a read of a step that could have stayed on the device. Code that plots
per step is a debugging aid (resemble-enhance's ``_maybe_camera_snap`` records each step of
its sampler for an animation when a camera is attached), as HTD202 already leaves functions
named for plotting alone. Only a copy that is an argument of a call into ``matplotlib`` (as the
module's imports resolve it: ``plt``, ``pyplot``, ``matplotlib.pyplot``), directly or through
``.numpy()``, views, casts and subscripts, counts: a copy bound to a name first, or handed to
the project's own helper, stays reported.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from h2dlint.analysis.host_io_calls import VALUE_KEEPING_METHODS
from h2dlint.analysis.provenance import Provenance

# Methods (and ``.T``) a copy may pass through on its way into the plotting call: those that
# keep its values on the host, as on the way to ``.numpy()``.
_ON_THE_WAY = VALUE_KEEPING_METHODS | {"T"}


def plotted_copy(provenance: Provenance, ancestors: Sequence[cst.CSTNode], copy: cst.Call) -> bool:
    """Whether ``copy`` (below ``ancestors``, innermost last) is an argument of a matplotlib
    call, directly or through the methods of :data:`_ON_THE_WAY` and subscripts."""
    current: cst.CSTNode = copy
    for parent in reversed(ancestors):
        if isinstance(parent, cst.Attribute) and parent.value is current:
            if parent.attr.value not in _ON_THE_WAY and parent.attr.value != "data":
                return False
        elif isinstance(parent, cst.Call) and parent.func is current:
            pass  # the method named by the attribute above, called
        elif isinstance(parent, cst.Subscript):
            if parent.value is not current:
                return False  # the copy as an index, not the indexed value
        elif isinstance(parent, cst.Arg) and parent.value is current:
            pass
        elif isinstance(parent, cst.Call) and any(arg is current for arg in parent.args):
            qualified = provenance.qualify(parent.func) or ""
            return qualified.startswith("matplotlib.")
        else:
            return False
        current = parent
    return False

"""Functions compiled into device kernels (numba's ``@cuda.jit``, ``@numba.njit``, triton's
``@triton.jit``): their bodies run on the device (or as compiled code), so a row of an array
there is read by the kernel, not copied to the host (session 44: NeMo's RNNT numba kernels,
``if t + durations[i] < T:`` in ``compute_alphas_kernel``, annotated ``torch.Tensor``)."""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from h2dlint.analysis.frames import decorator_names

# The last part of a decorator that compiles the function (``cuda.jit``, ``numba.njit``).
_COMPILING = frozenset({"jit", "njit"})


def in_compiled_kernel(ancestors: Sequence[cst.CSTNode]) -> bool:
    """Whether the code below ``ancestors`` (root first) is inside a function decorated to be
    compiled by numba or triton (``torch.jit.script`` is not: its decorator ends in ``script``)."""
    return any(
        isinstance(node, cst.FunctionDef) and bool(decorator_names(node) & _COMPILING)
        for node in ancestors
    )

"""Which calls only read their arguments, and which may give back (or keep) an alias of them:
the vocabulary of ``aliases.py``, moved out of it as it was."""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.torch_api import ALL_DTYPE_METHODS
from h2dlint.analysis.views import PERMUTING_ATTRIBUTES

# Attributes that are the same memory as the tensor they are read from.
VIEW_ATTRIBUTES = frozenset({*PERMUTING_ATTRIBUTES, "data", "real", "imag"})
# Methods whose result may be the receiver itself or share its memory, beyond the views of
# ALIASING_METHODS: a conversion to what the tensor already is returns the tensor
# (``pinned.pin_memory()``, ``x.float()`` of a float tensor, ``x.to("cpu")`` of a CPU tensor).
MAY_ALIAS_METHODS = ALL_DTYPE_METHODS | frozenset(
    {
        "untyped_storage",
        "storage",
        "tensor_split",
        "hsplit",
        "vsplit",
        "dsplit",
        "unflatten",
        "view_as_real",
        "as_strided",
        "pin_memory",
        "type",
        "type_as",
        "__array__",
    }
)
# Calls known to only read their tensor arguments (an ``out=`` argument is a write, which
# function_writes finds).
READ_ONLY_BUILTINS = frozenset(
    {
        "len",
        "isinstance",
        "id",
        "type",
        "print",
        "repr",
        "str",
        "hash",
        "bool",
        "int",
        "float",
        "format",
        "callable",
        "sum",
        "min",
        "max",
        "any",
        "all",
        "abs",
        "round",
    }
)
READ_ONLY_TORCH = frozenset(
    f"torch.{name}"
    for name in (
        "is_tensor",
        "numel",
        "equal",
        "allclose",
        "isclose",
        "cat",
        "concat",
        "concatenate",
        "stack",
        "hstack",
        "vstack",
        "dstack",
        "sum",
        "mean",
        "amax",
        "amin",
        "max",
        "min",
        "abs",
        "clone",
        "add",
        "sub",
        "subtract",
        "mul",
        "multiply",
        "div",
        "divide",
        "matmul",
        "mm",
        "bmm",
        "dot",
        "where",
        "is_floating_point",
        "is_complex",
        "is_nonzero",
        "isnan",
        "isinf",
        "isfinite",
        "any",
        "all",
        "count_nonzero",
        "argmax",
        "argmin",
        "empty_like",
        "zeros_like",
        "ones_like",
        "full_like",
        "rand_like",
        "randn_like",
        "randint_like",
        "testing.assert_close",
    )
)
# Tensor methods that only read their tensor arguments (``dst.copy_(buf)`` reads ``buf``).
READ_ONLY_METHODS = frozenset(
    {
        "copy_",
        "add",
        "add_",
        "sub",
        "sub_",
        "mul",
        "mul_",
        "div",
        "div_",
        "equal",
        "allclose",
        "isclose",
        "eq",
        "ne",
        "lt",
        "le",
        "gt",
        "ge",
        "matmul",
        "to",
        "type_as",
        "view_as",
        "expand_as",
        "reshape_as",
        "index_copy_",
        "index_add_",
        "masked_scatter_",
    }
)
CONTAINERS = (cst.List, cst.Tuple, cst.Set)
ELEMENTS = (cst.Element, cst.StarredElement)
NESTED = (cst.FunctionDef, cst.Lambda, cst.ClassDef)

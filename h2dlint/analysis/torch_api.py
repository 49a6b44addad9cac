"""What h2dlint knows about the torch API: which calls make fresh host tensors, which names are
dtypes, which device strings are the host."""

from __future__ import annotations

# Calls that always allocate a new tensor, on the CPU unless given ``device=``.
FRESH_FACTORIES = frozenset(
    f"torch.{name}"
    for name in (
        "tensor",
        "zeros",
        "ones",
        "empty",
        "full",
        "arange",
        "range",
        "linspace",
        "logspace",
        "eye",
        "rand",
        "randn",
        "randint",
        "randperm",
        "empty_strided",
        "Tensor",
        "LongTensor",
        "IntTensor",
        "ShortTensor",
        "CharTensor",
        "ByteTensor",
        "BoolTensor",
        "FloatTensor",
        "DoubleTensor",
        "HalfTensor",
        "BFloat16Tensor",
    )
)
# Calls that wrap host memory that is never pinned.
HOST_WRAPPERS = frozenset({"torch.from_numpy", "torch.frombuffer"})
# Calls that convert data to a tensor, copying Python data but passing a tensor through as is.
CONVERTERS = frozenset({"torch.as_tensor", "torch.asarray"})
# Tensor methods that convert to another dtype (same values where exact, same device).
DTYPE_METHODS = frozenset({"float", "half", "bfloat16", "double", "long", "int", "bool"})
# Every ``Tensor`` method named for a dtype (``x.short()``, ``x.byte()``, ``x.char()`` too).
ALL_DTYPE_METHODS = DTYPE_METHODS | frozenset({"short", "byte", "char"})
# Calls that join tensors into a new one on the inputs' device (unless ``out=`` is given).
JOINS = frozenset(
    f"torch.{name}"
    for name in (
        "cat",
        "concat",
        "concatenate",
        "stack",
        "hstack",
        "vstack",
        "dstack",
        "column_stack",
        "row_stack",
    )
)
# ``torch.<name>_like(x)``: a fresh tensor where ``x`` is, unless ``device=``/``pin_memory=``.
LIKE_FACTORIES = frozenset(
    f"torch.{name}_like" for name in ("empty", "zeros", "ones", "full", "rand", "randn", "randint")
)
# Functions computing a fresh tensor on their first argument's device.
SAME_DEVICE_FUNCTIONS = frozenset(
    f"torch.{name}"
    for name in (
        "index_select",
        "repeat_interleave",
        "prod",
        "sum",
        "cumsum",
        "add",
        "sub",
        "mul",
        "div",
        "flip",
        "roll",
        "clone",
        "gather",
        "masked_select",
        "take",
        # elementwise functions and reductions: the result is where the (first) input is
        # (``torch.clamp(cx - w, 0, W)`` of a host ``cx`` is a host tensor)
        "clamp",
        "clip",
        "abs",
        "neg",
        "sign",
        "sqrt",
        "rsqrt",
        "exp",
        "log",
        "floor",
        "ceil",
        "round",
        "trunc",
        "minimum",
        "maximum",
        "max",
        "min",
        "amax",
        "amin",
        "mean",
        "argmax",
        "argmin",
        "cumprod",
        "diff",
        "flatten",
        "squeeze",
        "unsqueeze",
        "reshape",
        "any",
        "all",
        "count_nonzero",
        "bincount",
        "isnan",
        "isinf",
        "isfinite",
        "logical_not",
    )
)
HOST_DEVICE_PREFIXES = ("cpu", "meta")
DTYPE_NAMES = frozenset(
    f"torch.{name}"
    for name in (
        "float",
        "float16",
        "float32",
        "float64",
        "bfloat16",
        "half",
        "double",
        "int",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "long",
        "short",
        "bool",
        "complex64",
        "complex128",
        "cfloat",
        "cdouble",
        "float8_e4m3fn",
        "float8_e5m2",
    )
)
# Numpy calls whose result is a (pageable) ndarray.
NUMPY_PREFIXES = ("numpy.",)

"""What h2dlint knows about the torch API: which calls make fresh host tensors, which names are
dtypes, which device strings are the host, which methods and functions only tensors have or
return."""

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
# The legacy typed tensor classes: ``torch.FloatTensor([x])`` builds on the host,
# ``torch.cuda.FloatTensor([x])`` on the current GPU, and an accelerator's
# (``get_accelerator().FloatTensor([x])``) on its device: a tensor wherever it is built.
TYPED_TENSORS = frozenset(
    f"{kind}Tensor"
    for kind in ("Long", "Int", "Short", "Char", "Byte", "Bool", "Float", "Double", "Half")
) | {"BFloat16Tensor"}
CUDA_TYPED_TENSORS = frozenset(f"torch.cuda.{name}" for name in TYPED_TENSORS)


def typed_tensor_call(node: object, qualified: str) -> bool:
    """Whether ``node`` (a call; ``qualified``: its function's torch name, if any) builds a
    tensor of a typed class (``torch.cuda.LongTensor(ids)``, ``accel.FloatTensor([x])``)."""
    func = getattr(node, "func", None)
    attr = getattr(getattr(func, "attr", None), "value", None)
    return attr in TYPED_TENSORS and (not qualified or qualified in CUDA_TYPED_TENSORS)


# Functions that return the total norm of gradients as one 0-d tensor on the gradients' device,
# whatever they are given (a module's ``parameters()``, a list of them): a read of the result
# is a read of a tensor (session 36: nemo-automodel 0.5's ``clip_grad_norm`` helper read
# ``clip_grad_norm_(...).item()`` every optimizer step; 0.6 returns the tensor).
GRAD_NORM_FUNCTIONS = frozenset(
    {"torch.nn.utils.clip_grad_norm_", "torch.nn.utils.clip_grad_norm"}
    | {"torch.nn.utils.clip_grad.clip_grad_norm_", "torch.nn.utils.get_total_norm"}
)


def known_tensor_call(node: object, qualified: str) -> bool:
    """Whether ``node`` (a call; ``qualified``: its function's torch name, if any) surely
    returns a tensor whatever its arguments are: a typed tensor class
    (:func:`typed_tensor_call`) or a gradient norm (``torch.nn.utils.clip_grad_norm_``)."""
    return typed_tensor_call(node, qualified) or qualified in GRAD_NORM_FUNCTIONS


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
# Statistics of a tensor: a fresh tensor where the input is (session 48: ITREX's PPO step
# statistics, ``torch.std(query_lens).cpu()`` of host lengths).
STATISTICS = frozenset({"std", "var", "median", "nanmean", "nansum", "quantile", "nanquantile"})
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
        "clamp_min",
        "clamp_max",
        "clip",
        "abs",
        "neg",
        "sign",
        "sqrt",
        "rsqrt",
        "exp",
        "log",
        "log2",
        "log1p",
        "sin",
        "cos",
        "tan",
        "sigmoid",
        "tanh",
        "pow",
        "square",
        "reciprocal",
        "outer",
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
        # a sampler's normalisations and picks: where the logits are
        "softmax",
        "log_softmax",
        "logsumexp",
        "argsort",
        "nan_to_num",
        # (not ``multinomial``: a random draw, which loop_invariance must not take as pure)
        # the distinct values or the positions of a tensor, where it is (mmdet's
        # ``torch.unique(rois[:, 0].cpu())``: a host tensor)
        "unique",
        "unique_consecutive",
        "nonzero",
        # membership of the elements, where the elements are (fairchem's ``torch.isin(
        # data_batch_full, ...)`` of a ``.cpu()`` copy: a host mask; session 49, triage49b)
        "isin",
        *STATISTICS,  # statistics are where their input is
    )
) | frozenset(
    {
        "torch.nn.functional.pad",  # ``F.pad(index, ...)``
        "torch.nn.functional.one_hot",
        "torch.nn.functional.softmax",
        "torch.nn.functional.log_softmax",
    }
)
# Lookups in a sorted tensor, which PyTorch runs only with the boundaries and the values on one
# device ("boundaries and input value tensors should have same device type"): a host tensor
# among the two places the result on the host (RLinf 0.3.0's replay buffer buckets
# ``torch.randint`` draws against its host ends, ``data/replay_buffer.py:634``; session 51,
# fp51). A device one stays unknown: a Python number in either place says nothing.
SORTED_LOOKUPS = frozenset({"torch.bucketize", "torch.searchsorted"})
# Random draws computed on their input's device (``torch.multinomial(input=torch.ones(n) / n,
# ...)`` of RL4CO's host instance generators is a host tensor): placed on the host when their
# input is (provenance/calls.py; a draw from the device stays unknown), and kept out of
# SAME_DEVICE_FUNCTIONS, since loop_invariance must not take a draw as pure (session 47).
DRAWN_ON_INPUT_FUNCTIONS = frozenset({"torch.multinomial", "torch.bernoulli", "torch.poisson"})
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
# Methods of a numpy array that give a numpy array (its data reshaped, cast or copied):
# ``np.array(values).reshape((n, 3))`` is as much host data as the array.
ARRAY_KEEPING_METHODS = frozenset(
    {"reshape", "astype", "copy", "transpose", "squeeze", "flatten", "ravel", "clip", "round"}
    | {"swapaxes", "take", "repeat", "cumsum"}
)
# Numpy calls whose result is a (pageable) ndarray.
NUMPY_PREFIXES = ("numpy.",)


# Element-wise comparisons and logical operations: each a tensor method and a ``torch.``
# function, whose result is a boolean mask on the input's device.
MASK_OPS = frozenset(
    {"eq", "ne", "gt", "ge", "lt", "le", "logical_and", "logical_or", "logical_not"}
    | {"isnan", "isinf", "isfinite"}
)
# Methods only a torch tensor has (a numpy array, a list or a number has none of them).
TENSOR_ONLY_METHODS = frozenset(
    {
        "int",
        "long",
        "float",
        "half",
        "bfloat16",
        "bool",
        "double",
        "short",
        "byte",
        "char",
        "detach",
        "contiguous",
        "clone",
        "unsqueeze",
        "masked_fill",
        "masked_fill_",
        "cuda",
        "narrow",
        "new_zeros",
        "new_ones",
        "new_full",
        "new_empty",
        "new_tensor",
        "type_as",
        "view_as",
        "expand",
        "expand_as",
        "repeat_interleave",
        "index_select",
        "gather",
        "permute",
        "movedim",
        "count_nonzero",
        "pow",
        "exp",
        "log",
        "sqrt",
        "norm",
        "amax",
        "amin",
        "softmax",
        "sigmoid",
        # numpy has ``clip``, not these: a loss's normaliser ``n.sum().clamp_min(1).item()``
        "clamp_min",
        "clamp_max",
    }
    | MASK_OPS
)
# Methods that return a tensor when called on one, though other values have methods of these
# names too (pandas' ``diff``, a list's ``sort``): a proven tensor's ``d.diff()`` is a tensor,
# an unknown value's is not proven one (session 24: botorch's sampler ran `.nonzero()` of
# `self._is_feasible(x).to(dtype=int).diff()` every step).
TENSOR_VALUE_METHODS = frozenset(
    {"diff", "flip", "roll", "t", "cumprod", "neg", "sign", "remainder", "fmod", "square"}
    | {"tanh", "relu", "ceil", "floor", "trunc", "minimum", "maximum", "clip", "where"}
    | {"add", "sub", "mul", "div", "matmul", "mm", "bmm", "tile", "nan_to_num", "rsqrt", "log1p"}
    # In-place arithmetic returns its receiver: ``torch.dot(w, g).div_(n)`` is the tensor
    # ``torch.dot`` made (pytorch-optimizer 3.10's OrthoGrad gave it as ``alpha=``).
    | {"add_", "sub_", "mul_", "div_", "pow_", "sqrt_", "rsqrt_", "neg_", "abs_", "reciprocal_"}
    | {"clamp_", "clamp_min_", "clamp_max_", "clip_", "exp_", "log_", "square_"}
)
# Methods of an array (a tensor, or a numpy array) whose result is on the input's device:
# reductions and arithmetic; applied to a value, they prove it is an array, not which kind.
ARRAY_METHODS = frozenset(
    {"sum", "max", "min", "prod", "mean", "any", "all", "argmax", "argmin", "cumsum", "abs"}
    | {"flatten", "squeeze", "reshape", "view", "clamp", "round", "std", "var"}
)
# ``torch.<name>`` functions whose result is one tensor on their inputs' device.
TENSOR_FUNCTIONS = frozenset(
    f"torch.{name}"
    for name in MASK_OPS
    | {
        "cat",
        "concat",
        "concatenate",
        "stack",
        "max",
        "min",
        "sum",
        "mean",
        "prod",
        "amax",
        "amin",
        "argmax",
        "argmin",
        "cumsum",
        "abs",
        "clamp",
        "where",
        "less",
        "greater",
        "isin",
        "any",
        "all",
        "count_nonzero",
        "diff",
        "gather",
        "index_select",
        "masked_fill",
        "minimum",
        "maximum",
        "matmul",
        "bmm",
        "mv",
        "dot",
        "vdot",
        "inner",
        "einsum",
        "exp",
        "log",
        "sqrt",
        "norm",
        "flatten",
        "squeeze",
        "unsqueeze",
        "softmax",
        "bincount",
        "cumprod",
        "argsort",
        "searchsorted",
        "bucketize",
        "floor_divide",
        "remainder",
        "log_softmax",
        "logsumexp",
        "sigmoid",
        "tanh",
        "relu",
        "mm",
        "add",
        "sub",
        "mul",
        "div",
        "neg",
        "log1p",
        "rsqrt",
        "square",
        "clip",
        "flip",
        "roll",
        "reshape",
        "transpose",
        "permute",
        "narrow",
        "masked_select",
        "multinomial",
        "zeros_like",
        "ones_like",
        "full_like",
        "empty_like",
    }
)

# Library helpers that are plain arithmetic on their two operands: ``triton.cdiv(a, b)`` is
# ``(a + b - 1) // b``, so a tensor operand gives a tensor on its device (as ``a // b`` would)
# and two Python ints give an int (session 34: fla-core's ``prepare_chunk_indices`` read
# ``triton.cdiv(prepare_lens(cu_seqlens), chunk_size).tolist()`` of device lengths per call).
ARITHMETIC_HELPERS = frozenset({"triton.cdiv"})


def functional_call(qualified: str) -> bool:
    """Whether ``qualified`` names a function of ``torch.nn.functional`` (``F.softmax``), whose
    results are tensors; an attribute of an object that module holds is none
    (``F._Reduction.get_enum("mean")``, the ``int`` that OpenMMLab's ``reduce_loss`` and its
    copies compare: session 41)."""
    prefix = "torch.nn.functional."
    return qualified.startswith(prefix) and "." not in qualified[len(prefix) :]

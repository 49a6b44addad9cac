from __future__ import annotations

import libcst as cst

from h2dlint.analysis.arguments import first_positional, keyword
from h2dlint.analysis.factories import numeric
from h2dlint.analysis.hot_paths import HotPaths
from h2dlint.analysis.once import RunOnce
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.targets import Target, device_by_value
from h2dlint.diagnostics import Confidence, FixSafety
from h2dlint.rule import Invalid, Rule, Valid

CONSTRUCTORS = frozenset({"torch.tensor", "torch.as_tensor"})
# Keywords that ``torch.full`` takes as they are.
KEPT_KEYWORDS = frozenset({"dtype", "device", "requires_grad"})


class ConstantTensorOnHotPath(Rule):
    """## What it does
    Flags a constant tensor built from a Python number on an accelerator in code that runs per
    step or per request: `torch.tensor(0.0, device=dev)`, `torch.tensor([0], dtype=torch.int,
    device="cuda")`, `torch.as_tensor(1.0, device=x.device)`, in a hot function (a `forward`,
    a `step`, what they call; see HTD202 for hot paths) or in the body of a loop.

    Confidence: HIGH when the analysis resolves the device to an accelerator by value
    (`"cuda"`, `x.device` of a device tensor); MEDIUM when only its name says so (`device`,
    `self.device`): the message says the copy happens if that device is a GPU.

    Not flagged: code that runs once (initializers, setup, module level, code under a run-once
    guard), functions that are not hot outside loops, loops in test code (`test_utils`,
    `testing` packages, `test_*.py`), data that is not a literal number (HTD106
    judges Python data), tensors made with `pin_memory=`, and `torch.tensor(c).cuda()` (HTD301).

    ## Why is this bad?
    PyTorch builds the tensor in pageable host memory and copies it to the device with a
    blocking copy, and a blocking copy from pageable memory waits for the stream to reach it:
    the host stops until all queued GPU work is done, however small the copy. Measured on an
    H200 (torch 2.11): behind a 40 ms kernel, `torch.tensor(0).cuda()` held the host 40.07 ms;
    `torch.full((), 0, device="cuda")` returned in 0.16 ms (`benchmarks/device/needless_copies.py`).
    Once per step, that is the overlap of the whole queue lost every step, and the copy cannot
    be captured in a CUDA graph.

    ## Example
    ```python
    def step(self, model_output, sample):
        rhos = torch.tensor([0.5], dtype=sample.dtype, device=sample.device)
        total = torch.tensor(0.0, device="cuda")
    ```

    ## Use instead
    ```python
    def step(self, model_output, sample):
        rhos = torch.full((1,), 0.5, dtype=sample.dtype, device=sample.device)
        total = torch.full((), 0.0, device="cuda")
    ```
    Where the operation takes a Python number (`x * 0.5`, `torch.clamp(x, min=0.0)`,
    `torch.where(mask, x, 0.0)`), pass the number itself; a constant used every step can also
    be made once, as a buffer of the module.

    ## Fix safety
    The fix writes `torch.full((), c, ...)` for a number and `torch.full((1,), c, ...)` for a
    list of one number, with the same `dtype=`, `device=` and `requires_grad=`. It is safe:
    `torch.full` infers the same dtype from the number as `torch.tensor` (`int64` for an int,
    the default float type for a float, `bool` for a bool), and shape and value are unchanged.
    No fix when the call has other keywords or arguments.
    """

    code = "HTD107"
    name = "constant-tensor-on-hot-path"
    message = "constant tensor built on the host and copied to the device (a stream sync) per step"
    fix_safety = FixSafety.SAFE
    fix_message = "Make the constant on the device with `torch.full`"
    prefilter = (b"device",)
    candidates = (
        "def .tensor|.as_tensor|tensor|as_tensor(device=) arg Literal|List|Tuple|UnaryOp|Call",
    )

    valid = (
        # data, not a constant: HTD106's
        Valid(
            "import torch\n"
            "class M(torch.nn.Module):\n"
            "    def forward(self, x, ids):\n"
            "        return torch.tensor(ids, device=x.device)\n"
        ),
        # a computed number: not a constant (its value may come from the device)
        Valid(
            "import torch\n"
            "class M(torch.nn.Module):\n"
            "    def forward(self, x, n):\n"
            "        return torch.tensor(n * 2, device=x.device)\n"
        ),
        # made once: an initializer, a module-level constant
        Valid(
            "import torch\n"
            "class M(torch.nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.eps = torch.tensor(1e-6, device='cuda')\n"
        ),
        Valid("import torch\nEPS = torch.tensor(1e-6, device='cuda')\n"),
        # a function no hot path reaches, outside a loop
        Valid("import torch\ndef report(device):\n    return torch.tensor(0.0, device=device)\n"),
        # on the host: no copy
        Valid(
            "import torch\n"
            "class M(torch.nn.Module):\n"
            "    def forward(self, x):\n"
            "        return x + torch.tensor(1.0, device='cpu')\n"
        ),
        Valid(
            "import torch\n"
            "class M(torch.nn.Module):\n"
            "    def forward(self, x):\n"
            "        return x + torch.tensor(1.0)\n"
        ),
        # made on the device already
        Valid(
            "import torch\n"
            "class M(torch.nn.Module):\n"
            "    def forward(self, x):\n"
            "        return x + torch.full((), 1.0, device=x.device)\n"
        ),
        # a device that the analysis cannot name
        Valid(
            "import torch\n"
            "class M(torch.nn.Module):\n"
            "    def forward(self, x, where):\n"
            "        return x + torch.tensor(1.0, device=where)\n"
        ),
        # under a run-once guard
        Valid(
            "import torch\n"
            "class M(torch.nn.Module):\n"
            "    def forward(self, x):\n"
            "        if self.zero is None:\n"
            "            self.zero = torch.tensor(0.0, device=x.device)\n"
            "        return x + self.zero\n"
        ),
        # several different numbers: no single fill value (HTD106 leaves short displays too)
        Valid(
            "import torch\n"
            "class M(torch.nn.Module):\n"
            "    def forward(self, x):\n"
            "        return x * torch.tensor([1.0, 2.0], device=x.device)\n"
        ),
    )
    invalid = (
        Invalid(
            "import torch\n"
            "class M(torch.nn.Module):\n"
            "    def forward(self, x):\n"
            "        return x + torch.tensor(1.0, device=x.device)\n",
            4,
            20,
            expected_fix="import torch\n"
            "class M(torch.nn.Module):\n"
            "    def forward(self, x):\n"
            "        return x + torch.full((), 1.0, device=x.device)\n",
        ),
        Invalid(
            "import torch\n"
            "def step(grads):\n"
            "    overflow = torch.tensor([0], dtype=torch.int, device='cuda')\n"
            "    return overflow\n",
            3,
            16,
            expected_fix="import torch\n"
            "def step(grads):\n"
            "    overflow = torch.full((1,), 0, dtype=torch.int, device='cuda')\n"
            "    return overflow\n",
        ),
        # in a loop of a function no hot path reaches: once per iteration
        Invalid(
            "import torch\n"
            "def total(xs, device):\n"
            "    out = []\n"
            "    for x in xs:\n"
            "        out.append(x + torch.tensor(-1, device=device))\n"
            "    return out\n",
            5,
            24,
            expected_fix="import torch\n"
            "def total(xs, device):\n"
            "    out = []\n"
            "    for x in xs:\n"
            "        out.append(x + torch.full((), -1, device=device))\n"
            "    return out\n",
        ),
        Invalid(
            "import torch\n"
            "class S:\n"
            "    def step(self, sample):\n"
            "        rhos = torch.tensor([0.5], dtype=sample.dtype, device=sample.device)\n"
            "        return sample * rhos\n",
            4,
            16,
            expected_fix="import torch\n"
            "class S:\n"
            "    def step(self, sample):\n"
            "        rhos = torch.full((1,), 0.5, dtype=sample.dtype, device=sample.device)\n"
            "        return sample * rhos\n",
        ),
        Invalid(
            "from torch import as_tensor\n"
            "class M:\n"
            "    def forward(self, x):\n"
            "        return x.clamp(min=as_tensor(0.0, device=x.device))\n",
            4,
            28,
        ),
        Invalid(
            "import torch\n"
            "class M(torch.nn.Module):\n"
            "    def forward(self, x, mask):\n"
            "        return torch.where(mask, x, torch.tensor(False, device=x.device))\n",
            4,
            37,
            expected_fix="import torch\n"
            "class M(torch.nn.Module):\n"
            "    def forward(self, x, mask):\n"
            "        return torch.where(mask, x, torch.full((), False, device=x.device))\n",
        ),
        Invalid(
            "import torch\n"
            "class M(torch.nn.Module):\n"
            "    def forward(self, x):\n"
            "        return self.helper(x)\n"
            "    def helper(self, x):\n"
            "        return x - torch.tensor(float('inf'), device=x.device)\n",
            6,
            20,
            expected_fix="import torch\n"
            "class M(torch.nn.Module):\n"
            "    def forward(self, x):\n"
            "        return self.helper(x)\n"
            "    def helper(self, x):\n"
            "        return x - torch.full((), float('inf'), device=x.device)\n",
        ),
        Invalid(
            "import torch\n"
            "def train(model, batches):\n"
            "    while batches:\n"
            "        b = batches.pop()\n"
            "        model(b, torch.tensor(1, device='cuda'))\n",
            5,
            18,
            expected_fix="import torch\n"
            "def train(model, batches):\n"
            "    while batches:\n"
            "        b = batches.pop()\n"
            "        model(b, torch.full((), 1, device='cuda'))\n",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        device = keyword(node, "device")
        if device is None or keyword(node, "pin_memory") is not None:
            return
        data = first_positional(node)
        fill = _constant(data) if data is not None else None
        if fill is None:
            return
        provenance = Provenance.of(self.context)
        if provenance.qualify(node.func) not in CONSTRUCTORS:
            return
        frame = provenance.current_frame()
        if not isinstance(frame.function, cst.FunctionDef):
            return  # module level: runs once
        ancestors = self.context.ancestors
        if RunOnce.of(self.context).code(ancestors):
            return
        hot_paths = HotPaths.of(self.context)
        in_loop = _in_loop(ancestors) and not hot_paths.test_module
        if not in_loop and hot_paths.why_hot_at(ancestors) is None:
            return
        target = provenance.device_target(device.value, frame, allocation=True)
        if target is not Target.DEVICE:
            return
        by_value = device_by_value(device.value, provenance, frame)
        where = "in a loop" if in_loop else "on a hot path"
        code = self.context.module.code_for_node(device.value)
        certain = "" if by_value else f" (certain if `{code}` is a GPU, as its name says)"
        full = _full(node, fill)
        self.report(
            node,
            f"constant tensor built on the host and copied to the device {where}{certain}: a "
            "blocking copy from pageable memory waits for the stream every time; make it on "
            "the device with `torch.full`, or pass the number itself",
            replacements=[(node, full)] if full is not None else (),
            confidence=Confidence.HIGH if by_value else Confidence.MEDIUM,
        )


def _constant(node: cst.BaseExpression) -> tuple[str, cst.BaseExpression] | None:
    """``("()", c)`` for a number ``c``, ``("(1,)", c)`` for ``[c]``; None otherwise."""
    if numeric(node):
        return "()", node
    if (
        isinstance(node, (cst.List, cst.Tuple))
        and len(node.elements) == 1
        and not isinstance(node.elements[0], cst.StarredElement)
        and numeric(node.elements[0].value)
    ):
        return "(1,)", node.elements[0].value
    return None


def _in_loop(ancestors: list[cst.CSTNode]) -> bool:
    """Inside a ``for``/``while`` body of the innermost function."""
    for i in range(len(ancestors) - 1, 0, -1):
        parent, child = ancestors[i - 1], ancestors[i]
        if isinstance(parent, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            return False
        if isinstance(parent, (cst.For, cst.While)) and child is parent.body:
            return True
    return False


def _full(call: cst.Call, fill: tuple[str, cst.BaseExpression]) -> cst.Call | None:
    """``torch.full(shape, c, ...)`` with the call's keywords, or None where the call has
    other arguments or is not ``<module>.tensor``/``<module>.as_tensor`` (the fix renames the
    attribute only: no import to add)."""
    func = call.func
    if not isinstance(func, cst.Attribute) or not isinstance(func.value, cst.Name):
        return None
    first, *rest = call.args
    if first.keyword is not None or first.star:
        return None
    if any(a.keyword is None or a.star or a.keyword.value not in KEPT_KEYWORDS for a in rest):
        return None
    shape, value = fill
    space = cst.SimpleWhitespace(" ")
    return call.with_changes(
        func=func.with_changes(attr=cst.Name("full")),
        args=[
            cst.Arg(cst.parse_expression(shape), comma=cst.Comma(whitespace_after=space)),
            first.with_changes(value=value),
            *rest,
        ],
    )

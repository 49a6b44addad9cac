"""The analysis facts behind session 20's held-out precision fixes of helper heldout20
(docs/precision.md, "Session 20: held-out serving code (helper heldout20)"): each look-alike
found in code no triage had read (Lightning Thunder's tests, XTuner's sequence-parallel
collation, mergekit's batch packer), and its true twin."""

from __future__ import annotations

import textwrap

from lint_runs import lint


def _findings(code: str, rule_code: str, path: str = "m.py") -> list[str]:
    messages = [f.message for f in lint(code, rule_code, path=path)]
    assert not any(m.startswith("SyntaxError") for m in messages), messages
    return messages


# -- test bodies: a private ``_test_*`` a harness runs, and helpers nested in a test ----------
PRIVATE_TEST = """
    import torch
    def {name}(input_data):
        x = torch.randn(8, 8).cuda() * 100
        return x.sum()
    """


def test_a_private_test_body_runs_once_per_test() -> None:
    # Thunder's test_ddp.py: `_test_ddp_transformer_engine(input_data)`, run by the harness.
    assert not _findings(PRIVATE_TEST.format(name="_test_ddp_helper"), "HTD301")
    assert not _findings(PRIVATE_TEST.format(name="test_ddp"), "HTD301")
    # A function that is no test (a private helper its module calls per step) stays reported.
    per_step = textwrap.dedent(PRIVATE_TEST.format(name="_step"))
    per_step += "def train(xs):\n    for x in xs:\n        _step(x)\n"
    assert _findings(per_step, "HTD301")


NESTED = """
    import torch
    def {outer}(device, dtype):
        def make_integer_tensor():
            t = torch.tensor([*range(-5, 0), *range(1, 6)], device=device, dtype=dtype)
            return t[torch.randperm(10)]
        x = make_integer_tensor()
        y = make_integer_tensor()
        return x // y
    """


def test_a_helper_nested_in_a_test_makes_its_inputs() -> None:
    # Thunder's test_nvfuser.py: `make_integer_tensor` inside `test_div_truediv_...`.
    assert not _findings(NESTED.format(outer="test_div_truediv"), "HTD106")
    # The same helper nested in a function that runs per call stays reported.
    assert _findings(NESTED.format(outer="divide"), "HTD106")


# -- a loop over literal cases ------------------------------------------------------------------
CASES = """
    import torch
    class M(torch.nn.Module):
        def forward(self, a, b, device, {param}):
            for offsets in {iterable}:
                c = torch.tensor(offsets, device=device, dtype=torch.int32)
                yield a, b, c
    """


def test_a_loop_over_literal_cases_builds_constants() -> None:
    # Thunder's opinfos: `for offsets in [[0, 16], [16, 16]]:` makes two test inputs.
    code = CASES.format(param="unused", iterable="[[0, 16], [16, 16]]")
    assert not _findings(code, "HTD106")
    assert not _findings(CASES.format(param="unused", iterable="((0, -16), (1, 2))"), "HTD106")
    # A loop over data (a parameter's items) copies each item: still reported.
    assert _findings(CASES.format(param="batches", iterable="batches"), "HTD106")
    # So does a literal list that holds names (values of the data, not constants).
    assert _findings(CASES.format(param="n", iterable="[[0, n], [n, 16]]"), "HTD106")


# -- collation modules build batches on the host ------------------------------------------------
COLLATE = """
    import torch
    def pad_cumulative_len(cumulative_len, seqlen_new):
        for i, cu_len in enumerate(cumulative_len):
            pad = torch.tensor([seqlen_new], device=cu_len.device, dtype=cu_len.dtype)
            cumulative_len[i] = torch.cat([cu_len, pad], dim=0)
        return cumulative_len
    """


def test_a_collation_module_builds_batches_on_the_host() -> None:
    # XTuner's parallel/sequence/data_collate.py, called from dataset/collate_fns/.
    for path in ("xtuner/parallel/sequence/data_collate.py", "pkg/collate_fns.py", "collator.py"):
        assert not _findings(COLLATE, "HTD106", path), path
    # The same helper in a model's module stays reported (MEDIUM, in a loop).
    assert _findings(COLLATE, "HTD106", "pkg/sequence_parallel.py")


# -- HTD101: a buffer made on the items' own device ---------------------------------------------
PACK = """
    import torch
    def pack(sources, dtype, device):
        tensor = torch.empty((len(sources), *sources[0].shape), dtype=dtype, device={device})
        for index, source in enumerate(sources):
            tensor[index].copy_(source)
        return tensor
    """


def test_a_copy_into_a_buffer_on_the_items_device_is_no_transfer() -> None:
    # mergekit's PreparedBatch.pack: the buffer is made where the items are.
    assert not _findings(PACK.format(device="sources[0].device"), "HTD101")
    # A buffer on a device the code names (not the items') gets one copy per item.
    assert _findings(PACK.format(device="device"), "HTD101")
    assert _findings(PACK.format(device='"cuda"'), "HTD101")


# -- HTD201: another framework's arrays ---------------------------------------------------------
FRAMEWORK = """
    {imports}
    def pack_visual_state(visual_pos_masks, embeds):
        if embeds is None or isinstance(embeds, mx.array):
            return embeds, None
        counts = [
            int(visual_pos_masks[row].sum().item())
            for row in range(visual_pos_masks.shape[0])
        ]
        return counts, max(counts)
    """


def test_a_module_of_another_array_framework_holds_no_torch_tensor() -> None:
    # unsloth-zoo's mlx/compile.py imports mlx.core and not torch: MLX arrays.
    assert not _findings(FRAMEWORK.format(imports="import mlx.core as mx"), "HTD201")
    assert not _findings(FRAMEWORK.format(imports="import jax.numpy as mx"), "HTD201")
    # A module that imports torch too (anywhere) is judged as before.
    pad = "\n    "
    both = pad.join(("import mlx.core as mx", "try:", "    import torch", "except ImportError:"))
    both += pad + "    pass"
    for imports in (both, "import torch" + pad + "import mlx.core as mx", "import numpy as mx"):
        found = _findings(FRAMEWORK.format(imports=imports), "HTD201")
        assert found and "per-row" in found[0], imports

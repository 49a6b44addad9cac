"""Session 25's held-out precision fixes (helper precision25, docs/precision.md, "Session 25
(precision25)"): the look-alikes found in detection, OCR and tracking code no triage had read
(rf-detr's export branch and Hungarian assignment, docTR's recognition post-processors), and
their true twins."""

from __future__ import annotations

from lint_runs import lint


def _findings(code: str, rule_code: str, path: str = "m.py") -> list[int]:
    return [f.start.row for f in lint(code, rule_code, path=path)]


# -- a tensor made only while the model is exported ---------------------------------------------

EXPORT = """
    import torch
    from torch import nn

    class Transformer(nn.Module):
        def forward(self, srcs: list[torch.Tensor]):
            shapes = [tuple(src.shape[-2:]) for src in srcs]
            if TEST:
                spatial_shapes = torch.as_tensor(shapes, device=srcs[0].device)
            else:
                spatial_shapes = torch.stack([torch._shape_as_tensor(s)[2:4] for s in srcs])
            return spatial_shapes
"""


def test_an_export_branch_is_baked_into_the_graph() -> None:
    for test in (
        'getattr(torch.compiler, "is_exporting", lambda: False)()',
        "torch.compiler.is_exporting()",
        "torch.onnx.is_in_onnx_export()",
        "torch.jit.is_tracing()",
    ):
        assert not _findings(EXPORT.replace("TEST", test), "HTD106"), test


def test_an_eager_branch_stays_reported() -> None:
    # the true twin: the same tensor under a test of anything else runs on every forward
    assert _findings(EXPORT.replace("TEST", "self.cached is None"), "HTD106") == [9]


# -- rows moved to the host off CUDA ------------------------------------------------------------

ASSIGN = """
    import torch
    from torch import nn

    def assign(costs: list[torch.Tensor], sizes: list[int]):
        if TEST:
            costs = [c.cpu() for c in costs]
        return [solve(c, sizes) for c in costs]

    class Matcher(nn.Module):
        def forward(self, costs: list[torch.Tensor], sizes: list[int]):
            return assign(costs, sizes)
"""


def test_rows_moved_off_cuda_are_another_backends_path() -> None:
    for test in ("not costs[0].is_cuda", 'costs[0].device.type != "cuda"', "costs[0].is_mps"):
        assert not _findings(ASSIGN.replace("TEST", test), "HTD201"), test


def test_rows_moved_on_cuda_stay_reported() -> None:
    # the true twins: no device test, or one that holds on CUDA
    assert _findings(ASSIGN.replace("TEST", "len(sizes) > 1"), "HTD201") == [7]
    assert _findings(ASSIGN.replace("TEST", "costs[0].is_cuda"), "HTD201") == [7]


# -- a post-processor's output ------------------------------------------------------------------

POSTPROCESSOR = """
    import torch
    from torch import nn

    class RecognitionPostProcessor:
        def __init__(self, vocab: str) -> None:
            self._embedding = list(vocab) + ["<eos>"]

    class CLASS:
        def __call__(self, logits: torch.Tensor):
            probs = logits.softmax(-1).max(dim=-1).values.min(dim=1).values.cpu()
            words = [
                "".join(self._embedding[i] for i in seq)
                for seq in logits.argmax(-1).cpu().numpy()
            ]
            return list(zip(words, probs.numpy().tolist()))
"""


def test_a_postprocessors_copies_are_its_output() -> None:
    for cls in ("CTCPostProcessor(RecognitionPostProcessor)", "DBPostprocessor", "PostProcess"):
        assert not _findings(POSTPROCESSOR.replace("CLASS", cls), "HTD202"), cls


def test_other_copies_stay_reported() -> None:
    # a torch module named PostProcess (DETR's keeps its work on the device), a sampler
    assert _findings(POSTPROCESSOR.replace("CLASS", "PostProcess(nn.Module)"), "HTD202")
    assert _findings(POSTPROCESSOR.replace("CLASS", "Sampler"), "HTD202") == [11, 14]


def test_a_postprocessors_copies_per_row_stay_reported() -> None:
    # a copy per image in a post-processor's loop: one sync per row (HTD201's)
    code = """
        import torch

        class BoxPostProcessor:
            def __call__(self, logits: torch.Tensor, n: int):
                out = []
                for b in range(n):
                    probs = logits[b].softmax(-1)
                    out.append(probs.max().cpu())
                return out
    """
    assert _findings(code, "HTD201") == [9]

"""Session 45 (fp1xx45): HTD101 and HTD107 MEDIUM false alarms, by class (docs/precision.md,
"Session 45 (fp1xx45)"): each class left out, and the true twin that stays reported."""

from __future__ import annotations

from lint_runs import lint

from h2dlint.analysis.export_modules import export_module
from h2dlint.analysis.pytest_tests import collected_module
from h2dlint.diagnostics import Confidence


def _confidences(code: str, rule_code: str, path: str = "m.py") -> list[Confidence]:
    return [f.confidence for f in lint(code, rule_code, path=path)]


# -- HTD107: exporter and host-runtime modules, by path -------------------------------------
UNSURE_CONSTANT = """
    import torch
    def quantize(tensor: torch.Tensor, scale: float) -> torch.Tensor:
        amax = torch.tensor([1], dtype=torch.float32, device=tensor.device)
        return tensor * amax
    """

CERTAIN_CONSTANT = """
    import torch
    class M(torch.nn.Module):
        def forward(self, x):
            s = torch.tensor([1.0], dtype=torch.float32, device="cuda")
            return x * s
    """


def test_medium_constants_in_exporter_modules_are_left_out() -> None:
    assert _confidences(UNSURE_CONSTANT, "HTD107", "pkg/ops.py") == [Confidence.MEDIUM]
    for path in (
        "transformer_engine/pytorch/onnx_extensions.py",
        "optimum/exporters/openvino/model_patcher.py",
        "executorch/backends/mlx/custom_ops.py",
        "pkg/exporters/m.py",
    ):
        assert not _confidences(UNSURE_CONSTANT, "HTD107", path), path
    # A folder named onnx (its file is not), and a device folder, stay reported.
    assert _confidences(UNSURE_CONSTANT, "HTD107", "pkg/onnx/ops.py")
    assert _confidences(UNSURE_CONSTANT, "HTD107", "pkg/npu/ops.py")


def test_certain_constants_stay_reported_in_exporter_modules() -> None:
    for path in ("pkg/onnx_extensions.py", "pkg/exporters/m.py", "pkg/mlx/ops.py"):
        assert _confidences(CERTAIN_CONSTANT, "HTD107", path) == [Confidence.HIGH], path


def test_export_module_paths() -> None:
    assert export_module("a/onnx_utils.py")
    assert export_module("a\\Exporters\\b.py")
    assert export_module("a/openvino/b.py")
    assert not export_module("a/exporters.py")
    assert not export_module("onnx/b.py")
    assert not export_module("a/export/b.py")


# -- HTD101: code of a module pytest collects -------------------------------------------------
UNSURE_ITEMS = """
    import torch
    def make_inputs(device):
        def to_dev(pe):
            return tuple(t.to(device) for t in pe)
        return to_dev
    """

HOST_ITEMS = """
    import torch
    def make_inputs(rows: list[list[int]], device):
        return [torch.tensor(r).to(device) for r in rows]
    """


def test_unsure_items_in_a_collected_test_module_are_left_out() -> None:
    assert _confidences(UNSURE_ITEMS, "HTD101", "pkg/m.py") == [Confidence.MEDIUM]
    assert not _confidences(UNSURE_ITEMS, "HTD101", "tests/golden_gate/test_ltx2.py")
    assert not _confidences(UNSURE_ITEMS, "HTD101", "pkg/process_group_test.py")
    # Helper modules of tests may serve benchmarks or a test's per-batch loop.
    assert _confidences(UNSURE_ITEMS, "HTD101", "pkg/test_utils/model_input.py")
    assert _confidences(UNSURE_ITEMS, "HTD101", "thunder/tests/distributed/helper.py")


def test_host_items_stay_reported_in_a_collected_test_module() -> None:
    assert _confidences(HOST_ITEMS, "HTD101", "tests/test_m.py") == [Confidence.HIGH]


def test_collected_module_names() -> None:
    assert collected_module("test_a.py")
    assert collected_module("a/b_test.py")
    assert not collected_module("a/testing.py")
    assert not collected_module("a/test_utils/b.py")
    assert not collected_module("a/test_a.pyi")


# -- HTD101: pieces of a model's output, joined and walked through a loop's item -------------
JOINED = """
    import torch
    class Llava(torch.nn.Module):
        def embed(self, images, device{param}):
            {bind}
            merged = []
            for idx, feat in enumerate(feats):
                if feat.shape[0] > 1:
                    base = feat[0]
                    feat = feat[1:]
                    feat = feat.flatten(0, 1)
                    feat = torch.cat((base, feat), dim=0)
                else:
                    feat = feat[0]
                    feat = torch.cat((feat, self.newline[None]), dim=0)
                merged.append(feat)
            return [x.to(device) for x in merged]
    """


def test_joined_pieces_of_a_model_output_are_left_out() -> None:
    made = JOINED.format(param="", bind="feats = torch.split(self.vision(images), [1, 2])")
    assert not _confidences(made, "HTD101")


def test_joined_pieces_of_unknown_tensors_stay_reported() -> None:
    unknown = JOINED.format(param=", feats", bind="pass")
    assert _confidences(unknown, "HTD101") == [Confidence.MEDIUM]
    host = JOINED.format(param=", rows", bind="feats = [torch.tensor(r) for r in rows]")
    assert _confidences(host, "HTD101")


def test_a_join_of_host_pieces_only_stays_reported() -> None:
    code = """
        import torch
        class M(torch.nn.Module):
            def f(self, parts, device):
                out = []
                for p in parts:
                    out.append(torch.cat((p, p[:1]), dim=0))
                return [x.to(device) for x in out]
        """
    assert _confidences(code, "HTD101") == [Confidence.MEDIUM]


def test_a_binding_in_an_inner_loop_still_reaches_the_item() -> None:
    code = """
        import torch
        class M(torch.nn.Module):
            def f(self, images, rows, device):
                feats = torch.split(self.vision(images), [1, 2])
                out = []
                for feat in feats:
                    for r in rows:
                        out.append(feat)
                        feat = torch.tensor(r)
                return [x.to(device) for x in out]
        """
    assert _confidences(code, "HTD101")

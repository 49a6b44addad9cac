"""The analysis facts behind session 15's HTD201/HTD202 changes (docs/precision.md, "Session 15"):
each look-alike the analysis must now tell apart, and its true twin."""

from __future__ import annotations

from lint_runs import lint

from h2dlint.analysis.hot_names import logging_name, name_reason, offline_class


def _findings(code: str, rule_code: str, path: str = "m.py") -> list[str]:
    return [f.message for f in lint(code, rule_code, path=path)]


def test_names_of_logs_are_no_steps() -> None:
    assert logging_name("train_step_logs")
    assert name_reason("train_step_logs", True) is None
    assert name_reason("train_step", True) is not None
    assert not logging_name("ceil_log")  # a logarithm
    assert not logging_name("log_softmax")


def test_export_wrappers_and_evaluators_are_offline() -> None:
    assert offline_class("CifPredictorV2Export")
    assert offline_class("TorchExportableModuleWithStaticCache")
    assert offline_class("DecoderOnnxModel")
    assert offline_class("MultiVectorDistillationEvaluator")
    assert not offline_class("Exporter")  # a word of its own only: no forward of a model
    assert not offline_class("CifPredictorV2")
    assert not offline_class(None)


DECODE = """
    import torch
    def decode(output_ids: torch.Tensor):
        output_ids = output_ids.cpu().numpy()
        return _tokenizer.decode(output_ids)
    """


def test_a_tokenizer_modules_decode_is_host_work() -> None:
    # open_clip's tokenizer.py: the generated ids become text, on the host, once per request.
    assert not _findings(DECODE, "HTD202", "open_clip/tokenizer.py")
    # The same function in a sampler module is a decoding step.
    assert _findings(DECODE, "HTD202", "engine/sampler.py")


ROWS = """
    import torch
    class Model(torch.nn.Module):
        def forward(self, ids: torch.Tensor, types: torch.Tensor, mask: torch.Tensor):
            out = []
            for b, row in enumerate(ids):
                t = types[b]
                t = t[mask[b].bool()]
                out.append(t.tolist())
            return out
    """


def test_each_row_sync_is_reported_once() -> None:
    # HTD201 reports the `.tolist()` of each row; the mask indexing before it is another sync
    # per row that HTD201 does not report: HTD202's since session 44 (defer44), which leaves to
    # HTD201 only the reads HTD201 reports (before, every read of a row of the tensor HTD201
    # named, and then this one was reported by neither).
    assert [m[:10] for m in _findings(ROWS, "HTD201")] == ["per-row Py"]
    assert [m[:20] for m in _findings(ROWS, "HTD202")] == ["Indexing `t` with a "]

"""Session 47 (fp1xx47): HTD201 MEDIUM false alarms (docs/precision.md, "Session 47
(fp1xx47)"): each class left out, and the look-alikes that stay reported."""

from __future__ import annotations

import textwrap
from pathlib import Path

from lint_runs import lint, package_records

# kestrel 0.9.2 ``scheduler/tokens.py``: the helper that turns sampled values into tokens.
TOKENS = """
    from torch import Tensor

    def render(token_ids: Tensor, coord_values: Tensor, size_values: Tensor, *, coord_id: int):
        ids = token_ids.view(-1).tolist()
        out = []
        for i, token_id in enumerate(ids):
            if token_id == coord_id:
                out.append(float(coord_values[i, 0].item()))
            else:
                out.append(float(size_values[i, 1].item()))
        return out
    """

# ``moondream/runtime.py``: both calls hand it host tensors (a ``.cpu()`` copy, the host
# staging buffer named for the CPU).
RUNTIME = """
    from .tokens import render

    class Runtime:
        def finish(self, slot, token_ids_cpu, batch_size, coord_id):
            slot.done_event.synchronize()
            return render(
                token_ids_cpu,
                slot.coord_cpu[:batch_size],
                slot.size_cpu[:batch_size],
                coord_id=coord_id,
            )

        def finish_sync(self, token_ids_cpu, coord_out, size_out, coord_id):
            return render(token_ids_cpu, coord_out.cpu(), size_out.cpu(), coord_id=coord_id)
    """


def _rows(tmp_path: Path, runtime: str) -> list[int]:
    files = {"tokens.py": textwrap.dedent(TOKENS), "runtime.py": textwrap.dedent(runtime)}
    records = package_records(tmp_path, files, "HTD201")
    return sorted(r["location"]["row"] for r in records if r["filename"].endswith("tokens.py"))


def test_rows_of_a_parameter_every_call_passes_on_the_host_are_left_out(tmp_path: Path) -> None:
    assert _rows(tmp_path, RUNTIME) == []


def test_the_helper_alone_keeps_its_rows() -> None:
    # No call known: the parameters' place is unknown, the MEDIUM rows stay.
    assert sorted(f.start.row for f in lint(TOKENS, "HTD201")) == [9, 11]


def test_a_call_passing_a_device_or_unknown_tensor_keeps_the_rows(tmp_path: Path) -> None:
    device = RUNTIME.replace("coord_out.cpu(), size_out.cpu()", "coord_out, size_out.cuda()")
    (tmp_path / "a").mkdir()
    assert _rows(tmp_path / "a", device) == [9, 11]
    unknown = RUNTIME.replace("slot.coord_cpu[:batch_size]", "slot.coord[:batch_size]")
    (tmp_path / "b").mkdir()
    assert _rows(tmp_path / "b", unknown) == [9]


def test_a_parameter_rebound_before_the_loop_keeps_the_rows(tmp_path: Path) -> None:
    moved = TOKENS.replace(
        "ids = token_ids", "coord_values = coord_values.cuda()\n        ids = token_ids"
    )
    files = {"tokens.py": textwrap.dedent(moved), "runtime.py": textwrap.dedent(RUNTIME)}
    records = package_records(tmp_path, files, "HTD201")
    assert [r["location"]["row"] for r in records if r["filename"].endswith("tokens.py")] == [10]


# fairseq 0.12.2 ``data/noising.py``: a noiser the dataset holds and calls per sample.
NOISING = """
    import torch

    class WordDropout:
        def noising(self, x, lengths):
            out = []
            for i in range(lengths.size(0)):
                out.append(x[: lengths[i], i].tolist())
            return out

    class NoisingDataset(torch.utils.data.Dataset):
        def __init__(self, src, noiser):
            self.src = src
            self.noiser = noiser

        def __getitem__(self, index):
            tokens = self.src[index]
            lengths = torch.LongTensor([len(tokens)])
            return self.noiser.{called}(tokens.unsqueeze(1), lengths)
    """


def _noising_rows(called: str = "noising", base: str = "") -> list[int]:
    code = NOISING.format(called=called)
    if base:
        code = code.replace("class WordDropout:", f"class WordDropout({base}):")
    return sorted(f.start.row for f in lint(code, "HTD201"))


def test_rows_of_a_method_the_module_dataset_calls_per_sample_are_left_out() -> None:
    assert _noising_rows() == []


def test_a_method_the_dataset_does_not_call_keeps_the_rows() -> None:
    # DeepSpeed's data_analyzer.py: a test dataset beside the distributed helpers.
    assert _noising_rows("shuffle") == [8]


def test_a_torch_module_called_by_the_dataset_keeps_the_rows() -> None:
    assert _noising_rows(base="torch.nn.Module") == [8]


def test_the_dataset_own_method_is_not_this_class() -> None:
    # Left to the dataset's own questions, not to this one.
    own = """
    import torch
    class Rows(torch.utils.data.Dataset):
        def __getitem__(self, index):
            return self.rows(self.x, self.lengths)
        def rows(self, x, lengths):
            return [x[: lengths[i], i].tolist() for i in range(lengths.size(0))]
    """
    assert sorted(f.start.row for f in lint(own, "HTD201")) == [7]


# ExecuTorch's ``backends/apple/metal/tests/test_modules.py``: outputs compared per row.
COMPARE = """
    import torch

    def compare_rows(expected: torch.Tensor, actual: torch.Tensor, failures: list):
        for i in range(expected.shape[0]):
            failures.append(float(expected[i, 0].item()) - float(actual[i, 0].item()))
    """


def test_unproven_rows_in_a_module_pytest_collects_are_left_out() -> None:
    assert lint(COMPARE, "HTD201", path="tests/test_modules.py") == []
    assert lint(COMPARE, "HTD201", path="tests/ops_test.py") == []


def test_the_same_rows_elsewhere_or_on_the_device_stay_reported() -> None:
    # A helper module of a test package, and a module of the library, keep the MEDIUM rows.
    assert len(lint(COMPARE, "HTD201", path="tests/helpers.py")) == 2
    assert len(lint(COMPARE, "HTD201", path="pkg/compare.py")) == 2
    # flash-attn's tests read device `cache_seqlens` per row: HIGH, reported in a test too.
    device = """
    import torch
    def test_kvcache():
        cache_seqlens = torch.randint(0, 8, (4,), device="cuda")
        for i in range(4):
            if cache_seqlens[i].item() > 0:
                pass
    """
    assert len(lint(device, "HTD201", path="tests/test_flash_attn.py")) == 1

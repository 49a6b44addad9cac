"""Session 50 (lead): what the merged branches got wrong on review, each with its twin.

- a membership test of a row (``hit = tok in rows[i]``) is a Python bool, but
  ``Tensor.__contains__`` reads the device to make it: the name stays a read of the row
  when it is tested (triage50a's ``row_shapes.python_bool`` took every ``in`` for an identity
  test); ``bank[i] is None`` and a row's metadata compared stay Python bools;
- in code named for collation, a parameter annotated as a tensor is no loader batch: its
  device is wherever the tensor is (torchmetrics 1.9.0's ``_output_data_collator`` pads a
  model's outputs; fp101_50's ``targets.device_target`` took its device for the host)."""

from __future__ import annotations

from lint_runs import lint

ROWS = """
    import torch
    def pick(rows: torch.Tensor, tok: int, dev):
        rows = rows.cuda()
        out = []
        for i in range(rows.shape[0]):
            hit = {test}
            if hit:
                out.append(i)
        return out
"""


def _rows(test: str) -> list[int]:
    return [f.start.row for f in lint(ROWS.format(test=test), "HTD201")]


def test_a_membership_test_of_a_row_reads_the_device() -> None:
    assert _rows("tok in rows[i]") == [8]
    assert _rows("tok not in rows[i]") == [8]


def test_identity_and_metadata_tests_of_a_row_are_python_bools() -> None:
    assert _rows("rows[i] is None") == []
    assert _rows("rows[i].device != dev") == []
    assert _rows("rows[i] is None or rows[i].shape[0] != 4") == []
    assert _rows('"masks" in rows[i]') == []  # a string's: a key test of a dict (rfdetr)


PAD = """
    import torch
    from torch import Tensor
    def {name}(model_output{annotation}, target_len: int):
        shape = list(model_output.shape)
        shape[1] = target_len - shape[1]
        zeros = torch.zeros(shape, dtype=model_output.dtype).to(model_output.device)
        return torch.cat([model_output, zeros], dim=1)
"""


def test_a_tensor_parameters_device_in_collation_code_is_its_own() -> None:
    code = PAD.format(name="_output_data_collator", annotation=": Tensor")
    assert [f.start.row for f in lint(code, "HTD301")] == [7]


def test_a_batch_parameters_device_in_collation_code_is_the_host() -> None:
    code = PAD.format(name="_output_data_collator", annotation="")
    assert lint(code, "HTD301") == []

"""The facts behind session 18's false-negative audit (docs/recall.md, "Session 18: false-negative
audit (helper recall18)"): rows and parts of a boolean mask are masks, a mask that is surely a
tensor is judged when the indexed value says nothing, a function installed as a module's
``forward`` is hot, and ``.values``/``.indices`` of a reduction are tensors; each beside the
correct look-alike."""

from __future__ import annotations

import textwrap

import libcst as cst
from lint_runs import lint

from h2dlint.analysis.bindings import zipped_item


def _findings(code: str, rule_code: str = "HTD202") -> list[tuple[int, str]]:
    return [(f.start.row, f.message) for f in lint(code, rule_code)]


def _loop(code: str) -> cst.For:
    statement = cst.parse_module(textwrap.dedent(code)).body[0]
    assert isinstance(statement, cst.For)
    return statement


def test_zipped_item_pairs_targets_with_arguments() -> None:
    loop = _loop("for h, m in zip(hidden, masks):\n    pass\n")
    found = zipped_item(loop, "m")
    assert isinstance(found, cst.Name) and found.value == "masks"
    found = zipped_item(loop, "h")
    assert isinstance(found, cst.Name) and found.value == "hidden"
    assert zipped_item(loop, "x") is None


def test_zipped_item_falls_back_to_plain_and_enumerate_loops() -> None:
    found = zipped_item(_loop("for i, m in enumerate(masks):\n    pass\n"), "m")
    assert isinstance(found, cst.Name) and found.value == "masks"
    found = zipped_item(_loop("for m in masks:\n    pass\n"), "m")
    assert isinstance(found, cst.Name) and found.value == "masks"
    # A starred argument makes the pairing unknown; ``strict=True`` pairs the same items
    # (session 51, mine51a: trl 1.0.0's rows of host copies in a strict zip).
    assert zipped_item(_loop("for a, b in zip(*pairs):\n    pass\n"), "b") is None
    found = zipped_item(_loop("for a, b in zip(x, y, strict=True):\n    pass\n"), "b")
    assert isinstance(found, cst.Name) and found.value == "y"


ROWS = """
    import torch
    class Reorder(torch.nn.Module):
        def forward(self, hidden, masks):
            masks = masks.cuda() > 0
            out = []
            for h, m in zip(hidden.cuda(), masks):
                out.append(h[m])
            for i in range(len(out)):
                out.append(hidden[i][masks[i]])
            for i, m in enumerate(masks):
                out.append(hidden[i][m])
            return out
"""


def test_rows_of_a_device_mask_index_with_a_sync() -> None:
    rows = [row for row, _ in _findings(ROWS)]
    assert rows == [8, 10, 12]


def test_rows_of_a_host_mask_stay_silent() -> None:
    code = """
        import torch
        class Reorder(torch.nn.Module):
            def forward(self, lengths: list[int]):
                masks = torch.arange(8)[None, :] < torch.tensor(lengths)[:, None]
                out = []
                for h, m in zip(torch.randn(len(lengths), 8), masks):
                    out.append(h[m])
                return out
    """
    assert _findings(code) == []


def test_a_list_of_masks_is_no_mask() -> None:
    code = """
        import torch
        class Gather(torch.nn.Module):
            def forward(self, hidden, masks):
                masks = [m for m in masks]
                return [h[masks[i]] for i, h in enumerate(hidden)]
    """
    assert _findings(code) == []


def test_a_bool_mask_is_judged_when_the_indexed_value_says_nothing() -> None:
    code = """
        import torch
        class Loss(torch.nn.Module):
            def forward(self, jsd, completion_mask):
                mask = completion_mask.bool()
                return jsd[mask].mean()
    """
    [(row, message)] = _findings(code)
    assert row == 6
    assert "if `mask` is on the GPU" in message


def test_a_mask_on_a_host_tensor_stays_silent() -> None:
    code = """
        import torch
        class Loss(torch.nn.Module):
            def forward(self, jsd, completion_mask):
                mask = completion_mask.bool()
                return jsd.cpu()[mask].mean()
    """
    assert [m for _, m in _findings(code) if "boolean mask" in m] == []


def test_a_write_through_a_row_mask_is_a_masked_fill() -> None:
    code = """
        import torch
        class Fill(torch.nn.Module):
            def forward(self, x, mask):
                mask = mask.bool()
                for row, m in zip(x, mask):
                    row[m] = 0.0
                return x
    """
    assert _findings(code) == []


INSTALLED = """
    import functools
    import types
    import torch
    class Planner:
        def _apply(self, model):
            Model.forward = __patch__Model_forward__
            model.norm.forward = types.MethodType(_rms_norm_fast, model.norm)
            Model.extra_repr = _describe
    @functools.wraps(Model.forward)
    def __patch__Model_forward__(self, hidden: torch.Tensor, masks: torch.Tensor):
        return hidden[masks.bool()]
    def _rms_norm_fast(self, x: torch.Tensor):
        return x[x > 0]
    def _describe(self, x: torch.Tensor):
        return x[x > 0]
"""


def test_a_function_installed_as_forward_is_hot() -> None:
    found = _findings(INSTALLED)
    assert [row for row, _ in found] == [12, 14]
    assert "installed as `Model.forward`" in found[0][1]
    assert "installed as `model.norm.forward`" in found[1][1]


def test_values_of_a_reduction_are_a_tensor() -> None:
    code = """
        import torch
        class Rope(torch.nn.Module):
            def forward(self, position_ids: torch.Tensor, table: dict):
                max_vals = position_ids.max(dim=0).values.tolist()
                first = list(table.values())[0]
                return max_vals, first
    """
    [(row, message)] = _findings(code)
    assert row == 5
    assert "position_ids" in message


def test_a_processor_batch_is_on_the_host() -> None:
    code = """
        import torch
        class Gold:
            def compute_loss(self, model, inputs, texts):
                processed = self.processor(text=texts, padding=True, return_tensors="pt")
                moved = self.processor(text=texts, return_tensors="pt").to("cuda")
                out = []
                for row in range(len(texts)):
                    prompt_mask = processed["attention_mask"][row].bool()
                    out.append(processed["input_ids"][row][prompt_mask])
                keep = moved["attention_mask"].bool()
                out.append(moved["input_ids"][keep])
                return model(out)
    """
    assert [row for row, _ in _findings(code)] == [12]


def test_a_metrics_function_is_left_alone_but_a_loss_is_not() -> None:
    code = """
        import torch
        class Trainer:
            def step(self, batch):
                self.logger.log(compute_data_metrics(batch))
                return compute_loss(batch)
        def compute_data_metrics(batch):
            keep = ~((batch["response_length"] == 0).bool())
            return {"score": batch["scores"][keep].mean()}
        def compute_loss(batch):
            keep = batch["mask"].bool()
            return batch["logps"][keep].mean()
    """
    assert [row for row, _ in _findings(code)] == [12]


def test_a_processor_given_a_device_returns_tensors_there() -> None:
    code = """
        import torch
        class Encoder(torch.nn.Module):
            def forward(self, images):
                pixels = self.processor(images, return_tensors="pt", device="cuda")
                keep = pixels["pixel_mask"].bool()
                return pixels["pixel_values"][keep]
    """
    assert [row for row, _ in _findings(code)] == [7]

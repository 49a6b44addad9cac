"""Session 50 (fp101_50): HTD101 MEDIUM false alarms and a forward reference's class
(docs/precision.md, "Session 50 (fp101_50)").

- A closure's free name bound in the enclosing function to another tensor's device (agilerl
  2.58.0 ``utils/segment_balance.py:438``: ``device = rows.token_ids.device``, then
  ``part.to(device)`` in a nested ``padded()``) aligns the parts with that tensor, as the same
  name does in the enclosing function itself.
- A collection named as norms (``norms``, ``group_norms``: nemo-automodel 0.7.0
  ``components/training/utils.py:69``, ``:223``, ``:429``) holds one-value reductions.
- A quoted annotation of a class that the module neither defines nor imports
  (``context: "DynamicInferenceContext"`` of megatron-core 0.18.2
  ``inference/contexts/kv_block_allocator.py``) names the class its package defines
  (``project/forward_classes.py``): the attribute's tensors are placed by that class.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from lint_runs import lint, lint_project, write_files

# -- a closure's free device name -----------------------------------------------------------
CLOSURE = """
    import torch
    from torch.nn.utils.rnn import pad_sequence

    def assemble(rows, parts, model):
        device = {device}
        columns = list(zip(*parts))

        def padded(kind, value):
            return pad_sequence(
                [part.to(device) for part in columns[kind]], batch_first=True, padding_value=value
            )

        return [padded(k, 0) for k in range(len(columns))]
    """


def _rows(code: str) -> list[int]:
    return sorted(f.start.row for f in lint(code, "HTD101"))


def test_a_closures_free_name_bound_to_a_tensors_device_aligns() -> None:
    assert _rows(CLOSURE.format(device="rows.token_ids.device")) == []


@pytest.mark.parametrize(
    "device", ["model.device", "next(model.parameters()).device", '"cuda"', "self_device()"]
)
def test_a_closures_free_name_bound_to_a_models_or_named_device_is_reported(device: str) -> None:
    assert _rows(CLOSURE.format(device=device)) == [11]


def test_a_closures_own_binding_is_not_the_enclosing_ones() -> None:
    code = CLOSURE.format(device="rows.token_ids.device").replace(
        "def padded(kind, value):\n", 'def padded(kind, value):\n            device = "cuda"\n'
    )
    assert _rows(code) == [12]


# -- a collection named as norms ------------------------------------------------------------
NORMS = """
    import torch

    def combine(norms: list[torch.Tensor], device):
        return torch.stack([n.to(device=device, dtype=torch.float64) for n in {name}])
    """


@pytest.mark.parametrize("name", ["norms", "group_norms"])
def test_a_collection_named_as_norms_is_left_alone(name: str) -> None:
    assert _rows(NORMS.format(name=name).replace("norms:", f"{name}:")) == []


@pytest.mark.parametrize("name", ["items", "normals", "normalized"])
def test_other_names_are_reported(name: str) -> None:
    assert _rows(NORMS.format(name=name).replace("norms:", f"{name}:")) == [5]


# -- a forward reference's class -----------------------------------------------------------
CONTEXT = """
    import torch
    from .alloc import BlockAllocator

    class Context:
        def __init__(self, n: int) -> None:
            self._buf = torch.zeros(n, dtype=torch.int32, {place})
            self.block_ids = self._buf[:n]
            self.allocator = BlockAllocator(self)
    """

ALLOCATOR = """
    import torch

    class BlockAllocator:
        def __init__(self, context: {annotation}) -> None:
            self.context = context

        def train_step(self, n: int) -> list:
            return self.context.block_ids[:n].tolist()
    """


def _allocator_findings(tmp_path: Path, files: dict[str, str]) -> list[tuple[int, Any]]:
    write_files(tmp_path, {"pkg/__init__.py": "", **files})
    records = lint_project(tmp_path, "HTD202")
    return sorted(
        (r["location"]["row"], r.get("confidence"))
        for r in records
        if r["filename"].endswith("alloc.py")
    )


@pytest.mark.parametrize("annotation", ['"Context"', "'Context'"])
def test_a_quoted_class_of_the_package_places_its_device_tensor(
    tmp_path: Path, annotation: str
) -> None:
    files = {
        "pkg/ctx.py": CONTEXT.format(place='device="cuda"'),
        "pkg/alloc.py": ALLOCATOR.format(annotation=annotation),
    }
    assert _allocator_findings(tmp_path, files) == [(9, "high")]


def test_a_quoted_class_of_a_package_above_is_found(tmp_path: Path) -> None:
    files = {
        "pkg/ctx.py": CONTEXT.format(place='device="cuda"').replace(".alloc", ".sub.alloc"),
        "pkg/sub/__init__.py": "",
        "pkg/sub/alloc.py": ALLOCATOR.format(annotation='"Context"'),
    }
    assert _allocator_findings(tmp_path, files) == [(9, "high")]


def test_a_quoted_class_with_a_pinned_buffer_is_host(tmp_path: Path) -> None:
    files = {
        "pkg/ctx.py": CONTEXT.format(place="pin_memory=True"),
        "pkg/alloc.py": ALLOCATOR.format(annotation='"Context"'),
    }
    assert _allocator_findings(tmp_path, files) == []


def test_two_classes_of_that_name_leave_it_unknown(tmp_path: Path) -> None:
    other = CONTEXT.format(place="pin_memory=True").replace("from .alloc import BlockAllocator", "")
    files = {
        "pkg/ctx.py": CONTEXT.format(place='device="cuda"'),
        "pkg/ctx2.py": other.replace("self.allocator = BlockAllocator(self)", "pass"),
        "pkg/alloc.py": ALLOCATOR.format(annotation='"Context"'),
    }
    assert all(confidence != "high" for _, confidence in _allocator_findings(tmp_path, files))


def test_a_name_the_module_binds_is_no_forward_reference(tmp_path: Path) -> None:
    allocator = ALLOCATOR.format(annotation='"Context"').replace(
        "import torch\n", "import torch\n\n    Context = dict\n", 1
    )
    files = {"pkg/ctx.py": CONTEXT.format(place='device="cuda"'), "pkg/alloc.py": allocator}
    assert _allocator_findings(tmp_path, files) == []


# -- a batch entry's device in code named for collation (HTD104, HTD106) -------------------
COLLATE = """
    import torch

    def {name}(examples, processor):
        batch = processor(examples)
        masks = [torch.tensor(e["mask"]) for e in examples]
        batch["loss_mask"] = torch.stack(masks).to(device=batch["input_ids"].device)
        ids = [e["id"] for e in examples]
        batch["extra"] = torch.tensor(ids, device=batch["input_ids"].device)
        return batch
    """


@pytest.mark.parametrize("name", ["vl_collate_fn", "collate_batch", "collator"])
def test_a_batch_entrys_device_in_a_collate_function_is_the_host(name: str) -> None:
    code = COLLATE.format(name=name)
    assert lint(code, "HTD104", "HTD106") == []


@pytest.mark.parametrize("path", ["collate_fn.py", "data_collator.py"])
def test_a_batch_entrys_device_in_a_collation_module_is_the_host(path: str) -> None:
    code = COLLATE.format(name="prepare")
    assert lint(code, "HTD104", "HTD106", path=path) == []


@pytest.mark.parametrize("name", ["prepare", "collated_step", "recollate_fn"])
def test_a_batch_entrys_device_elsewhere_is_a_device(name: str) -> None:
    code = COLLATE.format(name=name)
    assert sorted(f.code for f in lint(code, "HTD104", "HTD106")) == ["HTD104", "HTD106"]


def test_a_collate_functions_device_tensor_is_still_a_device() -> None:
    code = COLLATE.format(name="vl_collate_fn").replace(
        "batch = processor(examples)", 'batch = {"input_ids": torch.zeros(4, device="cuda")}'
    )
    assert sorted(f.code for f in lint(code, "HTD104", "HTD106")) == ["HTD104", "HTD106"]

"""Session 38 (mine38): what a ``while`` loop that runs a model calls runs per step.

A plain function that drives a model in a ``while`` loop (a video interpolation driver reading
frames until its queue is empty, a sampler's ``while t > 0:``) has the loop's own body taken as
hot by HTD202 (``tested_tensors.model_while_reason``), but the functions the body calls were
not: imaginairy's RIFE ``ssim_matlab`` reads ``torch.max(img1) > 128`` twice per frame. The
project index's loops of steps (``analysis/step_loops.py``, part ``steps``) now hold such loops
too, so their callees are hot in the same module and across modules.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lint_runs import lint_project, write_files

METRIC = """
    import torch

    def similarity(a, b):
        top = 255 if torch.max(a) > 128 else 1
        return ((a - b) ** 2).mean() / top
"""
DRIVER = """
    from pkg.metric import similarity

    def interpolate_frames(model, queue, device):
        last = queue.get().to(device)
        while True:
            frame = queue.get()
            if frame is None:
                break
            frame = frame.to(device)
            {body}
            last = middle
"""
RUNS_MODEL = "middle = model.inference(last, frame, similarity(last, frame))"


def _found(records: list[dict[str, Any]]) -> list[tuple[str, int]]:
    return sorted(
        (r["filename"].rsplit("/", 1)[-1], r["location"]["row"])
        for r in records
        if r["code"] == "HTD202"
    )


def _project(root: Path, body: str = RUNS_MODEL, same_module: bool = False) -> None:
    driver = DRIVER.replace("{body}", body)
    files = {"pkg/__init__.py": ""}
    if same_module:
        files["pkg/driver.py"] = METRIC + driver.replace("from pkg.metric import similarity", "")
    else:
        files["pkg/metric.py"] = METRIC
        files["pkg/driver.py"] = driver
    write_files(root, files)


def test_a_helper_called_in_a_model_while_loop_of_another_module_is_hot(tmp_path: Path) -> None:
    _project(tmp_path)
    assert _found(lint_project(tmp_path, "HTD202")) == [("metric.py", 5)]


def test_a_helper_called_in_a_model_while_loop_of_its_module_is_hot(tmp_path: Path) -> None:
    _project(tmp_path, same_module=True)
    assert _found(lint_project(tmp_path, "HTD202")) == [("driver.py", 5)]


def test_a_while_loop_that_runs_no_model_makes_no_callee_hot(tmp_path: Path) -> None:
    # A reader filling a queue: the loop's body normalises frames, no model runs there.
    _project(tmp_path, body="middle = queue.put(similarity(last, frame))")
    assert _found(lint_project(tmp_path, "HTD202")) == []


def test_a_model_call_under_an_occasional_branch_makes_no_step(tmp_path: Path) -> None:
    # The model runs only every 100 frames (a preview): the loop is no loop of steps.
    body = (
        "middle = similarity(last, frame)\n"
        "            if count % 100 == 0:\n"
        "                model.inference(last, frame)"
    )
    _project(tmp_path, body=body)
    assert _found(lint_project(tmp_path, "HTD202")) == []


def test_a_tokenizer_model_in_a_while_loop_is_no_model_step(tmp_path: Path) -> None:
    # exllamav2's tokenizer decodes pieces in a `while` loop over `tokenizer_model.decode`:
    # host text work, however the object is named.
    _project(tmp_path, body="middle = tokenizer_model.decode(similarity(last, frame))")
    assert _found(lint_project(tmp_path, "HTD202")) == []

"""Per-batch output read-backs in inference loops over batches (session 47, consist47).

The labelled set was split on one shape: an encode, predict or feature pass that runs the
model over a loader (or over slices of its input) and copies each batch's output to the host,
collecting it for the caller. Upstream keeps that copy (Lightning's predict loop,
sentence-transformers' ``encode``, timm's ``validate``), and HTD202 now leaves it unreported
(``analysis/batch_outputs.py``; ``docs/precision.md``, session 47). Its look-alikes stay
reported: a training loop's per-step copy, a per-batch ``.item()`` of a loss summed into a float
(FunASR's and torchtitan's validation fixes), a module ``forward`` looping over a stream's
chunks, a copy in a loop over the rows of one batch, and a copy bound in a loop that collects
nothing.
"""

from __future__ import annotations

import libcst as cst
import pytest
from lint_runs import lint

from h2dlint.analysis.batch_outputs import batch_output
from h2dlint.analysis.names import call_name

# A reranker's scoring pass; ``{loop}`` is the loop header, ``{body}`` the copy's statement(s).
PASS = """\
import torch
from torch.utils.data import DataLoader
from tqdm import tqdm, trange
class Reranker:
    @torch.no_grad()
    def {name}(self, dataset, device, batch_size=32):
        dataloader = DataLoader(dataset, batch_size=batch_size)
        all_scores = []
        {loop}
            logits = self.model(**inputs.to(device)).logits
            scores = logits[:, -1, self.yes_loc]
            {body}
        return all_scores
"""


def _rows(loop: str, body: str, name: str = "compute_score") -> list[tuple[str, int]]:
    code = PASS.format(name=name, loop=loop, body=body.replace("\n", "\n            "))
    return [(f.code, f.start.row) for f in lint(code, "HTD201", "HTD202")]


LOADER = "for inputs in tqdm(dataloader):"
COLLECTED = "all_scores.extend(scores.cpu().float().tolist())"


@pytest.mark.parametrize(
    "loop",
    [
        LOADER,
        "for _, inputs in enumerate(dataloader):",
        "for batch_idx, inputs in enumerate(self.batches):",
        "for inputs in self.loader:",
    ],
)
@pytest.mark.parametrize(
    "body",
    [
        COLLECTED,
        "all_scores.append(scores.detach().cpu().numpy())",
        "out = scores.cpu().data.numpy()\nall_scores.append(out)",
        "out = scores.cpu()\nall_scores += self.post(out)",
    ],
)
def test_a_batchs_output_collected_in_a_pass_over_batches_is_its_result(
    loop: str, body: str
) -> None:
    assert _rows(loop, body) == []


@pytest.mark.parametrize("name", ["predict", "encode", "embed", "__call__", "_predict"])
def test_any_pass_of_its_own(name: str) -> None:
    assert _rows(LOADER, COLLECTED, name) == []


def test_a_module_forward_looping_over_batches_stays_reported() -> None:
    assert _rows(LOADER, COLLECTED, "forward") == [("HTD202", 12)]


def test_a_training_loop_stays_reported() -> None:
    body = "self.loss(scores).backward()\nself.optimizer.step()\n" + COLLECTED
    assert ("HTD202", 14) in _rows(LOADER, body)


def test_a_per_batch_item_summed_into_a_float_stays_reported() -> None:
    assert _rows(LOADER, "total = total + scores.sum().item()") == [("HTD202", 12)]


def test_a_loop_that_collects_nothing_stays_reported() -> None:
    assert _rows(LOADER, "out = scores.cpu()\nself.log(out)") == [("HTD202", 12)]


class _Copies(cst.CSTVisitor):
    """The ancestors (outermost first) of each ``.cpu()`` call."""

    def __init__(self) -> None:
        self.stack: list[cst.CSTNode] = []
        self.found: list[tuple[list[cst.CSTNode], cst.Call]] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, cst.Call) and call_name(node) == "cpu":
            self.found.append((list(self.stack), node))
        self.stack.append(node)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self.stack.pop()


def _batch_outputs(loop: str, body: str = COLLECTED, name: str = "compute_score") -> bool:
    code = PASS.format(name=name, loop=loop, body=body.replace("\n", "\n            "))
    copies = _Copies()
    cst.parse_module(code).visit(copies)
    assert len(copies.found) == 1
    return batch_output(*copies.found[0])


@pytest.mark.parametrize(
    "loop",
    [
        "for step in range(self.max_steps):",  # decoding steps
        "for chunk in chunks:",  # a stream's chunks
        "for i in range(batch_size):",  # the rows of one batch
        "for i in range(self.batch_size):",
        "for layer in self.layers:",
    ],
)
def test_a_loop_over_steps_chunks_or_rows_is_no_pass_over_batches(loop: str) -> None:
    assert not _batch_outputs(loop)


@pytest.mark.parametrize(
    "loop",
    [
        LOADER,
        "for start in trange(0, len(dataset), batch_size):",
        "for start in range(0, len(dataset), self.batch_size):",
        "for batch_idx in tqdm(range(len(batches))):",
        "for image_batch in batch_generator(dataset, batch_size):",
        "for batch in pbar:",
    ],
)
def test_loops_over_batches(loop: str) -> None:
    assert _batch_outputs(loop)


@pytest.mark.parametrize(
    "body",
    [
        "n = scores.cpu().shape[0]",  # a size: not the values leaving
        "self.log(scores.cpu())",  # handed to another call
        "out = scores.cpu()\nself.log(out)",  # bound in a loop that collects nothing
        "all_scores.extend([s.cpu() for s in scores])",  # per row, in a comprehension
    ],
)
def test_copies_that_are_not_collected(body: str) -> None:
    assert not _batch_outputs(LOADER, body)


@pytest.mark.parametrize("name", ["forward", "train_epoch", "fit", "_train"])
def test_a_modules_forward_or_a_training_function_is_no_pass_of_its_own(name: str) -> None:
    assert not _batch_outputs(LOADER, name=name)


def test_a_function_named_for_validation_inputs_is_a_pass_like_any_other() -> None:
    assert _batch_outputs(LOADER, name="validate_inputs")

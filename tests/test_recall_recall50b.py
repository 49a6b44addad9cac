"""Session 50 (recall50b): per-step device reads in numerical solvers and samplers.

- A read in the body of a ``while`` loop whose every iteration takes a step
  (``step_method.step(...)``, ``self._adaptive_step(...)``) runs once per step, as its test
  does (HTD202 reported the test already): HTD201's ``while`` read
  (``iteration_reads._model_loop_reason``). torchode 1.0.1 ``adjoints.py:224``.
- A ``while`` loop whose body calls ``self.forward(...)``/``self(...)``/``model(...)`` runs the
  model every iteration (``tested_tensors.calls_model``, as a ``for`` loop of steps is judged):
  transfusion-pytorch 0.20.0 ``transfusion.py:2039``.
- A call of an unannotated project helper whose every return is surely a tensor is a tensor
  (``state_tensors.returned_tensor``): transfusion's ``sample_text_token``.
- ``from ..types import Tensor`` (``Tensor = torch.Tensor`` in the project's module) is torch's
  ``Tensor`` (``torch_aliases.torch_name`` made the relative name absolute): torchsde 0.2.6
  ``base_solver.py:115``.
"""

from __future__ import annotations

from pathlib import Path

from lint_runs import lint, package_records


def _rows(code: str, *codes: str) -> list[tuple[int, str, str]]:
    return sorted((f.start.row, f.code, f.confidence) for f in lint(code, *codes))


# torchode 1.0.1 torchode/adjoints.py:42-230, cut down.
SOLVER = """\
import torch
class AutoDiffAdjoint(torch.nn.Module):
    def solve(self, problem, term=None, dt0=None):
        step_method = self.step_method
        t_eval = problem.t_eval
        y, t = problem.y0, problem.t_start
        not_yet_evaluated = torch.ones_like(t_eval, dtype=torch.bool)
        while True:
            y, t = step_method.step(term, y, t, dt0)
            to_be_evaluated = (t[:, None] - t_eval >= 0.0) & not_yet_evaluated
            if to_be_evaluated.any():
                not_yet_evaluated = torch.logical_xor(to_be_evaluated, not_yet_evaluated)
            if done:
                break
        return y
"""


def test_a_read_in_a_while_loop_of_steps_is_per_step() -> None:
    assert _rows(SOLVER, "HTD201", "HTD202") == [(11, "HTD201", "medium")]


def test_a_while_loop_without_a_step_is_not_a_loop_of_steps() -> None:
    # host bookkeeping around a helper not named for a step: nothing says it runs per step
    code = SOLVER.replace("step_method.step(", "step_method.advance_bookkeeping(")
    assert _rows(code, "HTD201", "HTD202") == []


def test_a_numpy_read_in_a_loop_of_steps_is_no_device_read() -> None:
    code = SOLVER.replace(
        "to_be_evaluated = (t[:, None] - t_eval >= 0.0) & not_yet_evaluated",
        "to_be_evaluated = np.asarray(mask_list)",
    ).replace("import torch\n", "import numpy as np\nimport torch\n")
    assert _rows(code, "HTD201", "HTD202") == []


def test_a_step_loops_test_stays_htd202s() -> None:
    # ``while curr_t < out_t: ... self.step(...)``: the test was HTD202's; it is not moved
    code = """\
    import torch
    class Solver:
        def integrate(self, y0, ts: torch.Tensor):
            curr_t = ts[0]
            for out_t in ts[1:]:
                while curr_t < out_t:
                    y0, curr_t = self.step(curr_t, y0)
            return y0
    """
    assert _rows(code, "HTD201", "HTD202") == [(6, "HTD202", "medium")]


def test_a_run_once_function_with_a_step_loop_is_not_hot() -> None:
    code = SOLVER.replace("def solve(self,", "def __init__(self,")
    assert _rows(code, "HTD201", "HTD202") == []


# transfusion-pytorch 0.20.0 transfusion_pytorch/transfusion.py:693-701, 2008-2040, cut down.
SAMPLER = """\
import torch
def sample_text_token(logits, temperature=1.0):
    if temperature == 0.0:
        return logits.argmax(dim=-1, keepdim=True)
    probs = (logits / temperature).softmax(dim=-1)
    return torch.multinomial(probs, 1)
class Transfusion(torch.nn.Module):
    def sample_one(self, seq, max_length=2048):
        curr_length = 0
        while curr_length <= max_length:
            logits = self.forward(seq)
            logits = logits[0][-1]
            sampled = sample_text_token(logits)
            seq = torch.cat((seq, sampled), dim=-1)
            curr_length += 1
            sampled_token_id = sampled.item()
            if sampled_token_id == self.eos_id:
                break
        return seq
"""


def test_a_helpers_sampled_token_read_per_decoded_token() -> None:
    assert _rows(SAMPLER, "HTD201", "HTD202") == [(16, "HTD201", "medium")]


def test_a_helper_returning_a_number_in_one_branch_is_no_tensor() -> None:
    code = SAMPLER.replace(
        "return logits.argmax(dim=-1, keepdim=True)", "return int(logits.argmax())"
    )
    assert _rows(code, "HTD201", "HTD202") == []


def test_an_annotated_helper_keeps_its_annotation() -> None:
    code = SAMPLER.replace(
        "def sample_text_token(logits, temperature=1.0):",
        "def sample_text_token(logits, temperature=1.0) -> int:",
    )
    assert _rows(code, "HTD201", "HTD202") == []


def test_a_while_loop_calling_no_model_is_no_sampling_loop() -> None:
    code = SAMPLER.replace("logits = self.forward(seq)", "logits = self.lookup_table(seq)")
    assert _rows(code, "HTD201", "HTD202") == []


# torchsde 0.2.6 torchsde/_core/base_solver.py:92-146 and torchsde/types.py, cut down.
SDE_TYPES = "import torch\nTensor = torch.Tensor\n"
SDE_SOLVER = """\
from .{types} import Tensor
class BaseSDESolver:
    def integrate(self, y0: Tensor, ts: Tensor, extra0):
        step_size = self.dt
        curr_t = ts[0]
        curr_y, curr_extra = y0, extra0
        ys = [y0]
        for out_t in ts[1:]:
            while curr_t < out_t:
                next_t = curr_t + step_size
                curr_y, curr_extra = self.step(curr_t, next_t, curr_y, curr_extra)
                curr_t = next_t
            ys.append(curr_y)
        return ys
"""


def test_a_tensor_alias_imported_relatively_is_torchs(tmp_path: Path) -> None:
    files = {"sde_types.py": SDE_TYPES, "solver.py": SDE_SOLVER.format(types="sde_types")}
    records = package_records(tmp_path, files, "HTD202")
    assert [(r["filename"].rpartition("/")[2], r["location"]["row"]) for r in records] == [
        ("solver.py", 9)
    ]


def test_a_numpy_alias_imported_relatively_is_no_tensor(tmp_path: Path) -> None:
    files = {
        "np_types.py": "import numpy as np\nTensor = np.ndarray\n",
        "solver.py": SDE_SOLVER.format(types="np_types"),
    }
    assert package_records(tmp_path, files, "HTD202") == []


# alphafold3-pytorch 0.8.3 alphafold3_pytorch/alphafold3.py:5420-5470, cut down.
STRUCTURE = """\
import torch
class Alphafold3(torch.nn.Module):
    def forward(self, molecule_ids, asym_id, atom_mask):
        cur_cid = None
        for res_idx in range(molecule_ids.shape[0]):
            cid = str(asym_id[res_idx].detach().cpu().item())
            if cid != cur_cid:
                cur_cid = cid
        return cur_cid
"""


def test_a_detached_row_read_is_a_tensor_rows_read() -> None:
    assert _rows(STRUCTURE, "HTD201", "HTD202") == [(6, "HTD201", "medium")]


def test_a_row_of_a_python_list_is_no_tensor_row() -> None:
    # without ``.detach()`` (a tensor-only method) nothing says the rows are tensors
    code = STRUCTURE.replace("asym_id[res_idx].detach().cpu().item()", "asym_id[res_idx]")
    assert _rows(code, "HTD201", "HTD202") == []


def test_a_field_of_a_walked_object_detached_is_no_row() -> None:
    # diffusers 0.42.1 pipelines/ltx2/pipeline_ltx2_dfr_temporal_refine.py:690-755: ``t`` is a
    # field of the condition object the loop walks; its ``.detach()`` says nothing of the rows
    code = """\
    import torch
    class Pipeline:
        def encode_conditions(self, conditions, latent_num_frames):
            out = []
            for i, condition in enumerate(conditions):
                t = condition.frames
                arr = t.detach().cpu().numpy()
                latent_start_idx = condition.index
                if latent_start_idx < 0:
                    latent_start_idx = latent_start_idx % latent_num_frames
                out.append((arr, latent_start_idx))
            return out
        def __call__(self, conditions):
            return self.encode_conditions(conditions, 8)
    """
    assert _rows(code, "HTD201") == []

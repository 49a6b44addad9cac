"""Session 46 (misses46): recall misses whose class reaches several packages.

- A read in the branch of ``if isinstance(x, torch.Tensor):`` is a tensor's, whatever ``x``'s
  annotation says (ltx-core 1.0 ``utils.py:33`` ``to_velocity``: ``sigma: float |
  torch.Tensor``, ``sigma.to(dtype).item()`` per Euler step; lerobot 0.5.1 WallX
  ``value.item()`` per channel loss) (``analysis/guarded_tensors.py``).
- The ``non_blocking=True`` copies a wait follows may be queued by a call of a function nested
  in the waiting one, of the module, or of ``self`` (mmgp 3.8 ``offload.py:2797``: the block
  loader's nested ``cpu_to_gpu`` then ``torch.cuda.synchronize()``) (``analysis/
  called_copies.py``), and a hook nested in a method calls that method's ``self``'s methods
  (``analysis/closure_selves.py``: ``self.gpu_load_blocks`` from a forward pre-hook).
- A field of an ``nn.Module``'s output read with ``.item()``/``.tolist()`` (``outputs.loss``)
  is a tensor (``analysis/output_fields.py``); ``Cls.from_pretrained(...)`` of a project
  module class is an object of it (``classes._call_class``).
"""

from __future__ import annotations

from lint_runs import lint

# ltx-core 1.0.0 ltx_core/utils.py:21-36 and components/diffusion_steps.py:14-22, one file.
VELOCITY = """\
import torch
def to_velocity(sample: torch.Tensor, sigma: float | torch.Tensor, denoised: torch.Tensor):
    if isinstance(sigma, torch.Tensor):
        sigma = sigma.to(torch.float32).item()
    if sigma == 0:
        raise ValueError("Sigma can't be 0.0")
    return (sample - denoised) / sigma
class EulerDiffusionStep:
    def step(self, sample, denoised, sigmas: torch.Tensor, step_index: int):
        sigma = sigmas[step_index]
        return sample + to_velocity(sample, sigma, denoised) * (sigmas[step_index + 1] - sigma)
"""


def _rows(code: str, *codes: str) -> list[tuple[str, int]]:
    return sorted((f.code, f.start.row) for f in lint(code, *codes))


def test_a_guarded_tensor_branch_reads_a_tensor() -> None:
    found = lint(VELOCITY, "HTD202")
    assert [(f.start.row, f.confidence) for f in found] == [(4, "medium")]
    assert "`.item()` of `sigma.to(torch.float32)`" in found[0].message


def test_the_guard_of_no_tensor_or_a_rebinding_proves_nothing() -> None:
    code = """\
        import numpy as np
        import torch
        def to_velocity(sample, sigma: float | torch.Tensor, denoised, table):
            if isinstance(sigma, np.ndarray):
                s = sigma.item()
            if isinstance(sigma, torch.Tensor):
                sigma = table[0]
                s = sigma.item()
            if not isinstance(sigma, torch.Tensor):
                s = sigma.item()
            else:
                s = 0.0
            return (sample - denoised) / s
        class EulerDiffusionStep:
            def step(self, sample, denoised, sigmas: torch.Tensor, i: int):
                return to_velocity(sample, sigmas[i], denoised, self.table)
    """
    assert _rows(code, "HTD202") == []


def test_a_guarded_loop_item_is_a_tensor_too() -> None:
    # lerobot 0.5.1 policies/wall_x/modeling_wall_x.py:1963-1965
    code = """\
        import torch
        class Policy(torch.nn.Module):
            def forward(self, batch, channel_losses: dict):
                loss_dict = {}
                for key, value in channel_losses.items():
                    if isinstance(value, torch.Tensor):
                        loss_dict[key] = value.item()
                return loss_dict
    """
    assert _rows(code, "HTD201", "HTD202") == [("HTD202", 7)]
    assert _rows(code.replace("value.item()", "value.detach()"), "HTD201", "HTD202") == []


# mmgp 3.8.2 offload.py:2722-2808, the block loader's shape.
LOADER = """\
import torch
class Offload:
    def load_blocks(self, blocks):
        def cpu_to_gpu(stream, params):
            with torch.cuda.stream(stream):
                for p in params:
                    p.data = p.to("cuda", non_blocking=True)
        cpu_to_gpu(torch.cuda.current_stream(), blocks)
        torch.cuda.synchronize()
    def hook(self, module):
        def preload(mod, *args, **kwargs):
            self.load_blocks(mod.blocks)
        module.register_forward_pre_hook(preload)
"""


def test_copies_queued_by_a_nested_function_then_a_wait() -> None:
    found = lint(LOADER, "HTD202")
    assert [(f.start.row, f.confidence) for f in found] == [(9, "medium")]
    assert "in `cpu_to_gpu()`" in found[0].message
    assert "called from `preload()`" in found[0].message


def test_copies_queued_by_a_method_of_self_then_a_wait() -> None:
    code = """\
        import torch
        class Offload:
            def step(self, blocks):
                self._copy(blocks)
                torch.cuda.synchronize()
            def _copy(self, blocks):
                for p in blocks:
                    p.data = p.to("cuda", non_blocking=True)
    """
    assert _rows(code, "HTD202") == [("HTD202", 5)]


def test_a_helper_that_copies_to_the_host_or_nothing_keeps_the_wait_right() -> None:
    to_host = LOADER.replace('p.to("cuda", non_blocking=True)', 'p.to("cpu", non_blocking=True)')
    assert _rows(to_host, "HTD202") == []
    nothing = LOADER.replace('p.to("cuda", non_blocking=True)', "p.clone()")
    assert _rows(nothing, "HTD202") == []
    other = LOADER.replace("cpu_to_gpu(torch.cuda", "self.other.cpu_to_gpu(torch.cuda")
    assert _rows(other, "HTD202") == []  # another object's method is not followed


def test_a_hook_with_its_own_self_parameter_is_not_the_methods() -> None:
    code = LOADER.replace("def preload(mod, *args, **kwargs):", "def preload(self, *args):")
    assert _rows(code, "HTD202") == []


def test_a_field_of_a_module_output_read_with_item() -> None:
    # lerobot 0.5.1 policies/wall_x/modeling_wall_x.py:1948-1959, the model a project class
    code = """\
        import torch
        class Inner(torch.nn.Module):
            def forward(self, x):
                return x
        class Policy(torch.nn.Module):
            def __init__(self, path):
                super().__init__()
                self.model = Inner.from_pretrained(path)
            def forward(self, batch):
                outputs = self.model(**batch)
                loss = outputs.loss
                d = {"loss": loss.item()}
                d["flow_loss"] = outputs.flow_loss.item()
                return loss, d
    """
    found = lint(code, "HTD202")
    assert [(f.start.row, f.confidence) for f in found] == [(12, "medium"), (13, "medium")]
    fixed = code.replace("loss.item()", "loss.detach()").replace("flow_loss.item()", "flow_loss")
    assert _rows(fixed, "HTD202") == []


def test_a_tokenizer_output_and_metadata_fields_are_no_device_tensors() -> None:
    code = """\
        import torch
        class Policy(torch.nn.Module):
            def forward(self, text, x):
                enc = self.tokenizer(text, return_tensors="pt")
                ids = enc.input_ids.tolist()
                n = x.shape.numel()
                return ids, n
    """
    assert _rows(code, "HTD202") == []


def test_the_guard_wins_over_a_float_annotation() -> None:
    # flashinfer 0.5.0 prefill.py:207-209 (`bmm1_scale: float`), in a module's forward here
    code = """\
        import torch
        class Wrapper(torch.nn.Module):
            def forward(self, q: torch.Tensor, bmm1_scale: float, n: float):
                bmm1_scale = (
                    bmm1_scale.item() if isinstance(bmm1_scale, torch.Tensor) else bmm1_scale
                )
                m = n.item() if isinstance(n, float) else n
                return q * bmm1_scale * m
    """
    found = lint(code, "HTD202")
    assert [(f.start.row, f.confidence) for f in found] == [(5, "medium")]

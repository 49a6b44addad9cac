"""The analysis facts behind session 21's held-out precision fixes of helper heldout21
(docs/precision.md, "Session 21: held-out serving code (helper heldout21)"): each look-alike
found in code no triage had read (kt-kernel's rank-exception broadcast, Transformer Engine's
fused Adam, nvidia-modelopt's ONNX export, DeepSeek-VL2's rotary cache in xinference), and
its true twin."""

from __future__ import annotations

import textwrap

from lint_runs import lint

from h2dlint.analysis.once import onnx_export_name


def _findings(code: str, rule_code: str, path: str = "m.py") -> list[str]:
    messages = [f.message for f in lint(code, rule_code, path=path)]
    assert not any(m.startswith("SyntaxError") for m in messages), messages
    return messages


# -- a failure tail: code on the way to the raise that ends its block ------------------------
FAILURE = """
    import torch
    import torch.distributed as dist
    def sync_error(error, device, failed, items):
        if not failed:
            return
{body}
    """


def _failure(body: str) -> str:
    return FAILURE.format(body=textwrap.indent(textwrap.dedent(body), " " * 8))


def test_a_failure_tail_runs_once() -> None:
    # kt-kernel's _sync_rank0_exception: the payload is built only when a rank failed.
    tail = """
    payload = torch.tensor(list(str(error).encode()), device=device, dtype=torch.uint8)
    dist.broadcast(payload, src=0)
    message = bytes(payload.cpu().tolist()).decode()
    if error is not None:
        raise RuntimeError(message) from error
    raise RuntimeError(message)
    """
    assert not _findings(_failure(tail), "HTD106")


def test_a_failure_tail_needs_every_path_to_raise() -> None:
    # A `return` after the code: the normal path goes through it.
    returns = """
    payload = torch.tensor(list(str(error).encode()), device=device, dtype=torch.uint8)
    if error is None:
        return payload
    raise RuntimeError("failed")
    """
    assert _findings(_failure(returns), "HTD106")
    # A loop between the code and the raising block: every item runs before the raise.
    looped = """
    for item in items:
        payload = torch.tensor(list(item), device=device, dtype=torch.uint8)
        dist.broadcast(payload, src=0)
    raise RuntimeError("failed")
    """
    assert _findings(_failure(looped), "HTD106")
    # A try whose handler may catch the error and go on (a retry).
    caught = """
    try:
        payload = torch.tensor(list(str(error).encode()), device=device, dtype=torch.uint8)
        raise RuntimeError("retry")
    except RuntimeError:
        pass
    """
    assert _findings(_failure(caught), "HTD106")


# -- an ONNX export ---------------------------------------------------------------------------
def test_onnx_export_names() -> None:
    assert onnx_export_name("llm_to_onnx")
    assert onnx_export_name("export_onnx")
    assert onnx_export_name("onnx_export_model")
    assert not onnx_export_name("_check_onnx_readiness")  # modelopt: per forward
    assert not onnx_export_name("run_onnx")
    assert not onnx_export_name("export_to_video")  # diffusers: per request


EXPORT = """
    import torch
    def {name}(model, dim):
        ids = torch.randint(100, (1, 10), dtype=torch.int64).cuda()
        return model(ids)
    """


def test_an_onnx_export_makes_its_dummy_inputs_once() -> None:
    assert not _findings(EXPORT.format(name="llm_to_onnx"), "HTD301")
    assert _findings(EXPORT.format(name="llm_forward"), "HTD301")


# -- the else of a membership test that sets the entry ---------------------------------------
LAZY = """
    import torch
    class Adam(torch.optim.Optimizer):
        def step(self):
            for group in self.param_groups:
                if "step" in group:
                    group["step"] += 1
                else:
                    step_device = group["params"][0].device
                    group[{key}] = torch.tensor([1], dtype=torch.int, device=step_device)
    """


def test_the_else_of_a_membership_test_initialises_once() -> None:
    assert not _findings(LAZY.format(key='"step"'), "HTD107")
    assert _findings(LAZY.format(key='"count"'), "HTD107")


# -- a high-water mark -----------------------------------------------------------------------
ROTARY = """
    import torch
    class Rotary(torch.nn.Module):
        def __init__(self, dim, n, device=None):
            super().__init__()
            self.dim = dim
            self.limit = n
            self._set_cos_sin_cache(n, device)
        def _set_cos_sin_cache(self, seq_len, device):
            {raise_mark}
            inv = torch.arange(0, self.dim, 2).float().to(device)
            self.register_buffer("inv_freq", inv, persistent=False)
        def forward(self, x, seq_len):
            if {test}:
                self._set_cos_sin_cache(seq_len, x.device)
            return x
    """


def test_a_table_rebuilt_past_its_high_water_mark_is_not_per_forward() -> None:
    mark = "self.max_seq_len_cached = seq_len"
    for test in ("seq_len > self.max_seq_len_cached", "self.max_seq_len_cached < seq_len"):
        assert not _findings(ROTARY.format(raise_mark=mark, test=test), "HTD301")
    # The rebuild does not raise the mark it is compared with: it may run per forward.
    assert _findings(ROTARY.format(raise_mark="pass", test="seq_len > self.limit"), "HTD301")


# -- an inference session's outputs ----------------------------------------------------------
SESSION = """
    import torch
    class Extractor:
        def __call__(self, feat):
            return {call}[0].flatten().tolist()
    """


def test_an_inference_sessions_outputs_are_host_arrays() -> None:
    # xinference's speaker-embedding extractor (ONNX Runtime), TensorFlow's Session.run.
    for call in ('self.session.run(None, {"feat": feat})', 'sess.run(["y"], {"x": feat})'):
        assert not _findings(SESSION.format(call=call), "HTD202")
    # A run that is no session's (one argument, a model's output): judged as before.
    assert _findings(SESSION.format(call="self.model.run(feat)"), "HTD202")


# -- the device of a host tensor ---------------------------------------------------------------
MASK = """
    import torch
    def build_mask_matrix(seq_length, x):
        m = {made}
        return torch.arange(1, seq_length + 1).to(m.device)
    """


def test_the_device_of_a_host_tensor_is_the_host() -> None:
    # xinference's Bailing tokenizer: `m = torch.ones(...)`, then `.to(m.device)`.
    assert not _findings(MASK.format(made="torch.ones((1, seq_length))"), "HTD301")
    # A tensor on the device, or of unknown placement: its device is judged by name as before.
    assert _findings(MASK.format(made="torch.ones((1, seq_length), device='cuda')"), "HTD301")
    assert _findings(MASK.format(made="x"), "HTD301")

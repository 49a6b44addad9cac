"""The facts behind session 21's held-out rows of model code (docs/recall.md, "Session 21:
held-out rows, model code (helper recall21b)"): transformer-engine's padding mask repeats a list
by each sequence length of a device tensor; nvidia-modelopt registers a custom operator whose
kernel reads ``amax.item()``, and patches a ``forward`` onto modules through a helper; its
token indices are copied through the legacy ``torch.Tensor`` constructor and a view. Each
beside the correct look-alikes."""

from __future__ import annotations

from lint_runs import lint


def _findings(code: str, rule_code: str) -> list[tuple[int, str]]:
    return [(f.start.row, f.message) for f in lint(code, rule_code)]


def test_list_repeated_by_a_row_reads_it() -> None:
    code = """
        import torch
        class Attention(torch.nn.Module):
            def forward(self, x, cu_seqlens: torch.Tensor, max_len: int):
                seqlens = cu_seqlens[1:] - cu_seqlens[:-1]
                rows = []
                for i in range(x.shape[0]):
                    rows.append([False] * seqlens[i] + [True] * (max_len - seqlens[i]))
                return torch.tensor(rows).to(x.device)
    """
    found = _findings(code, "HTD201")
    assert [row for row, _ in found] == [8]
    assert "a row as a repeat count" in found[0][1]


def test_list_repeated_look_alikes() -> None:
    code = """
        import torch
        class Attention(torch.nn.Module):
            def forward(self, x, lengths: list[int], max_len: int, scale: torch.Tensor):
                rows = [[False] * n + [True] * (max_len - n) for n in lengths]
                scaled = [s * 2 for s in scale]
                return rows, scaled
    """
    assert _findings(code, "HTD201") == []


def test_op_kernels_are_hot() -> None:
    code = """
        import torch
        def _impl(inputs: torch.Tensor, amax: torch.Tensor):
            return quant(inputs, amax.item())
        def _host_impl(inputs: torch.Tensor, amax: torch.Tensor):
            return quant(inputs, amax.item())
        def _fake(inputs: torch.Tensor, amax: torch.Tensor):
            return quant(inputs, amax.item())
        @torch.library.custom_op("mylib::scale", mutates_args=())
        def scale(x: torch.Tensor, s: torch.Tensor) -> torch.Tensor:
            return x * s.item()
        def _registered(x: torch.Tensor, n: torch.Tensor):
            return x[: int(n)]
        torch.library.impl("trt::q", ["cpu", "cuda"])(_impl)
        torch.library.impl("trt::q_host", "cpu")(_host_impl)
        torch.library.register_fake("trt::q")(_fake)
        direct_register_custom_op("head", op_func=_registered, mutates_args=[])
    """
    found = _findings(code, "HTD202")
    assert [row for row, _ in found] == [4, 11, 13]
    assert all("custom operator" in message for _, message in found)


def test_forward_bound_by_a_helper_and_its_sibling_closures() -> None:
    code = """
        import torch
        def awq_lite(model):
            def update_loss(self, out, ref, alpha):
                self.loss[alpha] += (out - ref).pow(2).mean().item()
            def forward(self, x):
                ref = self._forward_no_awq(x)
                for alpha in self.loss:
                    update_loss(self, self._forward_no_awq(x), ref, alpha)
                return ref
            for module in model.modules():
                bind_forward_method(module, forward, "_forward_no_awq")
        def calibrate(model, data):
            def forward(batch):
                return model(batch).abs().amax().item()
            return max(map(forward, data))
    """
    found = _findings(code, "HTD202")
    assert [row for row, _ in found] == [5]


def test_legacy_constructor_and_views_before_the_move() -> None:
    code = """
        import torch
        def indices(max_seqlen: int, seqlens: list[int]):
            ids = [i * max_seqlen + k for i, n in enumerate(seqlens) for k in range(n)]
            a = torch.Tensor(ids).unsqueeze(1).to(dtype=torch.int64, device="cuda")
            b = torch.LongTensor(ids).cuda()
            c = torch.tensor(ids).view(-1, 1).to("cuda")
            d = torch.Tensor(max_seqlen).to("cuda")
            e = torch.tensor(ids).pin_memory().to("cuda", non_blocking=True)
            f = torch.LongTensor([1, 2]).cuda()  # a few bytes: as torch.tensor([1, 2]).cuda()
            return a, b, c, d, e, f
    """
    found = _findings(code, "HTD301")
    assert [row for row, _ in found] == [5, 6, 7]


def test_a_default_says_what_a_missing_value_is() -> None:
    code = """
        import torch
        from torch.autograd import Function
        def fp8_gemm(quant_module, input, bias=None):
            input_amax = quant_module.input_quantizer.amax
            if input_amax is None:
                input_amax = input.abs().amax()
            if input_amax == 0:
                return input
            return input / input_amax
        def scaled(module, x, fallback: float):
            scale = module.scale
            if scale is None:
                scale = fallback
            if scale == 0:
                return x
            other = module.other
            if other is None:
                other = x.abs().amax()
            else:
                other = other * 2
            if module.flag is None:
                other = x.sum()
            return x / scale
        class Fp8Linear(Function):
            @staticmethod
            def forward(ctx, quant_module, input_tensor, weight, bias=None):
                out = fp8_gemm(quant_module, input_tensor, bias)
                return out + scaled(quant_module, weight, 1.0)
    """
    found = _findings(code, "HTD202")
    assert [row for row, _ in found] == [8]

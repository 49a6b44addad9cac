"""The analysis facts behind session 17's held-out precision fixes (docs/precision.md,
"Session 17"): each look-alike found in code no triage had read, and its true twin."""

from __future__ import annotations

from lint_runs import lint


def _findings(code: str, rule_code: str, path: str = "m.py") -> list[str]:
    return [f.message for f in lint(code, rule_code, path=path)]


LIKE = """
    import torch
    class Runner(torch.nn.Module):
        def step(self, x, heads, device):
            made = [{item} for _ in heads]
            return [m.to(device) for m in made]
    """


def test_items_made_like_another_tensor_follow_it() -> None:
    assert not _findings(LIKE.format(item="x.new_zeros(4)"), "HTD101")
    assert not _findings(LIKE.format(item="torch.empty_like(x)"), "HTD101")
    # Asked for the host explicitly, or made like a host tensor: host items, moved one by one.
    assert _findings(LIKE.format(item='torch.zeros_like(x, device="cpu")'), "HTD101")
    assert _findings(LIKE.format(item="torch.tensor(heads).new_zeros(4)"), "HTD101")
    # A list filled with a processor's output is host data, not a model's output.
    filled = """
        import torch
        class Runner(torch.nn.Module):
            def step(self, images, device):
                parts = []
                for im in images:
                    parts.append(self.image_processor(im))
                return [p.to(device) for p in parts]
        """
    assert _findings(filled, "HTD101")


BACKEND = """
    import torch
    class Backend:
        def forward(self, im: torch.Tensor):
            {body}
    """


def test_an_input_handed_to_numpy_is_left_alone_unless_it_returns_to_torch() -> None:
    assert not _findings(BACKEND.format(body="return self.net.run(im.cpu().numpy())"), "HTD202")
    # Rebound to a computed value first: no longer the caller's tensor.
    computed = "im = im * 255\n            return self.net.run(im.cpu().numpy())"
    assert _findings(BACKEND.format(body=computed), "HTD202")
    # Handed back to PyTorch through its name.
    back = "n = im.cpu().numpy()\n            return torch.as_tensor(n)"
    assert _findings(BACKEND.format(body=back), "HTD202")


REPAIR = """
    import torch
    class Loss(torch.nn.Module):
        def forward(self, x):
            loss = self.f(x)
            if loss.item() > 1.0:
                {report}
                {repair}
            return loss
    """


def test_a_repair_after_a_report_is_no_step() -> None:
    repair = "loss = torch.tensor(1.0, device=loss.device)"
    assert not _findings(REPAIR.format(report='print("out of range")', repair=repair), "HTD107")
    # No report first, or a different name rebound: it may run every step. (Since session 18
    # a constant right after a test that read a tensor, ``loss.item()``, is not reported at
    # all: the stream is drained. So the twins queue device work first.)
    work = "x = self.f(x)"
    assert _findings(REPAIR.format(report=work, repair=repair), "HTD107")
    other = "scale = torch.tensor(1.0, device=loss.device)"
    warned = f'print("out of range")\n                {work}'
    assert _findings(REPAIR.format(report=warned, repair=other), "HTD107")


def test_testing_assertions_are_checks() -> None:
    code = """
        import torch
        class M(torch.nn.Module):
            def forward(self, x):
                y = self.f(x)
                torch.testing.assert_close(y.cpu(), x.cpu())
                return y
        """
    assert not _findings(code, "HTD202")
    assert _findings(code.replace("torch.testing.assert_close", "self.compare"), "HTD202")

"""Session 36's precision fixes (helper precision36, docs/precision.md, "Session 36
(precision36)"): HIGH confidence only where its facts are proven. HTD202 leaves an offload
a setting asks for alone (``analysis/optional_offloads.py``: BasicVSR++'s ``cpu_cache``) and
reports a ``forward`` returning its output on the host at MEDIUM (``analysis/returned_copies.py``: a
vocoder's waveform, a TTS model's audio)."""

from __future__ import annotations

from lint_runs import lint

from h2dlint.diagnostics import Confidence


def _levels(code: str, rule: str) -> list[tuple[int, Confidence]]:
    return [(f.start.row, f.confidence) for f in lint(code, rule)]


def test_an_offload_a_setting_asks_for_is_left_alone() -> None:
    code = """
        import torch
        class Restorer(torch.nn.Module):
            def forward(self, x, offload: bool):
                flows = self.spynet(x.cuda())
                if self.cpu_cache:
                    flows = flows.cpu()
                if not offload:
                    other = flows.cpu()
                if offload:
                    pass
                else:
                    flows = flows.cpu()
                return flows
    """
    # the copy bound to another name, and the one with an ``else``, stay reported
    assert [row for row, _ in _levels(code, "HTD202")] == [9, 13]


def test_an_unconditional_or_computed_host_copy_stays_reported() -> None:
    code = """
        import torch
        class Restorer(torch.nn.Module):
            def forward(self, x):
                flows = self.spynet(x.cuda())
                flows = flows.cpu()
                return flows

            def step(self, x):
                flows = self.spynet(x.cuda())
                if len(x) > 10:
                    flows = flows.cpu()
                return flows
    """
    assert [row for row, _ in _levels(code, "HTD202")] == [6, 12]


def test_a_forward_returning_its_output_on_the_host_is_medium() -> None:
    code = """
        import torch
        class Vocoder(torch.nn.Module):
            def forward(self, mel):
                wave = self.conv(mel.cuda())
                return torch.clamp(wave, -1, 1).squeeze().cpu()

        class Speaker(torch.nn.Module):
            def forward(self, ids):
                audio = self.decode(ids.cuda())
                audio = audio.squeeze().cpu()
                return self.Output(audio=audio) if self.full else audio

        class Sampler(torch.nn.Module):
            def forward(self, logits):
                ids = logits.cuda().argmax(-1)
                ids = ids.cpu()
                self.history.append(ids)
                return ids
    """
    assert _levels(code, "HTD202") == [
        (6, Confidence.MEDIUM),
        (11, Confidence.MEDIUM),
        (17, Confidence.HIGH),  # read by more than the return
    ]


def test_a_loop_over_a_submodule_output_is_medium_for_htd201() -> None:
    """Session 39 (reads39): the comprehension that only copies each output to the host (line
    15) is no longer reported: nothing is queued between its copies. One that computes on each
    output before reading it stays MEDIUM; the rows of one tensor stay HIGH."""
    code = """
        import numpy as np
        import torch
        class Net(torch.nn.Module):
            def forward(self, x):
                return [x, x[:, :1]]

        class Hed:
            def __init__(self):
                self.network = Net()

            def run(self, image):
                x = torch.from_numpy(image).float().to("cuda")
                edges = self.network(x)
                side = [e.detach().cpu().numpy() for e in edges]
                scores = torch.sigmoid(x)
                rows = [s.cpu().numpy() for s in scores]
                kept = [(e > 0.5).sum().item() for e in edges]
                return side, rows, kept
    """
    found = lint(code, "HTD201")
    assert [(f.start.row, f.confidence) for f in found] == [
        (17, Confidence.HIGH),  # the rows of one tensor
        (18, Confidence.MEDIUM),
    ]
    assert "certain if `self.network(...)` returns one tensor" in found[1].message


def test_a_host_copy_a_return_reads_as_a_size_stays_high() -> None:
    """Lead's mend: read in the ``return`` as a slice bound or an operand, the copy is a read of
    the values (a size the host needs), not the output handed over (recall34's cdiv test)."""
    code = """
        import torch
        class Trim(torch.nn.Module):
            def forward(self, x, lens):
                n = lens.cuda().max().item()
                return x[:n]

        class Scale(torch.nn.Module):
            def forward(self, x):
                return x * x.cuda().abs().max().item()
    """
    assert _levels(code, "HTD202") == [(5, Confidence.HIGH), (10, Confidence.HIGH)]

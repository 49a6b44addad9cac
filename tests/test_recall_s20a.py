"""The fact behind session 20's held-out serving rows (docs/recall.md, "Session 20: held-out
rows, serving (helper recall20a)"): ``Tensor.pin_memory()`` returns a pinned copy, so one whose
result is thrown away leaves the tensor pageable (HTD102), beside the correct look-alikes."""

from __future__ import annotations

from lint_runs import lint

from h2dlint.diagnostics import Confidence


def _findings(code: str, rule_code: str = "HTD102") -> list[tuple[int, str, Confidence]]:
    return [(f.start.row, f.message, f.confidence) for f in lint(code, rule_code)]


# airllm 2.11's layer prefetcher (held-out positive) and 3.2's fix (its look-alike).
PREFETCH = """
    import torch
    def load_layer(state_dict, prefetching):
        if prefetching and torch.cuda.is_available():
            for k in state_dict.keys():
                state_dict[k]{kept}.pin_memory()
        return state_dict
"""


def test_dropped_pin_of_a_dict_item_is_reported_medium() -> None:
    found = _findings(PREFETCH.format(kept=""))
    assert [(row, conf) for row, _, conf in found] == [(6, Confidence.MEDIUM)]
    assert "`state_dict[k]` stays in pageable memory" in found[0][1]


def test_kept_pinned_copy_is_silent() -> None:
    assert _findings(PREFETCH.format(kept=" = state_dict[k]")) == []


def test_dropped_pin_of_an_annotated_tensor_is_high() -> None:
    code = """
        import torch
        def upload(scale: torch.Tensor, device):
            scale.pin_memory()
            return scale.to(device, non_blocking=True)
    """
    assert [(row, conf) for row, _, conf in _findings(code)] == [(4, Confidence.HIGH)]


def test_custom_in_place_pin_memory_and_self_are_silent() -> None:
    custom = """
        class Batch:
            def __init__(self, inp):
                self.inp = inp
            def pin_memory(self):
                self.inp = self.inp.pin_memory()
                return self
        def pin(batch):
            batch.pin_memory()
            return batch
    """
    assert _findings(custom) == []
    own = """
        class Holder:
            def prepare(self, td):
                self.pin_memory()
                td.pin_memory(inplace=True)
    """
    assert _findings(own) == []


def test_pinned_copy_used_as_a_value_is_silent() -> None:
    code = """
        import torch
        def stage(xs, device):
            out = [x.pin_memory() for x in xs]
            send(xs[0].pin_memory())
            return out
    """
    assert _findings(code) == []

"""The analysis fact behind session 31's held-out triage (docs/precision.md, "Session 31
(triage31)"): an argument passed by a call inside a nested function (a ``forward`` defined
inside the function that installs it, a closure) is read in that nested function when it reads
a name the nested function binds itself. AReaL's vision sequence-parallel patch copies
``grid_thw`` to the host once (``grid_thw_cpu = grid_thw.cpu()``) and hands the copy to module
helpers; the helpers' ``.tolist()``, ``torch.tensor(..., device=grid_thw.device)`` and
``.item()`` were read as device work because the copy's name was looked up in the installer
around the forward, where it is not bound. Each case comes with its twin that must keep its
verdict."""

from __future__ import annotations

from lint_runs import lint

HELPERS = """
    import torch
    def _patch_counts(grid_thw):
        return (grid_thw[:, 0] * grid_thw[:, 1]).tolist()
    def _local_inputs(pixels, grid_thw, first):
        counts = torch.tensor(_patch_counts(grid_thw), device=grid_thw.device)
        offsets = torch.cumsum(counts, dim=0)
        return pixels[offsets[first].item():]
"""


ORIGINAL = "        original_forward = model_cls.forward\n"
DEVICE_GRID = '        grid_dev = torch.ones(2, 3, device="cuda")\n'


def _rows(code: str, rule_code: str) -> list[int]:
    return [f.start.row for f in lint(code, rule_code)]


def _patched(body: str) -> str:
    return (
        HELPERS
        + """
    def apply_patch(model_cls, device):
        original_forward = model_cls.forward
        def sharded_forward(self, hidden_states, grid_thw):
"""
        + body
        + """
            return original_forward(self, local, grid_thw), total
        model_cls.forward = sharded_forward
"""
    )


HOST_COPY = """
            grid_thw_cpu = grid_thw.cpu()
            total = sum(_patch_counts(grid_thw_cpu))
            local = _local_inputs(hidden_states, grid_thw_cpu, 0)
"""


def test_a_host_copy_made_in_a_nested_forward_reaches_its_helpers_as_host_data() -> None:
    code = _patched(HOST_COPY)
    # Only the deliberate copy itself is left (row 14: the forward's `.cpu()`, medium).
    assert _rows(code, "HTD202") == [14]


def test_a_device_copy_made_in_a_nested_forward_stays_device_data() -> None:
    """The twin: the copy is made on the device; every helper read syncs."""
    code = _patched(HOST_COPY.replace("grid_thw.cpu()", 'grid_thw.to("cuda")'))
    assert _rows(code, "HTD202") == [4, 8]


def test_a_closure_name_is_read_in_the_function_around_the_nested_one() -> None:
    """A name the installer binds (a free name of the nested forward) is the installer's: the
    nested function does not bind it, so the argument is read where it was (a device grid made
    once by the installer, read per call by the helper)."""
    code = _patched(
        """
            total = sum(_patch_counts(grid_dev))
            local = _local_inputs(hidden_states, grid_dev, 0)
"""
    ).replace(ORIGINAL, ORIGINAL + DEVICE_GRID)
    assert _rows(code, "HTD202") == [4, 8]


def test_an_argument_mixing_the_nested_and_the_outer_names_is_read_as_before() -> None:
    """``_patch_counts(grid_thw_cpu + grid_dev)`` reads the installer's device grid too: it is
    left to the installer's frame, where it was read before the change, with the same findings
    (main dccb259 reports only the forward's ``.cpu()`` here too)."""
    code = _patched(
        """
            grid_thw_cpu = grid_thw.cpu()
            total = sum(_patch_counts(grid_thw_cpu + grid_dev))
            local = hidden_states
"""
    ).replace(ORIGINAL, ORIGINAL + DEVICE_GRID)
    assert _rows(code, "HTD202") == [15]

"""The analysis facts behind session 34's precision fixes (docs/precision.md, "Session 34
(precision34b)"), each with its twin that must keep its verdict:

- an attribute whose every assignment in its class is a numpy array (a parameter annotated as
  one, ``np.reshape`` of it) is numpy data, as a name bound only to numpy arrays is (d3rlpy's
  ``EpisodeGenerator``);
- HTD107 leaves alone a constant made on an unknown device in a module named for a dataset
  (stable-audio-tools' ``data/dataset.py``), as HTD201 and HTD301 already do."""

from __future__ import annotations

from lint_runs import lint

GENERATOR = """
    import numpy as np
    import torch
    class EpisodeGenerator:
        def __init__(self, rewards, terminals: {annotation}):
            self._rewards = rewards
            self._terminals = {value}
        def __call__(self):
            episodes, start = [], 0
            for i in range(self._terminals.shape[0]):
                if self._terminals[i]:
                    episodes.append((self._rewards[start : i + 1], bool(self._terminals[i])))
                    start = i + 1
            return episodes
        {extra}
"""


def _generator_rows(annotation: str, value: str = "terminals", extra: str = "") -> list[int]:
    code = GENERATOR.format(annotation=annotation, value=value, extra=extra)
    return [f.start.row for f in lint(code, "HTD201")]


def test_an_attribute_assigned_only_numpy_arrays_is_numpy_data() -> None:
    assert _generator_rows("np.ndarray") == []
    assert _generator_rows("np.ndarray", "np.reshape(terminals, [-1])") == []
    assert _generator_rows("torch.Tensor", "terminals.numpy()") == []
    # Also reset to None somewhere (an optional array): None says nothing either way.
    reset = "def reset(self):\n            self._terminals = None"
    assert _generator_rows("np.ndarray", extra=reset) == []


def test_an_attribute_that_may_hold_a_tensor_stays_reported() -> None:
    # Both reads of the row: `bool()` on line 12 and the `if`'s truth value on line 11.
    assert _generator_rows("torch.Tensor") == [12, 11]
    assert _generator_rows("torch.Tensor", "terminals.reshape(-1)") == [12, 11]
    # Also assigned a tensor in another method: not only numpy arrays (the `if` of a row that
    # may be numpy is no read: a truth value needs a tensor surely).
    moved = "def to(self, device):\n            self._terminals = torch.as_tensor(self._terminals)"
    assert _generator_rows("np.ndarray", extra=moved) == [12]
    # Also assigned something unknown (a call's result): not known to be numpy.
    loaded = "def load(self, f):\n            self._terminals = f.read_terminals()"
    assert _generator_rows("np.ndarray", extra=loaded) == [12]


TRIM = """
    import torch
    def trim_silence(audio, threshold: float):
        mask = torch.abs(audio) < threshold
        starts = torch.where(torch.diff(mask.int()) == 1)[0] + 1
        if mask[0]:
            starts = torch.cat((torch.tensor([0], device=starts.device), starts))
        return starts
"""


def test_a_constant_in_a_dataset_module_is_left_alone() -> None:
    for path in ("pkg/data/dataset.py", "pkg/audio_dataset.py", "pkg/data/collate_fns.py"):
        assert lint(TRIM, "HTD107", path=path) == [], path


def test_the_same_constant_elsewhere_stays_reported() -> None:
    for path in ("m.py", "pkg/data/utils.py", "pkg/models/audio.py"):
        assert [f.start.row for f in lint(TRIM, "HTD107", path=path)] == [7], path

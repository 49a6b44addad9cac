"""Session 37's precision fixes (helper precision37, docs/precision.md, "Session 37
(precision37)"): HTD202 leaves alone a host copy that becomes the numpy array its function
declares it returns (``analysis/numpy_outputs.py``), and a host-in, host-out method of a plain
class besides its ``__call__`` (``analysis/host_io_calls.py``: iopaint's infill models)."""

from __future__ import annotations

import textwrap

import libcst as cst
from lint_runs import lint

from h2dlint.analysis.numpy_outputs import declared_numpy_output, numpy_annotation


def _rows(code: str) -> list[int]:
    return [f.start.row for f in lint(code, "HTD202")]


def _annotation(text: str) -> bool:
    return numpy_annotation(cst.parse_expression(text))


def test_numpy_annotations() -> None:
    for text in (
        "np.ndarray",
        "NDArray[np.float32]",
        "npt.NDArray",
        "tuple[np.ndarray, float]",
        "Optional[np.ndarray]",
        "np.ndarray | None",
        "'np.ndarray'",
        "Tuple[np.ndarray, Optional[str]]",
    ):
        assert _annotation(text), text
    for text in (
        "torch.Tensor",
        "list[int]",
        "Iterator[np.ndarray]",
        "Generator[np.ndarray, None, None]",
        "Iterator[tuple[np.ndarray, torch.Tensor]]",
        "Callable[[int], np.ndarray]",
        "'Iterator[np.ndarray]'",
    ):
        assert not _annotation(text), text


def test_a_declared_numpy_result_is_the_output() -> None:
    code = """
        import numpy as np
        import torch
        class Predictor:
            def step(self, obs: torch.Tensor) -> np.ndarray:
                action = self.policy(obs.to("cuda"))
                return action.cpu().numpy()
        class Sampler:
            def sample(self, logits: torch.Tensor) -> list[int]:
                return torch.argmax(logits.to("cuda"), -1).cpu().tolist()
        class Counter:
            def step(self, logits: torch.Tensor) -> np.ndarray:
                ids = torch.argmax(logits.to("cuda"), -1)
                n = ids.cpu()
                return np.zeros(int(n.sum()))
    """
    # the ``list[int]`` sampler stays; so does a copy that never becomes the array
    assert _rows(code) == [10, 14]


def test_a_torch_module_forward_returning_numpy_stays_reported() -> None:
    code = """
        import numpy as np
        import torch
        class Policy(torch.nn.Module):
            def forward(self, obs: torch.Tensor) -> np.ndarray:
                action = self.net(obs.to("cuda"))
                action.cpu().numpy()
                return action.cpu().numpy()
    """
    # Session 38 (outputs38b): the returned copy (row 8), of a tensor on an unknown device,
    # is the request's output as numpy (analysis/request_outputs.py); the unused one stays.
    assert _rows(code) == [7]


def test_a_host_in_host_out_method_of_a_plain_class() -> None:
    code = """
        import numpy as np
        import torch
        class InpaintModel:
            def forward(self, image):
                x = torch.from_numpy(image).to(self.device)
                out = self.model(x)
                return out[0].permute(1, 2, 0).clamp(0, 1).cpu().numpy()
        class Refiner:
            def forward(self, x):
                out = self.model(x.to(self.device))
                return out.cpu().numpy()
        class Tiler:
            def forward(self, image, tiles):
                x = torch.from_numpy(image).to(self.device)
                for t in tiles:
                    out = self.model(x[t])
                    self.queue.put(out.cpu().numpy())
    """
    # The per-tile copies run in a loop: they stay. ``Refiner`` makes no host input, but since
    # session 38 (outputs38b) its copy, returned as numpy, is an output (request_outputs.py).
    assert _rows(code) == [18]


def test_a_copy_handed_to_matplotlib_is_a_plot() -> None:
    code = """
        import matplotlib.pyplot as plt
        import torch
        class Sampler(torch.nn.Module):
            def forward(self, x):
                for t in range(10):
                    x = self.step(x.cuda(), t)
                    plt.plot(x.detach().cpu().numpy()[0, 0, ::100], color="blue")
                    plt.imshow(x.cpu()[0])
                    arr = x.cpu().numpy()
                    plt.plot(arr)
                    self.draw(x.cpu().numpy())
                return x
    """
    # a copy bound to a name first, or handed to the project's own helper, stays
    assert _rows(code) == [10, 12]


def test_a_round_trip_through_a_host_library_stays_reported() -> None:
    code = """
        import cv2
        import torch
        class HeadRecon:
            def forward(self):
                blur = self.offset[0].detach().cpu().numpy()
                blur = cv2.blur(blur, (15, 15))
                self.offset = torch.from_numpy(blur).float().to(self.device)
            def step(self, x):
                return torch.from_numpy(cv2.blur(self.model(x).cpu().numpy(), (3, 3)))
    """
    assert _rows(code) == [6, 10]


def _copies_declared(code: str) -> list[bool]:
    """``declared_numpy_output`` of every ``.cpu()`` call of ``code``, in order."""
    module = cst.parse_module(textwrap.dedent(code))
    found: list[bool] = []

    class Copies(cst.CSTVisitor):
        def __init__(self) -> None:
            self.stack: list[cst.CSTNode] = []

        def on_visit(self, node: cst.CSTNode) -> bool:
            func = node.func if isinstance(node, cst.Call) else None
            if isinstance(func, cst.Attribute) and func.attr.value == "cpu":
                assert isinstance(node, cst.Call)
                found.append(declared_numpy_output(self.stack, node))
            self.stack.append(node)
            return True

        def on_leave(self, original_node: cst.CSTNode) -> None:
            self.stack.pop()

    module.visit(Copies())
    return found


def test_a_declared_numpy_result_copied_per_iteration_is_no_output() -> None:
    code = """
        import numpy as np
        class Generator:
            def generate(self, ids, n) -> np.ndarray:
                for _ in range(n):
                    ids = self.model(ids).argmax(-1)
                    tok = ids.cpu().numpy()
                    if tok[0] == self.eos:
                        break
                return ids.cpu().numpy()
    """
    assert _copies_declared(code) == [False, True]

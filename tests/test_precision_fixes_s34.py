"""Session 34 (precision34): helpers of host-in, host-out ``__call__``s (ControlNet's
annotators) run once per request (docs/precision.md, "Session 34 (precision34)"), each with its
true twins. The helpers live in other modules of the package, so the facts need the project
index: they are checked on small projects written to disk."""

from __future__ import annotations

from pathlib import Path

from lint_runs import lint_project, write_files

HELPER = """
import numpy as np
import torch
import cv2
def estimate(image, model):
    x = torch.from_numpy(image).unsqueeze(0).to("cuda")
    with torch.no_grad():
        depth = model(x)
    depth = depth.squeeze().cpu().numpy()
{tail}
    return cv2.resize(depth, (image.shape[1], image.shape[0]))
"""
DETECTOR = """
import numpy as np
import torch
from PIL import Image
from pkg.depth import estimate
class {header}:
    def __call__(self, input_image, scales=(1,)):
        image = np.array(input_image, dtype=np.uint8)
{body}
        return Image.fromarray(depth)
"""
ONCE = "        depth = estimate(image, self.model)"
PER_SCALE = "        for s in scales:\n            depth = estimate(image[::s, ::s], self.model)"
# A loop of host work only (MLSD's walk over the decoded line centres).
HOST_LOOP = "    lines = [int(p) for p in np.round(depth[0])]\n    depth = depth + len(lines)"
# A loop that runs the model per patch (LeReS's boost, SAM's point batches).
MODEL_LOOP = "    for patch in np.split(image, 2):\n        model(torch.from_numpy(patch).cuda())"


def _reported(
    tmp_path: Path, body: str = ONCE, tail: str = "", header: str = "DepthDetector"
) -> int:
    files = {
        "pkg/__init__.py": "",
        "pkg/depth.py": HELPER.format(tail=tail),
        "pkg/detector.py": DETECTOR.format(header=header, body=body),
    }
    write_files(tmp_path, files)
    return len(lint_project(tmp_path, "HTD202", target="pkg/depth.py"))


def test_an_annotator_helper_called_once_per_request_is_not_hot(tmp_path: Path) -> None:
    assert _reported(tmp_path / "a") == 0
    # A loop of host post-processing in the helper runs no model.
    assert _reported(tmp_path / "b", tail=HOST_LOOP) == 0


def test_a_helper_run_per_scale_or_looping_over_the_model_stays_reported(
    tmp_path: Path,
) -> None:
    assert _reported(tmp_path / "a", body=PER_SCALE) == 1
    assert _reported(tmp_path / "b", tail=MODEL_LOOP) == 1
    # A torch module's ``__call__`` is its forward's: it runs per step.
    assert _reported(tmp_path / "c", header="DepthDetector(torch.nn.Module)") == 1


def test_a_call_that_takes_tensors_is_no_request_boundary(tmp_path: Path) -> None:
    files = {
        "pkg/__init__.py": "",
        "pkg/depth.py": HELPER.format(tail=""),
        "pkg/detector.py": (
            "from pkg.depth import estimate\n"
            "class Refiner:\n"
            "    def __call__(self, image):\n"
            "        return estimate(image, self.model)\n"
        ),
    }
    write_files(tmp_path, files)
    assert len(lint_project(tmp_path, "HTD202", target="pkg/depth.py")) == 1

"""Session 28 (callers28): a parameter placed by the calls of its function in other modules.

The project's ``passes`` summary part (``h2dlint/project/passed_args.py``) records, per call, what
each argument is as far as the calling module alone can tell (numpy, Python data, a host
tensor, pinned, the accelerator); argument flow (``analysis/argument_flow.passed``) joins them
with the function's own module's calls when every call of the function in the project is known
(``project/passed_sites.py``): a method called through ``self.`` in another module resolves to
that module's class, not to every class with a method of that name.

Also: a parameter annotated as a sequence of numpy arrays (``logi_points: List[np.ndarray]``)
is host data, as one annotated ``np.ndarray`` is.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import ClassVar

import libcst as cst
import pytest

from h2dlint.analysis.provenance import Provenance
from h2dlint.engine import EnabledRule, check_text
from h2dlint.project.passed_args import passed_arguments
from h2dlint.rule import Rule

ROOT = Path(__file__).resolve().parent.parent


def _check(
    tmp_path: Path, files: dict[str, str], cache: bool = False
) -> list[tuple[str, int, str, str]]:
    for name, text in {"pkg/__init__.py": "", **files}.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    command = ["check", "-j", "1", "--select", "ALL", "--exit-zero"]
    command += ["--cache-dir", str(tmp_path / "cache")] if cache else ["--no-cache"]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "h2dlint", *command, "--output-format", "json", "pkg"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    return sorted(
        (
            r["filename"].rsplit("/", 1)[-1],
            r["location"]["row"],
            r["code"],
            r.get("confidence") or "",
        )
        for r in json.loads(proc.stdout)
    )


# A visualizer's boxes drawn one by one: per-row reads of a parameter (HTD201 MEDIUM when
# nothing says where the boxes are).
_DRAW = """
    def draw(image, boxes):
        for i in range(boxes.shape[0]):
            image.rect(int(boxes[i][0]), int(boxes[i][1]))
        return image
"""


def _rows(found: list[tuple[str, int, str, str]]) -> list[tuple[str, int, str, str]]:
    return [f for f in found if f[0] == "draw.py"]


def test_host_arrays_from_every_caller_in_other_modules(tmp_path: Path) -> None:
    found = _check(
        tmp_path,
        {
            "pkg/draw.py": _DRAW,
            "pkg/a.py": """
                from pkg.draw import draw
                def show(x, image):
                    boxes = x.cpu().numpy()
                    return draw(image, boxes)
            """,
            "pkg/b.py": """
                import numpy as np
                from pkg import draw as drawing
                def show(image, n):
                    return drawing.draw(image, np.zeros((n, 4)))
            """,
        },
    )
    assert _rows(found) == []


def test_a_cached_answer_is_refreshed_when_a_caller_changes(tmp_path: Path) -> None:
    host = """
        from pkg.draw import draw
        def show(x, image):
            return draw(image, x.cpu().numpy())
    """
    assert _rows(_check(tmp_path, {"pkg/draw.py": _DRAW, "pkg/a.py": host}, cache=True)) == []
    assert _rows(_check(tmp_path, {}, cache=True)) == []  # warm: the stored parts
    device = host.replace("x.cpu().numpy()", "x.cuda()")
    found = _check(tmp_path, {"pkg/a.py": device}, cache=True)
    assert _rows(found) == [("draw.py", 4, "HTD201", "high")]


def test_a_caller_passing_a_device_tensor_keeps_it(tmp_path: Path) -> None:
    found = _check(
        tmp_path,
        {
            "pkg/draw.py": _DRAW,
            "pkg/a.py": """
                from pkg.draw import draw
                def show(x, image):
                    return draw(image, x.cuda())
            """,
        },
    )
    # Every call passes a tensor on the accelerator: a sync per row, HIGH.
    assert _rows(found) == [("draw.py", 4, "HTD201", "high")]


def test_callers_that_disagree_keep_it(tmp_path: Path) -> None:
    found = _check(
        tmp_path,
        {
            "pkg/draw.py": _DRAW,
            "pkg/a.py": """
                from pkg.draw import draw
                def show(x, image):
                    return draw(image, x.cpu().numpy())
            """,
            "pkg/b.py": """
                from pkg.draw import draw
                def show(model, image):
                    return draw(image, model(image))
            """,
        },
    )
    assert _rows(found) == [("draw.py", 4, "HTD201", "medium")]


def test_a_public_function_without_callers_keeps_it(tmp_path: Path) -> None:
    found = _check(tmp_path, {"pkg/draw.py": _DRAW})
    assert [f[:3] for f in _rows(found)] == [("draw.py", 4, "HTD201")]


def test_a_call_through_an_unknown_object_of_a_method_keeps_it(tmp_path: Path) -> None:
    # ``tool.draw(...)`` in a module that names the class: the object may be a ``Drawer``.
    found = _check(
        tmp_path,
        {
            "pkg/draw.py": """
                class Drawer:
                    def draw(self, image, boxes):
                        for i in range(boxes.shape[0]):
                            image.rect(int(boxes[i][0]), int(boxes[i][1]))
                        return image
                    def show(self, x, image):
                        return self.draw(image, x.cpu().numpy())
            """,
            "pkg/a.py": """
                from pkg.draw import Drawer
                def make():
                    return Drawer()
                def show(tool, x, image):
                    return tool.draw(image, x)
            """,
        },
    )
    assert [f[:3] for f in _rows(found)] == [("draw.py", 5, "HTD201")]


def test_a_method_of_the_same_name_in_another_class_is_no_caller(tmp_path: Path) -> None:
    # pytorch-forecasting: two data modules, each calling its own ``self._create_windows``;
    # the first one's rows are host tensors (its own ``setup`` passes slices of a randperm).
    found = _check(
        tmp_path,
        {
            "pkg/draw.py": """
                import torch
                class Drawer:
                    def setup(self, n, image):
                        self.order = torch.randperm(n).reshape(-1, 2)
                        return self._draw(image, self.order)
                    def _draw(self, image, boxes):
                        for i in range(boxes.shape[0]):
                            image.rect(int(boxes[i][0]), int(boxes[i][1]))
                        return image
            """,
            "pkg/other.py": """
                class Other:
                    def _draw(self, image, boxes):
                        return image
                    def show(self, model, image):
                        return self._draw(image, model(image))
            """,
            "pkg/sub.py": """
                from pkg.draw import Drawer
                class Sub(Drawer):
                    def show(self, model, image):
                        return self._draw(image, model(image))
            """,
        },
    )
    # ``Sub`` inherits ``_draw`` and passes what a model returns: the rows stay reported.
    assert [f[:3] for f in _rows(found)] == [("draw.py", 9, "HTD201")]
    del found
    (tmp_path / "pkg" / "sub.py").unlink()
    found = _check(tmp_path, {})
    assert _rows(found) == []


def test_the_summary_places_what_one_module_can_tell() -> None:
    tree = ast.parse(
        textwrap.dedent(
            """
            import numpy as np
            import torch
            from pkg.draw import draw
            def f(x, model, n, device):
                order = torch.randperm(n)
                pinned = torch.empty(n, pin_memory=True)
                later = model(x)
                draw(np.ones(3), x.cpu(), x.cuda(), order, pinned, [1, 2], None, later, x,
                     x.to(device), x.to("cuda"), torch.zeros(n, device="cuda"), *x)
                for y in x:
                    draw(y, boxes=order.numpy(), **n)
                later = x.cpu()
            """
        )
    )
    part = passed_arguments(tree)
    calls = part["calls"]["draw"]
    assert calls[0][:4] == ["draw", 9, False, "ncdcpl0???dd*"]
    assert calls[1][3:] == ["?", "boxes=n,**=*"]


class _HostDataProbe(Rule):
    """## What it does
    Test rule recording whether `probe(x)`'s argument is host data."""

    code = "HTD982"
    name = "host-data-probe"
    message = "probe"
    answers: ClassVar[list[bool]] = []

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value == "probe":
            provenance = Provenance.of(self.context)
            frame = provenance.current_frame()
            type(self).answers.append(provenance.is_host_data(node.args[0].value, frame))


@pytest.mark.parametrize(
    ("annotation", "rebound", "expected"),
    [
        ("List[np.ndarray]", False, True),  # mineru's table recogniser: logi_points
        ("list[npt.NDArray[np.float32]]", False, True),
        ("Sequence[np.ndarray]", False, True),
        ("tuple[np.ndarray, ...]", False, True),
        ("Optional[List[np.ndarray]]", False, True),
        ("List[torch.Tensor]", False, False),
        ("List", False, False),
        ("Dict[str, np.ndarray]", False, False),
        ("List[np.ndarray]", True, False),  # rebound to what a model returns
    ],
)
def test_a_parameter_annotated_as_numpy_arrays_is_host_data(
    annotation: str, rebound: bool, expected: bool
) -> None:
    _HostDataProbe.answers = []
    code = (
        "from collections.abc import Sequence\n"
        "from typing import Dict, List, Optional\n"
        "import numpy as np\n"
        "import numpy.typing as npt\n"
        "import torch\n"
        f"def step(model, points: {annotation}):\n"
        + ("    points = model(points)\n" if rebound else "")
        + "    probe(points)\n"
    )
    assert check_text(code, "m.py", (EnabledRule(_HostDataProbe),)) == []
    assert _HostDataProbe.answers == [expected]

"""Session 33 (precision33): code that runs only in Ray actors declared without GPUs
(docs/precision.md, "Session 33 (precision33)"), each fact with its true twin. The facts need
the project index (every subclass and creation site of a class), so they are checked on small
projects written to disk."""

from __future__ import annotations

from pathlib import Path

from lint_runs import lint, lint_project, write_files

BASE = """
import torch
class BaseTrainer:
    def train_step(self, experiences):
        rewards = torch.cat([e.reward for e in experiences])
        return {"reward_mean": rewards.float().mean().item()}
"""
ACTOR = """
import ray
from pkg.base import BaseTrainer
@ray.remote{args}
class Trainer(BaseTrainer):
    def fit(self):
        for batch in self.batches:
            self.train_step(batch)
"""
DRIVER = """
import ray
from pkg.actor import Trainer
def main():
    trainer = {creation}
    ray.get(trainer.fit.remote())
"""


def _reported(
    tmp_path: Path, args: str = "", creation: str = "Trainer.remote()", **more: str
) -> int:
    files = {
        "pkg/__init__.py": "",
        "pkg/base.py": "import ray\n" + BASE,
        "pkg/actor.py": ACTOR.format(args=args),
        "pkg/driver.py": DRIVER.format(creation=creation),
        **more,
    }
    write_files(tmp_path, files)
    return len(lint_project(tmp_path, "HTD202", target="pkg/base.py"))


def test_a_base_class_run_only_by_gpu_less_actors_holds_host_tensors(tmp_path: Path) -> None:
    assert _reported(tmp_path) == 0  # a bare ``@ray.remote``: CUDA_VISIBLE_DEVICES=""
    assert _reported(tmp_path / "b", "(num_cpus=1)") == 0
    assert _reported(tmp_path / "c", "(num_gpus=0)") == 0
    # A test that builds the base directly says nothing of production.
    test = {"pkg/test_base.py": "from pkg.base import BaseTrainer\nBaseTrainer()\n"}
    assert _reported(tmp_path / "d", **test) == 0


def test_an_actor_with_gpus_or_a_direct_instance_stays_reported(tmp_path: Path) -> None:
    assert _reported(tmp_path / "a", "(num_gpus=1)") == 1
    assert _reported(tmp_path / "b", "(**options)") == 1
    assert _reported(tmp_path / "c", creation="Trainer.options(num_gpus=1).remote()") == 1
    # The base class built directly in production code: it runs wherever its caller does.
    direct = {"pkg/local.py": "from pkg.base import BaseTrainer\ntrainer = BaseTrainer()\n"}
    assert _reported(tmp_path / "d", **direct) == 1
    # Imported under another name: its uses are not followed.
    alias = {"pkg/other.py": "from pkg.base import BaseTrainer as B\nB()\n"}
    assert _reported(tmp_path / "e", **alias) == 1
    # Ray's opt-out set by the project: the actor sees every GPU.
    noset = {
        "pkg/env.py": 'import os\nos.environ["RAY_EXPERIMENTAL_NOSET_CUDA_VISIBLE_DEVICES"] = "1"\n'
    }
    assert _reported(tmp_path / "f", **noset) == 1
    # Reading the opt-out (to learn whether a launcher set it) is no setting.
    getter = 'os.environ.get("RAY_EXPERIMENTAL_NOSET_CUDA_VISIBLE_DEVICES")'
    read = {"pkg/env.py": f"import os\nNOSET = {getter}\n"}
    assert _reported(tmp_path / "g", **read) == 0


HELPER = """
import numpy as np
import torch
class Detector:
    def order(self, pts):
        rect = {made}
        return rect
    def clip(self, points, width):
        for i in range(points.shape[0]):
            points[i, 0] = int(min(max(points[i, 0], 0), width - 1))
        return points
    def boxes(self, found, width):
        out = []
        for box in found:
            box = self.order(box)
            out.append(self.clip(box, width))
        return out
"""


def test_an_unannotated_helper_returning_numpy_arrays_gives_host_rows() -> None:
    # Every caller of ``clip`` passes what ``order`` returns: a numpy array it builds.
    assert not lint(HELPER.format(made='np.array([pts[0], pts[1]], dtype="float32")'), "HTD201")
    assert not lint(HELPER.format(made="np.stack([pts[0], pts[1]])"), "HTD201")


def test_a_helper_returning_a_tensor_or_its_argument_stays_reported() -> None:
    assert lint(HELPER.format(made="torch.stack([pts[0], pts[1]])"), "HTD201")
    assert lint(HELPER.format(made="pts"), "HTD201")  # what the loop gave: not known


def test_annotations_are_no_instances_but_other_uses_are(tmp_path: Path) -> None:
    # An annotation of a parameter, a variable or a return names the class, builds nothing.
    typed = (
        "from pkg.base import BaseTrainer\ndef f(t: BaseTrainer) -> BaseTrainer:\n    return t\n"
    )
    assert _reported(tmp_path / "a", **{"pkg/typed.py": typed}) == 0
    held = "from pkg.base import BaseTrainer\nx: BaseTrainer = None\n"
    assert _reported(tmp_path / "b", **{"pkg/held.py": held}) == 0
    # The class itself held as a value may be built anywhere later.
    passed = "from pkg.base import BaseTrainer\nx: type = BaseTrainer\n"
    assert _reported(tmp_path / "c", **{"pkg/passed.py": passed}) == 1

"""Same-named classes of one project told apart through each importer's imports (session 46).

Packages side by side in one folder are one project (``h2dlint/project/roots.py``); real
packages hold many classes of one name (a ``Sampler`` per backend, an ``Attention`` per
model). A fact about a class (a pinned or a device buffer, who calls its ``forward``) must
come from the class the importing module imports (``from a.b import Sampler``, a re-export
through ``__init__``, a relative import), never from another class of that name."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from lint_runs import write_files

from h2dlint.cli import main
from h2dlint.project.class_lineage import may_subclass, related
from h2dlint.project.index import ProjectIndex
from h2dlint.project.layout import build_layout

PINNED_SAMPLER = """
    import torch


    class Sampler:
        def __init__(self, n: int) -> None:
            self.host = torch.empty(n, dtype=torch.int64, pin_memory=True)
"""

PAGEABLE_SAMPLER = """
    import torch


    class Sampler:
        def __init__(self, n: int) -> None:
            self.host = torch.empty(n, dtype=torch.int64)
"""

# An importer of ``Sampler`` (the import line is put first): its non-blocking copy is
# HTD102 only when its ``Sampler`` holds a pageable buffer.
RUNNER = """
    import torch


    class Runner:
        def __init__(self, device: torch.device) -> None:
            self.device = device
            self.sampler = Sampler(1024)

        def upload(self, n: int) -> torch.Tensor:
            return self.sampler.host[:n].to(self.device, non_blocking=True)
"""


def _records(root: Path, target: str, select: str) -> list[dict[str, Any]]:
    args = ["-j1", "--no-cache", "--exit-zero", "--output-format", "json", "--select", select]
    result = CliRunner().invoke(main, [*args, str(root / target)], catch_exceptions=False)
    records: list[dict[str, Any]] = json.loads(result.stdout)
    return records


def _flagged(root: Path, target: str, select: str) -> set[tuple[str, int]]:
    return {
        (Path(r["filename"]).resolve().relative_to(root.resolve()).as_posix(), r["location"]["row"])
        for r in _records(root, target, select)
    }


def _runner(import_line: str, made: str = "Sampler") -> str:
    text = RUNNER.replace("\n    ", "\n").replace("Sampler(1024)", f"{made}(1024)")
    return import_line + "\n" + text


@pytest.mark.parametrize("target", [".", "alpha", "beta", "alpha/runner.py", "beta/runner.py"])
def test_each_importer_gets_its_own_same_named_class(tmp_path: Path, target: str) -> None:
    write_files(
        tmp_path,
        {
            "alpha/__init__.py": "",
            "alpha/sampler.py": PINNED_SAMPLER,
            "alpha/runner.py": _runner("from alpha.sampler import Sampler"),
            "beta/__init__.py": "",
            "beta/sampler.py": PAGEABLE_SAMPLER,
            "beta/runner.py": _runner("from beta.sampler import Sampler"),
        },
    )
    found = _flagged(tmp_path, target, "HTD102")
    assert ("alpha/runner.py", 12) not in found  # pinned: the copy overlaps
    if not target.startswith("alpha"):
        assert ("beta/runner.py", 12) in found


@pytest.mark.parametrize(
    ("import_line", "made", "pinned"),
    [
        ("from alpha import Sampler", "Sampler", True),  # alpha/__init__.py re-exports it
        ("from beta import Sampler", "Sampler", False),
        ("from .sampler import Sampler", "Sampler", True),  # alpha/runner.py: alpha's own
        ("from . import sampler", "sampler.Sampler", True),
        ("import beta.sampler as sm", "sm.Sampler", False),
        ("from beta import sampler as sm", "sm.Sampler", False),
    ],
)
def test_reexports_and_relative_imports_lead_to_the_imported_class(
    tmp_path: Path, import_line: str, made: str, pinned: bool
) -> None:
    write_files(
        tmp_path,
        {
            "alpha/__init__.py": "from alpha.sampler import Sampler\n",
            "alpha/sampler.py": PINNED_SAMPLER,
            "alpha/runner.py": _runner(import_line, made),
            "beta/__init__.py": "from beta.sampler import Sampler\n",
            "beta/sampler.py": PAGEABLE_SAMPLER,
        },
    )
    row = 12
    found = _flagged(tmp_path, ".", "HTD102")
    assert (("alpha/runner.py", row) in found) is not pinned


ALPHA_HOT = {
    "alpha/__init__.py": "",
    "alpha/processors.py": """
        import torch


        class MinTokens:
            def apply(self, logits: torch.Tensor, rows: dict[int, list[int]]) -> torch.Tensor:
                for row, stop_ids in rows.items():
                    logits[row, stop_ids] = float("-inf")
                return logits
    """,
    "alpha/sampler.py": """
        import torch
        import torch.nn as nn

        from alpha.processors import MinTokens


        class Sampler(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.min_tokens = MinTokens()

            def forward(self, logits: torch.Tensor, rows: dict[int, list[int]]) -> torch.Tensor:
                logits = self.min_tokens.apply(logits, rows)
                return logits.argmax(dim=-1)
    """,
    "alpha/runner.py": """
        import torch

        from alpha.sampler import Sampler


        class ModelRunner:
            def __init__(self, model: torch.nn.Module) -> None:
                self.model = model
                self.sampler = Sampler()

            def execute_model(self, ids: torch.Tensor, rows: dict[int, list[int]]) -> torch.Tensor:
                logits = self.model(ids.cuda())
                return self.sampler(logits, rows)
    """,
}

# Another package's ``Sampler`` module, whose classmethod calls an object of its own
# dataclass (``cls(...)``): a class that defines no ``forward``, which is no subclass of
# alpha's ``Sampler`` either.
BETA_SAMPLER = """
    from dataclasses import dataclass

    import torch


    @dataclass
    class Metadata:
        temperature: torch.Tensor

        @classmethod
        def empty(cls, n: int) -> "Metadata":
            return cls(torch.zeros(n))


    class Sampler:
        def sample(self, logits: torch.Tensor, metadata: Metadata) -> torch.Tensor:
            return (logits / metadata.temperature[:, None]).argmax(dim=-1)
"""

# The same module, where the dataclass does subclass alpha's ``Sampler``: its objects may
# run that ``forward``, so who calls it (and with what) is not known.
BETA_SUBCLASS = BETA_SAMPLER.replace(
    "import torch\n", "import torch\n\n    from alpha.sampler import Sampler as Base\n", 1
).replace("class Metadata:", "class Metadata(Base):")


@pytest.mark.parametrize("target", [".", "alpha", "alpha/processors.py"])
def test_another_packages_same_named_class_leaves_the_callers_known(
    tmp_path: Path, target: str
) -> None:
    write_files(tmp_path, {**ALPHA_HOT, "beta/__init__.py": "", "beta/sampler.py": BETA_SAMPLER})
    assert ("alpha/processors.py", 8) in _flagged(tmp_path, target, "HTD202")


def test_a_subclass_in_another_package_leaves_the_callers_unknown(tmp_path: Path) -> None:
    write_files(tmp_path, {**ALPHA_HOT, "beta/__init__.py": "", "beta/sampler.py": BETA_SUBCLASS})
    assert ("alpha/processors.py", 8) not in _flagged(tmp_path, ".", "HTD202")


def test_class_lineage_follows_imports_and_reexports(tmp_path: Path) -> None:
    write_files(
        tmp_path,
        {
            "alpha/__init__.py": "from alpha.base import Base\n",
            "alpha/base.py": "import torch.nn as nn\n\n\nclass Base(nn.Module):\n    pass\n",
            "alpha/sampler.py": "from alpha import Base\n\n\nclass Sampler(Base):\n    pass\n",
            "beta/__init__.py": "",
            "beta/sampler.py": "class Base:\n    pass\n\n\nclass Sampler(Base):\n    pass\n",
            "beta/star.py": "from alpha.base import *\n\n\nclass Other(Base):\n    pass\n",
        },
    )
    index = ProjectIndex(build_layout([str(tmp_path / "alpha"), str(tmp_path / "beta")]))
    callers = index.caller_index()
    assert may_subclass(callers, "alpha.sampler.Sampler", "alpha.base.Base")  # via __init__
    assert may_subclass(callers, "alpha.Base", "alpha.base.Base")  # the re-export itself
    assert not may_subclass(callers, "alpha.base.Base", "alpha.sampler.Sampler")
    # ``model: Base`` may hold a ``Sampler``: related both ways
    assert related(callers, "alpha.base.Base", "alpha.sampler.Sampler")
    # the same names in another package: no lineage either way
    assert not related(callers, "beta.sampler.Sampler", "alpha.sampler.Sampler")
    assert not related(callers, "beta.sampler.Base", "alpha.sampler.Sampler")
    assert may_subclass(callers, "beta.star.Other", "alpha.sampler.Sampler")  # ``*``: may

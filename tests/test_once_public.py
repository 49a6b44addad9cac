"""Run-once code through a public helper (session 16): a public function or method that only
its own module calls, each time from code that runs once, runs once too; not when another
module calls the name, and not from a loop of a function run once only because of its
callers (a ``main()`` whose loop is the program's steps)."""

from __future__ import annotations

from pathlib import Path

from lint_runs import package_records

PRUNER = (
    "import torch\n"
    "class Pruner(torch.nn.Module):\n"
    "    def __init__(self, sizes, device):\n"
    "        super().__init__()\n"
    "        self.init_state(sizes, device)\n"
    "    def init_state(self, sizes, device):\n"
    "        self.create_buffers(sizes, device)\n"
    "    def create_buffers(self, sizes, device):\n"
    "        self.emb_sizes = torch.tensor(list(sizes), device=device)\n"
)


def _rows(tmp_path: Path, files: dict[str, str], target: str, code: str) -> list[int]:
    records = package_records(tmp_path, files, code)
    return sorted(f["location"]["row"] for f in records if f["filename"].endswith(target))


def test_a_public_helper_that_only_set_up_calls_runs_once(tmp_path: Path) -> None:
    assert _rows(tmp_path, {"pruner.py": PRUNER}, "pruner.py", "HTD106") == []


def test_a_public_helper_another_module_calls_may_run_per_step(tmp_path: Path) -> None:
    user = "def step(p, sizes):\n    p.create_buffers(sizes, 'cuda')\n"
    files = {"pruner.py": PRUNER, "user.py": user}
    assert _rows(tmp_path, files, "pruner.py", "HTD106") == [9]


def test_a_helper_called_in_main_loop_is_not_run_once(tmp_path: Path) -> None:
    script = (
        "import torch\n"
        "def push(rows):\n"
        "    return torch.tensor(list(rows), device='cuda')\n"
        "def _push(rows):\n"
        "    return torch.tensor(list(rows), device='cuda')\n"
        "def _run(batches):\n"
        "    for rows in batches:\n"
        "        push(rows)\n"
        "        _push(rows)\n"
        "if __name__ == '__main__':\n"
        "    _run([[1, 2], [3, 4]])\n"
    )
    assert _rows(tmp_path, {"actor.py": script}, "actor.py", "HTD106") == [3, 5]


def test_a_loop_of_an_initializer_still_runs_once(tmp_path: Path) -> None:
    model = (
        "import torch\n"
        "class Model(torch.nn.Module):\n"
        "    def __init__(self, layers):\n"
        "        super().__init__()\n"
        "        for sizes in layers:\n"
        "            self.add_sizes(sizes)\n"
        "    def add_sizes(self, sizes):\n"
        "        self.register_buffer('s', torch.tensor(list(sizes), device='cuda'))\n"
    )
    assert _rows(tmp_path, {"model.py": model}, "model.py", "HTD106") == []


def test_a_loop_of_a_main_function_runs_per_step(tmp_path: Path) -> None:
    script = (
        "import torch\n"
        "def test():\n"
        "    for n in [1, 2, 3]:\n"
        "        x = torch.randn(3, n).to('cuda')\n"
        "    y = torch.randn(3, 4).to('cuda')\n"
        "if __name__ == '__main__':\n"
        "    test()\n"
    )
    # A script's driver, public or private, runs once outside its loops (session 18: a
    # public one only module-level code calls and no other module does, RunOnce.lone_driver);
    # its loops are its steps.
    assert _rows(tmp_path, {"demo.py": script}, "demo.py", "HTD301") == [4]
    private = script.replace("test()", "_test()").replace("def test(", "def _test(")
    (tmp_path / "p").mkdir()
    assert _rows(tmp_path / "p", {"demo.py": private}, "demo.py", "HTD301") == [4]

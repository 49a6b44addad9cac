"""The analysis facts behind session 35's blind-style triage (docs/precision.md, "Session 35
(triage35)"), with the twins that must keep their verdict:

- another module that calls a name it defines itself (each demo script's own ``main()`` under
  its ``__main__`` guard: XCodec2's two decoder modules) calls its own copy, so a script's
  ``main()`` that only its own guard calls is still run once; a module that imports the name,
  calls it as an attribute (``mod.main()``) or defines none keeps the name called elsewhere;
- a class whose ``__init__`` loads weights (transparent-background's ``Remover``) holds a
  model: built by a function that is not run once, it is still no per-call object; a plain
  class without weights made there keeps its ``__init__`` per call."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
from lint_runs import package_records

from h2dlint.analysis.other_callers import calls_own_copy
from h2dlint.analysis.per_call_objects import loads_weights

DEMO = (
    "import torch\n"
    "def main():\n"
    "    device = torch.device('cuda')\n"
    "    x = torch.randn(2, 4).to(device)\n"
    "    return x\n"
    'if __name__ == "__main__":\n'
    "    main()\n"
)


def _rows(tmp_path: Path, files: dict[str, str], target: str) -> list[int]:
    records = package_records(tmp_path, files, "HTD301")
    return sorted(f["location"]["row"] for f in records if f["filename"].endswith(target))


def test_a_scripts_main_is_run_once_beside_other_scripts_with_their_own(tmp_path: Path) -> None:
    files = {"decoder.py": DEMO, "vocos.py": DEMO.replace("(2, 4)", "(3, 4)")}
    assert _rows(tmp_path, files, ".py") == []


def test_a_module_that_imports_the_main_may_call_it_per_step(tmp_path: Path) -> None:
    runner = "from pkg.decoder import main\nfor _ in range(10):\n    main()\n"
    assert _rows(tmp_path, {"decoder.py": DEMO, "runner.py": runner}, "decoder.py") == [4]


def test_a_module_that_calls_the_name_as_an_attribute_may_call_it(tmp_path: Path) -> None:
    other = DEMO + "def loop(mod):\n    for _ in range(10):\n        mod.main()\n"
    assert _rows(tmp_path, {"decoder.py": DEMO, "other.py": other}, "decoder.py") == [4]


def test_calls_own_copy() -> None:
    assert calls_own_copy(b"def main():\n    pass\nmain()\n", "main")
    assert calls_own_copy(b"class Net:\n    pass\nNet()\n", "Net")
    assert not calls_own_copy(b"from a import main\nmain()\n", "main")
    assert not calls_own_copy(b"class A:\n    def main(self):\n        main()\n", "main")
    assert not calls_own_copy(b"def main():\n    pass\nimport a\na.main()\n", "main")
    assert not calls_own_copy(None, "main")


HOLDER = (
    "import torch\n"
    "class Remover:\n"
    "    def __init__(self, ckpt, device='cuda'):\n"
    "        self.model = {load}\n"
    "        self.model(torch.rand(1, 3, 64, 64).to(device))\n"
    "def entry_point(ckpt, images):\n"
    "    remover = Remover(ckpt)\n"
    "    return [remover.model(i) for i in images]\n"
)


def test_a_class_that_loads_weights_is_no_per_call_object(tmp_path: Path) -> None:
    code = HOLDER.format(load="torch.jit.load(ckpt, map_location=device)")
    assert _rows(tmp_path, {"remover.py": code}, "remover.py") == []


def test_a_plain_class_made_in_a_function_keeps_its_init_per_call(tmp_path: Path) -> None:
    code = HOLDER.format(load="torch.nn.Identity()")
    assert _rows(tmp_path, {"remover.py": code}, "remover.py") == [5]


def test_loads_weights() -> None:
    def cls(body: str) -> cst.ClassDef:
        node = cst.parse_module(f"class C:\n    def __init__(self, p):\n        {body}\n").body[0]
        assert isinstance(node, cst.ClassDef)
        return node

    assert loads_weights(cls("self.m.load_state_dict(torch.load(p))"))
    assert loads_weights(cls("self.m = AutoModel.from_pretrained(p)"))
    assert loads_weights(cls("self.m = torch.jit.load(p)"))
    assert not loads_weights(cls("self.m = json.load(open(p))"))
    assert not loads_weights(cls("self.mask = torch.ones(3).to(p)"))

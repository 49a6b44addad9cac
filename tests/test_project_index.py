"""The project index: facts that one module's analysis takes from the other modules."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from test_provenance import DEV, HOST, MAYBE, PIN, UNK, Probe

from h2dlint.analysis.facts import Where
from h2dlint.engine import EnabledRule, check_text
from h2dlint.project.index import ProjectIndex, install
from h2dlint.project.layout import build_layout, package_root
from h2dlint.project.summary import SummaryStore

BUFFERS = """
import torch


class CpuGpuBuffer:
    def __init__(self, *size, dtype, device, pin_memory):
        self.cpu = torch.zeros(*size, dtype=dtype, device="cpu", pin_memory=pin_memory)
        self.gpu = torch.zeros_like(self.cpu, device=device)


def pinned_rows(n):
    return torch.empty(n, 4, pin_memory=True)
"""

RUNNER = """
import torch
from .buffers import CpuGpuBuffer
from . import buffers
from .buffers import pinned_rows as rows


class Encoder(torch.nn.Module):
    def forward(self, x):
        return x


class Runner:
    def __init__(self, device, max_tokens):
        self.device = device
        self.positions = self._make_buffer(3, max_tokens + 1, dtype=torch.int64)
        self.encoder = Encoder()
        with torch.device(device):
            self.scratch = torch.zeros(16)

    def _make_buffer(self, *size, dtype):
        return CpuGpuBuffer(*size, dtype=dtype, device=self.device, pin_memory=True)

    def step(self, n, x):
        probe(self.positions.cpu)
        probe(self.positions.gpu)
        probe(self.positions.cpu[:, :n])
        probe(rows(n))
        probe(buffers.pinned_rows(n))
        probe(self.encoder(x))
        probe(self.scratch)
        probe(x.to(self.device).to("cpu", non_blocking=True))
        buf = CpuGpuBuffer(4, dtype=torch.int64, device=self.device, pin_memory=False)
        probe(buf.cpu)
"""


def probes(path: Path) -> list:
    Probe.facts = []
    findings = check_text(path.read_text(), str(path), (EnabledRule(Probe),))
    assert findings == [], findings
    return list(Probe.facts)


@pytest.fixture
def project(tmp_path: Path):
    package = tmp_path / "src" / "engine"
    (package / "worker").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "worker" / "__init__.py").write_text("")
    (package / "worker" / "buffers.py").write_text(BUFFERS)
    (package / "worker" / "runner.py").write_text(RUNNER)
    return package


def test_layout_covers_the_whole_top_level_package(project: Path) -> None:
    runner = project / "worker" / "runner.py"
    assert package_root(str(runner.parent)) == os.path.realpath(project)
    layout = build_layout([str(runner)])
    assert layout.path_of("engine.worker.buffers") == str(project / "worker" / "buffers.py")
    assert layout.module_of(str(runner)) == "engine.worker.runner"
    assert layout.resolve_relative("engine.worker.runner", ".buffers.X") == (
        "engine.worker.buffers.X"
    )
    assert layout.resolve_relative("engine.worker", ".runner") == "engine.worker.runner"
    assert layout.resolve_relative("engine.worker.runner", "..x") == "engine.x"


def test_a_namespace_subpackage_belongs_to_the_package_around_it(tmp_path: Path) -> None:
    """``pkg/components/`` without ``__init__.py`` inside a package is importable as
    ``pkg.components`` (a namespace package): checking a file there still sees ``pkg``, and
    walking ``pkg`` finds it. A directory without ``__init__.py`` outside a package, or not
    named like a module, stays out."""
    package = tmp_path / "pkg"
    (package / "components").mkdir(parents=True)
    (package / "distributed").mkdir()
    (package / "data-files").mkdir()
    (package / "__init__.py").write_text("")
    (package / "components" / "validate.py").write_text("")
    (package / "distributed" / "__init__.py").write_text("")
    (package / "distributed" / "utils.py").write_text("")
    (package / "data-files" / "gen.py").write_text("")
    validate = package / "components" / "validate.py"
    assert package_root(str(validate.parent)) == os.path.realpath(package)
    layout = build_layout([str(validate)])
    assert layout.module_of(str(validate)) == "pkg.components.validate"
    assert layout.path_of("pkg.distributed.utils") == str(package / "distributed" / "utils.py")
    assert not any("gen" in module for module in layout.modules)
    loose = tmp_path / "scripts"
    loose.mkdir()
    assert package_root(str(loose)) == str(loose)


def test_facts_from_other_modules(project: Path) -> None:
    runner = project / "worker" / "runner.py"
    index = ProjectIndex(build_layout([str(runner)]))
    install(index)
    try:
        index.begin_file()
        facts = probes(runner)
    finally:
        install(None)
    wheres = [f.where for f in facts]
    assert wheres == [MAYBE, DEV, MAYBE, PIN, PIN, DEV, DEV, PIN, MAYBE]
    assert facts[2].contiguous is False  # a strided view of the pinned buffer
    assert str(project / "worker" / "buffers.py") in index.consulted


def test_without_the_index_those_facts_are_unknown(project: Path) -> None:
    facts = probes(project / "worker" / "runner.py")
    assert [f.where for f in facts][:5] == [UNK, UNK, UNK, UNK, UNK]
    assert HOST not in [f.where for f in facts[:6]] and MAYBE not in [f.where for f in facts]


def test_callers_in_other_modules_make_a_function_hot(tmp_path: Path) -> None:
    package = tmp_path / "serve"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "utils.py").write_text("def move(items, d):\n    return items\n")
    (package / "prep.py").write_text(
        "from serve.utils import move\n\ndef gather(reqs, d):\n    return move(reqs, d)\n"
    )
    (package / "model.py").write_text(
        "from . import prep\n\n"
        "class Model:\n    def forward(self, reqs):\n        return prep.gather(reqs, 0)\n"
    )
    (package / "cold.py").write_text(
        "from .utils import move as m\n\ndef load(x):\n    return m(x, 0)\n"
    )
    index = ProjectIndex(build_layout([str(package / "utils.py")]))

    def hot(name: str, cls: str | None, bases: tuple[str, ...]) -> bool:
        return name == "forward"

    assert (
        index.hot_reason("serve.prep.gather", hot) == "called from `Model.forward()` in serve.model"
    )
    reason = index.hot_reason("serve.utils.move", hot)
    assert reason == (
        "called from `gather()` in serve.prep, called from `Model.forward()` in serve.model"
    )
    assert str(package / "prep.py") in index.consulted
    assert index.hot_reason("serve.model.Model", hot) is None


def test_a_method_of_a_local_instance_is_called_by_its_maker(tmp_path: Path) -> None:
    """``metadata = MetaData(); metadata.set_params(...)`` in a hot function of another
    module makes ``MetaData.set_params`` hot; a name also bound to something else does not."""
    package = tmp_path / "attn"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "utils.py").write_text(
        "class MetaData:\n    def set_params(self, cu):\n        self.cu = cu\n"
        "    def other(self):\n        pass\n"
    )
    (package / "iface.py").write_text(
        "from attn.utils import MetaData\n\n"
        "def forward(q, cu):\n    metadata = MetaData()\n    metadata.set_params(cu)\n"
        "    other = MetaData()\n    other = q\n    other.other()\n"
    )
    index = ProjectIndex(build_layout([str(package / "utils.py")]))

    def hot(name: str, cls: str | None, bases: tuple[str, ...]) -> bool:
        return name == "forward"

    assert index.hot_reason("attn.utils.MetaData.set_params", hot) == (
        "called from `forward()` in attn.iface"
    )
    assert index.hot_reason("attn.utils.MetaData.other", hot) is None


def test_a_warm_run_sees_an_edit_in_the_module_a_verdict_rests_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    from click.testing import CliRunner

    from h2dlint.cli import main

    monkeypatch.chdir(tmp_path)
    package = tmp_path / "serve"
    package.mkdir()
    (package / "__init__.py").write_text("")
    staging = package / "staging.py"
    staging.write_text("import torch\n\ndef make(n):\n    return torch.zeros(n)\n")
    (package / "step.py").write_text(
        "import torch\nfrom .staging import make\n\n"
        "def step(n):\n    x = make(n)\n    return x.to('cuda', non_blocking=True)\n"
    )

    def codes() -> list[str]:
        args = ["-j1", "--cache-dir", "cache", "--output-format", "json", "serve/step.py"]
        result = CliRunner().invoke(main, args, catch_exceptions=False)
        return [f["code"] for f in json.loads(result.stdout)]

    assert codes() == ["HTD102"]  # make() returns pageable memory
    assert codes() == ["HTD102"]  # warm
    staging.write_text("import torch\n\ndef make(n):\n    return torch.zeros(n, pin_memory=True)\n")
    os.utime(staging, ns=(1, 1))  # an old mtime: the status table alone must not decide
    assert codes() == []  # the edit in staging.py makes step.py's copy asynchronous


@pytest.mark.parametrize(
    ("code", "where"),
    [
        (
            "from torch.utils.data import DataLoader\n"
            "def f(ds):\n    loader = DataLoader(ds, pin_memory=True)\n"
            "    for batch in loader:\n        probe(batch)\n",
            PIN,
        ),
        (
            "from torch.utils.data import DataLoader\n"
            "def f(ds, pin):\n    for i, batch in enumerate(DataLoader(ds, pin_memory=pin)):\n"
            "        probe(batch)\n",
            MAYBE,
        ),
        (
            "from torch.utils.data import DataLoader\n"
            "def f(ds):\n    for batch in DataLoader(ds):\n        probe(batch)\n",
            UNK,
        ),
        ("def f(rows):\n    for r in rows:\n        probe(r)\n", UNK),
    ],
)
def test_dataloader_batches_with_pin_memory_are_pinned(code: str, where: Where) -> None:
    from test_provenance import fact_of

    assert fact_of(code).where is where


def test_a_module_the_index_parsed_is_not_parsed_again_when_checked(project: Path) -> None:
    runner = project / "worker" / "runner.py"
    buffers = project / "worker" / "buffers.py"
    index = ProjectIndex(build_layout([str(runner), str(buffers)]))
    text = buffers.read_text()
    assert index.tree_of(str(buffers), text) is None  # not asked about yet
    parsed = index.parsed("engine.worker.buffers")
    assert parsed is not None
    assert index.tree_of(str(buffers), text) is parsed.tree
    assert index.tree_of(str(buffers), text + "\n# edited\n") is None  # another text


def test_the_mover_gate_reads_only_definitions_of_the_name(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "moving.py").write_text(
        "def move_items(items, device):\n"
        "    return [item.to(device) for item in items]\n"
        "def scale(x, k):\n"
        "    return x * k\n"
    )
    (package / "user.py").write_text(
        "from .moving import move_items, scale\n"
        "def step(batch, device):\n"
        "    return move_items(batch, device), scale(batch, 2)\n"
    )
    index = ProjectIndex(build_layout([str(package / "user.py")]))
    assert index.may_define_mover("move_items")
    assert not index.may_define_mover("scale")  # no loop moving anything
    assert not index.may_define_mover("absent")


def test_kept_modules_are_bounded_by_their_text(project: Path, monkeypatch) -> None:
    from h2dlint.project import index as index_module

    monkeypatch.setattr(index_module, "KEPT_CHARS", 10)  # smaller than any module here
    runner = project / "worker" / "runner.py"
    index = ProjectIndex(build_layout([str(runner)]))
    assert index.parsed("engine.worker.buffers") is not None
    assert index.parsed("engine.worker.runner") is not None
    assert list(index._parsed) == ["engine.worker.runner"]  # the older one was dropped


def test_a_module_calling_only_its_own_copy_of_a_function_is_no_caller() -> None:
    from h2dlint.project.callers import _reaching

    reaches = _reaching("rotate_half")
    assert reaches.search(b"from .modeling_llama import (\n    LlamaMLP,\n    rotate_half,\n)\n")
    assert reaches.search(b"from .modeling_llama import rotate_half\n")
    assert reaches.search(b"q = modeling_llama.rotate_half(q)\n")
    own = b"import torch\n\ndef rotate_half(x):\n    return x\n\ny = rotate_half(q)\n"
    assert not reaches.search(own)
    assert not reaches.search(b"from x import rotate_halfway\n")


def test_modules_the_run_read_are_not_read_again(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    module = package / "helpers.py"
    module.write_text("def helper(x):\n    return x\n")
    index = ProjectIndex(build_layout([str(module)]))
    index.know_bytes([(str(module), b"def given(x):\n    return x\n")])
    module.unlink()  # only the bytes the run read are left
    parsed = index.parsed("pkg.helpers")
    assert parsed is not None and "given" in parsed.source
    assert index.read(str(package / "__init__.py")) == b""
    assert index.read(str(package / "absent.py")) is None


REEXPORTING = {
    "__init__.py": "from .impl import Thing, helper\nfrom .absent import Other\n",
    "impl.py": (
        "import torch\n\n"
        "class Thing:\n    def go(self):\n        return torch.zeros(2)\n\n"
        "def helper():\n    return torch.zeros(3)\n"
    ),
    "twice.py": "if X:\n    from .impl import Thing as T\nelse:\n    from .other import T\n",
    "user.py": "from . import Thing\n",
}


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    package = tmp_path / "pkg"
    package.mkdir()
    for name, text in files.items():
        (package / name).write_text(text)
    return package


def test_names_are_followed_through_summaries_and_text(tmp_path: Path) -> None:
    package = _package(tmp_path, REEXPORTING)
    index = ProjectIndex(build_layout([str(package / "user.py")]))
    assert index.may_define("pkg.impl", "helper")
    assert not index.may_define("pkg.impl", "absent")
    assert not index.may_define("pkg.impl", "Thing.absent")
    assert not index.mentions("pkg.impl", "absent")
    # Re-exported from a module that is not there: the package itself does not define it.
    assert index.find("pkg.Other") == ("pkg", "absent.Other")
    assert not index.may_define("pkg", "absent.Other")
    assert index._parsed == {}  # the text and the summary of __init__ told all that
    # Through the re-export in __init__ (its summary) to the module defining it (libcst: the
    # definition's facts will be needed).
    assert index.find("pkg.Thing.go") == ("pkg.impl", "Thing.go")
    assert index.may_define("pkg.impl", "Thing.go")
    assert list(index._parsed) == ["pkg.impl"]
    assert set(index.consulted) == {str(package / "__init__.py"), str(package / "impl.py")}
    # One name imported as two things: the order of the imports decides, libcst settles it.
    assert index.find("pkg.twice.T") is not None
    assert set(index._parsed) == {"pkg.impl", "pkg.twice"}


def test_summaries_match_the_libcst_import_table_and_the_calls(tmp_path: Path) -> None:
    import ast

    import libcst as cst

    from h2dlint.project.call_edges import call_edges
    from h2dlint.project.index import _top_level_imports
    from h2dlint.project.summary import top_level

    text = (
        "import os, torch.nn as nn\nimport a.b\nfrom . import x\nfrom ..up import y as z\n"
        "from .m import (p,\n    q)\n"
        "try:\n    from .fast import k\nexcept ImportError:\n    k = None\n"
        "def f():\n    from .inner import w\n    return w(nn.Linear(1, 1), a.b.c(), a.b.c())\n"
        "class C:\n    def g(self):\n        return p(q(k()))\n"
    )
    top = top_level(ast.parse(text))
    assert top["imports"] == _top_level_imports(cst.parse_module(text))
    assert set(top["defined"]) == {"f", "C", "g"}
    edges = call_edges(ast.parse(text))
    assert edges["functions"] == [
        ["f", None, [["w", 13], ["nn.Linear", 13], ["a.b.c", 13]]],
        ["g", "C", [["p", 16], ["q", 16], ["k", 16]]],
    ]


def test_call_edges_of_the_module_s_own_functions_and_constructed_attributes() -> None:
    import ast

    from h2dlint.project.call_edges import call_edges

    text = (
        "from .batch import InputBatch\nimport pkg.sampler as smp\n"
        "def helper(x):\n    return x\n"
        "class Local:\n    def run(self):\n        return 0\n"
        "class Runner:\n"
        "    def __init__(self):\n"
        "        self.batch = InputBatch()\n        self.s = smp.Sampler()\n"
        "        self.local = Local()\n        self.n = len([])\n"
        "    def step(self, r):\n"
        "        self.batch.add(r)\n        self.s.sample(r)\n        self.local.run()\n"
        "        self.prep(r)\n        self.n.bit_length()\n        return helper(r)\n"
        "class Worker:\n"
        "    def __init__(self, batch: InputBatch, s: Optional[smp.Sampler], k: int):\n"
        "        self.b = batch\n        self.s = s\n        self.k = k\n"
        "        self.loc: Local | None = None\n"
        "    def step(self):\n"
        "        self.b.add(1)\n        self.s.sample(2)\n        self.k.bit_length()\n"
        "        self.loc.run()\n"
    )
    edges = call_edges(ast.parse(text))
    assert edges["functions"] == [
        ["__init__", "Runner", [["InputBatch", 10], ["smp.Sampler", 11], [".Local", 12]]],
        [
            "step",
            "Runner",
            [
                ["InputBatch.add", 15],
                ["smp.Sampler.sample", 16],
                [".Local.run", 17],
                [".Runner.prep", 18],
                [".helper", 20],
            ],
        ],
        [
            "step",
            "Worker",
            [["InputBatch.add", 28], ["smp.Sampler.sample", 29], [".Local.run", 31]],
        ],
    ]


def test_a_run_with_a_cache_stores_the_summaries_and_reuses_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    from click.testing import CliRunner

    from h2dlint.cli import main
    from h2dlint.project import index as index_module

    monkeypatch.chdir(tmp_path)
    package = _package(tmp_path, REEXPORTING)
    (package / "step.py").write_text(
        "from . import helper\n\ndef step(n):\n    return helper().to('cuda', non_blocking=True)\n"
    )
    computed: list[str] = []
    real = index_module.top_level
    monkeypatch.setattr(
        index_module, "top_level", lambda tree: computed.append("top") or real(tree)
    )

    def run(*extra: str) -> list[str]:
        args = ["-j1", *extra, "--output-format", "json", "pkg/step.py"]
        result = CliRunner().invoke(main, args, catch_exceptions=False)
        return [f["code"] for f in json.loads(result.stdout)]

    assert run("--no-cache") == ["HTD102"]  # helper(), in another module, returns pageable memory
    assert computed and not (tmp_path / "cache").exists()
    computed.clear()
    assert run("--cache-dir", "cache") == ["HTD102"]
    assert computed
    stored = next((tmp_path / "cache").glob("summaries-v*.json"))
    assert json.loads(stored.read_bytes().split(b"\n", 1)[0])["entries"]
    computed.clear()
    (package / "step.py").write_text((package / "step.py").read_text() + "# edited\n")
    assert run("--cache-dir", "cache") == ["HTD102"]  # the file is checked again...
    assert computed == []  # ...with the summaries of the modules it consults from the disk
    stored.write_text("{not json")
    (package / "step.py").write_text((package / "step.py").read_text() + "# again\n")
    assert run("--cache-dir", "cache") == ["HTD102"]  # a broken file is ignored


def test_the_mover_scan_skips_only_lines_that_name_no_move() -> None:
    import ast

    from h2dlint.project.summary import moving_functions

    text = (
        "@register([m.to(d) for m in ms])\n"  # a decorator above its def line
        "def decorated():\n    pass\n"
        "def split(items, d):\n    return [(x.\n        to)(d) for x in items]\n"
        "def once(x, d):\n    return x.cuda(d)\n"
        "class C:\n    def copy(self, rows, out):\n"
        "        for i, r in enumerate(rows):\n            out[i].copy_(r)\r"
        "    def other(self):\n        return [y for y in range(3)]\n"
    )
    tree = ast.parse(text)
    assert moving_functions(tree, text.encode()) == moving_functions(tree)
    assert moving_functions(tree) == ["copy", "decorated", "split"]


def test_callers_are_read_module_by_module_until_one_is_hot(tmp_path: Path) -> None:
    """hot_reason stops at the first hot caller: the modules after it are neither parsed nor
    recorded; a question no caller answers reads them all, in the same order."""
    package = tmp_path / "serve"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "utils.py").write_text("def move(items, d):\n    return items\n")
    for name in ("a_model", "b_model", "c_model"):
        (package / f"{name}.py").write_text(
            "from .utils import move\n\n"
            "class Model:\n    def forward(self, x):\n        return move(x, 0)\n"
            "    def load(self, x):\n        return move(x, 1)\n"
        )
    index = ProjectIndex(build_layout([str(package / "utils.py")]))

    def forward(name: str, cls: str | None, bases: tuple[str, ...]) -> bool:
        return name == "forward"

    index.begin_file()
    assert index.hot_reason("serve.utils.move", forward) == (
        "called from `Model.forward()` in serve.a_model"
    )
    assert str(package / "a_model.py") in index.consulted
    assert str(package / "c_model.py") not in index.consulted
    callers = index._caller_index()
    assert "serve.c_model" not in callers._edges  # never parsed
    index.begin_file()
    assert index.hot_reason("serve.utils.move", lambda name, cls, bases: name == "step") is None
    assert [c.module for c in callers.callers("serve.utils.move")] == [
        "serve.a_model",
        "serve.a_model",
        "serve.b_model",
        "serve.b_model",
        "serve.c_model",
        "serve.c_model",
    ]
    assert str(package / "c_model.py") in index.consulted


@pytest.mark.skipif(os.name != "posix", reason="the shared table needs fork")
@pytest.mark.parametrize("pool_from", [0, 64])
def test_the_called_names_table_built_for_all_workers_is_the_one_a_worker_builds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pool_from: int
) -> None:
    import multiprocessing

    from h2dlint.project import called_names
    from h2dlint.project.called_names import share_called_names

    monkeypatch.setattr(called_names, "POOL_FROM_MODULES", pool_from)

    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for i in range(9):
        calls = "".join(f"    helper_{j}(x)\n" for j in range(i % 4))
        (package / f"mod_{i}.py").write_text(f"def step_{i}(x):\n{calls}    return run_{i}(x)\n")
    paths = [str(p) for p in sorted(package.glob("*.py"))]
    alone = ProjectIndex(build_layout(paths))
    expected = alone.caller_index().called_names()
    # A question asked before the table is built searches the joined parts: the same modules.
    searched = ProjectIndex(build_layout(paths)).caller_index()
    for name in [*expected, "step", "helper", "x", "absent"]:
        assert searched.calling(name) == expected.get(name, []), name
    shared = ProjectIndex(build_layout(paths), SummaryStore())
    install(shared)
    try:
        share_called_names(shared, 3, multiprocessing.get_context("fork"))
    finally:
        install(None)
    table = shared.caller_index()._called
    assert table == expected  # the same modules, in the same order, for every name
    assert table["helper_1"] == [f"pkg.mod_{i}" for i in (2, 3, 6, 7)]
    # The parts the scan made join the summaries that the run saves.
    assert len([d for d, parts in shared.summaries.fresh.items() if "calls" in parts]) == len(paths)


def test_who_calls_a_name_is_answered_from_stored_parts_without_reading_modules(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from h2dlint.cache import SummaryFile
    from h2dlint.digest import content_digest

    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("def helper(x):\n    return x\n")
    (package / "b.py").write_text("from .a import helper\n\ny = helper(1)\n")
    (package / "c.py").write_text("z = 2\n")
    paths = [str(p) for p in sorted(package.glob("*.py"))]
    digests = {path: content_digest(Path(path).read_bytes()) for path in paths}
    first = ProjectIndex(build_layout(paths), SummaryStore(), digests.get)
    # (The text of a definition, ``def helper(``, counts too: close enough to find callers.)
    assert first.caller_index().calling("helper") == ["pkg.a", "pkg.b"]
    cache = SummaryFile(tmp_path / "cache", print)
    cache.save(first.summaries)
    # The parts of every module are kept in the file of lazy parts, not with the others.
    assert "calls" not in cache.file.read_text() and "calls" in cache.lazy_file.read_text()
    read: list[str] = []
    real_read = ProjectIndex.read
    monkeypatch.setattr(
        ProjectIndex,
        "read",
        lambda self, path, limit=-1: read.append(path) or real_read(self, path, limit),
    )
    later = ProjectIndex(
        build_layout(paths), SummaryFile(tmp_path / "cache", print).load(), digests.get
    )
    assert later.caller_index().calling("helper") == ["pkg.a", "pkg.b"]
    assert later.caller_index().calling("absent") == []
    assert read == []  # every module's part came from the disk
    # A module whose content changed is read (its digest is not the stored one).
    (package / "c.py").write_text("z = helper(2)\n")
    changed = {**digests, paths[-1]: None}
    again = ProjectIndex(
        build_layout(paths), SummaryFile(tmp_path / "cache", print).load(), changed.get
    )
    assert again.caller_index().calling("helper") == ["pkg.a", "pkg.b", "pkg.c"]
    assert read == [paths[-1]]


def test_the_lazy_parts_file_keeps_old_parts_and_is_left_alone_without_new_ones(
    tmp_path: Path,
) -> None:
    from h2dlint.cache import SummaryFile

    cache = SummaryFile(tmp_path, print)
    first = SummaryStore()
    first.part("d1", "calls", lambda: " f ")
    first.part("d1", "defs", lambda: ["f"])
    cache.save(first)
    run = SummaryFile(tmp_path, print)  # as a run does: loads, then saves what it added
    second = run.load()
    second.part("d2", "calls", lambda: " g ")  # reads the stored lazy parts first
    run.save(second)
    run = SummaryFile(tmp_path, print)
    third = run.load()
    assert third.stored("d1", "calls") == (" f ",) and third.stored("d2", "calls") == (" g ",)
    assert third.stored("d1", "defs") == (["f"],)
    before = cache.lazy_file.stat().st_mtime_ns
    third.part("d3", "defs", lambda: [])  # no new lazy part: their file is not written
    run.save(third)
    assert cache.lazy_file.stat().st_mtime_ns == before
    cache.lazy_file.write_text("{broken")
    assert SummaryFile(tmp_path, print).load().stored("d1", "calls") is None


def _codes_at(tmp_path: Path, files: dict[str, str], target: str) -> list[tuple[str, int]]:
    import json

    from click.testing import CliRunner

    from h2dlint.cli import main

    package = tmp_path / "train"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for name, text in files.items():
        (package / name).write_text(text)
    args = ["-j1", "--no-cache", "--select", "ALL", "--output-format", "json", str(package)]
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    return sorted(
        (f["code"], f["location"]["row"])
        for f in json.loads(result.stdout)
        if f["filename"].endswith(target)
    )


DIST_UTILS = (
    "import torch.distributed._functional_collectives as funcol\n"
    "def _reduce(x, op, mesh):\n"
    "    if mesh is None:\n        return x.item()\n"
    "    return funcol.all_reduce(x, reduceOp=op, group=mesh).item()\n"
    "def dist_sum(x, mesh=None):\n    return _reduce(x, 'sum', mesh)\n"
    "def dist_sum_tensor(x, mesh):\n    return funcol.all_reduce(x, reduceOp='sum', group=mesh)\n"
)


def test_a_helper_of_another_module_that_reads_its_argument_syncs_where_called(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    trainer = (
        "import torch\nfrom train import dist_utils\n"
        "class Trainer:\n"
        "    def train_step(self, labels, loss, mesh):\n"
        "        tokens = (labels != -100).sum().to(self.device)\n"
        "        total = dist_utils.dist_sum(tokens, mesh)\n"  # line 6: a sync per step
        "        kept = dist_utils.dist_sum_tensor(tokens, mesh)\n"  # keeps the tensor
        "        if not self.metrics.should_log(self.step):\n"
        "            return total, kept\n"
        "        return dist_utils.dist_sum(loss.to(self.device), mesh)\n"  # logging steps
    )
    found = _codes_at(tmp_path, {"dist_utils.py": DIST_UTILS, "trainer.py": trainer}, "trainer.py")
    assert found == [("HTD202", 6)]


def test_a_parameter_of_a_function_another_module_calls_stays_unknown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    helpers = (
        "import torch\n"
        "def to_device(x, device, non_blocking=False):\n"
        "    return x.to(device, non_blocking=non_blocking)\n"
        "def step(ids, device):\n"
        "    return to_device(torch.tensor(ids), device, non_blocking=True)\n"
    )
    other = (
        "from train.helpers import to_device\n"
        "def run(batch, device):\n    return to_device(batch.pin_memory(), device, True)\n"
    )
    alone = _codes_at(tmp_path, {"helpers.py": helpers}, "helpers.py")
    assert alone == [("HTD102", 3)]
    (tmp_path / "train" / "other.py").write_text(other)
    args = ["-j1", "--no-cache", "--select", "ALL", "--output-format", "json", "train"]
    import json

    from click.testing import CliRunner

    from h2dlint.cli import main

    result = CliRunner().invoke(main, args, catch_exceptions=False)
    assert [f["code"] for f in json.loads(result.stdout)] == []


STEP_CONTEXT = (
    "import torch\n"
    "class Context:\n"
    "    def __init__(self, n: int, device: torch.device) -> None:\n"
    "        self.lens = torch.zeros(n, device=device)\n"
    "    def active_count(self) -> int:\n"
    "        return (self.lens > 0).sum().item()\n"  # line 6: read once per engine step
    "    def summary(self) -> int:\n"
    "        return (self.lens > 1).sum().item()\n"  # called in a loop that runs no step
    "    def stats(self) -> int:\n"
    "        return (self.lens > 2).sum().item()\n"  # called every 100 steps
    "    def kv_stats(self) -> int:\n"
    "        return (self.lens > 3).sum().item()\n"  # a step calls it every N steps
)
STEP_ENGINE = (
    "from ns.serve.context import Context\n"
    "class Engine:\n"
    "    def __init__(self, context: Context) -> None:\n"
    "        self.context = context\n"
    "    def run(self) -> None:\n"
    "        while True:\n"
    "            if self.context.active_count() == 0:\n"
    "                continue\n"
    "            self.async_step()\n"
    "    def report(self) -> list[int]:\n"
    "        return [self.context.summary() for _ in range(3)]\n"
    "    def train(self, loader: list[int]) -> None:\n"
    "        for i, batch in enumerate(loader):\n"
    "            self.async_step()\n"
    "            if i % 100 == 0:\n"
    "                self.context.stats()\n"
    "    def async_step(self) -> None:\n"
    "        if self.count % self.log_interval == 0:\n"
    "            self.context.kv_stats()\n"
)


def test_a_function_called_in_a_loop_of_steps_of_another_module_is_hot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An engine's ``while True:`` loop that runs a step every iteration makes what it calls
    there per step, in another module (through an object of the callee's class): the read in
    ``active_count`` is reported, not those called outside a loop of steps or every N steps.
    A step's own call made every N steps does not count either (``kv_stats``).
    The package lives in a namespace directory (``ns/`` without ``__init__.py``) and imports
    itself as ``ns.serve...``: the layout names it ``serve...``, and the names still meet."""
    import json

    from click.testing import CliRunner

    from h2dlint.cli import main

    monkeypatch.chdir(tmp_path)
    package = tmp_path / "ns" / "serve"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "context.py").write_text(STEP_CONTEXT)
    (package / "engine.py").write_text(STEP_ENGINE)
    args = ["-j1", "--no-cache", "--select", "HTD202", "--output-format", "json", str(package)]
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    found = sorted(
        (f["filename"].rsplit("/", 1)[-1], f["location"]["row"], f["message"])
        for f in json.loads(result.stdout)
    )
    assert [(name, row) for name, row, _ in found] == [("context.py", 6)]
    assert "loop of `Engine.run()`" in found[0][2] and "`async_step()`" in found[0][2]


def test_names_unpacked_from_a_function_of_another_module(tmp_path: Path) -> None:
    """``a, b = helper(...)`` of an imported helper: each name has its position's fact,
    by the helper's returns or its ``tuple[np.ndarray, ...]`` annotation."""
    package = _package(
        tmp_path,
        {
            "helpers.py": (
                "import numpy as np\nimport torch\n\n\n"
                "def state(n):\n    return torch.zeros(n).cuda(), torch.ones(n)\n\n\n"
                "def decode(b) -> tuple[np.ndarray, np.ndarray]:\n    return g(b)\n"
            ),
            "use.py": (
                "from .helpers import state, decode\n\n\n"
                "def f(n, b):\n"
                "    lengths, weights = state(n)\n"
                "    polys, angles = decode(b)\n"
                "    probe(lengths)\n    probe(weights)\n    probe(polys)\n"
            ),
        },
    )
    use = package / "use.py"
    index = ProjectIndex(build_layout([str(use)]))
    install(index)
    try:
        index.begin_file()
        facts = probes(use)
    finally:
        install(None)
    assert [f.where for f in facts] == [DEV, Where.PAGEABLE, HOST]

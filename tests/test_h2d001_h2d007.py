"""HTD101 and HTD106 beyond their examples: the loop analysis (``h2dlint.analysis.loops``) case by
case, the helpers HTD106 decides with, and the messages."""

from __future__ import annotations

import libcst as cst
import pytest

from h2dlint.analysis.frames import Frame, ModuleIndex
from h2dlint.analysis.host_data import host_sequence
from h2dlint.analysis.loop_iterables import tiny_iterable
from h2dlint.analysis.loops import (
    gathering_comprehension,
    gathering_for,
    gathering_while,
    mover_parameters,
    passed_parameters,
)
from h2dlint.analysis.names import target_names
from h2dlint.analysis.once import RunOnce, memo_guard
from h2dlint.analysis.provenance import Provenance
from h2dlint.context import FileContext
from h2dlint.engine import EnabledRule, check_text
from h2dlint.registry import get_rule


def _provenance(code: str) -> tuple[Provenance, cst.Module]:
    module = cst.parse_module(code)
    return Provenance(FileContext("m.py", code, module)), module


def _first(module: cst.Module, kind: type[cst.CSTNode]) -> tuple[cst.CSTNode, Frame]:
    """The first ``kind`` node in the module's first function, with that function's frame."""
    function = next(s for s in module.body if isinstance(s, cst.FunctionDef))
    found: list[cst.CSTNode] = []

    class Finder(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            if isinstance(node, kind):
                found.append(node)
            return True

    function.visit(Finder())
    return found[0], Frame(function)


def _findings(code: str, rule: str) -> list[tuple[int, int]]:
    enabled = (EnabledRule(get_rule(rule)),)  # type: ignore[arg-type]
    return [
        (f.start.row, f.start.column) for f in check_text(code, "m.py", enabled) if f.code == rule
    ]


# -- the loop analysis ------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("target", "names"),
    [("x", {"x"}), ("(i, (k, v))", {"i", "k", "v"}), ("[a, *rest]", {"a", "rest"})],
)
def test_target_names(target: str, names: set[str]) -> None:
    assert target_names(cst.parse_expression(target)) == names


@pytest.mark.parametrize(
    ("iterable", "tiny"),
    [
        ("(q, k, v)", True),
        ("[a, b]", True),
        ("[*xs, y]", False),
        ("range(2)", True),
        ("range(1, 8)", True),
        ("range(9)", False),
        ("range(n)", False),
        ("enumerate((a, b))", True),
        ("zip(xs, (a, b))", True),
        ("xs", False),
        ("enumerate(xs)", False),
    ],
)
def test_tiny_iterables(iterable: str, tiny: bool) -> None:
    assert tiny_iterable(cst.parse_expression(iterable)) is tiny


@pytest.mark.parametrize(
    ("element", "gathering"),
    [
        ("x.to(device)", True),
        ("x.cuda()", True),
        ("x.float().to(device)", True),
        ("x.to(device).float()", True),
        ("x.to(device, non_blocking=True).to(torch.float16)", True),
        ("x['ids'].to(device)", True),
        ("x.data.to(device)", True),
        ("x.unsqueeze(0).to(device=device)", True),
        ("x.to(torch.float16)", False),
        ("x.cpu()", False),
        ("x.to('cpu')", False),
        ("x.to(d)", False),  # unknown device
        ("x.to(x.device)", False),
        ("x.to(other.device)", False),
        ("(x * 2).to(device)", False),
        ("torch.cat(x).to(device)", False),
        ("y.to(device)", False),  # not the item
        ("model(x.to(device))", False),
        ("x.to(device) if x is not None else None", False),
    ],
)
def test_gathering_comprehension_elements(element: str, gathering: bool) -> None:
    code = f"import torch\ndef f(xs, y, other, device, d):\n    return [{element} for x in xs]\n"
    provenance, module = _provenance(code)
    node, frame = _first(module, cst.ListComp)
    assert (gathering_comprehension(node, provenance, frame) is not None) is gathering


@pytest.mark.parametrize(
    ("body", "gathering"),
    [
        ("out.append(x.to(device))", True),
        ("out.append(x.to(device).float())", True),
        ("y = x.to(device)\n        out.append(y)", True),
        ("out[i] = x.cuda(non_blocking=True)", True),
        ("x.attr = x.attr.to(device)", True),
        ("y = x.to(device)", False),  # nothing stored
        ("x = x.to(device)", False),  # rebinds the loop variable
        ("out.append(x.to(device))\n        total += 1", False),
        ("out.append(model(x.to(device)))", False),
        ("out.append(x.to(device))\n        print(x)", False),
        ("x.data = x.data.to(device)", False),  # a storage swap
        ("pass", False),
    ],
)
def test_gathering_for_bodies(body: str, gathering: bool) -> None:
    code = (
        f"def f(xs, out, model, device, total):\n    for i, x in enumerate(xs):\n        {body}\n"
    )
    provenance, module = _provenance(code)
    node, frame = _first(module, cst.For)
    assert (gathering_for(node, provenance, frame) is not None) is gathering


def test_movers_are_functions_and_methods_moving_a_parameters_items() -> None:
    code = (
        "def to_device(xs, device):\n"
        '    """Move."""\n'
        "    out = []\n"
        "    for x in xs:\n"
        "        out.append(x.to(device))\n"
        "    return out\n"
        "def more(xs, device):\n"
        "    ys = [x.to(device) for x in xs]\n"
        "    log(ys)\n"
        "    return ys\n"
        "def none(xs, device):\n"
        "    return [x.to(device) * 2 for x in xs]\n"
        "class R:\n"
        "    def _move(self, xs):\n"
        "        return tuple(x.cuda() for x in xs)\n"
    )
    provenance, _ = _provenance(code)
    index = provenance.index
    found = {
        f.name.value: mover_parameters(f, provenance, index.frame_of(f))
        for f in [*index.functions.values(), *index.methods[index.classes["R"]].values()]
    }
    assert found == {"to_device": {"xs"}, "more": {"xs"}, "none": set(), "_move": {"xs"}}


def test_call_sites_of_a_local_of_the_same_name_are_left_alone() -> None:
    code = (
        "def move(xs, device):\n"
        "    return [x.to(device) for x in xs]\n"
        "def step(xs, device, other):\n"
        "    move = other\n"
        "    return move(xs, device)\n"
    )
    assert _findings(code, "HTD101") == [(2, 13)]


def test_a_for_loop_and_its_helper_call_are_both_reported() -> None:
    code = (
        "def gather(xs, device):\n"
        "    out = []\n"
        "    for x in xs:\n"
        "        out.append(x.to(device))\n"
        "    return out\n"
        "def train(model, xs, device):\n"
        "    for _ in range(10):\n"
        "        model(gather(xs, device))\n"
    )
    assert _findings(code, "HTD101") == [(4, 20), (8, 15)]


def test_the_loop_message_names_the_collection() -> None:
    enabled = (EnabledRule(get_rule("HTD101")),)  # type: ignore[arg-type]
    code = "def f(crops, device):\n    return [c.to(device) for c in crops]\n"
    (finding,) = check_text(code, "m.py", enabled)
    assert "`crops`" in finding.message and "pinned" in finding.message


@pytest.mark.parametrize(
    ("body", "gathering"),
    [
        ("if isinstance(x, torch.Tensor):\n            out.append(x.to(device))", True),
        ("if torch.is_tensor(x.feature):\n            x.feature = x.feature.to(device)", True),
        # one filter per field
        (
            "if isinstance(x.a, torch.Tensor):\n            x.a = x.a.to(device)\n"
            "        if isinstance(x.b, torch.Tensor):\n            x.b = x.b.to(device)",
            True,
        ),
        (
            "if isinstance(x.a, torch.Tensor):\n            x.a = x.a.to(device)\n"
            "        if isinstance(x.b, dict):\n            x.b = y",
            False,
        ),
        ("if x is not None:\n            out.append(x.cuda())", True),
        (
            "if not isinstance(x, torch.Tensor):\n            continue\n"
            "        out.append(x.to(device))",
            True,
        ),
        # a dispatch on type: an else doing something else, a test of another type
        (
            "if isinstance(x, torch.Tensor):\n            out.append(x.to(device))\n"
            "        else:\n            out.append(x)",
            False,
        ),
        ("if isinstance(x, list):\n            out.append(x[0].to(device))", False),
        ("if isinstance(y, torch.Tensor):\n            out.append(x.to(device))", False),
        ("if isinstance(x, torch.Tensor):\n            out.append(model(x.to(device)))", False),
    ],
)
def test_tensor_filters_are_seen_through(body: str, gathering: bool) -> None:
    code = f"import torch\ndef f(xs, y, out, model, device):\n    for x in xs:\n        {body}\n"
    provenance, module = _provenance(code)
    node, frame = _first(module, cst.For)
    assert (gathering_for(node, provenance, frame) is not None) is gathering


@pytest.mark.parametrize(
    ("element", "gathering"),
    [
        ("torch.tensor(x).cuda()", True),
        ("torch.as_tensor(x['ids']).to(device)", True),
        ("torch.from_numpy(x).to(d, non_blocking=True)", True),
        ("x.to(d, non_blocking=True)", True),  # a non-blocking copy goes to a device
        ("x.to('cpu', non_blocking=True)", False),
        ("torch.tensor([x]).cuda()", False),  # a few bytes
        ("torch.tensor(3).cuda()", False),
        # staged in pageable host memory and copied, one copy per item (HTD106's premise;
        # session 17 made it HTD101's in a gathering loop)
        ("torch.tensor(x, device=device)", True),
        ("torch.as_tensor(x, device=device)", False),  # x may be a device tensor: passed through
        ("torch.tensor(y).cuda()", False),  # not the item
    ],
)
def test_converted_items(element: str, gathering: bool) -> None:
    code = f"import torch\ndef f(xs, y, device, d):\n    return [{element} for x in xs]\n"
    provenance, module = _provenance(code)
    node, frame = _first(module, cst.ListComp)
    assert (gathering_comprehension(node, provenance, frame) is not None) is gathering


@pytest.mark.parametrize(
    ("collection", "flagged"),
    [("metric_results", False), ("stats", False), ("state['patches']", True), ("states", True)],
)
def test_per_metric_collections_are_left_alone(collection: str, flagged: bool) -> None:
    code = (
        "def f(state, states, stats, metric_results, device):\n"
        f"    return [x.to(device) for x in {collection}]\n"
    )
    assert bool(_findings(code, "HTD101")) is flagged


def test_a_range_index_made_a_tensor_is_a_few_bytes() -> None:
    code = "import torch\ndef f(n):\n    return [torch.tensor(i).cuda() for i in range(n)]\n"
    assert _findings(code, "HTD101") == []
    code = (
        "import torch\ndef f(xs):\n    return [torch.tensor(x).cuda() for i, x in enumerate(xs)]\n"
    )
    assert _findings(code, "HTD101") == [(3, 13)]


@pytest.mark.parametrize(
    ("loop", "gathering"),
    [
        ("while queue:\n        x = queue.pop()\n        out.append(x.to(device))", True),
        ("while q:\n        x = q.popleft()\n        out.append(x.cuda())", True),
        ("while it:\n        x = next(it)\n        out.append(x.cuda())", True),
        # a counter is not recognised (the candidate filter could not see it)
        ("while i < len(xs):\n        xs[i] = xs[i].to(device)\n        i += 1", False),
        (
            "while queue:\n        x = queue.pop()\n        y = q.pop()\n"
            "        out.append(x.cuda())",
            False,
        ),
        ("while queue:\n        x = queue.pop()\n        out.append(model(x.to(device)))", False),
        ("while queue:\n        x = queue.pop()\n        out.append(x.to('cpu'))", False),
        ("while ok:\n        out.append(y.to(device))", False),  # no item taken
    ],
)
def test_gathering_while_loops(loop: str, gathering: bool) -> None:
    code = f"def f(queue, q, it, xs, i, out, y, ok, model, device):\n    {loop}\n"
    provenance, module = _provenance(code)
    node, frame = _first(module, cst.While)
    assert (gathering_while(node, provenance, frame) is not None) is gathering


def test_mover_parameters() -> None:
    code = (
        "import torch\n"
        "def move_items(items, device):\n"
        "    for item in items:\n"
        "        if isinstance(item.feature, torch.Tensor):\n"
        "            item.feature = item.feature.to(device, non_blocking=True)\n"
        "def prepare(batch, device, log):\n"
        "    log(batch)\n"
        "    images = [im.cuda() for im in batch.images]\n"
        "    return torch.stack(images)\n"
        "def local(n, device):\n"
        "    xs = make(n)\n"
        "    return [x.to(device) for x in xs]\n"
        "def generic(value, device):\n"
        "    if isinstance(value, list):\n"
        "        return [v.to(device) for v in value]\n"
        "    return value.to(device)\n"
    )
    provenance, module = _provenance(code)
    found = {
        f.name.value: mover_parameters(f, provenance, Frame(f))
        for f in module.body
        if isinstance(f, cst.FunctionDef)
    }
    assert found == {
        "move_items": {"items"},
        "prepare": {"batch"},
        "local": set(),
        "generic": set(),
    }


@pytest.mark.parametrize(
    ("call", "passed"),
    [
        ("move(a, b)", {"items", "device"}),
        ("move(a)", {"items"}),
        ("move(device=b)", {"device"}),
        ("move(*args)", {"items", "device", "flag"}),
    ],
)
def test_passed_parameters(call: str, passed: set[str]) -> None:
    function = cst.parse_statement("def move(items, device=None, *, flag=False): pass")
    assert isinstance(function, cst.FunctionDef)
    node = cst.parse_expression(call)
    assert isinstance(node, cst.Call)
    assert passed_parameters(function, node, method=False) == passed


MOVER = "def move(items, device):\n    return [x.to(device) for x in items]\n"


@pytest.mark.parametrize(
    ("caller", "flagged"),
    [
        # in the body of a loop over requests
        ("def run(reqs, device):\n    for r in reqs:\n        move(r.items, device)\n", True),
        ("def run(reqs, device):\n    return [move(r.items, device) for r in reqs]\n", True),
        # in a hot function
        ("class M:\n    def forward(self, xs):\n        return move(xs, self.device)\n", True),
        ("def training_step(batch, device):\n    return move(batch, device)\n", True),
        # called once per call of a function that is not hot
        ("def run(xs, device):\n    return move(xs, device)\n", False),
        # the loop's iterable is evaluated once; a tiny loop
        ("def run(xs, device):\n    for y in move(xs, device):\n        print(y)\n", False),
        ("def run(xs, device):\n    for _ in range(2):\n        move(xs, device)\n", False),
        # code that runs once, and the module's only caller: the helper runs once too
        (
            "class M:\n    def __init__(self, groups, device):\n"
            "        for g in groups:\n            move(g, device)\n",
            None,
        ),
        # the collection is not passed
        ("def run(reqs, device):\n    for r in reqs:\n        move(device=device)\n", False),
    ],
)
def test_helper_calls_are_flagged_where_they_repeat(caller: str, flagged: bool | None) -> None:
    code = MOVER + caller
    lines = {row for row, _ in _findings(code, "HTD101")}
    if flagged is None:
        assert not lines
        return
    assert 2 in lines  # the loop in the helper, whenever it may run more than once
    assert (len(lines) > 1) is flagged


# -- HTD106's helpers -------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("data", "sequence"),
    [
        ("[r.n for r in rs]", True),
        ("list(rs)", True),
        ("tuple(rs)", True),
        ("sorted(rs)", True),
        ("x.tolist()", True),
        ("[v] * n", True),
        ("[[]] * n", False),
        ("[*a, b]", True),
        ("[0] + list(rs)", True),
        ("[[a, b] for a, b in rs]", True),
        ("[list(rs)]", True),
        ("np.arange(n)", True),
        ("np.float32(1.0)", False),
        ("[a, b]", False),
        ("[[1, 2], [3, 4]]", False),
        ("[]", False),
        ("0.5", False),
        ("x", False),
        ("x[0]", False),
        ("self.ids", False),
    ],
)
def test_host_sequences(data: str, sequence: bool) -> None:
    code = f"import numpy as np\ndef f(rs, x, n, a, b, v):\n    return g({data})\n"
    provenance, module = _provenance(code)
    node, frame = _first(module, cst.Call)
    assert isinstance(node, cst.Call)
    assert host_sequence(provenance, node.args[0].value, frame) is sequence


@pytest.mark.parametrize(
    ("guard", "memo"),
    [
        ("if key not in cache:\n    cache[key] = 1\n", True),
        ("if not hasattr(self, 'table'):\n    pass\n", True),
        ("if self.table is None:\n    self.table = 1\n", True),
        ("if self.table.numel() == 0:\n    self.table = 1\n", True),
        ("if key not in allowed:\n    raise KeyError(key)\n", False),
        ("if flag and key not in cache:\n    cache[key] = 1\n", False),
        ("if self.table is None:\n    other = 1\n", False),
        ("if x is None:\n    x = 1\n", False),
        ("if n > 0:\n    pass\n", False),
    ],
)
def test_memoization_guards(guard: str, memo: bool) -> None:
    node = cst.parse_statement(guard)
    assert isinstance(node, cst.If)
    assert memo_guard(node) is memo


@pytest.mark.parametrize(
    "code",
    [
        # a device parameter that defaults to the host
        "def f(ids, device='cpu'):\n    return torch.tensor(list(ids), device=device)\n",
        "def f(ids, device=None):\n    return torch.tensor(list(ids), device=device)\n",
        # lazily built once and kept
        "def f(self, ids):\n"
        "    if self.table is None:\n"
        "        self.table = torch.tensor(list(ids), device=self.device)\n"
        "    return self.table\n",
        # empty on that branch
        "def f(b, device):\n"
        "    b = [x for x in b]\n"
        "    return torch.stack(b) if len(b) > 0 else torch.tensor(b, device=device)\n",
        # an initializer
        "def _init_buffers(self, ids, device):\n"
        "    self.idx = torch.tensor(list(ids), device=device)\n",
        # a preprocessing class
        "class DetrImageProcessor:\n"
        "    def prepare(self, image, boxes):\n"
        "        return torch.as_tensor(list(boxes), device=image.device)\n",
    ],
)
def test_h2d007_look_alikes(code: str) -> None:
    assert _findings("import torch\n" + code, "HTD106") == []


def test_h2d007_flags_post_processing_and_logits_processors() -> None:
    code = (
        "import torch\n"
        "class DetrImageProcessor:\n"
        "    def post_process(self, boxes, sizes):\n"
        "        return torch.tensor([s[0] for s in sizes], device=boxes.device)\n"
        "class TimestampLogitsProcessor:\n"
        "    def __call__(self, scores, last):\n"
        "        return torch.tensor(list(last), device=scores.device)\n"
    )
    assert _findings(code, "HTD106") == [(4, 16), (7, 16)]


def test_h2d007_skips_preprocessing_modules_by_name() -> None:
    code = "import torch\ndef f(ids, device):\n    return torch.tensor(list(ids), device=device)\n"
    enabled = (EnabledRule(get_rule("HTD106")),)  # type: ignore[arg-type]
    assert check_text(code, "models/detr/image_processing_detr.py", enabled) == []
    assert [f.code for f in check_text(code, "models/detr/modeling_detr.py", enabled)] == ["HTD106"]


def test_a_method_moving_its_own_state_in_place_is_no_mover() -> None:
    code = (
        "class Rope:\n"
        "    def _to(self, device):\n"
        "        self.freqs = [f.to(device) for f in self.freqs]\n"
        "    def forward(self, x, device):\n"
        "        self._to(device)\n"
        "        return x\n"
    )
    assert _findings(code, "HTD101") == []


# -- code that runs once (h2dlint.analysis.once) ------------------------------------------------
def _run_once(code: str, name: str) -> bool:
    module = cst.parse_module(code)
    found: list[cst.FunctionDef] = []

    class Finder(cst.CSTVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
            if node.name.value == name:
                found.append(node)

    module.visit(Finder())
    return RunOnce(module, ModuleIndex.build(module)).function(found[0])


@pytest.mark.parametrize(
    ("code", "name", "once"),
    [
        # by name and decorator
        ("class M:\n    def __init__(self): ...\n", "__init__", True),
        ("class M:\n    def setup(self): ...\n", "setup", True),
        ("class M:\n    def build(self, shape): ...\n", "build", True),
        (
            "class M:\n    @classmethod\n    def from_pretrained(cls, p): ...\n",
            "from_pretrained",
            True,
        ),
        ("class M:\n    def reset_parameters(self): ...\n", "reset_parameters", True),
        ("class M:\n    def _init_weights(self, m): ...\n", "_init_weights", True),
        ("class M:\n    def load_state_dict(self, sd): ...\n", "load_state_dict", True),
        ("def load_weights(model, path): ...\n", "load_weights", True),
        ("def test_gather(): ...\n", "test_gather", True),
        ("import unittest\nclass G(unittest.TestCase):\n    def check(self): ...\n", "check", True),
        ("class TestTimePool:\n    def forward(self, x): ...\n", "forward", False),
        ("import functools\n@functools.lru_cache\ndef table(n): ...\n", "table", True),
        (
            "from functools import cached_property\nclass M:\n    @cached_property\n"
            "    def table(self): ...\n",
            "table",
            True,
        ),
        # names that are per call as often as not
        ("def build_attention_mask(x): ...\n", "build_attention_mask", False),
        ("def load_image(path): ...\n", "load_image", False),
        ("def load_balancing_loss_func(logits): ...\n", "load_balancing_loss_func", False),
        ("class K:\n    @staticmethod\n    def from_dense(x): ...\n", "from_dense", False),
        ("class M:\n    def forward(self, x): ...\n", "forward", False),
        # private helpers, by their callers
        (
            "class M:\n"
            "    def __init__(self):\n"
            "        self.t = self._table()\n"
            "    @staticmethod\n"
            "    def _table(): ...\n",
            "_table",
            True,
        ),
        (
            "def _table(): ...\n"
            "class M:\n"
            "    def __init__(self):\n"
            "        self.t = _table()\n"
            "T = _table()\n",
            "_table",
            True,
        ),
        (
            "class M:\n"
            "    def __init__(self):\n"
            "        self._build_all()\n"
            "    def _build_all(self):\n"
            "        self._one()\n"
            "    def _one(self): ...\n",
            "_one",
            True,
        ),
        (
            "class M:\n"
            "    def __init__(self):\n"
            "        self.t = self._table()\n"
            "    def forward(self):\n"
            "        return self._table()\n"
            "    def _table(self): ...\n",
            "_table",
            False,
        ),
        (
            "class M:\n"
            "    def __init__(self, m):\n"
            "        m.register_forward_hook(self._hook)\n"
            "    def _hook(self, *args): ...\n",
            "_hook",
            False,
        ),
        ("def _rec(n):\n    return _rec(n - 1)\n", "_rec", False),
        (
            "class M:\n    def __init__(self):\n        self.t = table()\ndef table(): ...\n",
            "table",
            False,
        ),
        # another class's method of the same name does not count, another object's may
        (
            "class A:\n"
            "    def __init__(self):\n"
            "        self._t()\n"
            "    def _t(self): ...\n"
            "class B:\n"
            "    def forward(self):\n"
            "        self._t()\n"
            "    def _t(self): ...\n",
            "_t",
            True,
        ),
        (
            "class A:\n"
            "    def __init__(self):\n"
            "        self._t()\n"
            "    def _t(self): ...\n"
            "def step(a):\n"
            "    a._t()\n",
            "_t",
            False,
        ),
        # guards that run their body once
        (
            "class P:\n"
            "    def __call__(self, x):\n"
            "        if not self.ready:\n"
            "            self._prepare(x)\n"
            "        return x\n"
            "    def _prepare(self, x):\n"
            "        self.ready = True\n",
            "_prepare",
            True,
        ),
        (
            "class P:\n"
            "    def __call__(self, x):\n"
            "        if self.pending:\n"
            "            self._prepare(x)\n"
            "            self.pending = False\n"
            "        return x\n"
            "    def _prepare(self, x): ...\n",
            "_prepare",
            True,
        ),
        (
            "class P:\n"
            "    def __call__(self, x):\n"
            "        if not self.ready:\n"
            "            self._prepare(x)\n"
            "        return x\n"
            "    def _prepare(self, x): ...\n",
            "_prepare",
            False,
        ),
        (
            "class P:\n"
            "    def __call__(self, x):\n"
            "        if not self.ready:\n"
            "            pass\n"
            "        else:\n"
            "            self._prepare(x)\n"
            "    def _prepare(self, x):\n"
            "        self.ready = True\n",
            "_prepare",
            False,
        ),
        # a serving engine's start-up runs, not the per-step work around them
        ("class R:\n    def capture_model(self): ...\n", "capture_model", True),
        ("class R:\n    def _capture_cudagraphs(self): ...\n", "_capture_cudagraphs", True),
        ("def capture_to_graph(graph, fn): ...\n", "capture_to_graph", True),
        ("class R:\n    def profile_run(self): ...\n", "profile_run", True),
        ("class R:\n    def _dummy_sampler_run(self): ...\n", "_dummy_sampler_run", True),
        ("class R:\n    def warmup(self): ...\n", "warmup", True),
        ("def capture_outputs(fn): ...\n", "capture_outputs", False),
        ("def warmup_lr(step): ...\n", "warmup_lr", False),
        ("class R:\n    def dummy_inputs(self): ...\n", "dummy_inputs", False),
        # closure factories
        (
            "def make(n):\n    t = n\n    def f(x):\n        return x + t\n    return f\n",
            "make",
            True,
        ),
        ("def make(n):\n    return lambda x: x + n\n", "make", True),
        ("def make(n):\n    def f(x):\n        return x\n    return f(n)\n", "make", False),
    ],
)
def test_run_once_functions(code: str, name: str, once: bool) -> None:
    assert _run_once(code, name) is once

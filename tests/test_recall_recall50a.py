"""Session 50 (recall50a): per-step methods reached through objects whose class another
method or module says.

- A method called on an item of a container attribute (``self.active["mha"].update(...)``)
  runs the method of the classes the container's items are built from
  (``self.eager["mha"] = EagerMetadata(...)`` in ``__init__``, a dict or list display, an
  ``nn.ModuleList``), also through an attribute that aliases others
  (``self.active = self.graph if graphed else self.eager``): megatron-core 0.17.1
  ``DynamicInferenceContext.initialize_attention_state`` (``project/container_items.py``).
- A local bound only to an attribute named for a class (``context =
  self.inference_wrapped_model.inference_context``) names the class as the attribute does:
  ``context.update_requests(...)`` reaches ``DynamicInferenceContext.update_requests``
  (``project/named_receivers.py``).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from lint_runs import package_records

from h2dlint.project.call_edges import call_edges, module_names
from h2dlint.project.named_receivers import attribute_aliases


def _files(records: list[dict[str, object]]) -> list[tuple[str, int]]:
    found = []
    for r in records:
        name = str(r["filename"]).rpartition("/")[2]
        location = r["location"]
        assert isinstance(location, dict)
        found.append((name, int(location["row"])))
    return sorted(found)


# megatron-core 0.17.1 inference/contexts/attention_context/mha_metadata.py:56-212 and
# dynamic_context.py:535-551, :1586-1617 (the engine's step calls the context's method).
METADATA = """\
import torch

class {cls}:
    def __init__(self, max_bs):
        self.query_lengths = torch.zeros(max_bs, dtype=torch.int32, device="cuda")

    def update(self, lengths):
        self.query_lengths[: len(lengths)] = lengths
        self.max_seqlen_q = torch.max(self.query_lengths).item()
"""
CONTEXT = """\
from .metadata import {cls}

class DynamicContext:
    def __init__(self, max_bs):
{build}

    def step_attention_state(self, lengths, graphed):
{pick}
        {call}
"""
BUILDS = {
    "items": (
        "        self.graph_metadata = {{}}\n        self.eager_metadata = {{}}\n"
        '        self.graph_metadata["mha"] = {cls}(max_bs)\n'
        '        self.eager_metadata["mha"] = {cls}(max_bs)'
    ),
    "dict": '        self.eager_metadata = {{"mha": {cls}(max_bs)}}',
    "list": "        self.eager_metadata = [{cls}(max_bs) for _ in range(2)]",
    "module list": "        self.eager_metadata = nn.ModuleList([{cls}(max_bs)])",
    "annotated": "        self.eager_metadata: dict[str, {cls}] = {{}}",
    "append": "        self.eager_metadata = []\n        self.eager_metadata.append({cls}(max_bs))",
}
PICK = "        self.active = self.graph_metadata if graphed else self.eager_metadata"


def _context_rows(tmp_path: Path, build: str, call: str, pick: str = "        pass") -> list:
    cls = "EagerMetadata"
    context = CONTEXT.format(cls=cls, build=BUILDS[build].format(cls=cls), pick=pick, call=call)
    if "nn." in context:
        context = "from torch import nn\n" + context
    files = {"metadata.py": METADATA.format(cls=cls), "context.py": context}
    return _files(package_records(tmp_path, files, "HTD202"))


@pytest.mark.parametrize("build", sorted(BUILDS))
def test_a_method_of_a_containers_item_is_its_classs(tmp_path: Path, build: str) -> None:
    rows = _context_rows(tmp_path, build, 'self.eager_metadata["mha"].update(lengths)')
    assert rows == [("metadata.py", 9)]


def test_an_attribute_aliasing_containers_holds_their_items(tmp_path: Path) -> None:
    rows = _context_rows(tmp_path, "items", 'self.active["mha"].update(lengths)', PICK)
    assert rows == [("metadata.py", 9)]


@pytest.mark.parametrize(
    ("build", "call"),
    [
        # another method than the items' classes define
        ("items", 'self.eager_metadata["mha"].refresh(lengths)'),
        # the container holds host tensors, no objects of a class
        ("items", 'self.lengths["mha"].update(lengths)'),
        # an item of an attribute never built as a container of the class
        ("dict", 'self.other["mha"].update(lengths)'),
    ],
)
def test_other_items_reach_nothing(tmp_path: Path, build: str, call: str) -> None:
    assert _context_rows(tmp_path, build, call) == []


def test_a_container_of_host_tensors_holds_no_class() -> None:
    tree = ast.parse(
        "import torch\n"
        "class C:\n"
        "    def __init__(self):\n"
        '        self.buffers = {"a": torch.zeros(3), "b": [1, 2]}\n'
        "        self.active = self.buffers or None\n"
    )
    attributes = module_names(tree).attributes["C"]
    assert attributes == {}


def test_the_call_edges_name_the_items_classes() -> None:
    tree = ast.parse(
        "from .m import Graphed, Eager\n"
        "class C:\n"
        "    def __init__(self):\n"
        '        self.g = {"a": Graphed()}\n'
        "        self.e = [Eager()]\n"
        "    def step(self, flag):\n"
        "        self.active = self.g if flag else self.e\n"
        '        self.active["a"].update()\n'
    )
    edges = call_edges(tree)["functions"]
    assert [name for name, _, calls in edges if name == "step"] == ["step"]
    step = next(calls for name, _, calls in edges if name == "step")
    assert sorted(callee for callee, _ in step) == ["Eager.update", "Graphed.update"]


# megatron-core 0.17.1 text_generation_controller.py:1666-1700 (the per-step bookkeeping
# calls ``context.update_requests(...)`` through a local of the context attribute).
CONTROLLED = """\
import torch

class DynamicInferenceContext:
    def __init__(self, max_requests):
        self.request_mask = torch.zeros(max_requests, device="cuda")

    def update_requests(self, active_requests_mask):
        return (active_requests_mask == 1).sum().item()
"""
CONTROLLER = """\
class TextGenerationController:
    def __init__(self, wrapped):
        self.inference_wrapped_model = wrapped

    def _dynamic_step_context_bookkeeping(self, mask):
{bind}
        return context.update_requests(mask)
"""


@pytest.mark.parametrize(
    ("bind", "rows"),
    [
        ("        context = self.inference_wrapped_model.inference_context", [("context.py", 8)]),
        ("        context = self.wrapped.dynamic_inference_context", [("context.py", 8)]),
        # one word names too many classes
        ("        context = self.inference_wrapped_model.context", []),
        # bound to something else too: the local's class is not the attribute's
        (
            "        context = self.inference_wrapped_model.inference_context\n"
            "        if mask is None:\n"
            "            context = make_context()",
            [],
        ),
        # a parameter of that name: its callers say its class
        ("        pass", []),
    ],
)
def test_a_local_of_an_attribute_named_for_the_class(tmp_path: Path, bind: str, rows: list) -> None:
    controller = CONTROLLER.format(bind=bind)
    if bind.strip() == "pass":
        controller = controller.replace("(self, mask)", "(self, mask, context)")
    files = {"context.py": CONTROLLED, "controller.py": controller}
    assert _files(package_records(tmp_path, files, "HTD202")) == rows


def test_attribute_aliases_of_a_function() -> None:
    tree = ast.parse(
        "def f(self, p):\n"
        "    a = self.x.inference_context\n"
        "    b = self.y.attn_metadata\n"
        "    b = self.z.other_metadata\n"
        "    for c in p:\n"
        "        pass\n"
        "    c = self.w.kv_cache\n"
        "    p = self.v.kv_cache\n"
    )
    function = tree.body[0]
    assert isinstance(function, ast.FunctionDef)
    assert attribute_aliases(function) == {"a": "inference_context"}

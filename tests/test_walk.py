"""The engine's read-only walk and its positions are libcst's: the same nodes in the same order
with the same ancestors, and the same line and column for every node, on real code."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from h2dlint.context import FileContext, Positions
from h2dlint.dispatch import _Dispatcher
from h2dlint.rule import Rule
from h2dlint.walk import (
    LEAF_TYPES,
    TOKEN_TYPES,
    ReadOnlyVisitor,
    _child_fields,
    _content_fields_of,
    content_children,
    visit_read_only,
)

ROOT = Path(__file__).resolve().parents[1]


def sample_files() -> list[Path]:
    """Fixtures, rules and h2dlint's own sources: every construct they use, comments too."""
    files = sorted(ROOT.glob("fixtures/*/*.py"))
    files += sorted(ROOT.glob("rules/*.py"))
    files += sorted((ROOT / "h2dlint").rglob("*.py"))
    return files


SOURCES = [
    pytest.param(path.read_text(encoding="utf-8"), id=str(path.relative_to(ROOT)))
    for path in sample_files()
]
SNIPPETS = [
    "from . import (a as b,)\nfrom x import *\n",
    "async def f():\n    async with a as b, c:\n        async for x in y:\n            await z\n",
    "x = f'{a!r:>{w}} {b=}'\n",
    "match p:\n    case [1, *rest] | {'k': v, **kw} if rest:\n        pass\n"
    "    case Point(x=0) as pt:\n        pass\n",
    "@d1\n@d2(x)\nclass C(B, metaclass=M):\n    '''doc'''\n"
    "    def f(self, /, a: int = 1, *a2, b, **k) -> None: ...\n",
    "try:\n    pass\nexcept* E as e:\n    raise X from e\n"
    "else:\n    pass\nfinally:\n    del a, b[1]\n",
    "lambda *, k=1: (yield)\nx = [i async for i in y if i if not i]\nglobal g\n",
    "with (a as b, c):\n    x: list[int] = y if z else w\n    x @= ~y ** -z\n",
    "print(1)  # trailing\n\n# leading\n\\\n\nx = (  # in parens\n    1,\n)\n",
    "type T[U: int, *V, **W] = list[U]\ndef f[T](x: T) -> T: ...\n",
    "if a:\n    pass\nelif b:\n    pass\nelse:\n    pass\n"
    "while c:\n    break\nelse:\n    continue\n",
]


class _Recording(cst.CSTVisitor):
    def __init__(self) -> None:
        self.events: list[tuple[str, int, int]] = []
        self.kinds: list[type[cst.CSTNode]] = []
        self.stack: list[cst.CSTNode] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.events.append(("visit", id(node), len(self.stack)))
        self.kinds.append(type(node))
        self.stack.append(node)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self.stack.pop()
        self.events.append(("leave", id(original_node), len(self.stack)))
        self.kinds.append(type(original_node))


def _node_classes() -> list[type[cst.CSTNode]]:
    found: list[type[cst.CSTNode]] = []
    stack: list[type[Any]] = [cst.CSTNode]
    while stack:
        for sub in stack.pop().__subclasses__():
            if sub not in found:
                found.append(sub)
                stack.append(sub)
    return found


def _recorder(skip: frozenset[type[cst.CSTNode]] = frozenset()) -> type[Rule]:
    """A rule with a visit_ and leave_ method for every node class (but ``skip``), recording the
    order and the depth of the context's ancestor stack."""
    events: list[tuple[str, int, int]] = []

    def visit(self: Rule, node: cst.CSTNode) -> None:
        events.append(("visit", id(node), len(self.context.ancestors)))

    def leave(self: Rule, node: cst.CSTNode) -> None:
        events.append(("leave", id(node), len(self.context.ancestors)))

    namespace: dict[str, Any] = {
        "__doc__": "## What it does\nRecords the walk.",
        "code": "HTD990",
        "name": "records",
        "message": "never",
        "events": events,
    }
    skipped = {kind.__name__ for kind in skip}
    for kind in _node_classes():
        if kind.__name__ not in skipped:
            namespace[f"visit_{kind.__name__}"] = visit
            namespace[f"leave_{kind.__name__}"] = leave
    return type("Records", (Rule,), namespace)


def _walk_events(
    module: cst.Module, text: str, skip: frozenset[type[cst.CSTNode]] = frozenset()
) -> list[tuple[str, int, int]]:
    recorder = _recorder(skip)
    context = FileContext("m.py", text, module)
    _Dispatcher(context, [recorder(context, {})], []).walk(module)
    assert context.ancestors == [] and context.statements == []
    return recorder.events  # type: ignore[attr-defined, no-any-return]


@pytest.mark.parametrize("text", SOURCES + SNIPPETS)
def test_walk_visits_what_libcst_visits_in_its_order(text: str) -> None:
    module = cst.parse_module(text)
    expected = _Recording()
    module.visit(expected)
    assert _walk_events(module, text) == expected.events


@pytest.mark.parametrize("text", SOURCES[::3] + SNIPPETS)
@pytest.mark.parametrize("leaves", [False, True], ids=["leaves handled", "no leaf handled"])
def test_walk_without_token_handlers_skips_only_tokens(text: str, leaves: bool) -> None:
    """Rules that handle no whitespace, comment or punctuation node (nor names, numbers and
    strings): the walk leaves those out, and every other node is visited as libcst visits it,
    at the same depth."""
    module = cst.parse_module(text)
    expected = _Recording()
    module.visit(expected)
    skip = TOKEN_TYPES | LEAF_TYPES if leaves else TOKEN_TYPES
    wanted = [
        e for e, kind in zip(expected.events, expected.kinds, strict=True) if kind not in skip
    ]
    assert len(wanted) < len(expected.events)
    assert _walk_events(module, text, skip) == wanted


@pytest.mark.parametrize("text", SOURCES + SNIPPETS)
def test_positions_are_libcsts(text: str) -> None:
    module = cst.parse_module(text)
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    positions = Positions.of(module, text)
    assert module.code == text
    for node, span in expected.items():
        assert positions.range(node) == span, node


def test_child_fields_cover_every_node_field() -> None:
    """Every field a node class declares that can hold a node is one the walk descends into."""
    for kind in _node_classes():
        if not dataclasses.is_dataclass(kind) or "_visit_and_replace_children" not in dir(kind):
            continue
        if getattr(kind._visit_and_replace_children, "__isabstractmethod__", False):
            continue
        fields = _child_fields(kind)
        assert len(set(fields)) == len(fields), kind


@pytest.mark.parametrize("text", SOURCES[::3] + SNIPPETS)
def test_fields_left_out_hold_only_tokens(text: str) -> None:
    """The fields a token-skipping walk does not read (their declared types hold only tokens)
    hold nothing but tokens, None or ``MaybeSentinel`` on real code."""
    stack: list[cst.CSTNode] = [cst.parse_module(text)]
    while stack:
        node = stack.pop()
        kept = _content_fields_of(type(node))
        for name in _child_fields(type(node)):
            value = getattr(node, name)
            values = value if isinstance(value, (tuple, list)) else [value]
            for child in values:
                if name not in kept:
                    assert child is None or type(child) in (*TOKEN_TYPES, cst.MaybeSentinel)
                elif isinstance(child, cst.CSTNode):
                    stack.append(child)


@pytest.mark.parametrize("text", SOURCES[::7] + SNIPPETS)
def test_content_children_are_libcsts_children_but_tokens(text: str) -> None:
    stack: list[cst.CSTNode] = [cst.parse_module(text)]
    while stack:
        node = stack.pop()
        expected = [c for c in node.children if type(c) not in TOKEN_TYPES]
        assert content_children(node) == expected
        stack.extend(expected)


def test_form_feed_at_line_start_is_counted() -> None:
    text = "x = 1\n\x0cy = f(a)\n\x0c\x0cz = g(b)\n"
    module = cst.parse_module(text)
    assert module.code != text  # libcst drops them
    positions = Positions.of(module, text)
    call = module.body[1].body[0].value  # type: ignore[attr-defined]
    assert positions.range(call).start == cst.metadata.CodePosition(2, 5)
    assert positions.range(call).end == cst.metadata.CodePosition(2, 9)
    call = module.body[2].body[0].value  # type: ignore[attr-defined]
    assert positions.range(call).start == cst.metadata.CodePosition(3, 6)
    for node in (module.body[1].body[0].value, call):  # type: ignore[attr-defined]
        for wanted in ([node], [module.body[0], node]):
            early = Positions.of(module, text, wanted, stop_early=True)
            assert early.range(node) == positions.range(node)


class _Collect(cst.CSTVisitor):
    def __init__(self) -> None:
        self.nodes: list[cst.CSTNode] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, (cst.Call, cst.Comment, cst.For, cst.ListComp, cst.BaseStatement)):
            self.nodes.append(node)
        return True


@pytest.mark.parametrize("text", SOURCES[::5] + SNIPPETS)
def test_positions_of_wanted_nodes_only_are_the_same(text: str) -> None:
    module = cst.parse_module(text)
    every = Positions.of(module, text)
    collect = _Collect()
    module.visit(collect)
    for node in collect.nodes[::7]:
        assert Positions.of(module, text, [node]).range(node) == every.range(node)
        early = Positions.of(module, text, [node], stop_early=True)
        assert early.range(node) == every.range(node)
    some = Positions.of(module, text, collect.nodes[::3])
    for node in collect.nodes[::3]:
        assert some.range(node) == every.range(node)


@pytest.mark.parametrize("text", SOURCES[::4] + SNIPPETS)
def test_visit_read_only_is_libcsts_visit(text: str) -> None:
    module = cst.parse_module(text)
    expected = _Recording()
    module.visit(expected)
    got = _Recording()
    visit_read_only(module, got)
    # Whitespace, comments and punctuation are not visited: the rest is libcst's order.
    assert got.events == _without_tokens(expected)


def _without_tokens(recording: _Recording) -> list[tuple[str, int, int]]:
    return [
        e for e, k in zip(recording.events, recording.kinds, strict=True) if k not in TOKEN_TYPES
    ]


class _Handlers(cst.CSTVisitor):
    """A visitor keeping libcst's on_visit: only its handlers' classes are seen."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def visit_Name(self, node: cst.Name) -> None:
        self.seen.append(node.value)

    def visit_Comment(self, node: cst.Comment) -> None:
        self.seen.append(node.value)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.seen.append("def")
        return node.name.value != "skipped"

    def leave_Call(self, original_node: cst.Call) -> None:
        self.seen.append("call")


def test_visit_read_only_calls_handlers_of_tokens_and_leaves_it_has() -> None:
    module = cst.parse_module("# head\ndef f(a):\n    g(a)  # tail\ndef skipped():\n    h(b)\n")
    expected = _Handlers()
    module.visit(expected)
    got = _Handlers()
    visit_read_only(module, got)
    assert got.seen == expected.seen
    assert {"# head", "# tail", "call", "g"} <= set(got.seen)
    assert "h" not in got.seen  # the skipped function's body


class _SkipsFunctions(_Recording):
    def on_visit(self, node: cst.CSTNode) -> bool:
        super().on_visit(node)
        return cst.CSTVisitor.on_visit(self, node)  # visit_<Node>, whose False skips children

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False


def test_visit_read_only_skips_children_when_told() -> None:
    module = cst.parse_module("def f():\n    x = 1\ny = g(2)\n")
    expected = _SkipsFunctions()
    module.visit(expected)
    got = _SkipsFunctions()
    visit_read_only(module, got)
    assert got.events == _without_tokens(expected)
    assert len(got.events) < len(_all_events(module))


def _all_events(module: cst.Module) -> list[tuple[str, int, int]]:
    recording = _Recording()
    module.visit(recording)
    return recording.events


class _Counting(ReadOnlyVisitor):
    """Overrides on_visit and defers to ReadOnlyVisitor's handler dispatch."""

    def __init__(self) -> None:
        self.entered = 0
        self.seen: list[str] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.entered += 1
        return super().on_visit(node)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return node.name.value != "skipped"

    def visit_Name(self, node: cst.Name) -> None:
        self.seen.append(node.value)

    def leave_Call(self, original_node: cst.Call) -> None:
        self.seen.append("call")


def test_read_only_visitor_dispatches_like_libcst() -> None:
    module = cst.parse_module("def f(a):\n    g(a)\ndef skipped():\n    h(b)\nx = k(1)\n")
    expected = _Counting()
    module.visit(expected)
    got = _Counting()
    visit_read_only(module, got)
    assert got.seen == expected.seen
    assert "h" not in got.seen and got.seen.count("call") == 2
    assert got.entered < expected.entered  # no whitespace or punctuation


def test_analysis_and_rules_walk_read_only_with_module_level_visitors() -> None:
    """libcst's ``node.visit`` rebuilds and validates every node it leaves (the cost
    ``visit_read_only`` avoids), and ``visit_read_only`` keeps one plan per visitor class: a
    class defined inside a function is a new class on every call, a new plan each time, and
    kept for good."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    sources = [*sorted((root / "h2dlint").rglob("*.py")), *sorted((root / "rules").glob("*.py"))]
    calls, nested = [], []
    for path in sources:
        if path.name == "walk.py" or "verify" in path.parts or "trace" in path.parts:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "visit"
                and len(node.args) == 1
                and path.name != "edits.py"  # a transformer: its result is the edit
            ):
                calls.append(f"{path.relative_to(root)}:{node.lineno}")
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for inner in ast.walk(node):
                    if isinstance(inner, ast.ClassDef) and any(
                        "Visitor" in ast.unparse(base) for base in inner.bases
                    ):
                        nested.append(f"{path.relative_to(root)}:{inner.lineno}")
    assert calls == []
    assert nested == []

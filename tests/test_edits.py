"""replace_nodes rebuilds only the paths to the replaced nodes, and gives the same tree as a
transformer visiting every node."""

from __future__ import annotations

from typing import Any

import libcst as cst

from h2dlint.edits import ReplaceNodes, replace_nodes

SOURCE = """\
import torch


def f(x, dev):
    y = x.to(dev)  # keep
    return [y.cuda() for _ in range(3)]


class M:
    def g(self, a):
        return a.cuda() + 1
"""


def _calls(module: cst.Module, attr: str) -> list[cst.Call]:
    found: list[cst.Call] = []

    class Collect(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            if isinstance(node.func, cst.Attribute) and node.func.attr.value == attr:
                found.append(node)

    module.visit(Collect())
    return found


def _both(
    module: cst.Module,
    replacements: dict[cst.CSTNode, cst.CSTNode | cst.FlattenSentinel[Any]],
) -> tuple[str, str]:
    return replace_nodes(module, replacements).code, module.visit(ReplaceNodes(replacements)).code


def test_replacing_nodes_gives_what_visiting_every_node_gives() -> None:
    module = cst.parse_module(SOURCE)
    first, second = _calls(module, "cuda")
    replacements: dict[cst.CSTNode, cst.CSTNode | cst.FlattenSentinel[Any]] = {
        first: first.func.value,  # type: ignore[attr-defined]
        second: cst.parse_expression("a.to('cuda')"),
    }
    pruned, full = _both(module, replacements)
    assert pruned == full
    assert "return [y for _ in range(3)]" in pruned and "a.to('cuda') + 1" in pruned
    assert "# keep" in pruned


def test_nested_replacements_and_nodes_the_walk_skips_are_replaced_too() -> None:
    module = cst.parse_module(SOURCE)
    (move,) = _calls(module, "to")
    comma = move.args[0].comma  # punctuation: not on the read-only walk's paths
    outer = _calls(module, "cuda")[0]
    replacements: dict[cst.CSTNode, cst.CSTNode | cst.FlattenSentinel[Any]] = {
        outer: cst.parse_expression("y"),
        outer.func: cst.parse_expression("z.cuda"),  # inside a replaced node: dropped
    }
    assert _both(module, replacements)[0] == _both(module, replacements)[1]
    statement = module.body[1]
    replacements = {statement: cst.RemovalSentinel.REMOVE, comma: cst.MaybeSentinel.DEFAULT}
    pruned, full = _both(module, replacements)
    assert pruned == full and "def f" not in pruned


def test_spliced_fix_edits_are_the_generated_ones(monkeypatch: Any) -> None:
    """A fix's text edit made by splicing the new expression's code into the module's
    (``edits._spliced``) is the edit that generating the whole fixed module gives, on every
    invalid example of every rule (and on indented, multi-line and parenthesized shapes)."""
    import h2dlint.edits as edits
    from h2dlint.engine import EnabledRule, check_text
    from h2dlint.registry import all_rules

    extra = [
        "import torch\n\ndef f(x, d):\n    if x:\n        y = (x\n             .cuda())\n"
        "        return torch.tensor([1, 2]).to(d)\n",
        "import torch\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n"
        "        for t in x:\n            t.to('cuda', non_blocking=True)\n"
        "        return (torch.zeros(3)).cuda() + torch.tensor(\n"
        "            [1]\n        ).cuda()\n",
    ]
    spliced = 0
    original = edits._spliced

    def counting(*args: Any) -> Any:
        nonlocal spliced
        found = original(*args)
        spliced += found is not None
        return found

    for rule in all_rules().values():
        enabled = (EnabledRule(rule, tuple(sorted(rule.default_settings().items()))),)
        for code in [example.code for example in rule.invalid] + extra:
            monkeypatch.setattr(edits, "_spliced", counting)
            fast = check_text(code, "example.py", enabled)
            monkeypatch.setattr(edits, "_spliced", lambda *args: None)
            slow = check_text(code, "example.py", enabled)
            assert [(f.code, f.fix) for f in fast] == [(f.code, f.fix) for f in slow]
    assert spliced > 20  # the splice is what most fixes take


def test_fix_edits_located_by_statements_are_the_whole_passes(monkeypatch: Any) -> None:
    """Checked as the pipeline checks (with CPython's tree), a report whose fix replaces one
    expression is located from the code of its statement and its edit spliced into the source
    (``dispatch._one_expression``): the same fixes as the whole module's generated code gives,
    on every invalid example of every rule, in a class, after a form feed, and where the new
    code spans lines (the edit is then made from the whole pass)."""
    import h2dlint.dispatch as dispatch
    from h2dlint.engine import EnabledRule, check_text
    from h2dlint.parsing import cpython_parse
    from h2dlint.registry import all_rules

    extra = [
        "import torch\n\nclass A:\n    def forward(self, x):\n        for t in x:\n"
        "            t.to('cuda', non_blocking=True)\n        return torch.zeros(3).cuda()\n",
        "import torch\n\x0c\ndef f(x, d):\n    return torch.tensor([1, 2]).to(d)\n",
        "import torch\n\ndef f(x, d):\n    y = (x\n         .cuda())\n"
        "    return torch.tensor([1, 2]).to(d)\n",
    ]
    fixes = 0
    one_expression = dispatch._one_expression
    for rule in all_rules().values():
        enabled = (EnabledRule(rule, tuple(sorted(rule.default_settings().items()))),)
        for code in [example.code for example in rule.invalid] + extra:
            monkeypatch.setattr(dispatch, "_one_expression", one_expression)
            fast = check_text(code, "example.py", enabled, (), cpython_parse(code, "example.py"))
            monkeypatch.setattr(dispatch, "_one_expression", lambda report: False)
            slow = check_text(code, "example.py", enabled, (), cpython_parse(code, "example.py"))
            assert [(f.code, f.start, f.end, f.fix) for f in fast] == [
                (f.code, f.start, f.end, f.fix) for f in slow
            ]
            fixes += sum(f.fix is not None for f in fast)
    assert fixes > 20


def test_lines_asked_during_the_walk_are_the_whole_passes(monkeypatch: Any) -> None:
    """A rule that asks a node's line during the walk (HTD302, HTD303, HTD401, HTD402) gets
    it from the code of the statement being walked (``FileContext._holding``): the same
    findings as from a pass over the whole module, on every example of every rule."""
    from h2dlint.context import FileContext, Positions
    from h2dlint.engine import EnabledRule, check_text
    from h2dlint.parsing import cpython_parse
    from h2dlint.registry import all_rules

    holding = FileContext._holding
    asked = 0

    def counting(self: FileContext, node: Any, known: Any) -> Any:
        nonlocal asked
        asked += 1
        return holding(self, node, known)

    def whole(self: FileContext, node: Any, known: Any) -> Any:
        return Positions.of(self.module, self.source)

    for rule in all_rules().values():
        enabled = (EnabledRule(rule, tuple(sorted(rule.default_settings().items()))),)
        for example in [*rule.invalid, *rule.valid]:
            code = example.code
            monkeypatch.setattr(FileContext, "_holding", counting)
            fast = check_text(code, "example.py", enabled, (), cpython_parse(code, "example.py"))
            monkeypatch.setattr(FileContext, "_holding", whole)
            slow = check_text(code, "example.py", enabled, (), cpython_parse(code, "example.py"))
            assert [(f.code, f.start, f.end, f.fix) for f in fast] == [
                (f.code, f.start, f.end, f.fix) for f in slow
            ]
    assert asked > 20

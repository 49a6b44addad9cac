"""The ast candidate filter (h2dlint/candidates.py, Rule.candidates) only skips work: every code
a rule flags holds one of the calls it declares, and files without any are not parsed with libcst.

The whole-tree comparison, findings with and without the filter on the real-code corpus, is
``scripts/check_candidates.py``: too slow for the test run.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from h2dlint.candidate_terms import Candidates, CandidatesError
from h2dlint.candidates import summarize
from h2dlint.engine import EnabledRule, check_text
from h2dlint.pipeline import FileJob, Mode, candidate_rules, process
from h2dlint.registry import all_rules
from h2dlint.rule import Rule

ROOT = Path(__file__).resolve().parents[1]
RULES = all_rules()


def matches(declaration: str | tuple[str, ...], code: str) -> bool:
    source = code.encode()
    return Candidates.parse(declaration).matches(summarize(ast.parse(source), source))


# -- the declarations of the rules ---------------------------------------------------------------


def _invalid_examples() -> list[object]:
    return [
        pytest.param(rule, example.code, id=f"{code}-{i}")
        for code, rule in RULES.items()
        for i, example in enumerate(rule.invalid)
    ]


@pytest.mark.parametrize(("rule", "code"), _invalid_examples())
def test_every_invalid_example_is_a_candidate_of_its_rule(rule: type[Rule], code: str) -> None:
    enabled = (EnabledRule(rule),)
    assert candidate_rules(code.encode(), enabled, ast.parse(code)) == enabled


FIXTURES = sorted(ROOT.glob("fixtures/HTD*/before.py"))


@pytest.mark.parametrize("path", FIXTURES, ids=[p.parent.name for p in FIXTURES])
def test_every_fixture_is_a_candidate_of_its_rule(path: Path) -> None:
    rule = RULES[path.parent.name]
    data = path.read_bytes()
    enabled = (EnabledRule(rule),)
    assert candidate_rules(data, enabled, ast.parse(data)) == enabled


def _known_code() -> list[object]:
    """Every piece of code the repository knows findings for: examples, fixtures, test data."""
    found: list[object] = []
    for code, rule in RULES.items():
        for i, example in enumerate((*rule.invalid, *rule.valid)):
            found.append(pytest.param(example.code, id=f"{code}-example-{i}"))
    for path in sorted(ROOT.glob("fixtures/*/*.py")) + sorted(ROOT.glob("tests/data/*.py")):
        found.append(pytest.param(path.read_text(encoding="utf-8"), id=str(path.relative_to(ROOT))))
    for path in sorted(ROOT.glob("examples/**/*.py")):
        found.append(pytest.param(path.read_text(encoding="utf-8"), id=str(path.relative_to(ROOT))))
    return found


@pytest.mark.parametrize("code", _known_code())
def test_every_finding_comes_from_a_candidate_rule(code: str) -> None:
    """All rules run on the file (no filter at all); each rule that reports something must be
    one the filter keeps."""
    enabled = tuple(EnabledRule(rule) for rule in RULES.values())
    flagged = {f.code for f in check_text(code, "m.py", enabled) if f.code in RULES}
    kept = {e.code for e in candidate_rules(code.encode(), enabled, ast.parse(code))}
    assert flagged <= kept


def test_rules_about_comments_declare_no_candidates() -> None:
    """HTD901 reads comments, which the ast does not hold: every file with its markers."""
    assert RULES["HTD901"].candidate_filter is None


# -- the patterns ----------------------------------------------------------------------------------


def test_method_calls_and_bare_calls() -> None:
    assert matches(".to", "x.to(d)\n") and matches(".to", "a.b.to(d)\n")
    assert not matches(".to", "to(d)\n")
    assert matches("to", "to(d)\n")
    assert not matches("to", "a.b.to(d)\n")
    assert matches(".to|to", "to(d)\n") and matches(".to|to", "x.to(d)\n")
    assert not matches(".to", "x.to\ny = x.too(d)\n")


def test_any_call() -> None:
    """``*`` is any call, method or bare (a project's helper, whose name no rule can list)."""
    assert matches("loop * on loop", "for x in xs:\n    out.append(stage(x, d))\n")
    assert matches("loop * on loop", "[m.stage(x) for x in xs]\n")
    assert not matches("loop * on loop", "for x in xs:\n    pass\nstage(y)\n")
    assert not matches("loop * on loop", "for x in xs:\n    stage(y)\n")
    assert not matches("*", "x = 1\n")


def test_keywords() -> None:
    assert matches(".to(non_blocking=)", "x.to(d, non_blocking=True)\n")
    assert matches(".to(non_blocking=)", "x.to(d, non_blocking=flag)\n")
    assert not matches(".to(non_blocking=)", "x.to(d)\ny(non_blocking=True)\n")
    assert not matches(".to(non_blocking=)", "x.to(d, **kw)\n")
    assert matches(".to(non_blocking=True)", "x.to(d, non_blocking=True)\n")
    assert not matches(".to(non_blocking=True)", "x.to(d, non_blocking=flag)\n")
    assert not matches(".to(non_blocking=True)", "x.to(d, non_blocking=False)\n")
    assert matches(".tensor(device=|pin_memory=)", "torch.tensor(x, pin_memory=True)\n")


@pytest.mark.parametrize(
    "code",
    [
        "for x in xs:\n    x.to(d)\n",
        "async def f():\n    async for x in xs:\n        x.to(d)\n",
        "while c:\n    if a:\n        x.to(d)\n",
        "[x.to(d) for x in xs]\n",
        "{k: v.to(d) for k, v in xs}\n",
        "{x.to(d) for x in xs}\n",
        "f(x.to(d) for x in xs)\n",
        "[y for y in xs.to(d)]\n",  # the iterable of a comprehension
        "for x in xs:\n    def g():\n        return x.to(d)\n",
        "for x in xs:\n    pass\nelse:\n    x.to(d)\n",
    ],
)
def test_in_loop(code: str) -> None:
    assert matches("loop .to", code)


def test_not_in_loop() -> None:
    assert not matches("loop .to", "x.to(d)\nfor y in ys:\n    pass\n")
    assert not matches("loop .to", "def f():\n    for y in ys:\n        pass\n    return x.to(d)\n")


def test_all_terms_of_a_pattern_and_any_pattern() -> None:
    both = ".cat|cat & .to|.pin_memory"
    assert matches(both, "y = torch.cat(xs)\nz = y.to(d)\n")
    assert not matches(both, "y = torch.cat(xs)\n")
    assert not matches(both, "z = y.to(d)\n")
    assert matches((".cat & .to", ".item"), "x.item()\n")


def test_imported_aliases_count_as_the_name() -> None:
    assert matches("cat", "from torch import cat as c\ny = c(xs)\n")
    assert matches("cat", "y = c(xs)\nfrom torch import cat as c\n")  # anywhere in the file
    assert matches("cat", "import torch.cat as c\ny = c(xs)\n")
    assert not matches("cat", "from torch import cat as c\ny = x.c(xs)\n")
    assert matches(".to on cat", "from torch import cat as c\ny = c(xs)\ny.to(d)\n")
    assert matches(".to on cat", "from torch import cat as c\nc(xs).to(d)\n")


def test_calls_everywhere_count() -> None:
    for code in (
        "@dec(x.to(d))\ndef f(a=y.to(d)) -> z.to(d):\n    pass\n",
        "x = f'{y.to(d)}'\n",
        "class C(base.to(d)):\n    pass\n",
        "x = lambda: y.to(d)\n",
        "match p:\n    case _ if y.to(d):\n        pass\n",
        "x = [a for a in b if a.to(d)]\n",
        "x = {k: v for k, v in b(y.to(d))}\n",
        "f(*args, y.to(d), **kw)\n",
        "fns[0](y.to(d))\n",
    ):
        assert matches(".to", code), code


@pytest.mark.parametrize(
    ("code", "reads"),
    [
        ("for x in xs:\n    x.to(d)\n", True),
        ("for x in xs:\n    y.to(d)\n", False),
        ("for x in xs:\n    x.a[0].float().to(d)\n", True),  # through a chain
        ("for i in range(n):\n    xs[i].to(d)\n", True),
        ("for x in xs:\n    dst.copy_(x)\n", True),  # the first argument is an operand too
        ("for x in xs:\n    dst.copy_(y, x)\n", False),
        ("[x.to(d) for x in xs]\n", True),
        ("[y.to(d) for x in xs for y in x]\n", True),
        ("{k: v.to(d) for k, v in xs.items()}\n", True),
        ("x.to(d)\n[x for x in xs]\n", False),
        ("for x in xs:\n    pass\ny = [z.to(d) for z in x]\n", True),
        ("while c:\n    x.to(d)\n", False),  # no loop variable
    ],
)
def test_operands_reading_loop_variables(code: str, reads: bool) -> None:
    assert matches("loop .to|.copy_ on loop", code) is reads


def test_loop_iterable_kinds() -> None:
    rows = "int on loop over Name|Attribute|enumerate|range|.tolist"
    assert matches(rows, "for r in t:\n    int(r)\n")
    assert matches(rows, "for r in self.t:\n    int(r)\n")
    assert matches(rows, "for i, r in enumerate(t):\n    int(r)\n")
    assert matches(rows, "[int(r) for r in t.tolist()]\n")
    assert not matches(rows, "for k, v in d.items():\n    int(v)\n")
    assert not matches(rows, "for a, b in zip(x, y):\n    int(a)\n")
    assert not matches(rows, "[int(r) for r in t.cpu()]\n")


def test_iterables() -> None:
    assert matches("iter .tolist", "[f(r) for r in t.tolist()]\n")
    assert matches("iter .tolist", "for r in t.cpu().tolist():\n    pass\n")
    assert not matches("iter .tolist", "for r in t:\n    r.tolist()\n")


def test_in_functions() -> None:
    assert matches("def .f", "def g():\n    x.f()\n")
    assert matches("def .f", "class C:\n    async def g(self):\n        x.f()\n")
    assert not matches("def .f", "x.f()\nclass C:\n    y = x.f()\n")


@pytest.mark.parametrize(
    ("code", "made"),
    [
        ("torch.cat(xs).to(d)\n", True),
        ("y = torch.cat(xs)\ny.to(d)\n", True),
        ("y: T = torch.cat(xs)\ny.to(d)\n", True),
        ("a, y = b, torch.cat(xs)\ny.to(d)\n", True),
        ("if (y := torch.cat(xs)) is not None:\n    y.to(d)\n", True),
        ("for y in [torch.cat(xs)]:\n    y.to(d)\n", True),
        ("[y.to(d) for y in (torch.cat(a), torch.cat(b))]\n", True),
        ("with torch.cat(xs) as y:\n    y.to(d)\n", True),
        ("dst.copy_(torch.cat(xs))\n", True),
        ("y = torch.cat(xs)\nz.to(d)\n", False),
        ("torch.cat(xs)[0].to(d)\n", True),  # an indexed operand counts as what it indexes
        ("y = torch.cat(xs)\nz = y[:4]\nw = z\nw.to(d)\n", True),  # names bound to names
        ("y = torch.cat(xs)\nz = f(y)\nz.to(d)\n", False),
        ("torch.cat(xs).float().to(d)\n", False),
        ("self.y = torch.cat(xs)\nself.y.to(d)\n", False),
    ],
)
def test_operands_made_by_calls(code: str, made: bool) -> None:
    assert matches(".to|.copy_ on .cat|cat", code) is made


@pytest.mark.parametrize(
    ("code", "kind"),
    [
        ("torch.tensor(x)\n", "Name"),
        ("torch.tensor([a, 1])\n", "List"),
        ("torch.tensor([0.5, -1, (2, 3)])\n", "Literal"),
        ("torch.tensor(3)\n", "Literal"),
        ("torch.tensor(f(x))\n", "Call"),
        ("torch.tensor([*xs])\n", "List"),
        ("torch.tensor(*xs)\n", ""),
        ("torch.tensor()\n", ""),
    ],
)
def test_first_argument_kinds(code: str, kind: str) -> None:
    kinds = ["Name", "List", "Literal", "Call", ""]
    for other in kinds:
        expected = other == kind
        if other:
            assert matches(f".tensor arg {other}", code) is expected, other


@pytest.mark.parametrize(
    "bad", ["", ".", "loop .a .b", "a b", ".to(non_blocking)", "a &", "a||b", ".to(=)", "1abc"]
)
def test_malformed_patterns_are_refused(bad: str) -> None:
    with pytest.raises(CandidatesError):
        Candidates.parse(bad)


def test_a_malformed_declaration_fails_when_the_rule_is_defined() -> None:
    with pytest.raises(CandidatesError):

        class Bad(Rule):
            """## What it does
            Never."""

            code = "HTD989"
            name = "bad"
            message = "bad"
            candidates = ("loop loop .to",)


# -- the pipeline ----------------------------------------------------------------------------------


def _job(code: str, **extra: object) -> FileJob:
    rules = tuple(EnabledRule(rule) for rule in RULES.values())
    return FileJob("m.py", "m.py", code.encode(), rules, **extra)  # type: ignore[arg-type]


def test_a_file_with_markers_but_no_candidates_is_not_parsed() -> None:
    # Markers of several rules (`.to(`, `non_blocking`, `device=`), but no call they look for
    # (a `.to(` in a function is a candidate of HTD202: a `.to("cpu")` may sync a hot path).
    code = "def f(x, device=None):\n    return x\ny = x.to(device)  # non_blocking later\n"
    result = process(_job(code))
    assert result.findings == [] and not result.parsed
    assert process(_job(code, candidates=False)).parsed


def test_a_file_with_a_candidate_is_parsed_and_flagged() -> None:
    code = "def f(xs, device):\n    return [x.to(device) for x in xs]\n"
    result = process(_job(code))
    assert result.parsed
    assert [f.code for f in result.findings] == ["HTD101"]


@pytest.mark.parametrize("keyword", ["device=device", "device = device"])
def test_a_device_keyword_written_with_spaces_is_checked(keyword: str) -> None:
    """Session 35 (prefilter35): the byte prefilters of HTD106 and HTD302 must pass a file
    that spells the keyword with spaces (exllamav3's style), or its findings are hidden."""
    code = (
        "import torch\n\n\ndef f(model, ids, bad_words, device):\n"
        f"    a = torch.tensor(list(ids), {keyword})\n"
        "    banned = list(bad_words)\n"
        "    while True:\n"
        "        logits = model(a)\n"
        f"        logits[:, torch.tensor(banned, {keyword})] = -1e9\n"
    )
    found = {(f.code, f.start.row) for f in process(_job(code)).findings}
    assert {("HTD106", 5), ("HTD302", 9)} <= found


def test_suppression_comments_are_still_checked() -> None:
    result = process(_job("x = 1  # noqa: HTD999\n"))
    assert result.parsed
    assert [f.code for f in result.findings] == ["HTD901"]


def test_a_file_without_candidates_is_left_alone_by_fix() -> None:
    code = "def f(x, device=None):\n    return x\ny = x.to(device)  # non_blocking\n"
    result = process(_job(code, mode=Mode.FIX))
    assert not result.parsed and result.findings == [] and result.final_data == code.encode()


def test_syntax_errors_are_still_reported() -> None:
    result = process(_job("def f(:\n    x.to(d, non_blocking=True)\n"))
    assert [f.code for f in result.findings] == ["E999"]


def test_an_if_test_of_an_annotated_tensor_is_a_candidate_of_htd202() -> None:
    code = (
        "import torch\n\n\nclass M(torch.nn.Module):\n"
        "    def forward(self, x: torch.Tensor, n: torch.Tensor):\n"
        "        if n > 3:\n            return x\n        return x\n"
    )
    # Flagged when the filter is off: the filter must keep the file.
    assert [f.code for f in process(_job(code, candidates=False)).findings] == ["HTD202"]
    assert [f.code for f in process(_job(code)).findings] == ["HTD202"]


# -- syntax without a call ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "declaration", "expected"),
    [
        ("def f(n):\n    if n > 3:\n        pass\n", "def @if arg Compare", True),
        ("def f(n):\n    return 1 if n else 2\n", "def @if arg Name", True),
        ("def f(s):\n    if s.flag:\n        pass\n", "def @if arg Name|Attribute", True),
        ("def f(n):\n    if n is None:\n        pass\n", "def @if arg Name|Attribute", False),
        ("if n > 3:\n    pass\n", "def @if", False),
        ("def f(x, n):\n    return x[:n]\n", "def @subscript arg Slice", True),
        ("def f(x, n):\n    return x[0, 1:n]\n", "def @subscript arg Slice", True),
        ("def f(x):\n    return x[1:-1]\n", "def @subscript arg Slice", False),
        ("def f(x, i):\n    return x[i]\n", "def @subscript arg Index", True),
        ("def f(x):\n    x[5] = 0.0\n", "def @subscript arg Store", True),
        ("def f(x, m):\n    x[m] += 1\n", "def @subscript arg Store", True),
        ("def f(x):\n    return x[x > 0]\n", "def @subscript & def @compare", True),
        ("def f(x):\n    return x[x is None]\n", "def @compare", False),
        ("def f(x):\n    return x in y\n", "def @compare", False),
    ],
)
def test_syntax_names(code: str, declaration: str, expected: bool) -> None:
    assert matches(declaration, code) is expected


def test_operands_that_are_calls() -> None:
    assert matches(".to of .zeros|zeros", "torch.zeros(n).to(d)\n")
    assert matches(".to of .zeros|zeros", "from torch import zeros as z\nz(n).to(d)\n")
    assert not matches(".to of .zeros|zeros", "y = torch.zeros(n)\ny.to(d)\n")
    assert not matches(".to of .zeros|zeros", "torch.zeros(n).float().to(d)\n")
    assert matches(".to of .zeros|zeros|.float", "torch.zeros(n).float().to(d)\n")


def test_a_round_trip_outside_functions_is_a_candidate_of_htd303() -> None:
    code = (
        "import torch\nx = torch.ones(3).cuda()\ny = x[:2].cpu()\nz = torch.ones(3).cuda().cpu()\n"
    )
    flagged = [f.code for f in process(_job(code, candidates=False)).findings]
    assert flagged == ["HTD303", "HTD303"]
    assert [f.code for f in process(_job(code)).findings] == flagged


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ('x.to("cpu")\n', True),
        ("x.to(self.CPU_DEVICE)\n", True),
        ("def f(x, host_device):\n    return x.to(host_device)\n", True),
        ("x.to(d)\n", False),
        ('x.to("\\x63pu")\n', True),  # an escape may spell it
        ("\uff43\uff50\uff55 = 1\nx.to(\uff43\uff50\uff55)\n", True),  # fullwidth `cpu`
    ],
)
def test_words_of_the_text(code: str, expected: bool) -> None:
    assert matches(".to & text cpu|host", code) is expected


def test_words_of_an_unknown_text_count_as_there() -> None:
    assert Candidates.parse("text cpu").matches(summarize(ast.parse("x = 1\n")))


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("for r in t:\n    int(r)\n", True),
        ("for i in range(n):\n    for a, b in zip(x, y):\n        int(a)\n", True),  # range
        ("for a, b in zip(x, y):\n    int(a)\n", False),
        ("[int(v) for v in d.values()]\n", False),
        ("[int(r) for r in self.rows]\n", True),
        ("while c:\n    int(x)\n", True),
        ("while int(x) > 0:\n    pass\n", True),  # the test runs per iteration too
        ("for r in t:\n    pass\nint(r)\n", False),
    ],
)
def test_in_loops_over(code: str, expected: bool) -> None:
    assert matches("loop int in While|Name|Attribute|range", code) is expected

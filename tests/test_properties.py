"""Properties of the whole pipeline on any Python: no crash, and fixes that are safe to write.

Programs come from three sources: ``hypothesmith`` (generated from Python's grammar, alone and
spliced into real torch code), and ``hypothesis`` mutations of every fixture and every rule's
own examples (lines inserted, deleted, duplicated, re-indented, wrapped in a block; identifiers
renamed; ``non_blocking=True`` added; ``.to(dev)`` and ``.cuda()`` swapped; comments and
suppressions added; CRLF, tabs, a BOM). Every registered rule runs on every program, through
:func:`h2dlint.pipeline.process`, the function each worker of a real run calls.

The properties, for every program:

* **No crash.** Checking and fixing end in findings; a program that does not parse ends in one
  located ``E999``. ``E900`` (an internal error) is a bug and fails the test.
* **Fix safety**, with ``--fix`` and with ``--fix --unsafe-fixes``: the fixed text parses (libcst)
  and, when the original compiled, still compiles; a second fix changes nothing; re-checking the
  fixed text reports no finding that carries an applicable fix of a rule whose fix was applied
  (the fix loop stopped early, or a fix does not remove what it claims to); what the fix run
  reports is what a fresh check of the fixed text reports; a fix marked unsafe never applies
  without ``--unsafe-fixes``.
* **The prefilter is only an optimisation**: findings are the same with and without it.

The default run keeps each property to a few dozen examples (well under a minute for the
module); the ``fuzz``-marked variants run thousands (``pytest -m fuzz tests/test_properties.py``).
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import tempfile
import time
import warnings
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import libcst as cst
import pytest
from click.testing import CliRunner, Result

from h2dlint.cli import main
from h2dlint.diagnostics import (
    INTERNAL_ERROR_CODE,
    IO_ERROR_CODE,
    SYNTAX_ERROR_CODE,
    Finding,
    FixSafety,
)
from h2dlint.engine import EnabledRule
from h2dlint.pipeline import FileJob, FileResult, Mode, process
from h2dlint.registry import all_rules

hypothesis = pytest.importorskip("hypothesis", reason="pip install hypothesis")
hypothesmith = pytest.importorskip("hypothesmith", reason="pip install hypothesmith")

from hypothesis import HealthCheck, example, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

# hypothesmith compiles what it generates: `1()` and the like warn, by the thousand.
pytestmark = pytest.mark.filterwarnings("ignore::SyntaxWarning")

ROOT = Path(__file__).resolve().parents[1]
RULES = all_rules()
ALL_RULES = tuple(
    EnabledRule(rule, tuple(sorted(rule.default_settings().items()))) for rule in RULES.values()
)
SAFE_CODES = frozenset(code for code, rule in RULES.items() if rule.fix_safety is FixSafety.SAFE)
NAME = "generated.py"

# -- settings -----------------------------------------------------------------------------------

_QUIET = [
    HealthCheck.too_slow,
    HealthCheck.data_too_large,
    HealthCheck.filter_too_much,
    HealthCheck.large_base_example,
]
# Deterministic in the default run (CI must not be flaky); a fresh search in every fuzz run.
DEFAULT = settings(
    max_examples=50,
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=_QUIET,
    print_blob=True,
)
FUZZ = settings(
    max_examples=3000,
    deadline=None,
    database=None,
    suppress_health_check=_QUIET,
    print_blob=True,
)

# -- the seeds: every fixture and every rule's examples -----------------------------------------


def _labelled_seeds() -> dict[str, str]:
    seeds: dict[str, str] = {}
    for path in sorted((ROOT / "fixtures").glob("*/*.py")):
        seeds[str(path.relative_to(ROOT))] = path.read_text(encoding="utf-8")
    for path in sorted((ROOT / "examples").glob("*.py")):
        seeds[str(path.relative_to(ROOT))] = path.read_text(encoding="utf-8")
    for code, rule in RULES.items():
        for kind in ("invalid", "valid"):
            for index, item in enumerate(getattr(rule, kind)):
                seeds[f"{code}-{kind}-{index}"] = item.code
    return seeds


LABELLED_SEEDS = _labelled_seeds()
SEEDS = list(LABELLED_SEEDS.values())
# The examples whose rule offers a fix there: mutations of these reach the fixer most often.
FIXABLE_SEEDS = [
    example.code
    for rule in RULES.values()
    if rule.fix_safety is not FixSafety.NONE
    for example in rule.invalid
    if example.expected_fix is not None
] or SEEDS

_LINE = re.compile(r"[^\n]*\n|[^\n]+\Z")
POOL = sorted(
    {line.rstrip("\r\n") for seed in SEEDS for line in _LINE.findall(seed) if line.strip()}
)
SNIPPETS = [
    "x = torch.tensor([1, 2]).to(device, non_blocking=True)",
    "buf = torch.zeros(4, 8, pin_memory=True)",
    "gpu[:, :n].copy_(buf[:, :n], non_blocking=True)",
    "y = torch.cat(xs).to('cuda', non_blocking=True)",
    "z = torch.stack([a, b]).cuda(non_blocking=True)",
    "w = x.pin_memory().to(dev)",
    "for t in ts: out.append(t.to(dev))",
    "v = torch.empty(8, pin_memory=True); v.cuda()",
    "del buf",
    "buf[0] = 1",
    "return buf",
    "yield x.to(dev)",
    "pass",
    "global buf",
    "nonlocal x",
    "async with lock: pass",
    "lambda: x.to(dev, non_blocking=True)",
    "x = [t.to(dev) for t in ts]",
    "x: torch.Tensor = torch.tensor(ids).to(dev, non_blocking=True)",
    "match x:\n    case _: pass",
    "(",
    "]",
    "'unterminated",
    '"""',
    "\\",
    "x = f'{buf[:, :n].to(dev, non_blocking=True)}'",
    "torch.cuda.synchronize()",
    "x.to(dev, non_blocking=True); x.to(dev, non_blocking=True)",
]
COMMENTS = [
    "  # noqa",
    "  # noqa: HTD102",
    "  # noqa: HTD103, HTD999",
    "  # NOQA:htd105",
    "  # noqa: E501",
    "  # h2dlint: ignore",
    "  # h2dlint: ignore[HTD104]",
    "  # h2dlint: ignore[HTD101, HTD998]",
    "  # type: ignore",
    "  # non_blocking=True pin_memory .to( .cuda(",
    "# h2dlint: skip-file",
    "# -*- coding: latin-1 -*-",
    "# noqa: HTD",
]
HEADERS = [
    "if flag:",
    "if flag: pass\nelse:",
    "for _i in range(2):",
    "while cond:",
    "with ctx:",
    "with torch.cuda.stream(s):",
    "def wrapped(buf, n, device):",
    "async def wrapped():",
    "class Wrapped:",
    "try:",
]
NAMES = [
    "x",
    "buf",
    "dev",
    "device",
    "torch",
    "self",
    "cuda",
    "to",
    "copy_",
    "cat",
    "pin_memory",
    "non_blocking",
    "_row",
    "n",
    "print",
    "None",
    "for",
    "lambda",
    "λ",
    "x2",
]

# -- mutations ----------------------------------------------------------------------------------

Draw = Callable[[st.SearchStrategy], object]
Lines = list[str]


def _index(draw: Draw, lines: Lines, extra: int = 0) -> int:
    return int(draw(st.integers(0, max(len(lines) - 1 + extra, 0))))  # type: ignore[arg-type]


def _indent_of(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def _newline(line: str) -> str:
    return "\r\n" if line.endswith("\r\n") else "\n"


def insert_line(draw: Draw, lines: Lines) -> Lines:
    at = _index(draw, lines, extra=1)
    text = str(draw(st.sampled_from(POOL + SNIPPETS)))
    near = lines[min(at, len(lines) - 1)] if lines else ""
    indent = str(draw(st.sampled_from(["", _indent_of(near), _indent_of(near) + "    "])))
    new = "".join(indent + part + "\n" for part in text.split("\n"))
    return [*lines[:at], new, *lines[at:]]


def delete_line(draw: Draw, lines: Lines) -> Lines:
    if not lines:
        return lines
    at = _index(draw, lines)
    return lines[:at] + lines[at + 1 :]


def duplicate_line(draw: Draw, lines: Lines) -> Lines:
    if not lines:
        return lines
    at = _index(draw, lines)
    line = lines[at] if lines[at].endswith("\n") else lines[at] + "\n"
    return [*lines[:at], line, *lines[at:]]


def rename_identifier(draw: Draw, lines: Lines) -> Lines:
    text = "".join(lines)
    names = sorted(set(re.findall(r"\b[A-Za-z_]\w*\b", text)))
    if not names:
        return lines
    old = str(draw(st.sampled_from(names)))
    new = str(draw(st.sampled_from(NAMES)))
    count = 0 if draw(st.booleans()) else 1  # every occurrence, or the first one
    return _LINE.findall(re.sub(rf"\b{re.escape(old)}\b", new, text, count=count))


def reindent(draw: Draw, lines: Lines) -> Lines:
    if not lines:
        return lines
    at = _index(draw, lines)
    line = lines[at]
    how = draw(st.sampled_from(["deeper", "shallower", "tab", "one-space"]))
    if how == "deeper":
        line = "    " + line
    elif how == "shallower":
        line = line[4:] if line.startswith("    ") else line.lstrip(" \t")
    elif how == "tab":
        line = "\t" + line.lstrip(" ")
    else:
        line = " " + line
    return [*lines[:at], line, *lines[at + 1 :]]


def wrap_block(draw: Draw, lines: Lines) -> Lines:
    if not lines:
        return lines
    start = _index(draw, lines)
    end = int(draw(st.integers(start, min(start + 6, len(lines) - 1))))  # type: ignore[arg-type]
    indent = _indent_of(lines[start])
    nl = _newline(lines[start])
    header = str(draw(st.sampled_from(HEADERS)))
    head = "".join(indent + part + nl for part in header.split("\n"))
    body = [("    " + line) if line.strip() else line for line in lines[start : end + 1]]
    if body and not body[-1].endswith("\n"):
        body[-1] += nl
    tail = (
        [indent + "except Exception:" + nl, indent + "    raise" + nl] if header == "try:" else []
    )
    return [*lines[:start], head, *body, *tail, *lines[end + 1 :]]


def _sub_one(
    draw: Draw, lines: Lines, pattern: str, replace: Callable[[re.Match[str]], str]
) -> Lines:
    text = "".join(lines)
    matches = list(re.finditer(pattern, text))
    if not matches:
        return lines
    match = matches[int(draw(st.integers(0, len(matches) - 1)))]  # type: ignore[arg-type]
    return _LINE.findall(text[: match.start()] + replace(match) + text[match.end() :])


def add_non_blocking(draw: Draw, lines: Lines) -> Lines:
    def replace(match: re.Match[str]) -> str:
        args = match.group(2).strip()
        return f".{match.group(1)}({args + ', ' if args else ''}non_blocking=True)"

    return _sub_one(draw, lines, r"\.(to|cuda|copy_)\(([^()]*)\)", replace)


def swap_to_cuda(draw: Draw, lines: Lines) -> Lines:
    def replace(match: re.Match[str]) -> str:
        args = [a.strip() for a in match.group(2).split(",") if a.strip()]
        keywords = [a for a in args if "=" in a]
        if match.group(1) == "to":
            return f".cuda({', '.join(keywords)})"
        return f".to({', '.join(['dev', *args])})"

    return _sub_one(draw, lines, r"\.(to|cuda)\(([^()]*)\)", replace)


def toggle_pinning(draw: Draw, lines: Lines) -> Lines:
    replacement = str(draw(st.sampled_from(["pin_memory=False", "pin_memory=flag", ""])))
    return _sub_one(
        draw, lines, r",?\s*pin_memory=True", lambda m: replacement and ", " + replacement
    )


def add_comment(draw: Draw, lines: Lines) -> Lines:
    comment = str(draw(st.sampled_from(COMMENTS)))
    if not lines or comment.startswith("#"):
        at = _index(draw, lines, extra=1)
        return [*lines[:at], comment + "\n", *lines[at:]]
    at = _index(draw, lines)
    line = lines[at]
    body = line.rstrip("\r\n")
    return [*lines[:at], body + comment + line[len(body) :], *lines[at + 1 :]]


def whole_file(draw: Draw, lines: Lines) -> Lines:
    text = "".join(lines)
    how = draw(st.sampled_from(["crlf", "tabs", "no-final-newline", "form-feed", "lone-cr"]))
    if how == "crlf":
        text = text.replace("\r\n", "\n").replace("\n", "\r\n")
    elif how == "tabs":
        text = re.sub(r"(?m)^((?:    )+)", lambda m: "\t" * (len(m.group(1)) // 4), text)
    elif how == "no-final-newline":
        text = text.rstrip("\r\n")
    elif how == "form-feed":
        text = "\x0c" + text
    else:
        text = text.replace("\n", "\r", 1)
    return _LINE.findall(text)


MUTATIONS = [
    insert_line,
    delete_line,
    duplicate_line,
    rename_identifier,
    reindent,
    wrap_block,
    add_non_blocking,
    swap_to_cuda,
    toggle_pinning,
    add_comment,
    whole_file,
]


@st.composite
def mutated(draw: Draw, seeds: list[str] = SEEDS, most: int = 6) -> str:
    """A seed after up to ``most`` mutations. In half the programs a mutation that breaks the
    syntax is undone, so that the rules and their fixes see deeply mutated code that parses; in
    the other half anything goes."""
    seed = str(draw(st.sampled_from(seeds)))
    keep_valid = draw(st.booleans()) and _ast_parses(seed)
    lines = _LINE.findall(seed)
    for _ in range(int(draw(st.integers(1, most)))):  # type: ignore[arg-type]
        mutate = draw(st.sampled_from(MUTATIONS))
        new = mutate(draw, lines)  # type: ignore[operator]
        if not keep_valid or _ast_parses("".join(new)):
            lines = new
    return "".join(lines)


# Built once: building the grammar strategy costs more than drawing a hundred programs from it.
GRAMMAR = hypothesmith.from_grammar()


@st.composite
def spliced(draw: Draw) -> str:
    """A grammar-generated program put between the top-level statements of a real one."""
    program = str(draw(GRAMMAR))
    seed = str(draw(st.sampled_from(FIXABLE_SEEDS + SEEDS)))
    lines = _LINE.findall(seed)
    tops = [i for i, line in enumerate(lines) if line[:1].strip() and line[:1] != ")"]
    at = int(draw(st.sampled_from([*tops, len(lines)])))
    if program and not program.endswith("\n"):
        program += "\n"
    return "".join(lines[:at]) + program + "".join(lines[at:])


# -- running a program through the pipeline -----------------------------------------------------


def encode(text: str) -> bytes:
    # Lone surrogates (the grammar allows them in strings) go through as bytes that are not
    # UTF-8, which the pipeline must report as E902.
    return text.encode("utf-8", "surrogatepass")


def run_job(
    data: bytes, mode: Mode = Mode.CHECK, *, unsafe: bool = False, prefilter: bool = False
) -> FileResult:
    return process(
        FileJob(
            path=NAME,
            display=NAME,
            data=data,
            rules=ALL_RULES,
            mode=mode,
            unsafe=unsafe,
            prefilter=prefilter,
        )
    )


def key(finding: Finding) -> tuple[object, ...]:
    return (finding.code, finding.start, finding.end, finding.message, finding.fix)


def applicable(finding: Finding, unsafe: bool) -> bool:
    if finding.fix is None:
        return False
    return finding.fix.safety is FixSafety.SAFE or (
        unsafe and finding.fix.safety is FixSafety.UNSAFE
    )


def libcst_parses(text: str) -> bool:
    try:
        cst.parse_module(text)
    except (cst.ParserSyntaxError, RecursionError, MemoryError):
        return False
    return True


def compiles(text: str) -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            compile(text, NAME, "exec", dont_inherit=True)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return False
    return True


def no_internal_error(result: FileResult, what: str, data: bytes) -> None:
    internal = [f for f in result.findings if f.code == INTERNAL_ERROR_CODE]
    assert not internal, f"{what}: E900 on\n{data!r}\n{internal}"


def located(findings: list[Finding], text: str) -> None:
    rows = text.count("\n") + text.count("\r") - text.count("\r\n") + 1
    for finding in findings:
        if finding.code in (SYNTAX_ERROR_CODE, IO_ERROR_CODE):
            assert 1 <= finding.start.row <= rows + 1, (finding, rows)
            assert finding.start.column >= 1, finding
            assert finding.message, finding


# (rule whose fix was applied, rule that flags the fixed code): known bugs, exempted here so that
# the generated programs still test every other pair. None left.
KNOWN_INTRODUCED: frozenset[tuple[str, str]] = frozenset()


def not_checked(finding: Finding) -> bool:
    return finding.code == IO_ERROR_CODE and finding.message.startswith("file not checked")


def check_program(text: str) -> None:
    """Every property, for one program."""
    data = encode(text)
    checked = run_job(data)
    no_internal_error(checked, "check", data)
    located(checked.findings, text)

    # The prefilter only skips files no rule could flag: the findings are the same, except
    # that a file it skips was not left unchecked (valid Python that libcst cannot parse).
    filtered = run_job(data, prefilter=True)
    no_internal_error(filtered, "check (prefiltered)", data)
    unfiltered = checked.findings
    if not any(not_checked(finding) for finding in filtered.findings):
        unfiltered = [finding for finding in unfiltered if not not_checked(finding)]
    assert sorted(map(key, filtered.findings), key=repr) == sorted(
        map(key, unfiltered), key=repr
    ), f"prefilter changes the findings of\n{text}"

    for unsafe in (False, True):
        check_fix(text, data, checked, unsafe)


def check_fix(text: str, data: bytes, checked: FileResult, unsafe: bool) -> None:
    mode = "--fix --unsafe-fixes" if unsafe else "--fix"
    fixed = run_job(data, Mode.STDOUT, unsafe=unsafe)
    no_internal_error(fixed, mode, data)
    if fixed.output is None:
        # Nothing fixed (undecodable, skip-file, no rule marker); that the source is then not
        # given back is test_fix_from_stdin_always_gives_the_source_back's business.
        assert not fixed.fixed_by_code, fixed.fixed_by_code
        return
    if any(f.code == SYNTAX_ERROR_CODE for f in checked.findings):
        assert fixed.output == data, f"{mode} changed a file that does not parse"
        return
    if fixed.output == data:
        assert not fixed.fixed_by_code, (mode, fixed.fixed_by_code)
        return

    applied = set(fixed.fixed_by_code)
    assert applied, f"{mode} changed the file but reports no fix applied"
    if not unsafe:
        assert applied <= SAFE_CODES, f"--fix applied unsafe fixes {applied - SAFE_CODES}"
    new_text = fixed.output.decode("utf-8")
    assert libcst_parses(new_text), f"{mode} output does not parse:\n{new_text}"
    if compiles(text):
        assert compiles(new_text), f"{mode} output does not compile:\n{text}\n---\n{new_text}"
    if _ast_parses(text):
        assert _ast_parses(new_text)

    again = run_job(fixed.output, Mode.STDOUT, unsafe=unsafe)
    no_internal_error(again, f"second {mode}", fixed.output)
    assert again.output == fixed.output, (
        f"second {mode} is not a no-op:\n{new_text}\n---\n{(again.output or b'').decode()}"
    )
    assert not again.fixed_by_code, again.fixed_by_code

    rechecked = run_job(fixed.output)
    no_internal_error(rechecked, f"check after {mode}", fixed.output)
    left = [f for f in rechecked.findings if f.code in applied and applicable(f, unsafe)]
    assert not left, f"{mode} left fixable findings of the rules it applied:\n{new_text}\n{left}"
    before, after = (
        Counter(f.code for f in checked.findings),
        Counter(f.code for f in rechecked.findings),
    )
    introduced = {
        code: after[code] - before[code]
        for code in after
        if code not in applied
        and after[code] > before[code]
        and not any((rule, code) in KNOWN_INTRODUCED for rule in applied)
    }
    assert not introduced, f"{mode} by {applied} brings new findings {introduced}:\n{new_text}"
    reported = [f for f in fixed.findings if f.code != IO_ERROR_CODE]
    assert sorted(map(key, reported), key=repr) == sorted(map(key, rechecked.findings), key=repr), (
        f"{mode} reports other findings than a check of its output:\n{new_text}"
    )


def _ast_parses(text: str) -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return False
    return True


# -- every seed, as it is -----------------------------------------------------------------------


@pytest.mark.parametrize("label", LABELLED_SEEDS)
def test_every_fixture_and_rule_example_checks_and_fixes_safely(label: str) -> None:
    check_program(LABELLED_SEEDS[label])


FIXING_SEEDS = [
    label
    for label in LABELLED_SEEDS
    if label.split("-")[0] not in RULES
    or (
        label.split("-")[1] == "invalid"
        and RULES[label.split("-")[0]].fix_safety is not FixSafety.NONE
    )
]


@pytest.mark.parametrize("label", FIXING_SEEDS)
def test_a_fix_brings_no_finding_of_another_rule(label: str) -> None:
    """What --fix --unsafe-fixes writes is not flagged by a rule that did not flag the original:
    the fixed code is what the rules recommend, for every rule."""
    data = encode(LABELLED_SEEDS[label])
    before = Counter(f.code for f in run_job(data).findings)
    fixed = run_job(data, Mode.STDOUT, unsafe=True)
    if fixed.output is None or fixed.output == data:
        return
    after = run_job(fixed.output).findings
    new = [
        f"{f.code} {f.start.row}:{f.start.column} {f.message}"
        for f in after
        if f.code not in fixed.fixed_by_code
        and Counter(g.code for g in after)[f.code] > before[f.code]
    ]
    assert not new, "\n".join(new)


def test_the_rule_examples_exercise_at_least_one_fix() -> None:
    """Otherwise the fix properties below would hold vacuously."""
    if not any(rule.fix_safety is not FixSafety.NONE for rule in RULES.values()):
        pytest.skip("no registered rule offers a fix yet")
    changed = [
        s for s in FIXABLE_SEEDS if run_job(encode(s), Mode.STDOUT, unsafe=True).output != encode(s)
    ]
    assert changed


# -- generated and mutated programs -------------------------------------------------------------


@DEFAULT
@given(GRAMMAR)
# Found by the fuzz run: valid Python (a line continuation before the end of the file) that
# libcst's tokenizer refuses.
@example(text="\n\\\r\n")
def test_grammar_generated_programs(text: str) -> None:
    check_program(text)


@DEFAULT
@given(spliced())
def test_grammar_generated_programs_inside_torch_code(text: str) -> None:
    check_program(text)


@DEFAULT
@given(mutated())
def test_mutated_fixtures_and_examples(text: str) -> None:
    check_program(text)


@DEFAULT
@given(mutated(FIXABLE_SEEDS, most=3))
def test_mutated_fixable_examples(text: str) -> None:
    check_program(text)


@pytest.mark.fuzz
@FUZZ
@given(GRAMMAR)
def test_fuzz_grammar_generated_programs(text: str) -> None:
    check_program(text)


@pytest.mark.fuzz
@FUZZ
@given(spliced())
def test_fuzz_grammar_generated_programs_inside_torch_code(text: str) -> None:
    check_program(text)


@pytest.mark.fuzz
@FUZZ
@given(mutated(most=12))
def test_fuzz_mutated_fixtures_and_examples(text: str) -> None:
    check_program(text)


@pytest.mark.fuzz
@FUZZ
@given(mutated(FIXABLE_SEEDS, most=4))
def test_fuzz_mutated_fixable_examples(text: str) -> None:
    check_program(text)


# -- a whole run: one broken file never costs the others ----------------------------------------

GOOD = "import torch\ny = torch.tensor([1, 2]).to('cuda', non_blocking=True)\n"
FINDING_LINE = re.compile(
    r"^(?P<path>[^\s:][^:]*):(?P<row>\d+):(?P<column>\d+): (?P<code>[A-Z]\w+) "
)


def cli(cwd: Path, *args: str, stdin: bytes | None = None) -> Result:
    """The CLI in-process, run from ``cwd``, never touching a cache."""
    old = Path.cwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(
            main, ["--no-cache", "--no-color", *args], input=stdin, catch_exceptions=False
        )
    finally:
        os.chdir(old)


def where(output: str) -> Counter[tuple[str, str, int, int]]:
    return Counter(
        (m["path"], m["code"], int(m["row"]), int(m["column"]))
        for m in map(FINDING_LINE.match, output.splitlines())
        if m
    )


def check_run(texts: list[str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "good.py").write_text(GOOD)
        datas = {f"m{i:02d}.py": encode(text) for i, text in enumerate(texts)}
        for name, data in datas.items():
            (root / name).write_bytes(data)
        expected: Counter[tuple[str, str, int, int]] = Counter({("good.py", "HTD102", 2, 5): 1})
        for name, data in datas.items():
            for finding in run_job(data, prefilter=True).findings:
                expected[(name, finding.code, finding.start.row, finding.start.column)] += 1

        result = cli(root, "-j", "2", ".")
        assert result.exit_code == 1, result.output
        assert where(result.stdout) == expected, result.stdout

        fixed = cli(root, "-j", "2", "--fix", "--unsafe-fixes", ".")
        assert fixed.exit_code in (0, 1), fixed.output
        for name, data in datas.items():
            output = run_job(data, Mode.STDOUT, unsafe=True, prefilter=True).output
            assert (root / name).read_bytes() == (data if output is None else output), name


@settings(DEFAULT, max_examples=10)
@given(st.lists(st.one_of(mutated(), spliced()), min_size=4, max_size=12))
def test_a_run_reports_every_file_whatever_the_others_hold(texts: list[str]) -> None:
    check_run(texts)


@pytest.mark.fuzz
@settings(FUZZ, max_examples=200)
@given(st.lists(st.one_of(mutated(most=10), spliced()), min_size=4, max_size=40))
def test_fuzz_a_run_reports_every_file_whatever_the_others_hold(texts: list[str]) -> None:
    check_run(texts)


# -- fixed fixtures compute what the originals computed -----------------------------------------

FIXTURES = sorted((ROOT / "fixtures").glob("*/*.py"))


@pytest.mark.parametrize("unsafe", [False, True], ids=["fix", "unsafe-fixes"])
@pytest.mark.parametrize("path", FIXTURES, ids=[f"{p.parent.name}-{p.stem}" for p in FIXTURES])
def test_fixing_a_runnable_fixture_keeps_its_outputs_on_the_cpu(path: Path, unsafe: bool) -> None:
    """Every rule's fix applied to every fixture (not only its own rule's), run on the CPU."""
    data = path.read_bytes()
    output = run_job(data, Mode.STDOUT, unsafe=unsafe, prefilter=True).output
    if output is None or output == data:
        return
    fixed_text = output.decode("utf-8")
    if "\nREQUIRES_CUDA = True" in fixed_text or "\nREQUIRES_CUDA = True" in data.decode():
        pytest.skip(f"{path.parent.name}/{path.name} needs CUDA")
    pytest.importorskip("torch", reason="the fixtures need torch (pip install torch)")
    from h2dlint.verify.compare import compare_outputs
    from h2dlint.verify.fixtures import run_fixture_on_cpu

    with tempfile.TemporaryDirectory() as tmp:
        fixed = Path(tmp) / path.name
        fixed.write_bytes(output)
        difference = compare_outputs(run_fixture_on_cpu(path), run_fixture_on_cpu(fixed))
    assert difference is None, difference


# -- bad input that tests/test_bad_input.py does not cover ---------------------------------------


def test_unknown_code_in_noqa_is_reported_and_known_codes_are_still_honoured(
    tmp_path: Path,
) -> None:
    """As Ruff does: an unknown h2dlint code in a suppression comment is pointed out at its
    place, the known codes beside it still suppress, and other tools' codes are left alone."""
    (tmp_path / "bad.py").write_text(
        "import torch\n"
        "y = torch.tensor([1, 2]).to('cuda', non_blocking=True)  # noqa: HTD102, HTD999\n"
        "z = torch.tensor([3]).to('cuda', non_blocking=True)  # noqa: HTD998\n"
        "w = 1  # noqa: E501, F401\n"
    )
    result = cli(tmp_path, "bad.py")
    output = result.stdout + result.stderr
    found = where(result.stdout)
    assert ("bad.py", "HTD102", 2, 5) not in found  # the known code still suppresses
    assert ("bad.py", "HTD102", 3, 5) in found  # an unknown code suppresses nothing
    for row, code in ((2, "HTD999"), (3, "HTD998")):
        lines = [line for line in output.splitlines() if line.startswith(f"bad.py:{row}:")]
        assert any(code in line for line in lines), (code, output)
    assert not [line for line in output.splitlines() if line.startswith("bad.py:4:")]
    assert result.exit_code == 1  # findings, not a usage error


def _ten_megabytes(tail: str) -> str:
    rows = []
    size = 0
    i = 0
    while size < 10 * 1024 * 1024:
        row = f"    ({i}, {i * 7 % 1000}, 'token_{i}', {i / 3:.6f}),\n"
        rows.append(row)
        size += len(row)
        i += 1
    return "import torch\n\nTABLE = [\n" + "".join(rows) + "]\n" + tail


def _lint_big(
    tmp_path: Path, tail: str, limit: float
) -> tuple[subprocess.CompletedProcess[str], float]:
    (tmp_path / "big.py").write_text(_ten_megabytes(tail))
    (tmp_path / "good.py").write_text(GOOD)
    start = time.monotonic()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "h2dlint", "--no-cache", "--no-color", "big.py", "good.py"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=limit,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"a 10 MB file took more than {limit:.0f} s")
    return proc, time.monotonic() - start


def test_ten_megabyte_generated_file_is_checked_in_bounded_time(tmp_path: Path) -> None:
    """A generated data table no rule could flag: syntax-checked, never parsed with libcst."""
    proc, _ = _lint_big(tmp_path, "", limit=90)
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    assert where(proc.stdout) == Counter({("good.py", "HTD102", 2, 5): 1})


def test_ten_megabyte_generated_file_with_one_finding_is_checked_in_bounded_time(
    tmp_path: Path,
) -> None:
    """libcst alone would take about 380 s and 6.5 GB: only the statements a rule could flag
    are parsed (h2dlint/large_files.py)."""
    proc, _ = _lint_big(
        tmp_path, "y = torch.tensor([1, 2]).to('cuda', non_blocking=True)\n", limit=120
    )
    assert proc.returncode == 1, proc.stderr
    rows = _ten_megabytes("").count("\n") + 1
    assert where(proc.stdout) == Counter(
        {("good.py", "HTD102", 2, 5): 1, ("big.py", "HTD102", rows, 5): 1}
    )


STDIN_CASES = {
    "no-rule-marker": b"x = 1\n",
    "skip-file": b"# h2dlint: skip-file\nimport torch\ny = torch.zeros(8).to('cuda')\n",
    "not-utf8": b"x = '\xff'\n",
    "syntax-error-no-marker": b"def f(:\n    pass\n",
}


@pytest.mark.parametrize("data", STDIN_CASES.values(), ids=STDIN_CASES.keys())
def test_fix_from_stdin_always_gives_the_source_back(tmp_path: Path, data: bytes) -> None:
    result = cli(tmp_path, "--fix", "-", stdin=data)
    assert result.stdout_bytes == data


def test_fix_from_stdin_gives_a_file_that_needs_no_fix_back(tmp_path: Path) -> None:
    data = b"import torch\ny = torch.tensor([1]).to('cuda', non_blocking=True)\n"
    result = cli(tmp_path, "--fix", "-", stdin=data)
    assert result.stdout_bytes == data

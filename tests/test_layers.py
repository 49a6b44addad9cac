"""The layers of h2dlint's code, read from its imports (CPython's ``ast``, nothing is imported).

A module may import from its own layer or a lower one, never a higher one, and no two modules
import each other, directly or around a loop: every import counts, those under
``if TYPE_CHECKING:`` and those inside functions too. ``docs/architecture.md`` describes the
layers; a new module gets its place in ``LAYERS`` (the test fails until it has one).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# From the top. A name ending in ".*" is every module of that package (and the package itself).
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "command line",
        (
            "h2dlint.__main__",
            "h2dlint.cli",
            "h2dlint.check_command",
            "h2dlint.check_info",
            "h2dlint.check_report",
            "h2dlint.check_args",
            "h2dlint.reporters.*",
            "h2dlint.verify.*",
            "h2dlint.trace.*",
        ),
    ),
    (
        "run",
        (
            "h2dlint.runner",
            "h2dlint.forked_files",
            "h2dlint.collector",
            "h2dlint.pipeline",
            "h2dlint.cache",
            "h2dlint.results_layout",
            "h2dlint.catalogue",
            "h2dlint.config",
            "h2dlint.config_file",
            "h2dlint.overrides",
            "h2dlint.selection",
            "h2dlint.discovery",
            "h2dlint.excludes",
            "h2dlint.gitignore",
            "h2dlint.globs",
            "h2dlint.fileio",
            "h2dlint.noqa",
            "h2dlint.large_files",
        ),
    ),
    (
        "engine",
        (
            "h2dlint.engine",
            "h2dlint.fixer",
            "h2dlint.dispatch",
            "h2dlint.edits",
            "h2dlint.findings",
            "h2dlint.parsing",
        ),
    ),
    ("rules", ("h2dlint.rules.*", "h2dlint.fix_format", "h2dlint.fix_enclose", "h2dlint.fix_wrap")),
    ("analysis", ("h2dlint.analysis.*",)),
    ("project index", ("h2dlint.project.*",)),
    (
        "base",
        (
            "h2dlint",
            "h2dlint.walk",
            "h2dlint.context",
            "h2dlint.diagnostics",
            "h2dlint.rule",
            "h2dlint.examples",
            "h2dlint.registry",  # loads the rules by name (importlib), never by an import
            "h2dlint.dataclass_code",
            "h2dlint.jobs",
            "h2dlint.time_limit",
            "h2dlint.source",
            "h2dlint.suppression",
            "h2dlint.legacy_codes",
            "h2dlint.confidence",
            "h2dlint.digest",
            "h2dlint.imports",
            "h2dlint.candidates",
            "h2dlint.candidate_terms",
            "h2dlint.candidate_syntax",
            "h2dlint.cst_parse",
            "h2dlint.statement_positions",
            "h2dlint.parent_death",
        ),
    ),
)
RULES_PACKAGE = "h2dlint.rules"
# Import loops not yet broken, each with why. Any other loop fails the test.
KNOWN_CYCLES = [
    # The index builds its caller index on first use (a function-level import) and the caller
    # index reads the index: to be broken by the project-index work (pass a factory in).
    ["h2dlint.project.callers", "h2dlint.project.index"],
]

Graph = dict[str, set[str]]


def module_files() -> dict[str, Path]:
    """Every module of h2dlint by its dotted name; ``rules/`` ships as ``h2dlint.rules``."""
    found: dict[str, Path] = {}
    for path in [*(ROOT / "h2dlint").rglob("*.py"), *(ROOT / "rules").glob("*.py")]:
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[0] == "rules":
            parts = ["h2dlint", *parts]
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def imports_of(name: str, source: str, known: Iterable[str], *, package: bool = False) -> set[str]:
    """The modules of ``known`` that the module ``name`` (whose text is ``source``) imports,
    wherever the import statement is, with the packages they are in. ``package``: the module
    is a package's ``__init__``."""
    modules = set(known)
    here = name if package else name.rpartition(".")[0]
    named: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            named.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = here.split(".")
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            for alias in node.names:
                full = f"{base}.{alias.name}"
                named.add(full if full in modules else base)
    out = set()
    for target in named:
        while target and target not in modules:
            target = target.rpartition(".")[0]
        # Importing a module runs its packages' __init__ first: those are imported too, except
        # the packages the importing module is itself part of (already running).
        while target and target != name:
            if target in modules and not name.startswith(target + "."):
                out.add(target)
            target = target.rpartition(".")[0]
    return out


def import_graph() -> Graph:
    files = module_files()
    return {
        name: imports_of(
            name, path.read_text(encoding="utf-8"), files, package=path.name == "__init__.py"
        )
        for name, path in files.items()
    }


def layer_of(name: str) -> int | None:
    """The rank of ``name``'s layer, 0 at the top; None for a module no layer names."""
    for rank, (_, patterns) in enumerate(LAYERS):
        for pattern in patterns:
            if pattern.endswith(".*"):
                package = pattern[:-2]
                if name == package or name.startswith(package + "."):
                    return rank
            elif name == pattern:
                return rank
    return None


def upward_imports(graph: Mapping[str, set[str]]) -> list[str]:
    """Every import of a module from a higher layer (or of one rule from another), and every
    module without a layer."""
    problems = []
    for name in sorted(graph):
        rank = layer_of(name)
        if rank is None:
            problems.append(f"{name} belongs to no layer: add it to LAYERS")
            continue
        for target in sorted(graph[name]):
            target_rank = layer_of(target)
            if target_rank is not None and target_rank < rank:
                problems.append(
                    f"{name} ({LAYERS[rank][0]}) imports {target} ({LAYERS[target_rank][0]})"
                )
            rule_module = name.startswith(RULES_PACKAGE + ".")
            if rule_module and target.startswith(RULES_PACKAGE + "."):
                problems.append(f"{name} imports another rule, {target}: share it in analysis/")
    return problems


def cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The groups of modules that import each other around a loop (Tarjan's strongly connected
    components of more than one module), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                connect(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return sorted(found)


def test_every_import_goes_down_the_layers() -> None:
    assert upward_imports(import_graph()) == []


def test_no_modules_import_each_other() -> None:
    assert [c for c in cycles(import_graph()) if c not in KNOWN_CYCLES] == []


def test_the_graph_holds_imports_under_type_checking_and_in_functions() -> None:
    graph = import_graph()
    assert "h2dlint.diagnostics" in graph["h2dlint.engine"]
    assert "h2dlint.rule" in graph["h2dlint.jobs"]  # under TYPE_CHECKING
    assert "h2dlint.registry" in graph["h2dlint.jobs"]  # inside a function
    assert "h2dlint.analysis.provenance" in graph["h2dlint.rules.htd101_per_item_transfer"]
    # A module of a package imports the package's __init__, but not its own package's.
    assert "h2dlint.reporters" in graph["h2dlint.check_command"]  # via reporters.text
    assert "h2dlint.analysis.provenance" not in graph["h2dlint.analysis.provenance.core"]


def test_an_upward_import_is_reported(tmp_path: Path) -> None:
    """The checker on a module that imports the engine from the analysis layer (hidden under
    TYPE_CHECKING, as the old cycles were), and on a graph with one added edge."""
    source = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from h2dlint.engine import check_text\n"
        "from ..walk import visit_read_only\n"
    )
    graph = import_graph()
    name = "h2dlint.analysis.upward"
    graph[name] = imports_of(name, source, [*graph, name])
    assert graph[name] == {"h2dlint.engine", "h2dlint.walk"}
    assert upward_imports(graph) == [
        "h2dlint.analysis.upward (analysis) imports h2dlint.engine (engine)"
    ]

    graph = import_graph()
    graph["h2dlint.context"].add("h2dlint.analysis.provenance")
    graph["h2dlint.rules.htd103_non_contiguous_view_copy"].add(
        "h2dlint.rules.htd104_concat_then_copy"
    )
    assert upward_imports(graph) == [
        "h2dlint.context (base) imports h2dlint.analysis.provenance (analysis)",
        "h2dlint.rules.htd103_non_contiguous_view_copy imports another rule, "
        "h2dlint.rules.htd104_concat_then_copy: share it in analysis/",
    ]


def test_a_cycle_and_a_module_without_a_layer_are_reported() -> None:
    graph: Graph = {
        "h2dlint.cli": {"h2dlint.check_command"},
        "h2dlint.check_command": {"h2dlint.cli"},
    }
    assert cycles(graph) == [["h2dlint.check_command", "h2dlint.cli"]]
    graph = {"h2dlint.a": {"h2dlint.b"}, "h2dlint.b": {"h2dlint.c"}, "h2dlint.c": {"h2dlint.a"}}
    assert cycles(graph) == [["h2dlint.a", "h2dlint.b", "h2dlint.c"]]
    assert upward_imports({"h2dlint.newcomer": set()}) == [
        "h2dlint.newcomer belongs to no layer: add it to LAYERS"
    ]


def test_every_package_is_shipped() -> None:
    """A package under h2dlint/ that pyproject.toml does not list is missing once installed."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib

    listed = set(
        tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    )
    found = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for init in (ROOT / "h2dlint").rglob("__init__.py")
    }
    assert found - listed == set()

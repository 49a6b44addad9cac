"""Session 18's false-negative audit (docs/recall.md): list candidate syncs and copies in
functions that run per step or per request, drop those h2dlint reports, and draw a seeded sample
to read by hand.

    python scripts/recall_audit.py candidates PKG-VER ... > cands.json
    python scripts/recall_audit.py sample cands.json FINDINGS_DIR --per-package 6 --seed 18

``FINDINGS_DIR`` holds ``PKG-VER.json`` files of ``h2dlint check --select ALL --no-cache -j 1
--output-format json`` on the whole package. The rules are deliberately syntactic and broad: the
point is to see what the analysis leaves out, not to judge.
"""

from __future__ import annotations

import argparse
import ast
import json
import random
import re
import sys
from collections import defaultdict
from pathlib import Path

CORPUS = Path.home() / ".cache" / "h2dlint" / "corpus"
HOT_NAMES = frozenset(
    {"forward", "__call__", "step", "sample", "decode", "generate", "prepare_inputs"}
    | {"schedule", "prefill", "denoise", "__next__", "compute_loss", "training_step"}
)
HOT_WORDS = re.compile(
    r"(^|_)(step|forward|decode|sample|sampling|generate|prefill|schedule|model_loop|run_model"
    r"|postprocess|preprocess)(_|$)"
)
REDUCTIONS = frozenset({"sum", "max", "min", "any", "all", "mean", "argmax", "argmin", "item"})
TESTS = frozenset({"any", "all", "sum", "max", "min", "isnan", "isinf", "isfinite", "equal"})
SKIPPED_PARTS = ("/tests/", "/test_", "/examples/", "/benchmark", "/scripts/", "/docs/")


def _hot(name: str) -> bool:
    return name in HOT_NAMES or bool(HOT_WORDS.search(name))


def _functions(tree: ast.AST) -> list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, str]]:
    found: list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, str]] = []

    def visit(node: ast.AST, cls: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                visit(child, child.name)
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.append((child, cls))
                visit(child, cls)
            else:
                visit(child, cls)

    visit(tree, "")
    return found


def _called(function: ast.AST) -> set[str]:
    names = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
                if func.value.id == "self":
                    names.add(func.attr)
            elif isinstance(func, ast.Name):
                names.add(func.id)
    return names


def _in_loops(function: ast.AST) -> set[int]:
    inside: set[int] = set()
    for node in ast.walk(function):
        if isinstance(node, (ast.For, ast.While)):
            for statement in node.body:
                inside.update(id(n) for n in ast.walk(statement))
        elif isinstance(node, ast.comprehension):
            inside.update(id(n) for n in ast.walk(node))
    return inside


def _call_kind(node: ast.Call, in_loop: bool) -> str | None:
    func = node.func
    keywords = {k.arg for k in node.keywords}
    if isinstance(func, ast.Name) and func.id in ("int", "float", "bool") and node.args:
        arg = node.args[0]
        reduced = (
            isinstance(arg, ast.Call)
            and isinstance(arg.func, ast.Attribute)
            and arg.func.attr in REDUCTIONS
        )
        return f"{func.id}(tensor-ish)" if isinstance(arg, ast.Subscript) or reduced else None
    if not isinstance(func, ast.Attribute):
        return None
    attr = func.attr
    if attr in ("item", "tolist", "cpu", "numpy") and not node.args:
        return f".{attr}()"
    if attr in ("nonzero", "unique", "masked_select"):
        return attr
    if attr == "repeat_interleave" and "output_size" not in keywords:
        return attr
    if attr in ("to", "cuda") and in_loop:
        return f"loop .{attr}"
    if attr in ("to", "cuda", "copy_") and "non_blocking" in keywords:
        return "non_blocking"
    owner = func.value
    if attr in ("tensor", "as_tensor") and isinstance(owner, ast.Name) and owner.id == "torch":
        return f"torch.{attr}(device=)" if "device" in keywords else None
    inner = owner.func if isinstance(owner, ast.Call) else None
    made = ("tensor", "from_numpy", "as_tensor")
    if attr in ("to", "cuda") and isinstance(inner, ast.Attribute) and inner.attr in made:
        return f"torch.{inner.attr}().to"
    return None


def _candidates(function: ast.AST) -> list[tuple[int, str]]:
    loops = _in_loops(function)
    found = []
    for node in ast.walk(function):
        kind = None
        if isinstance(node, ast.Call):
            kind = _call_kind(node, id(node) in loops)
        elif isinstance(node, (ast.If, ast.While, ast.IfExp, ast.Assert)):
            for part in ast.walk(node.test):
                func = part.func if isinstance(part, ast.Call) else None
                if isinstance(func, ast.Attribute) and func.attr in TESTS:
                    kind = "if tensor-reduce"
                    break
        elif isinstance(node, ast.Subscript):
            index = node.slice
            masked = isinstance(index, ast.Name) and "mask" in index.id.lower()
            if isinstance(index, ast.Compare) or masked:
                kind = "bool-mask index"
        if kind is not None:
            found.append((node.lineno, kind))
    return found


def scan(root: Path) -> list[dict[str, object]]:
    """Every candidate in the hot functions of the package under ``root``."""
    rows: list[dict[str, object]] = []
    for path in sorted(root.rglob("*.py")):
        try:
            tree = ast.parse(path.read_text(encoding="utf-8", errors="replace"))
        except (SyntaxError, ValueError):
            continue
        functions = _functions(tree)
        by_class: dict[str, dict[str, ast.AST]] = defaultdict(dict)
        for function, cls in functions:
            by_class[cls][function.name] = function
        depth = {id(f): 0 for f, _ in functions if _hot(f.name)}
        queue = [(f, c) for f, c in functions if _hot(f.name)]
        hot: set[int] = set()
        while queue:
            function, cls = queue.pop()
            if id(function) in hot:
                continue
            hot.add(id(function))
            if depth[id(function)] >= 2:
                continue
            for name in _called(function):
                callee = by_class[cls].get(name) or by_class[""].get(name)
                if isinstance(callee, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    depth.setdefault(id(callee), depth[id(function)] + 1)
                    queue.append((callee, cls if name in by_class[cls] else ""))
        seen = set()
        for function, cls in functions:
            if id(function) not in hot:
                continue
            for line, kind in _candidates(function):
                if (line, kind) not in seen:
                    seen.add((line, kind))
                    rows.append(
                        {"path": str(path), "line": line, "kind": kind, "func": function.name}
                        | {"cls": cls}
                    )
    return rows


def sample(candidates: Path, findings: Path, per_package: int, seed: int) -> None:
    """Print a seeded sample of the candidates on no line h2dlint reports."""
    reported = set()
    done = set()
    for file in findings.glob("*.json"):
        done.add(file.stem)
        for finding in json.loads(file.read_text() or "[]"):
            rows = range(finding["location"]["row"], finding["end_location"]["row"] + 1)
            reported.update((finding["filename"], row) for row in rows)
    by_package = defaultdict(list)
    for row in json.loads(candidates.read_text()):
        path = row["path"]
        if row["package"] not in done or (path, row["line"]) in reported:
            continue
        if not any(part in path for part in SKIPPED_PARTS):
            by_package[row["package"]].append(row)
    generator = random.Random(seed)
    for package in sorted(by_package):
        rows = by_package[package]
        for row in generator.sample(rows, min(per_package, len(rows))):
            where = row["path"].split("/corpus/")[-1]
            print(f"{package}\t{where}\t{row['line']}\t{row['kind']}\t{row['cls']}.{row['func']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    listing = commands.add_parser("candidates")
    listing.add_argument("packages", nargs="+")
    drawing = commands.add_parser("sample")
    drawing.add_argument("candidates", type=Path)
    drawing.add_argument("findings", type=Path)
    drawing.add_argument("--per-package", type=int, default=6)
    drawing.add_argument("--seed", type=int, default=18)
    args = parser.parse_args()
    if args.command == "candidates":
        reserved = [p for p in args.packages if p.lower().startswith(("vllm", "sglang"))]
        if reserved:  # kept for the independent evaluation of precision and recall
            parser.error(f"{', '.join(reserved)}: reserved for independent evaluation")
        rows = []
        for package in args.packages:
            rows.extend(r | {"package": package} for r in scan(CORPUS / package))
        json.dump(rows, sys.stdout, indent=0)
    else:
        sample(args.candidates, args.findings, args.per_package, args.seed)


if __name__ == "__main__":
    main()

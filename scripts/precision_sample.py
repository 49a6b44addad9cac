"""Per-rule precision of h2dlint on serving and model code: scan, sample, read, score.

    python scripts/precision_sample.py scan                    # the default serving set
    python scripts/precision_sample.py scan lmdeploy litgpt    # some packages
    python scripts/precision_sample.py sample --per-stratum 25 --seed 11 --out /tmp/sample.md
    python scripts/precision_sample.py score                   # the table, from the labels

``scan`` runs ``h2dlint --select ALL --no-cache -j 1 --output-format json`` over each package's
chosen folders (``TARGETS``; the corpus of ``scripts/fetch_corpus.py``) and stores every finding
with whether its line runs on a hot path: the script asks h2dlint's own analysis
(``h2dlint.analysis.hot_paths.HotPaths``, with the project index for callers in other modules)
about the function around the line. A finding in no function, in run-once code, or in a
function not known to run per step is *cold*.

``sample`` draws, per rule and confidence (a stratum), a seeded random sample of findings and
prints each with its function for reading; findings already labelled say so.

``score`` matches the stored findings against the labels (``tests/data/labels/*.tsv``: ``expect`` =
CODE for a true finding, ``clean:CODE`` for a false alarm; a note that starts with ``undecidable:``
(after an optional ``tag:``) marks a finding whose truth the code cannot tell; a false alarm that
is still reported is kept as a comment, ``# package<TAB>path<TAB>line<TAB>clean:CODE<TAB>note``,
which the label test skips) and prints precision per rule x confidence x hot/cold. Labelled lines
no longer reported are counted apart: a clean line gone is a fixed false alarm, a true line gone a
lost finding.

To compare with another build, run ``scan`` under it (``PYTHONPATH=/tmp/base``, from a folder
outside the checkout) into another ``--store`` and ``score --store`` each.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import libcst as cst
from fetch_corpus import fetch

ROOT = Path(__file__).resolve().parents[1]
LABELS = ROOT / "tests" / "data" / "labels"
DEFAULT_STORE = Path(os.environ.get("TMPDIR", "/tmp")) / "h2dlint-precision"

_VL = ("qwen2_vl", "qwen2_5_vl", "llava", "llava_next", "llava_onevision", "idefics2")
# Added in session 10 for a sample of code no triage had read: recent multimodal, MoE and
# hybrid models, like the model code of a serving engine.
_NEWER = (
    "qwen3_vl",
    "qwen3_vl_moe",
    "qwen3_omni_moe",
    "qwen2_5_omni",
    "glm4v",
    "glm4v_moe",
    "llama4",
    "gemma3n",
    "deepseek_v3",
    "deepseek_vl",
    "mixtral",
    "qwen3_moe",
    "qwen3_next",
    "mamba2",
    "minimax",
    "phi4_multimodal",
    "ernie4_5_moe",
    "gpt_oss",
    "longcat_flash",
)
# Package -> the folders scanned (relative to the unpacked package): serving engines and model
# code like the blind set's. transformers and diffusers are too large to scan whole at -j 1.
TARGETS: dict[str, tuple[str, ...]] = {
    "lmdeploy": ("lmdeploy",),
    "litgpt": ("litgpt",),
    "exllamav2": ("exllamav2",),
    "deepspeed-mii": ("mii",),
    "mistral-inference": ("mistral_inference",),
    "torchtune": ("torchtune",),
    "gptqmodel": ("gptqmodel-7.7.0/gptqmodel",),
    "flashinfer-python": ("flashinfer",),
    "transformers": (
        *(f"transformers/models/{m}" for m in _VL),
        *(f"transformers/models/{m}" for m in ("idefics3", "mllama", "sam", "sam2", "whisper")),
        "transformers/generation",
        *(f"transformers/models/{m}" for m in _NEWER),
    ),
    "diffusers": ("diffusers/pipelines", "diffusers/models/transformers"),
    "deepspeed": ("deepspeed-0.19.8/deepspeed/inference",),
    "megatron-core": (
        "megatron/core/inference",
        "megatron/core/transformer",
        "megatron/core/models",
    ),
    # Added in session 11: serving engines, KV-cache offload and distributed diffusion/training
    # code no earlier triage read (lmcache's vllm/sglang integration folders are left out).
    "tokasaurus": ("tokasaurus",),
    "lmcache": ("lmcache/v1",),
    "exllamav3": (
        "exllamav3/architecture",
        "exllamav3/generator",
        "exllamav3/modules",
        "exllamav3/model",
        "exllamav3/cache",
        "exllamav3/util",
    ),
    "xfuser": ("xfuser/model_executor", "xfuser/core"),
    "torchtitan": ("torchtitan/models", "torchtitan/components", "torchtitan/experiments"),
    # Added in session 12: RL rollout and training engines (generation, rollout workers, model
    # code, losses), a quantization library, fairseq2's generation and models (verl's vllm and
    # sglang rollout adapters and patches are left out).
    "trl": ("trl",),
    "verl": (
        "verl/workers/engine",
        "verl/workers/utils",
        "verl/workers/rollout/naive",
        "verl/workers/rollout/trtllm_rollout",
        "verl/models",
        "verl/trainer/ppo",
        "verl/utils/kernel",
    ),
    "openrlhf": ("openrlhf-0.11.2.data/purelib/openrlhf",),
    "hqq": ("hqq-0.2.8.post1/hqq",),
    "fairseq2": ("fairseq2/generation", "fairseq2/models", "fairseq2/nn", "fairseq2/ops"),
    # Added in session 13: a video diffusion serving engine (its per-step pipeline stages, models
    # and attention; training, preprocessing, tests, the MLX runtime and the layers, workers and
    # entry points adapted from vllm left out; files headed "adapted from vllm" are not read), a
    # streaming speech LM and codec, a TTS engine, a DiT inference engine (caching per denoising
    # step, offload, attention, its Ray engine).
    "fastvideo": (
        "fastvideo/pipelines/basic",
        "fastvideo/pipelines/stages",
        "fastvideo/models/dits",
        "fastvideo/models/schedulers",
        "fastvideo/models/encoders",
        "fastvideo/models/vaes",
        "fastvideo/attention",
    ),
    "moshi": ("moshi",),
    "chatterbox-tts": ("chatterbox",),
    "cache-dit": (
        "cache_dit/caching",
        "cache_dit/offload",
        "cache_dit/attention",
        "cache_dit/ray",
    ),
    # Added in session 14 (helper hot202) for a held-out reading of HTD202: a KV-cache
    # compression library, a diffusion engine, a robot policy library (training and inference)
    # and linear-attention model code.
    "kvpress": ("kvpress",),
    "diffsynth": ("diffsynth",),
    "lerobot": ("lerobot",),
    "flash-linear-attention": ("fla/models", "fla/layers"),
}


@dataclass(frozen=True)
class Label:
    package: str
    path: str
    line: int
    code: str
    clean: bool
    undecidable: bool
    note: str
    # A false alarm still reported, kept as a comment (``# package<TAB>path<TAB>line<TAB>
    # clean:CODE<TAB>note``) so that tests/test_labels.py does not fail on it.
    open: bool = False


def load_labels() -> dict[tuple[str, str, int, str], Label]:
    labels: dict[tuple[str, str, int, str], Label] = {}
    for file in sorted(LABELS.glob("*.tsv")):
        for raw in file.read_text(encoding="utf-8").splitlines():
            commented = raw.startswith("# ")
            fields = raw.removeprefix("# ").split("\t")
            if not raw.strip() or (raw.startswith("#") and not commented) or len(fields) < 4:
                continue
            package, path, line, expect = fields[:4]
            code = expect.removeprefix("clean:")
            if not line.isdigit() or not code.startswith("HTD") or (commented and code == expect):
                continue  # a comment, or an older free-form record of a false positive
            note = fields[4] if len(fields) > 4 else ""
            label = Label(
                package,
                path,
                int(line),
                code,
                expect.startswith("clean:"),
                "undecidable" in [part.strip() for part in note.lower().split(":", 2)[:2]],
                note,
                commented,
            )
            labels[(package, path, int(line), code)] = label
    return labels


# -- scan -------------------------------------------------------------------------------------


def run_h2dlint(paths: list[Path]) -> list[dict[str, Any]]:
    cmd = [sys.executable, "-m", "h2dlint", "check", "--select", "ALL", "--no-cache"]
    cmd += ["-j", "1", "--exit-zero", "--output-format", "json", *map(str, paths)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"h2dlint failed:\n{proc.stderr}")
    found: list[dict[str, Any]] = json.loads(proc.stdout)
    return found


class _Chain(cst.CSTVisitor):
    """The statements around one line, outermost first (what a rule's ``ancestors`` hold of
    them: functions, classes, loops, branches)."""

    def __init__(self, ranges: Any, row: int) -> None:
        self.ranges = ranges
        self.row = row
        self.stack: list[cst.CSTNode] = []
        self.best: list[cst.CSTNode] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        if not isinstance(node, (cst.BaseCompoundStatement, cst.SimpleStatementLine)):
            return True
        try:
            span = self.ranges.range(node)
        except Exception:
            return True
        if not span.start.line <= self.row <= span.end.line:
            return False
        self.stack.append(node)
        if len(self.stack) > len(self.best):
            self.best = list(self.stack)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        if self.stack and self.stack[-1] is original_node:
            self.stack.pop()


def hotness(path: Path, rows: list[int]) -> dict[int, tuple[str | None, str]]:
    """row -> (why the line runs per step, or None; the function around it)."""
    from h2dlint.analysis.hot_paths import HotPaths
    from h2dlint.context import FileContext
    from h2dlint.parsing import parse

    text = path.read_text(encoding="utf-8", errors="replace")
    module = parse(text, str(path))
    context = FileContext(str(path), text, module)
    hot = HotPaths.of(context)
    answers: dict[int, tuple[str | None, str]] = {}
    for row in rows:
        chain = _Chain(context.positions, row)
        module.visit(chain)
        functions = [n for n in chain.best if isinstance(n, cst.FunctionDef)]
        named = [n for n in chain.best if isinstance(n, (cst.FunctionDef, cst.ClassDef))]
        name = ".".join(n.name.value for n in named)
        answers[row] = (hot.why_hot_at(chain.best) if functions else None, name or "<module>")
    context.release()
    return answers


def scan(package: str, store: Path) -> Path:
    from h2dlint.project.index import ProjectIndex
    from h2dlint.project.roots import ProjectIndexes, install_all, select

    tree = fetch(package)
    paths = [tree / sub for sub in TARGETS[package]]
    findings = run_h2dlint(paths)
    files = sorted(str(p) for sub in paths for p in sub.rglob("*.py"))
    install_all(ProjectIndexes(files, ProjectIndex))  # per top-level package, as `check`
    by_file: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for item in findings:
        by_file[item["filename"]].append(item)
    records = []
    for filename, items in sorted(by_file.items()):
        rows = sorted({int(item["location"]["row"]) for item in items})
        select(filename)
        hot = hotness(Path(filename), rows)
        for item in items:
            row = int(item["location"]["row"])
            reason, function = hot[row]
            records.append(
                {
                    "package": package,
                    "path": Path(filename).relative_to(tree).as_posix(),
                    "row": row,
                    "code": item["code"],
                    "confidence": item.get("confidence", "high"),
                    "message": item["message"],
                    "hot": reason is not None,
                    "hot_reason": reason,
                    "function": function,
                }
            )
    install_all(None)
    store.mkdir(parents=True, exist_ok=True)
    out = store / f"{package}.json"
    out.write_text(json.dumps(records, indent=1), encoding="utf-8")
    return out


def load_store(store: Path) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = []
    for file in sorted(store.glob("*.json")):
        records.extend(json.loads(file.read_text(encoding="utf-8")))
    return records


# -- sample -----------------------------------------------------------------------------------


def function_text(path: Path, row: int, limit: int) -> str:
    """The lines of the function around ``row`` (at most ``limit`` before and after it)."""
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    start = row - 1
    indent = len(lines[start]) - len(lines[start].lstrip())
    while start > 0 and row - start < limit:
        line = lines[start]
        stripped = line.lstrip()
        if stripped.startswith(("def ", "async def ")) and len(line) - len(stripped) < indent:
            break
        start -= 1
    end = min(row + limit // 3, len(lines))
    return "\n".join(
        f"{'>' if i + 1 == row else ' '}{i + 1:5d} {lines[i]}" for i in range(start, end)
    )


def draw(records: list[dict[str, Any]], per_stratum: int, seed: int) -> list[dict[str, Any]]:
    strata: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for record in records:
        strata[(record["code"], record["confidence"])].append(record)
    chosen: list[dict[str, Any]] = []
    for key in sorted(strata):
        pool = sorted(strata[key], key=lambda r: (r["package"], r["path"], r["row"]))
        random.Random(f"{seed}:{key[0]}:{key[1]}").shuffle(pool)
        chosen.extend(pool[:per_stratum])
    return chosen


def sample(args: argparse.Namespace) -> int:
    records = load_store(args.store)
    if args.select:
        records = [r for r in records if r["code"].startswith(tuple(args.select.split(",")))]
    labels = load_labels()
    chunks = []
    for record in draw(records, args.per_stratum, args.seed):
        key = (record["package"], record["path"], record["row"], record["code"])
        label = labels.get(key)
        if args.unlabelled and label is not None:
            continue
        tree = fetch(record["package"])
        where = f"hot ({record['hot_reason']})" if record["hot"] else "cold"
        said = "" if label is None else f"\nLABELLED: {'clean' if label.clean else 'true'}"
        chunks.append(
            f"### {record['package']}\t{record['path']}\t{record['row']}\t{record['code']}"
            f" [{record['confidence']}] {where} in {record['function']}{said}\n"
            f"{record['message']}\n```\n"
            f"{function_text(tree / record['path'], record['row'], args.context)}\n```\n"
        )
    report = "\n".join(chunks)
    if args.out:
        args.out.write_text(report, encoding="utf-8")
        print(f"{len(chunks)} findings written to {args.out}")
    else:
        print(report)
    return 0


# -- score ------------------------------------------------------------------------------------


def score(args: argparse.Namespace) -> int:
    records = load_store(args.store)
    labels = load_labels()
    if args.tag:
        labels = {k: v for k, v in labels.items() if v.note.startswith(args.tag)}
    packages = {r["package"] for r in records}
    reported = {(r["package"], r["path"], r["row"], r["code"]): r for r in records}
    table: Counter[tuple[str, str, str, str]] = Counter()
    gone: Counter[tuple[str, str]] = Counter()
    for key, label in labels.items():
        if label.package not in packages or not label.code.startswith("HTD"):
            continue
        record = reported.get(key)
        if record is None:
            if any(label.path.startswith(f"{sub}/") for sub in TARGETS.get(label.package, ())):
                gone[(label.code, "fixed false alarm" if label.clean else "lost true finding")] += 1
            continue
        verdict = "false" if label.clean else "undecidable" if label.undecidable else "true"
        where = "hot" if record["hot"] else "cold"
        table[(label.code, record["confidence"], where, verdict)] += 1
    lines = [
        "| rule | confidence | path | read | true | false | undecidable | precision |",
        "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    groups = sorted({key[:3] for key in table})
    totals: Counter[tuple[str, str]] = Counter()
    for group in groups:
        true, false, unsure = (table[(*group, v)] for v in ("true", "false", "undecidable"))
        cells = " | ".join(group)
        lines.append(f"| {cells} | {_counts(true, false, unsure)} |")
        for verdict, count in (("true", true), ("false", false), ("undecidable", unsure)):
            totals[(group[0], verdict)] += count
    lines += ["", "| rule | read | true | false | undecidable | precision |"]
    lines += ["| --- | ---: | ---: | ---: | ---: | ---: |"]
    for code in sorted({key[0] for key in totals}):
        true, false, unsure = (totals[(code, v)] for v in ("true", "false", "undecidable"))
        lines.append(f"| {code} | {_counts(true, false, unsure)} |")
    if gone:
        lines += ["", "Labelled lines no longer reported:"]
        lines += [f"- {code}: {count} {what}" for (code, what), count in sorted(gone.items())]
    print("\n".join(lines))
    return 0


def _counts(true: int, false: int, unsure: int) -> str:
    """read | true | false | undecidable | precision (true among those decided)."""
    decided = true + false
    precision = f"{100 * true / decided:.0f} %" if decided else "-"
    return f"{true + false + unsure} | {true} | {false} | {unsure} | {precision}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, default=DEFAULT_STORE, help="scanned findings")
    commands = parser.add_subparsers(dest="command", required=True)
    scan_parser = commands.add_parser("scan", help="run h2dlint over packages, store findings")
    scan_parser.add_argument("packages", nargs="*", help=f"default: {' '.join(TARGETS)}")
    sample_parser = commands.add_parser("sample", help="print a seeded sample for reading")
    sample_parser.add_argument("--per-stratum", type=int, default=25, help="per rule x confidence")
    sample_parser.add_argument("--seed", type=int, default=11)
    sample_parser.add_argument("--select", help="rule code prefixes, comma-separated")
    sample_parser.add_argument("--context", type=int, default=40, help="lines of the function")
    sample_parser.add_argument("--unlabelled", action="store_true", help="skip labelled ones")
    sample_parser.add_argument("--out", type=Path)
    score_parser = commands.add_parser("score", help="precision per rule x confidence x hot/cold")
    score_parser.add_argument("--tag", help="only labels whose note starts with this (one triage)")
    args = parser.parse_args(argv)
    if args.command == "scan":
        for package in args.packages or list(TARGETS):
            out = scan(package, args.store)
            print(f"{package}: {len(json.loads(out.read_text()))} findings -> {out}")
        return 0
    return sample(args) if args.command == "sample" else score(args)


if __name__ == "__main__":
    sys.exit(main())

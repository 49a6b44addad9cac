"""How much of a tree each rule's candidate declaration admits, in bytes.

A file is parsed with libcst only when some selected rule has a candidate in it (its byte
markers, then its ast ``candidates``: ``h2dlint/candidates.py``); each rule runs only on the
files it admits. This prints, per rule, the share of the tree's bytes it admits, and the share
any rule but HTD901/HTD902 (comments) admits: what a cold ``--select ALL`` run parses.

    python scripts/candidate_bytes.py ~/.cache/h2dlint/corpus/transformers-5.24.0/transformers
    python scripts/candidate_bytes.py TREE --json out.json   # per file, too

Only the CPython ``ast`` parse: fast. vllm, vllm-omni and sglang are never used.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
import warnings
from pathlib import Path

from h2dlint.engine import EnabledRule
from h2dlint.pipeline import candidate_rules
from h2dlint.registry import all_rules

COMMENT_RULES = frozenset({"HTD901", "HTD902"})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="+", type=Path)
    parser.add_argument("--json", type=Path, help="write the shares and each file's rules here")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")  # invalid escapes in the trees' strings
    rules = tuple(EnabledRule(rule) for rule in all_rules().values())
    out = {}
    for tree in args.trees:
        if tree.resolve().name.lower().startswith(("vllm", "sglang")):
            parser.error(f"{tree} is reserved for independent evaluation")
        total = any_rule = 0
        per_rule = {enabled.code: 0 for enabled in rules}
        files: dict[str, list[str]] = {}
        for path in sorted(tree.rglob("*.py")):
            data = path.read_bytes()
            try:
                parsed = ast.parse(data)
            except (SyntaxError, ValueError):
                continue
            total += len(data)
            kept = sorted(e.code for e in candidate_rules(data, rules, parsed))
            for code in kept:
                per_rule[code] += len(data)
            if set(kept) - COMMENT_RULES:
                any_rule += len(data)
            files[str(path.relative_to(tree))] = kept
        share = {code: round(100 * n / max(total, 1), 1) for code, n in per_rule.items()}
        print(f"{tree}: {total / 1e6:.1f} MB, any rule {100 * any_rule / max(total, 1):.1f}%")
        print("  " + " ".join(f"{code} {pct}%" for code, pct in share.items()))
        out[str(tree)] = {"bytes": total, "any": any_rule, "per_rule": share, "files": files}
    if args.json:
        args.json.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

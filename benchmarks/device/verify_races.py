"""The race pairs (fixtures/HTD401, fixtures/HTD402) on a GPU, with plain python3 + torch (no
click, no libcst): first each fixture's ``run`` once against its ``expected`` (the race in
``before``, none in ``after``), then ``h2dlint verify``'s own harness and verdict on both pairs.

    python3 benchmarks/device/verify_races.py --out $OUT/races.json

from the repository root. Exit 0 when both pairs PASS.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402

from h2dlint.verify.compare import compare_outputs, snapshot  # noqa: E402
from h2dlint.verify.fixtures import discover_pairs, load_fixture, pair_options  # noqa: E402
from h2dlint.verify.measure import Harness  # noqa: E402
from h2dlint.verify.report import PairOutcome, render_json, render_text  # noqa: E402
from h2dlint.verify.verdict import judge_pair  # noqa: E402

PAIRS = [ROOT / "fixtures" / "HTD401", ROOT / "fixtures" / "HTD402"]


def once(path: Path) -> str | None:
    """One run on the GPU against ``expected``: why it differs, or None."""
    fixture = load_fixture(path)
    state = fixture.setup(torch.device("cuda"))
    out = snapshot(fixture.run(state))
    torch.cuda.synchronize()
    return compare_outputs(out, snapshot(fixture.expected(state)))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    if not torch.cuda.is_available():
        print("no CUDA device", file=sys.stderr)
        return 3
    raw = {}
    for directory in PAIRS:
        for side in ("before", "after"):
            reason = once(directory / f"{side}.py")
            raw[f"{directory.name}/{side}"] = reason
            shown = "expected" if reason is None else f"WRONG: {reason}"
            print(f"{directory.name} {side}: {shown}")
    harness = Harness("cuda").start()
    outcomes = []
    for pair in discover_pairs(PAIRS):
        before, after = load_fixture(pair.before), load_fixture(pair.after)
        options = pair_options(before, after)
        measurement = harness.measure_pair(before, after, options.repeats or 30)
        outcomes.append(PairOutcome(pair, options, measurement, judge_pair(measurement, options)))
    print(render_text(outcomes, harness.environment()), end="")
    if args.out is not None:
        document = json.loads(render_json(outcomes, harness.environment()))
        document["single_runs"] = raw
        args.out.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    return 0 if all(o.verdict.passed for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())

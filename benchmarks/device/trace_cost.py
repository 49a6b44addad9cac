"""Where the time of `h2dlint trace` goes on the example, in one process on a CUDA machine:
the serving example's median step untraced and traced with parts of the trace turned off
(line coverage, the wrapped torch functions, the stream marker), then a cProfile of traced steps.

    python3 benchmarks/device/trace_cost.py [--steps 30]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
import time
from pathlib import Path
from typing import Any

import torch

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "examples" / "trace_serving"))

import serve  # noqa: E402
from model import Encoder  # noqa: E402
from preprocess import make_requests  # noqa: E402

from h2dlint.trace.session import Session  # noqa: E402


def median_step(encoder: Any, device: Any, steps: int, generator: Any) -> float:
    times = []
    for _ in range(steps):
        requests = make_requests(4, 4, serve.GRID, generator)
        torch.cuda.synchronize()
        start = time.perf_counter()
        serve.step(encoder, requests, device)
        torch.cuda.synchronize()
        times.append(time.perf_counter() - start)
    times.sort()
    return times[len(times) // 2] * 1e3


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument(
        "--early", action="store_true", help="build the model under a trace, as the command does"
    )
    args = parser.parse_args()
    device = torch.device("cuda")
    generator = torch.Generator().manual_seed(0)
    early = Session(torch) if args.early else None
    if early is not None:
        early.start()
    encoder = Encoder(hidden=1280, layers=8, max_tokens=4 * 4 * 256, device=device).to(device)
    if early is not None:
        with torch.no_grad():
            print(
                f"built under a trace, traced: {median_step(encoder, device, 30, generator):.3f} ms"
            )
        early.stop()
    variants: list[tuple[str, dict[str, Any] | None, bool]] = [
        ("untraced", None, False),
        ("traced", {}, False),
        ("traced, no line coverage", {"lines": False}, False),
        ("traced, no wrapped functions", {}, True),
        ("traced, no stream marker", {"marker": lambda device: None}, False),
        ("untraced again", None, False),
    ]
    with torch.no_grad():
        median_step(encoder, device, 3, generator)
        base = None
        for name, options, unpatched in variants:
            session = None
            if options is not None:
                session = Session(torch, **options)
                if unpatched:
                    session.patches.install = lambda: None  # type: ignore[method-assign]
                    session.patches.remove = lambda: None  # type: ignore[method-assign]
                session.start()
            median_step(encoder, device, 2, generator)
            ops0 = session.recorder.ops if session else 0
            ms = median_step(encoder, device, args.steps, generator)
            ops = (session.recorder.ops - ops0) / args.steps if session else 0
            if session is not None:
                session.stop()
            base = base or ms
            print(f"{name:32s} median step {ms:8.3f} ms  x{ms / base:5.2f}  ops/step {ops:6.0f}")
        session = Session(torch)
        session.start()
        median_step(encoder, device, 2, generator)
        profile = cProfile.Profile()
        profile.enable()
        median_step(encoder, device, 10, generator)
        profile.disable()
        session.stop()
    text = io.StringIO()
    pstats.Stats(profile, stream=text).sort_stats("tottime").print_stats(30)
    print(text.getvalue())


if __name__ == "__main__":
    main()

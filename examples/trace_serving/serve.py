"""A multimodal serving step: gather the requests' image features on the device, count their
patches, load positions, run the encoder. Prints the steady-state time per step.

    python examples/trace_serving/serve.py [--steps 20] [--device cuda]
    python examples/trace_serving/serve.py --device cpu --hidden 32 --layers 1  # a quick CPU run
    h2dlint trace -o trace.json -- python examples/trace_serving/serve.py
"""

import argparse
import time

import torch
from model import Encoder
from preprocess import (
    gather_features,
    make_requests,
    patches_per_item_device,
    patches_per_item_host,
    patches_per_item_vectorised,
)

GRID = (1, 16, 16)  # 256 patches of 1176 floats per image: 1.2 MB


def step(encoder, requests, device):
    features = gather_features(requests, device)
    grids = [item.grid for items in requests for item in items]
    grid_thw = torch.tensor(grids, device=device)
    counts = patches_per_item_device(grid_thw)
    assert counts == patches_per_item_host(grids) == patches_per_item_vectorised(grid_thw)
    n = sum(counts)
    positions = encoder.load_positions(n)
    staged, pinned = encoder.position_ids(grids)
    out = encoder(features, positions)
    return out + staged.float().mean() + pinned.float().mean()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--requests", type=int, default=4)
    parser.add_argument("--items", type=int, default=4)
    parser.add_argument("--hidden", type=int, default=1280)  # a Qwen2-VL-sized vision tower
    parser.add_argument("--layers", type=int, default=8)
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    args = parser.parse_args()
    device = torch.device(args.device)
    generator = torch.Generator().manual_seed(0)
    max_tokens = args.requests * args.items * GRID[0] * GRID[1] * GRID[2]
    encoder = Encoder(hidden=args.hidden, layers=args.layers, max_tokens=max_tokens, device=device).to(device)
    times = []
    with torch.no_grad():
        for i in range(args.warmup + args.steps):
            requests = make_requests(args.requests, args.items, GRID, generator)
            if device.type == "cuda":
                torch.cuda.synchronize()
            start = time.perf_counter()
            out = step(encoder, requests, device)
            if device.type == "cuda":
                torch.cuda.synchronize()
            if i >= args.warmup:
                times.append(time.perf_counter() - start)
    times.sort()
    median_ms = times[len(times) // 2] * 1e3
    print(f"steps: {len(times)}, median step: {median_ms:.3f} ms, checksum {float(out.sum()):.3f}")


if __name__ == "__main__":
    main()

"""Re-records serve.trace.json: the trace of project/serve.py, made on the CPU with "meta" standing
for the device (copies to it are H2D copies) and CPU tensors counted as device tensors (their
.item() is a sync). Run from the repository root: .venv/bin/python tests/data/trace/record.py

One edit stands for what a CPU build cannot do: the copy in step() (serve.py, line 15) is marked
as made from pinned memory, as `torch.tensor(counts).pin_memory()` would be on a GPU machine, so
that its HTD102 finding is contradicted."""

import json
import os
import sys
from pathlib import Path

import torch

from h2dlint.trace.events import document
from h2dlint.trace.session import Session

HERE = Path(__file__).resolve().parent
PROJECT = HERE / "project"

sys.path.insert(0, str(PROJECT))
os.chdir(PROJECT)
import serve  # noqa: E402

session = Session(torch, root=PROJECT, device_types=("meta", "cpu"), lines=False)
session.start()
try:
    serve.main("meta")
finally:
    trace = session.stop()
trace.command = ["python", "serve.py"]
trace.exit_code = 0
trace.wall_s = 0.01
trace.environment = {"python": "3.11", "torch": "2.13.0+cpu", "cuda": None}
for group in trace.groups:
    group.host_ms = group.max_ms * group.count  # stable numbers
    if group.site.file.endswith("serve.py") and group.site.line == 15:
        group.pinned = True
        group.non_blocking = True
        group.reason = ""
data = document(trace, None)
(HERE / "serve.trace.json").write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
print(json.dumps(data["trace"]["groups"], indent=1)[:2000])

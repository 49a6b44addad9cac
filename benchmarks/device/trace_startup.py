"""The fixed start-up cost of `h2dlint trace`, on a CUDA machine: importing torch, CUDA's
initialisation, importing the trace, and starting a trace session (its first dispatch mode).

    python3 benchmarks/device/trace_startup.py
"""

import time

start = time.perf_counter()
import torch  # noqa: E402

imported = time.perf_counter()
torch.ones(1, device="cuda")
torch.cuda.synchronize()
initialised = time.perf_counter()
from h2dlint.trace.session import Session  # noqa: E402

trace_imported = time.perf_counter()
session = Session(torch)
session.start()
started = time.perf_counter()
session.stop()
stopped = time.perf_counter()
print(
    f"import torch {imported - start:.2f} s, CUDA init {initialised - imported:.2f} s, "
    f"import trace {trace_imported - initialised:.2f} s, "
    f"session start {started - trace_imported:.2f} s, stop {stopped - started:.2f} s"
)

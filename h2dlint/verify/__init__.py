"""``h2dlint verify``: run before/after fixture pairs on a CUDA GPU and prove, measured, that a fix
removed the pageable copies and syncs, no longer blocks the host, keeps the output identical and is
not slower.

Only this subpackage imports torch, and only when ``verify`` runs (see ``docs/verify.md``):

- ``fixtures``: loading fixture files, the fixture contract, discovering before/after pairs;
- ``compare``: exact structural equality of two fixtures' outputs;
- ``sleep_kernel``: cycles of ``torch.cuda._sleep`` per millisecond on this GPU (also for the GPU
  tests and the device benchmarks);
- ``measure``: every torch/CUDA measurement (profiler memcpy kinds, syncs, sleep-kernel blocking,
  timings);
- ``verdict``: PASS/FAIL from two measurements, pure and CPU-testable;
- ``report``: the text table and JSON;
- ``command``: the glue behind the CLI, with its exit codes.
"""

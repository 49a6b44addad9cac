"""Code of a module pytest collects (``test_*.py``, ``*_test.py``): its tests and their helpers
run once per test, not per step or per request of a deployment (HTD101 and, since session 47,
HTD201: MEDIUM findings only; a test's rows proven on the device, flash-attn's and mamba-ssm's
per-row ``cache_seqlens``/``cu_seqlens`` reads, labelled true, are HIGH and stay reported).

Session 45 (fp1xx45): fastvideo's golden test ``tests/golden_gate/test_ltx2.py:112`` moves a
rope's (cos, sin) pair with ``to_dev(pe)``, a helper nested in the test's ``_make_inputs``,
once per test. Helper modules of test packages (``torchrec/distributed/test_utils/
model_input.py``, labelled true: the dummy inputs of benchmarks and multi-process tests;
``thunder/tests/distributed/helper.py``, a data loader's collate function) are not counted:
they may be imported by benchmarks or run per batch of a test's training loop.

Session 47 (fp1xx47), HTD201: ExecuTorch's ``backends/apple/metal/tests/test_modules.py:1231``
moves each test input to MPS and compares the outputs row by row, once per test case.
"""

from __future__ import annotations


def collected_module(file_name: str) -> bool:
    """Whether pytest collects the file by default: ``test_*.py`` or ``*_test.py``."""
    name = file_name.replace("\\", "/").rsplit("/", 1)[-1]
    if not name.endswith(".py"):
        return False
    stem = name.removesuffix(".py")
    return stem.startswith("test_") or stem.endswith("_test")


__all__ = ["collected_module"]

"""Ctrl-C during ``--fix``: every file is either untouched or fully fixed, nothing is left behind,
and the run exits 130.

A few hundred files, each holding a finding that a registered rule fixes, are fixed by
``python -m h2dlint --fix --unsafe-fixes -j 2`` in a child process; SIGINT is sent as soon as
the first file has been rewritten, while the others are still being worked on. The expected
fixed text is computed in-process with :func:`h2dlint.fixer.fix_text`.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from h2dlint.diagnostics import FixSafety
from h2dlint.engine import EnabledRule
from h2dlint.fixer import fix_text
from h2dlint.registry import all_rules

FILES = 150
FUNCTIONS_PER_FILE = 4
ALL_RULES = tuple(
    EnabledRule(rule, tuple(sorted(rule.default_settings().items())))
    for rule in all_rules().values()
)


def _fixable_source() -> tuple[str, str] | None:
    """A file that the registered rules fix (all of them enabled, as the CLI runs them), and its
    fixed text; None when no rule offers a fix yet."""
    for rule in all_rules().values():
        if rule.fix_safety is FixSafety.NONE:
            continue
        for example in rule.invalid:
            if example.expected_fix is None or not example.code.startswith("import torch\n"):
                continue
            body = example.code[len("import torch\n") :]
            if not body.startswith("def f("):
                continue
            # Many copies of the example per file: each file takes a while to fix, so that the
            # interrupt lands while most of them are still waiting.
            copies = "".join(
                body.replace("def f(", f"def f{i}(", 1) for i in range(FUNCTIONS_PER_FILE)
            )
            source = "import torch\n" + copies
            outcome = fix_text(source, "x.py", ALL_RULES, unsafe=True)
            fixed = fix_text(outcome.text, "x.py", ALL_RULES, unsafe=True)
            if outcome.text != source and fixed.text == outcome.text:
                return source, outcome.text
    return None


@pytest.fixture(scope="module")
def fixable() -> tuple[str, str]:
    found = _fixable_source()
    if found is None:
        pytest.skip("no registered rule offers a fix on a `def f(...)` example yet")
    return found


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _start(root: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "h2dlint",
            "--fix",
            "--unsafe-fixes",
            "--no-cache",
            "--no-color",
            "-q",
            "-j",
            "2",
            str(root),
        ],
        cwd=root.parent,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, as a shell gives a foreground job
        # A job started in the background of a non-interactive shell (some CI runners) inherits
        # SIGINT ignored, and Python then never raises KeyboardInterrupt: give it the default.
        preexec_fn=_default_sigint,
    )


def _wait_for_first_write(paths: list[Path], original: bytes, proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 120
    mtimes = {path: path.stat().st_mtime_ns for path in paths}
    while time.monotonic() < deadline and proc.poll() is None:
        for path in paths:
            try:
                if path.stat().st_mtime_ns != mtimes[path] or path.read_bytes() != original:
                    return
            except FileNotFoundError:  # between unlink and rename: never, with os.replace
                pytest.fail(f"{path.name} disappeared during the fix")
        time.sleep(0.01)
    pytest.fail("no file was rewritten before the run ended or two minutes passed")


@pytest.mark.parametrize(
    "target",
    ["process-group", "main-process"],
    ids=["ctrl-c", "kill-int-pid"],
)
def test_sigint_during_fix_leaves_every_file_untouched_or_fully_fixed(
    tmp_path: Path, fixable: tuple[str, str], target: str
) -> None:
    source, expected = fixable
    original, fixed = source.encode(), expected.encode()
    root = tmp_path / "project"
    root.mkdir()
    paths = [root / f"m{i:03d}.py" for i in range(FILES)]
    for path in paths:
        path.write_bytes(original)

    proc = _start(root)
    try:
        _wait_for_first_write(paths, original, proc)
        if target == "process-group":  # what Ctrl-C in a terminal does: every process gets it
            os.killpg(proc.pid, signal.SIGINT)
        else:
            proc.send_signal(signal.SIGINT)
        interrupted_at = time.monotonic()
        _, stderr = proc.communicate(timeout=180)
        took = time.monotonic() - interrupted_at
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()

    assert proc.returncode == 130, (proc.returncode, stderr)
    assert "Traceback" not in stderr, stderr
    assert "interrupted" in stderr
    contents = {path.name: path.read_bytes() for path in paths}
    broken = sorted(name for name, data in contents.items() if data not in (original, fixed))
    assert not broken, f"half-fixed files: {broken[:5]}"
    leftovers = sorted(p.name for p in root.iterdir() if p not in set(paths))
    assert leftovers == [], leftovers  # no *.h2dtmp temporary file, nothing else
    done = sum(data == fixed for data in contents.values())
    assert 0 < done < FILES, (
        f"the interrupt did not land mid-run ({done} of {FILES} fixed, exit after {took:.1f} s)"
    )

    if target == "main-process":
        return
    # The interrupted run can be finished by running it again.
    again = _start(root)
    _, stderr = again.communicate(timeout=300)
    assert again.returncode in (0, 1), stderr
    assert all(path.read_bytes() == fixed for path in paths)

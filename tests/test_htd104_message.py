"""HTD104's message says how the copy of a fresh join is staged: through the driver's *pinned*
bounce buffer, as the rule's docs and HTD102's say (the join itself is the pageable side)."""

from __future__ import annotations

from pathlib import Path

from h2dlint.engine import EnabledRule, check_text
from h2dlint.registry import all_rules

ROOT = Path(__file__).resolve().parent.parent

CODE = "import torch\ndef f(xs, device):\n    return torch.cat(xs).to(device, non_blocking=True)\n"


def test_copy_message_names_the_pinned_bounce_buffer() -> None:
    (finding,) = check_text(CODE, "m.py", (EnabledRule(all_rules()["HTD104"]),))
    assert finding.message == (
        "`torch.cat(xs)` makes a fresh pageable tensor that is then copied to the device through "
        "the driver's pinned bounce buffer (one more host copy; from a few MiB up the host waits "
        "for the stream even with `non_blocking=True`); concatenate straight into pinned memory "
        "with `out=`"
    )


def test_no_text_calls_the_bounce_buffer_pageable() -> None:
    places = [
        *ROOT.glob("rules/*.py"),
        *ROOT.glob("h2dlint/**/*.py"),
        *ROOT.glob("docs/**/*.md"),
        *ROOT.glob("fixtures/**/*.py"),
        ROOT / "README.md",
    ]
    wrong = [
        str(path.relative_to(ROOT))
        for path in places
        if "pageable bounce" in " ".join(path.read_text(encoding="utf-8").split())
    ]
    assert wrong == []

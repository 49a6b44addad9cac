"""Session 30 (precision30): the arm of a test of a named mask of (non-)finite elements is
for broken numbers (docs/precision.md, Session 30), and its look-alikes are not."""

from __future__ import annotations

from test_precision_fixes_s12 import _fallback


def _arm(mask: str, test: str = "not valid.all()") -> bool:
    code = (
        f"def f(boxes, scores, t):\n    valid = {mask}\n    if {test}:\n        torch.tensor(0.0)\n"
    )
    return _fallback(code)


def test_the_arm_of_a_named_finite_mask_is_a_fallback() -> None:
    assert _arm("torch.isfinite(boxes).all(dim=1) & torch.isfinite(scores)")
    assert _arm("torch.isfinite(boxes)")
    assert _arm("boxes.isfinite().all(dim=-1)")
    assert _arm("torch.isnan(boxes) | torch.isinf(scores)", "valid.any()")
    assert _fallback(
        "def f(a, b):\n    if torch.isnan(a).any() | torch.isinf(b).any():\n"
        "        torch.tensor(0.0)\n"
    )


def test_a_mask_of_anything_else_is_no_fallback() -> None:
    # mixed with another test, joined the wrong way, the arm where values are finite, a name
    # rebound to something else or narrowed in place, a parameter
    assert not _arm("torch.isfinite(boxes).all(dim=1) & (scores > t)")
    assert not _arm("torch.isfinite(boxes) | torch.isfinite(scores)")
    assert not _arm("torch.isnan(boxes) & torch.isinf(scores)", "valid.any()")
    assert not _arm("torch.isfinite(boxes)", "valid.all()")
    assert not _fallback(
        "def f(b, s):\n    valid = torch.isfinite(b)\n    valid = s > 0\n"
        "    if not valid.all():\n        torch.tensor(0.0)\n"
    )
    assert not _fallback(
        "def f(b, s):\n    valid = torch.isfinite(b)\n    valid &= s > 0\n"
        "    if not valid.all():\n        torch.tensor(0.0)\n"
    )
    assert not _fallback("def f(valid):\n    if not valid.all():\n        torch.tensor(0.0)\n")

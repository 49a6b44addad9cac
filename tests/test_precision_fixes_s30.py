"""Session 30 (precision30): the arm of a test of a named mask of (non-)finite elements is
for broken numbers (docs/precision.md, Session 30), and its look-alikes are not."""

from __future__ import annotations

import textwrap

from lint_runs import lint
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


def _copies(body: str) -> list[int]:
    """The lines of the HTD202 findings in a per-batch loop of a script with ``body`` after
    the model call (``out`` is its device output)."""
    code = (
        "import numpy as np\nimport torch\n"
        "def run(model, loader, sink, path, log):\n"
        "    for step, batch in enumerate(loader):\n"
        "        out = model(batch.to('cuda'))\n" + textwrap.indent(textwrap.dedent(body), " " * 8)
    )
    return [f.start.row for f in lint(code, "HTD202")]


def test_a_copy_written_to_a_file_is_output() -> None:
    assert _copies("arr = out.cpu().numpy()\nnp.save(path, arr)\n") == []
    assert _copies("arr = out.cpu()\narr = arr * 2\nsink.write({'x': arr})\n") == []
    assert _copies("arr = out.cpu().numpy()\nfor a in arr:\n    sink.write(a)\n") == []
    assert _copies("rows = []\narr = out.cpu()\nrows.append(arr)\ntorch.save(rows, path)\n") == []
    assert _copies("if step:\n    arr = out.cpu()\n    sink.write(arr)\n") == []


def test_a_copy_not_written_as_data_stays_reported() -> None:
    # written only every N steps, as text in a log line, kept on an attribute, not written
    assert _copies("arr = out.cpu()\nif step % 100 == 0:\n    np.save(path, arr)\n") == [6]
    assert _copies("arr = out.cpu()\nlog.write(f'{arr}')\n") == [6]
    assert _copies("arr = out.cpu()\nlog.write(str(arr))\n") == [6]
    assert _copies("self.arr = out.cpu()\nsink.write(self.arr)\n") == [6]
    assert _copies("arr = out.cpu()\nprint(arr.shape)\n") == [6]


def test_a_write_before_the_copy_counts_only_in_its_loop() -> None:
    # the other arm of an `if` wrote the same name before the copy: no loop carries it there
    code = (
        "import io\nimport torch\n"
        "class Model(torch.nn.Module):\n"
        "    def forward(self, batch, send, buffer):\n"
        "        out = self.net(batch)\n"
        "        if send:\n"
        "            torch.save(batch, buffer)\n"
        "        else:\n"
        "            buffer = io.BytesIO(out.cpu().numpy())\n"
        "            batch = torch.load(buffer)\n"
        "        return self.net(batch)\n"
    )
    assert [f.start.row for f in lint(code, "HTD202")] == [9]
    carried = (
        "import numpy as np\nimport torch\n"
        "def run(model, loader, path):\n"
        "    rows = []\n"
        "    for batch in loader:\n"
        "        for row in rows:\n"
        "            np.save(path, row)\n"
        "        rows = model(batch.to('cuda')).cpu().numpy()\n"
    )
    assert [f.start.row for f in lint(carried, "HTD202")] == []

"""The index loops of positions a loop's iteration gives (analysis/loop_positions.py), and the
walks row_findings judges for a loop: an ``enumerate`` counter and the items' positions."""

from __future__ import annotations

import libcst as cst
import pytest

from h2dlint.analysis.loop_positions import counter_loop, item_index_loop
from h2dlint.analysis.row_findings import _walks
from h2dlint.analysis.sync_basics import Walk


def _loop(code: str) -> cst.For | cst.BaseComp:
    statement = cst.parse_module(code).body[0]
    if isinstance(statement, cst.For):
        return statement
    assert isinstance(statement, cst.SimpleStatementLine)
    expr = statement.body[0]
    assert isinstance(expr, cst.Expr)
    assert isinstance(expr.value, cst.BaseComp)
    return expr.value


@pytest.mark.parametrize(
    ("code", "names"),
    [
        ("for req in reqs:\n    pass\n", {"req"}),
        ("for i, tok in pairs:\n    pass\n", {"i", "tok"}),
        ("for i, req in enumerate(reqs):\n    pass\n", {"req"}),
        ("for i in ids.tolist():\n    pass\n", {"i"}),
        ("for i in range(n):\n    pass\n", None),  # an index loop of its own (row_loop)
    ],
)
def test_item_index_loop(code: str, names: set[str] | None) -> None:
    loop = _loop(code)
    assert isinstance(loop, cst.For)
    found = item_index_loop(loop.iter, loop.target)
    if names is None:
        assert found is None
    else:
        assert found is not None and found.walk is Walk.INDEX and found.names == names


def test_counter_loop_of_enumerate() -> None:
    loop = _loop("for i, req in enumerate(reqs):\n    pass\n")
    assert isinstance(loop, cst.For)
    found = counter_loop(loop.iter, loop.target)
    assert found is not None and found.names == {"i"}


@pytest.mark.parametrize(
    ("code", "walks"),
    [
        # a comprehension over `enumerate` of rows: the rows, the counter, the items
        (
            "[w[: lens[i]] for i, w in enumerate(wavs)]\n",
            [(Walk.ROWS, {"w"}), (Walk.INDEX, {"i"}), (Walk.INDEX, {"w"})],
        ),
        # a `for` loop over requests: their rows (judged as a tensor's, if it is one), and
        # the rows other tensors have at the requests' positions
        ("for req in reqs:\n    pass\n", [(Walk.ROWS, {"req"}), (Walk.INDEX, {"req"})]),
        # Python rows of one transfer: only the positions they give
        ("[lp[i].item() for i in ids.tolist()]\n", [(Walk.INDEX, {"i"})]),
    ],
)
def test_walks(code: str, walks: list[tuple[Walk, set[str]]]) -> None:
    got = [(loop.walk, set(loop.names)) for loop, *_ in _walks(_loop(code))]
    assert got == walks


def test_ranges_sliced_by_the_items_are_no_rows() -> None:
    """A tiled encode slices each tile by the positions its item gives and copies the module's
    output for it to the host: a chunk of work per tile, no per-row read of the input for
    HTD201 (session 26: merging the item-position loops turned diffsynth's labelled HTD202 at
    the copy into an HTD201 on the input; the copy stays HTD202's to judge)."""
    from h2dlint.engine import EnabledRule, check_text
    from h2dlint.registry import all_rules

    code = (
        "import torch\n"
        "class VAE(torch.nn.Module):\n"
        "    def forward(self, x: torch.Tensor, tiles: list[tuple[int, int]]):\n"
        "        values = torch.zeros(x.shape, device='cpu')\n"
        "        for start, end in tiles:\n"
        "            latent = self.encoder(x[:, :, start:end]).to('cpu')\n"
        "            values[:, :, start:end] += latent\n"
        "        return values\n"
    )
    enabled = (EnabledRule(all_rules()["HTD201"]),)
    assert check_text(code, "vae.py", enabled) == []

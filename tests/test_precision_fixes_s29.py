"""Session 29's precision fixes (helper precision29, docs/precision.md, "Session 29
(precision29)"): a name bound in every arm of an ``if``/``else`` (or in a ``with`` block) is no
longer joined with what it was bound to before (``analysis/branch_bindings.py``: fairseq's
``idx = idx.squeeze(0).cpu()`` in both arms), and a ``return None`` beside tensor returns, or
a ``None`` arm of a conditional expression, no longer spoils what a function returns
(exllamav2's draft method returning ``None`` or its host buffer)."""

from __future__ import annotations

import pytest
from lint_runs import lint
from test_provenance import DEV, HOST, UNK, fact_of

from h2dlint.analysis.facts import Where

P = Where.PAGEABLE


@pytest.mark.parametrize(
    ("code", "where"),
    [
        # every arm rebinds: what came before is gone
        (
            "def f(x, c):\n    y = x.cuda()\n    if c:\n        y = x.cpu()\n"
            "    else:\n        y = x.cpu()\n    probe(y)",
            HOST,
        ),
        # an ``if`` without ``else`` (or an ``elif`` chain without one) may leave it
        ("def f(x, c):\n    y = x.cuda()\n    if c:\n        y = x.cpu()\n    probe(y)", UNK),
        (
            "def f(x, c, d):\n    y = x.cuda()\n    if c:\n        y = x.cpu()\n"
            "    elif d:\n        y = x.cpu()\n    probe(y)",
            UNK,
        ),
        (
            "def f(x, c, d):\n    y = x.cuda()\n    if c:\n        y = x.cpu()\n"
            "    elif d:\n        y = x.cpu()\n    else:\n        y = x.cpu()\n    probe(y)",
            HOST,
        ),
        # a ``with`` block runs its body: the binding inside kills the earlier one
        (
            "def f(x):\n    y = x.cuda()\n    with torch.no_grad():\n        y = x.cpu()\n"
            "    probe(y)",
            HOST,
        ),
        # nested: the last binding of each arm leaves it
        (
            "def f(x, c):\n    y = x\n    if c:\n        with torch.no_grad():\n"
            "            y = x.cuda()\n            y = y.cpu()\n    else:\n"
            "        y = x.cpu()\n    probe(y)",
            HOST,
        ),
        # an arm that may not bind (a loop, a ``try``) keeps the earlier binding
        (
            "def f(x, c, xs):\n    y = x.cuda()\n    if c:\n        for _ in xs:\n"
            "            y = x.cpu()\n    else:\n        y = x.cpu()\n    probe(y)",
            UNK,
        ),
        (
            "def f(x, c):\n    y = x.cuda()\n    if c:\n        try:\n            y = x.cpu()\n"
            "        except ValueError:\n            pass\n    else:\n        y = x.cpu()\n"
            "    probe(y)",
            UNK,
        ),
        # a binding later in a loop around the use reaches it only if the loop does not
        # pass the ``if`` first
        (
            "def f(x, c, xs):\n    for _ in xs:\n        if c:\n            y = x.cpu()\n"
            "        else:\n            y = x.cpu()\n        probe(y)\n        y = x.cuda()",
            HOST,
        ),
        (
            "def f(x, c, xs):\n    if c:\n        y = x.cpu()\n    else:\n        y = x.cpu()\n"
            "    for _ in xs:\n        probe(y)\n        y = x.cuda()",
            UNK,
        ),
        # an arm that raises (or returns, continues, breaks) lets nothing through
        (
            "def f(x, c):\n    y = x.cuda()\n    if c:\n        y = x.cpu()\n"
            "    else:\n        raise ValueError(c)\n    probe(y)",
            HOST,
        ),
        (
            "def f(x, c, d):\n    y = x.cuda()\n    if c:\n        y = x.cpu()\n"
            "    elif d:\n        return None\n    else:\n        log(d)\n    probe(y)",
            UNK,
        ),
        # ``return None`` beside a host return; a ``None`` arm of a conditional expression
        (
            "def g(n, c):\n    if c:\n        return None\n    return torch.zeros(n)\n"
            "def f(n):\n    probe(g(n, True))",
            P,
        ),
        ("def f(n, c):\n    probe(torch.zeros(n) if c else None)", P),
        ("def f(n, c):\n    probe(None if c else torch.zeros(n, device='cuda'))", DEV),
        ("def g(c):\n    return None\ndef f(c):\n    probe(g(c))", UNK),
    ],
)
def test_bindings_and_returns(code: str, where: Where) -> None:
    assert fact_of(code).where is where


CHUNKS = """
import torch
class Writer:
    def __call__(self, samples):
        for wav in samples:
            chunks = []
            for x in wav.cuda().chunk(4, dim=-1):
                _, codes = self.model.quantize(x)
                if self.per_frame:
                    with torch.no_grad():
                        codes = codes.squeeze(0).cpu()
                {ELSE}
                    codes = codes.flatten(1).cpu()
                chunks.append(codes)
            codes = torch.cat(chunks)
            yield " ".join(str(row.tolist()) for row in codes)
"""


def test_rows_of_host_copies_made_in_every_arm_are_not_reported() -> None:
    """fairseq's vq-wav2vec featuriser: each chunk's codes copied to the host in both arms,
    joined and read row by row; where an ``elif`` may leave the unpacked codes (of unknown
    place), the rows stay reported with MEDIUM confidence."""
    assert lint(CHUNKS.replace("{ELSE}", "else:"), "HTD201") == []
    kept = lint(CHUNKS.replace("{ELSE}", "elif self.flat:"), "HTD201")
    assert [(f.start.row, f.confidence.value) for f in kept] == [(16, "medium")]


DRAFTS = """
import torch
class Generator:
    def __init__(self, n):
        self.draft_ids = torch.empty((8, n), dtype=torch.long{DEVICE})
    def draft(self, batch):
        if not batch:
            return None
        self.draft_ids.copy_(self.model(batch).argmax(-1))
        return self.draft_ids
    def step(self, batch, logits):
        self.accept(logits, self.draft(batch))
    def accept(self, logits, drafts):
        for i in range(logits.shape[1]):
            if drafts is not None and drafts[0, i].item() != 0:
                break
"""


def test_an_optional_return_of_a_host_buffer() -> None:
    """exllamav2's dynamic generator: the draft method returns ``None`` or its host buffer,
    whose rows are then read per position: host rows. Its device twin is now HIGH."""
    assert lint(DRAFTS.replace("{DEVICE}", ""), "HTD201") == []
    device = lint(DRAFTS.replace("{DEVICE}", ', device="cuda"'), "HTD201")
    assert [(f.start.row, f.confidence.value) for f in device] == [(15, "high")]

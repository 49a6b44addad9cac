"""host_only_modules._built_here: one scan of the file per module (``_constructions``) gives
the answers the scan per class gave (session 44, speed44: the gate of every method's
``_cold`` asked it once per class, each a regular expression over the whole source)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from h2dlint.analysis.host_only_modules import _built_here

ROOT = Path(__file__).resolve().parents[1]


def _per_class(source: str, cls: str) -> bool:
    """The scan per class as it was before the one scan per file."""
    built = re.compile(rf"^[ \t]*(?:([A-Za-z_][\w.]*)\s*=\s*)?{cls}(?:\(|\.from_)", re.M)
    plain = False
    for match in built.finditer(source):
        target = match.group(1)
        if target is None:
            continue
        if "." in target:
            return False
        plain = True
    return plain


TEXTS = (
    "model = Net(3)\n",
    "model = Net.from_pretrained('x')\n",
    "self.model = Net(3)\nmodel = Net(3)\n",
    "model = Net(3)\nself.model = Net(3)\n",
    "Net(3)\n",
    "    m = Net(\n        3)\n",
    "a = b = Net(3)\n",
    "a =\nNet(3)\n",
    "x = NetWork(3)\nNet = 1\n",
    "x = mod.Net(3)\n",
    "x = Net .from_pretrained()\n",
    "net = Net\nnet2 = Net()\n",
    "\tm=Net.from_config(c)\nm2 = Other(Net(1))\n",
    "class Net:\n    pass\n\ndef f():\n    return Net()\n",
    "m = Net(1); n = Net(2)\n",
    "Net2 = Net(1)\nx.y.z = Net2(1)\n",
)
NAMES = ("Net", "NetWork", "Net2", "Other", "mod", "m", "f", "x", "net")


def test_the_one_scan_answers_as_the_scan_per_class() -> None:
    for text in TEXTS:
        for name in NAMES:
            assert _built_here(text, name) == _per_class(text, name), (text, name)


def test_on_this_repository_every_class_is_answered_the_same() -> None:
    checked = 0
    for path in [*ROOT.glob("h2dlint/analysis/*.py"), *ROOT.glob("tests/projects/**/*.py")]:
        source = path.read_text(encoding="utf-8")
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        names = {n.name for n in ast.walk(tree) if isinstance(n, ast.ClassDef)}
        for name in names:
            assert _built_here(source, name) == _per_class(source, name), (path, name)
            checked += 1
    assert checked > 50

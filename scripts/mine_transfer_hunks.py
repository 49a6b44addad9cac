"""Print the hunks of consecutive releases that may fix a transfer or an implicit sync.

``scripts/mine_fixes.py`` starts a candidate only from a removed marker. A buffer pinned at
birth (``torch.zeros(n, pin_memory=True)``) leaves the copy line unchanged, and a join written
into a pinned buffer (``torch.cat(xs, out=buf)``) may keep its markers: this script prints the
whole hunk (both sides, clipped) when its added side gains ``pin_memory``/``pinned``,
``output_size=``, or ``out=`` with a removed ``torch.cat``/``stack``; when ``non_blocking``
is on one side only; or when a removed line moves items in a loop or comprehension
(``[t.to(dev) for t in xs]``), copies a join (``torch.cat(xs).to(dev)``) or sizes by the data
(``nonzero``, ``masked_select``, ``unique(``) that the added side drops. A person reads each
hunk; most are refactors.

    python scripts/mine_transfer_hunks.py exllamav3:1.5.0:1.6.4 torchrec:1.5.1:1.7.0

vllm, vllm-omni and sglang are refused, and a file naming vllm or sglang in either version is
skipped unread, as in ``mine_fixes.py``.
"""

from __future__ import annotations

import argparse
import difflib
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fetch_corpus import fetch
from mine_fixes import SKIP_PARTS, _parse_pair, _py_files

NAMES_RESERVED = re.compile(r"vllm|sglang", re.IGNORECASE)
PINNED = re.compile(r"pin_memory|pinned")
DATA_SIZED = re.compile(r"nonzero|masked_select|unique\(")
LOOP_MOVE = re.compile(r"\b(?:for|in)\b.*\.(?:to|cuda)\(|\.(?:to|cuda)\(.*\bfor\b")
JOIN_COPY = re.compile(r"torch\.(?:cat|stack)\(")
MOVE = re.compile(r"\.to\(|\.cuda\(")
MAX_REMOVED = 40
SHOWN = 15


def _interesting(removed: str, added: str) -> bool:
    if PINNED.search(added) and not PINNED.search(removed):
        return True
    if ("non_blocking" in removed) != ("non_blocking" in added):
        return True
    if re.search(r"\bout\s*=", added) and JOIN_COPY.search(removed):
        return True
    if JOIN_COPY.search(removed) and MOVE.search(removed):
        return True
    if "output_size" in added and "output_size" not in removed:
        return True
    if LOOP_MOVE.search(removed):
        return True
    return bool(DATA_SIZED.search(removed)) and not DATA_SIZED.search(added)


def scan(package: str, old: str, new: str) -> list[str]:
    """The printed hunks of ``package`` between releases ``old`` and ``new``."""
    old_root, new_root = Path(fetch(package, old)), Path(fetch(package, new))
    old_files, new_files = _py_files(old_root), _py_files(new_root)
    out: list[str] = []
    for rel in sorted(set(old_files) & set(new_files)):
        if SKIP_PARTS & set(Path(rel).parts):
            continue
        before = old_files[rel].read_text(errors="replace")
        after = new_files[rel].read_text(errors="replace")
        if before == after or NAMES_RESERVED.search(before) or NAMES_RESERVED.search(after):
            continue
        a, b = before.splitlines(), after.splitlines()
        matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
        for op, i1, i2, j1, j2 in matcher.get_opcodes():
            removed, added = a[i1:i2], b[j1:j2]
            code_removed = [line for line in removed if not line.strip().startswith("#")]
            code_added = [line for line in added if not line.strip().startswith("#")]
            if op == "equal" or len(removed) > MAX_REMOVED:
                continue
            if not _interesting("\n".join(code_removed), "\n".join(code_added)):
                continue
            out.append(f"=== {package} {old}->{new} {rel}:{i1 + 1}")
            out.extend(f"  -{line[:180]}" for line in removed[:SHOWN])
            out.extend(f"  +{line[:180]}" for line in added[:SHOWN])
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pairs", nargs="+", type=_parse_pair, help="NAME:OLD:NEW")
    args = parser.parse_args(argv)
    for package, old, new in args.pairs:
        try:
            lines = scan(package, old, new)
        except Exception as error:  # one bad download must not end the run
            print(f"ERR {package} {old}->{new}: {error}")
            continue
        print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

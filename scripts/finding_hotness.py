"""Whether findings sit on a hot path: the split of the labelled set into hot and cold code.

    python scripts/finding_hotness.py ROOT path/a.py:120 path/b.py:33 ...

Prints one JSON object, ``"path:line"`` -> ``"hot"`` or ``"cold"``. A place is hot when the
analysis the rules use (``h2dlint/analysis/hot_paths.py``, with the project index of the
package around ``ROOT``) gives a reason why the code there runs per step or per request:
a forward, a step-like entry point, a function such code calls (in this module or another),
the loops of a per-request entry point. Everything else is cold: set-up, run-once code,
module level, and functions whose callers are not known to be hot. HTD201's per-row loops in
a cold function are cold here: the split says where the code runs, not what the rule judged.

``scripts/label_precision.py --hot-cold`` runs this once per package (its own process: one
project index each).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from h2dlint.analysis.hot_paths import HotPaths
from h2dlint.context import FileContext
from h2dlint.project.index import ProjectIndex
from h2dlint.project.roots import ProjectIndexes, install_all, select


class _Enclosing(cst.CSTVisitor):
    """The chain of nodes (module first) that hold a line, down to the innermost statement."""

    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, line: int) -> None:
        super().__init__()
        self.line = line
        self.chain: list[cst.CSTNode] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, cst.Module):
            self.chain.append(node)
            return True
        where = self.get_metadata(PositionProvider, node)
        if not where.start.line <= self.line <= where.end.line:
            return False
        self.chain.append(node)
        return True


def hotness(root: Path, places: list[tuple[str, int]]) -> dict[str, str]:
    """``"path:line"`` -> ``"hot"`` or ``"cold"`` for each place (paths relative to ``root``)."""
    files = sorted({path for path, _ in places})
    # an index per top-level package, as the check command builds them (project/roots.py)
    install_all(ProjectIndexes((str(root / path) for path in files), ProjectIndex))
    found: dict[str, str] = {}
    for path in files:
        full = root / path
        select(str(full))
        text = full.read_text(encoding="utf-8")
        wrapper = MetadataWrapper(cst.parse_module(text))
        hot = HotPaths.of(FileContext(str(full), text, wrapper.module))
        for place, line in places:
            if place != path:
                continue
            enclosing = _Enclosing(line)
            wrapper.visit(enclosing)
            reason = hot.why_hot_at(enclosing.chain)
            found[f"{path}:{line}"] = "hot" if reason is not None else "cold"
    return found


def main(argv: list[str]) -> int:
    if len(argv) < 1:
        print(__doc__, file=sys.stderr)
        return 2
    root = Path(argv[0])
    places = []
    for arg in argv[1:]:
        path, _, line = arg.rpartition(":")
        places.append((path, int(line)))
    print(json.dumps(hotness(root, places), sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

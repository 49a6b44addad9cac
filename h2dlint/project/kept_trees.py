"""CPython's ``ast`` trees kept per process by the size of their source, and handed to the run.

The summary store parses a module with CPython to compute its parts, one part at a time, as
questions about the module come; the run parses every file it checks with CPython as well
(syntax, the candidate filter, the rules' positions). Kept by count (four trees), the store
parsed lightning's modules 239 times for 167 of them in a ``-j 1`` run, and the run parsed
again the files whose trees the store had just made. Kept by a budget of source bytes
(:data:`KEPT_TREE_BYTES`, newest kept, oldest dropped first), a tree serves every part of its
module asked while it is kept, and the run takes the store's tree of the bytes it checks
(:meth:`KeptTrees.held`) instead of parsing them again: ``ast.parse`` of the bytes and of
their UTF-8 text give the same tree, and no analysis writes to an ``ast`` tree.
"""

from __future__ import annotations

import ast
from collections import OrderedDict

from h2dlint.digest import content_digest

# Source bytes whose trees are kept (a tree takes some 20 to 35 times its source in memory,
# measured on transformers' modules: 40 to 70 MB at most; lightning's peak grew 5 MB, and the
# store kept every tree a -j 1 run could hand over). The newest is kept whatever its size.
KEPT_TREE_BYTES = 2 << 20


class KeptTrees:
    """Trees by content digest, the most recently used last; None for bytes CPython refused."""

    def __init__(self, budget: int | None = None) -> None:
        self.budget = KEPT_TREE_BYTES if budget is None else budget
        self._trees: OrderedDict[str, tuple[ast.Module | None, int]] = OrderedDict()
        self._bytes = 0

    def __contains__(self, digest: str) -> bool:
        return digest in self._trees

    def __len__(self) -> int:
        return len(self._trees)

    def get(self, digest: str) -> ast.Module | None:
        """The kept tree of ``digest`` (None when it is not kept or CPython refused it), made
        the most recently used."""
        found = self._trees.get(digest)
        if found is None:
            return None
        self._trees.move_to_end(digest)
        return found[0]

    def keep(self, digest: str, tree: ast.Module | None, size: int) -> None:
        """Keep ``tree`` of ``size`` source bytes as the newest; drop the oldest beyond the
        budget (never the newest)."""
        old = self._trees.pop(digest, None)
        if old is not None:
            self._bytes -= old[1]
        self._trees[digest] = (tree, size)
        self._bytes += size
        while len(self._trees) > 1 and self._bytes > self.budget:
            _, (_, dropped) = self._trees.popitem(last=False)
            self._bytes -= dropped

    def held(self, data: bytes, text: str) -> ast.Module | None:
        """CPython's tree of ``data`` (the bytes of a file the run checks, decoded as ``text``)
        when it is kept already; None otherwise (the run parses it). Looked up by the digest
        of these very bytes, and only where ``text`` is their UTF-8 (another encoding, or a
        BOM: the run parses the text it decoded)."""
        if not self._trees:
            return None
        tree = self.get(content_digest(data))
        if tree is None or text.encode("utf-8", "surrogatepass") != data:
            return None
        return tree

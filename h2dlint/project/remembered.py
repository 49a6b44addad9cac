"""Answers to project-wide questions kept for the run, with the modules each rests on.

A question about the whole project (who calls this function, where are objects of this class
called) reads other modules, and the result cache keys a file's findings by the modules its
questions consulted (``ProjectIndex.consulted``). An answer kept and reused by a later file's
question must therefore record those modules again for that file: :func:`remembered` keeps
each answer beside the modules it consulted when it was found, and records them on every reuse.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from h2dlint.project.index import ProjectIndex

K = TypeVar("K", bound=Hashable)
T = TypeVar("T")


def remembered(
    memo: dict[K, tuple[T, dict[str, str]]],
    key: K,
    project: ProjectIndex,
    find: Callable[[], T],
) -> T:
    """``find()``'s answer, once per ``memo`` and ``key``; the modules it consulted (path ->
    digest) are recorded as consulted by every question that reuses it."""
    found = memo.get(key)
    if found is None:
        consulted: dict[str, str] = {}
        before = project.consulted
        project.consulted = consulted
        try:
            found = memo[key] = (find(), consulted)
        finally:
            project.consulted = before
    project.consulted.update(found[1])
    return found[0]


__all__ = ["remembered"]

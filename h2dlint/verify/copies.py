"""What ``verify`` and ``trace`` both know about host<->device copies, stacks and the profiler.

- :func:`copy_record`: a copy op's direction, size and host memory (pinned? dense?), from which
  :attr:`CopyRecord.staged` (CUDA copies it through pageable memory) follows;
- :func:`internal_dirs`: the directories whose frames are not the user's (torch, h2dlint, the
  standard library, frozen modules), to find the user's line on a stack;
- the names the profiler gives memcpys, and :func:`memcpy_counts`.

Pure Python: torch is passed in (tensors) or imported by :func:`import_torch`, never at import.
"""

from __future__ import annotations

import functools
import sysconfig
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MEMCPY_PREFIX = "Memcpy "
PAGEABLE_H2D = "Memcpy HtoD (Pageable -> Device)"
PINNED_H2D = "Memcpy HtoD (Pinned -> Device)"
H2D_PREFIX = "Memcpy HtoD"
D2H_PREFIX = "Memcpy DtoH"

PACKAGE_DIR = str(Path(__file__).resolve().parent.parent)
"""The h2dlint package: its frames are never the user's."""


@dataclass(frozen=True)
class CopyRecord:
    """One host<->device copy op seen by a dispatch mode."""

    op: str
    direction: str  # "HTD" or "D2H"
    nbytes: int
    non_blocking: bool
    host_pinned: bool
    host_dense: bool
    line: str | None = None

    @property
    def staged(self) -> bool:
        """The host side is not pinned and contiguous: CUDA copies it through pageable memory."""
        return not (self.host_pinned and self.host_dense)

    @property
    def hidden_sync(self) -> bool:
        """A ``non_blocking`` copy that is staged anyway: a sync the debug mode does not report."""
        return self.non_blocking and self.staged


def memcpy_counts(names: list[str]) -> dict[str, int]:
    """Profiler event names -> counts of the memcpy kinds among them."""
    return dict(sorted(Counter(n for n in names if n.startswith(MEMCPY_PREFIX)).items()))


def import_torch() -> Any | None:
    """torch, or None when it is not installed."""
    try:
        import torch
    except ImportError:
        return None
    return torch


@functools.cache
def internal_dirs(torch_file: str | None) -> tuple[str, ...]:
    """Prefixes of the files whose frames are not the user's: h2dlint, the standard library,
    frozen modules (``<frozen ...>``) and, given ``torch.__file__``, torch."""
    dirs = [PACKAGE_DIR, sysconfig.get_paths()["stdlib"], "<frozen"]
    if torch_file:
        dirs.append(str(Path(torch_file).resolve().parent))
    return tuple(dirs)


def op_arg(args: tuple[Any, ...], kwargs: dict[str, Any], index: int, name: str) -> Any:
    """Argument ``name`` (position ``index``) of an aten op call, or None."""
    if name in kwargs:
        return kwargs[name]
    return args[index] if len(args) > index else None


def copy_record(
    op: str, src: Any, dst: Any, non_blocking: bool, line: str | None
) -> CopyRecord | None:
    """A record of a copy from tensor ``src`` to tensor ``dst``, or None when it does not cross
    between host and device."""
    src_host = src.device.type == "cpu"
    dst_host = dst.device.type == "cpu"
    if src_host == dst_host:
        return None
    host, direction = (src, "HTD") if src_host else (dst, "D2H")
    dense = bool(host.is_contiguous() and tuple(src.shape) == tuple(dst.shape))
    return CopyRecord(
        op=op,
        direction=direction,
        nbytes=int(src.numel() * src.element_size()),
        non_blocking=bool(non_blocking),
        host_pinned=bool(host.is_pinned()),
        host_dense=dense,
        line=line,
    )

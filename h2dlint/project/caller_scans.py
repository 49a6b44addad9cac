"""One question of :meth:`h2dlint.project.callers.CallerIndex.callers`: the callers of one
function found so far, the modules left to read for more, and the names through which a module
can call it (split out of ``callers.py``)."""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass


@dataclass(frozen=True)
class Caller:
    """A function of another module that calls the function asked about."""

    module: str
    qualified: str  # module.function or module.Class.method
    name: str  # the caller's own (last) name
    cls: str | None
    line: int
    bases: tuple[str, ...] = ()  # the class's bases, as written


class Scan:
    """The callers of one function found so far, and the modules left to read for more.
    ``typed``: for a method, its class (see :meth:`CallerIndex.callers`)."""

    def __init__(
        self,
        qualified: str,
        calling: list[str],
        typed: str | None,
        own: bool,
        bases: tuple[str, ...],
        inheriting: tuple[str, ...] = (),
    ) -> None:
        self.qualified = qualified
        self.typed = typed
        # A method is also called through its class's external bases (``nn.Module.m``), and
        # through the classes of its module that inherit it unchanged (``Sub.m``).
        self.bases = bases
        self.inheriting = inheriting
        method = qualified.rpartition(".")[2]
        owner = qualified.rpartition(".")[0].rpartition(".")[0]
        self.callees = (
            qualified,
            *(f"{base}.{method}" for base in bases),
            *(f"{owner}.{sub}.{method}" for sub in inheriting),
        )
        self.own_module = own
        self.reaches = reaching(qualified.rpartition(".")[2])
        self.pending = deque(calling)
        self.found: list[Caller] = []
        self.depends: dict[str, str] = {}


def reaching(name: str) -> re.Pattern[bytes]:
    """Text through which a module can call another module's ``name``: an import naming it
    (``from .x import name``, also inside parentheses), or a call of it as an attribute
    (``x.name(``, ``module.name(``). A module that defines and calls its own ``name`` (the
    same helper copied into every model file) has neither."""
    word = re.escape(name.encode())
    return re.compile(
        rb"import\s*(?:\([^)]*?\b" + word + rb"\b|[^\n(]*?\b" + word + rb"\b)"
        rb"|\." + word + rb"\s*\("
    )

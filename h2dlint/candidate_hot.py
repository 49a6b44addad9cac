"""Which functions of a file may run per step, decided on the CPython ``ast`` tree before any
libcst parse: the ``hot`` of a candidate term (:mod:`h2dlint.candidates`).

A rule that reports only on hot paths (HTD202) reports only in a function that
:mod:`h2dlint.analysis.hot_paths` finds hot, or in a ``for`` loop whose every iteration runs
device work (:mod:`h2dlint.analysis.device_loops`). This is a superset of both, per *unit* (a
function of the module that is not inside another function; the functions nested in it are as
hot as it is, in the analysis too):

- a unit whose name says it runs once (``__init__``, ``setup``, ``load_*``: ``once_name``) or is
  a diagnostic aid (``_debug_*``) is never hot, nor is anything in it; unless a function is
  nested in it (a closure ``__init__`` stores on ``self`` may run from a hot ``__call__``);
- a unit named as an entry point or a step (``forward``, ``training_step``, ``*_step``...:
  whatever name the analysis could take for one, ignoring what makes it cold) is hot, and so is
  every unit whose name a hot unit calls (``self.m(...)``, ``f(...)``, ``self.attr.m(...)``:
  any call ending in the name), and every unit with a nested function once any unit is hot;
- any other unit is hot when the project index says so, asked as the analysis asks it
  (:meth:`h2dlint.project.callers.CallerIndex.hot_reason` and
  :func:`h2dlint.analysis.step_loops.step_loop_reason`) with every caller's name taken for a
  possible step (never cold);
- code in a ``for`` loop whose body calls ``.backward``, ``.step``, ``.replay``, ``.cuda`` or
  ``.to`` (the device work the analysis looks for) is hot in any unit not cold by its name;
- everything is hot in a file that registers hooks (``register_forward_hook``: which functions
  run as hooks is the analysis's question), in a unit the module does not place at its top
  level or in a top-level class (the index does not name it), or when ``hot-functions`` are
  configured.

Without a project index (a file alone) no caller elsewhere is asked about, as in the analysis.
The modules the index reads for an answer are recorded as the file's dependencies, so that a
cached verdict is dropped when a caller changes. Here: what the ``ast`` walk records (units, the
device work of loops); :mod:`h2dlint.hot_units` answers, with the analysis's names and the index.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

# Method calls that make a ``for`` loop's iterations device work (``_DeviceWork`` of
# :mod:`h2dlint.analysis.device_loops`: a backward pass, an optimizer step, a graph replay, a
# copy to the device).
DEVICE_WORK = frozenset({"backward", "step", "replay", "cuda", "to"})
# Text of a file that registers hooks (``register_forward_hook``, ``register_full_backward_...``):
# :func:`h2dlint.analysis.hot_calls.hook_functions` looks no further without it.
HOOKS = b"register_f"


@dataclass
class Unit:
    """A function of the module not inside another function: its name, ``Class.name`` or
    ``name`` where the module places it at its top level or in a top-level class (else None),
    the names it calls (its nested functions' too), and whether a function is nested in it."""

    name: str
    qualified: str | None
    calls: set[str] = field(default_factory=set)
    nested: bool = False

    @property
    def cls(self) -> str | None:
        head, dot, _ = (self.qualified or "").rpartition(".")
        return head if dot else None


def placed_functions(tree: ast.AST) -> dict[int, str]:
    """``id`` of each function at the module's top level or in a top-level class's body ->
    ``name`` or ``Class.name``: the functions the project index names."""
    placed: dict[int, str] = {}
    functions = (ast.FunctionDef, ast.AsyncFunctionDef)
    for node in getattr(tree, "body", ()):
        if isinstance(node, functions):
            placed[id(node)] = node.name
        elif isinstance(node, ast.ClassDef):
            for member in node.body:
                if isinstance(member, functions):
                    placed[id(member)] = f"{node.name}.{member.name}"
    return placed

"""Whether one class of the project may inherit from another, by the bases its module writes,
each followed through that module's imports (never by a class's bare name).

Argument flow across modules (:mod:`h2dlint.project.passed_sites`) leaves a method's callers
unknown where a module calls an object of a class that does not define the method itself: the
class may inherit it. That holds only for a class whose bases reach the method's class. Two
packages of one project (a serving engine's ``Sampler`` per backend, the seed projects side by
side) each have their own ``Sampler``, ``SamplingMetadata``, ``ModelRunner``: an object of
``serving_mm.sampler.SamplingMetadata`` called in ``serving_mm`` says nothing about who calls
``servekit.sample.sampler.Sampler.forward`` (session 46: that unknown hid servekit's
``logits_processors.py:18`` HTD202 HIGH when both packages were checked in one call).
"""

from __future__ import annotations

from typing import Any, Protocol

from h2dlint.project.subclassing_part import subclassing_part

# Base classes followed up from the class asked about; deeper, the answer is "may".
MAX_DEPTH = 6


class _Callers(Protocol):
    project: Any

    def data(self, module: str) -> bytes | None: ...

    def tree_part(self, module: str, name: str, compute: Any) -> Any: ...


def may_subclass(callers: _Callers, owner: str, target: str) -> bool:
    """Whether the class ``owner`` (``pkg.mod.Cls``, qualified) is ``target`` or may inherit
    from it: False only when every base of ``owner`` and of its project bases, resolved through
    the imports of the module that writes it, leads elsewhere (another module's class of the
    same name, a class outside the project such as ``torch.nn.Module``, ``object``). A module
    importing ``*``, one that cannot be read, or a chain deeper than :data:`MAX_DEPTH` may."""
    seen: set[str] = set()
    target = _home(callers, target)
    todo = [(owner, 0)]
    while todo:
        current, depth = todo.pop()
        current = _home(callers, current)  # ``pkg.Cls`` re-exported from ``pkg.mod.Cls``
        if current == target:
            return True
        if current in seen:
            continue
        seen.add(current)
        module, _, cls = current.rpartition(".")
        if module not in callers.project.layout.modules:
            continue  # outside the project (or a nested class): cannot subclass the project's
        if depth >= MAX_DEPTH:
            return True
        bases = _bases(callers, module, cls)
        if bases is None:
            return True
        todo.extend((base, depth + 1) for base in bases)
    return False


def _bases(callers: _Callers, module: str, cls: str) -> list[str] | None:
    """The bases of ``module``'s class ``cls``, qualified through the module's imports and
    re-exports (a class of the module by its own name); None when they cannot be known."""
    if b"import *" in (callers.data(module) or b""):
        return None
    raw = subclassing_part(callers, module)
    if raw is None:
        return None
    project = callers.project
    imports = {local: full for local, full in raw["imports"]}
    found: list[str] = []
    for written in raw.get("bases", {}).get(cls, ()):
        root, _, rest = written.partition(".")
        if root not in imports:
            found.append(f"{module}.{written}")  # a class of the module, or a builtin
            continue
        full = project.absolute(module, imports[root])
        found.append(f"{full}.{rest}" if rest else full)
    return found


def _home(callers: _Callers, qualified: str) -> str:
    """Where the class ``qualified`` is defined, following re-exports; itself outside the
    project."""
    home = callers.project.find_home(qualified)
    return f"{home[0]}.{home[1]}" if home is not None else qualified


def related(callers: _Callers, owner: str, target: str) -> bool:
    """Whether an object known as of class ``owner`` may run a method that ``target`` defines
    when ``owner`` does not define it: ``owner`` may inherit it from ``target``
    (:func:`may_subclass`), or the object may be of ``target`` itself, a subclass of
    ``owner`` (``model: PreTrainedModel`` holding a ``LlamaModel``)."""
    return may_subclass(callers, owner, target) or may_subclass(callers, target, owner)

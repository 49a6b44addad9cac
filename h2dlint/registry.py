"""Finding the rules: every :class:`Rule` subclass defined in a module of ``h2dlint.rules``.

The engine and the CLI learn of rules only through this registry; adding a rule is adding a
module under ``rules/``.
"""

from __future__ import annotations

import gc
import importlib
import importlib.util
import inspect
import pkgutil
import sys
from functools import cache
from pathlib import Path
from types import ModuleType

from h2dlint.dataclass_code import kept
from h2dlint.rule import CODE_PATTERN, NAME_PATTERN, Rule

RULES_PACKAGE = "h2dlint.rules"


class RegistryError(Exception):
    pass


@cache
def all_rules() -> dict[str, type[Rule]]:
    """Code -> rule class, sorted by code."""
    # Importing the rules imports libcst: some 25,000 tracked objects, none of them garbage.
    # The cyclic collector would walk them again and again (a tenth of the import time).
    collecting = gc.isenabled()
    gc.disable()
    try:
        # ... and their dataclasses' methods come compiled (h2dlint.dataclass_code).
        with kept():
            modules = _import_rule_modules()
    finally:
        if collecting:
            gc.enable()
    found: dict[str, type[Rule]] = {}
    names: dict[str, str] = {}
    for module in modules:
        for _, obj in inspect.getmembers(module, inspect.isclass):
            if not issubclass(obj, Rule) or obj is Rule or obj.__module__ != module.__name__:
                continue
            _validate(obj)
            if obj.code in found:
                raise RegistryError(f"rule code {obj.code} is defined twice")
            if obj.name in names:
                raise RegistryError(f"rule name {obj.name} is used by {names[obj.name]} too")
            found[obj.code] = obj
            names[obj.name] = obj.code
    return dict(sorted(found.items()))


def rules_package() -> ModuleType:
    """``h2dlint.rules``: installed, the rules ship under that name (setuptools' ``package-dir``
    maps ``rules/`` to it); in a source checkout run without installing (``python -m h2dlint``
    at the repository root), it is the ``rules/`` folder beside ``h2dlint/``, loaded as such."""
    try:
        return importlib.import_module(RULES_PACKAGE)
    except ModuleNotFoundError as exc:
        if exc.name != RULES_PACKAGE:
            raise
        init = Path(__file__).resolve().parent.parent / "rules" / "__init__.py"
        spec = importlib.util.spec_from_file_location(
            RULES_PACKAGE, init, submodule_search_locations=[str(init.parent)]
        )
        if not init.is_file() or spec is None or spec.loader is None:
            raise
        module = importlib.util.module_from_spec(spec)
        sys.modules[RULES_PACKAGE] = module
        spec.loader.exec_module(module)
        import h2dlint

        h2dlint.rules = module  # type: ignore[attr-defined]
        return module


def _import_rule_modules() -> list[ModuleType]:
    package = rules_package()
    return [
        importlib.import_module(f"{RULES_PACKAGE}.{info.name}")
        for info in pkgutil.iter_modules(package.__path__)
        if not info.name.startswith("_")
    ]


def _validate(rule: type[Rule]) -> None:
    where = f"{rule.__module__}.{rule.__qualname__}"
    for attr in ("code", "name", "message"):
        if not isinstance(getattr(rule, attr, None), str):
            raise RegistryError(f"{where} must set {attr}")
    if not CODE_PATTERN.match(rule.code):
        raise RegistryError(f"{where}: code {rule.code!r} is not of the form HTD###")
    if not NAME_PATTERN.match(rule.name):
        raise RegistryError(f"{where}: name {rule.name!r} is not kebab-case")
    if not (rule.__dict__.get("__doc__") or "").strip():
        raise RegistryError(f"{where} has no documentation")


def get_rule(code: str) -> type[Rule] | None:
    rules = all_rules()
    if code.upper() in rules:
        return rules[code.upper()]
    for rule in rules.values():
        if rule.name == code:
            return rule
    return None

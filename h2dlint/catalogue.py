"""What a run must know of every rule before it checks a file: codes, names and options.

The settings are resolved from this catalogue and the cache is keyed by it. It comes from the
rule classes, which means importing every rule and libcst (about a third of a second on a slow
core), or from the copy a run leaves in its result cache, keyed by this build's fingerprint: so
a run the cache answers whole imports neither.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from h2dlint.cache import ResultCache, build_fingerprint
from h2dlint.rule import RuleOption

# The option kinds a stored catalogue can name; a rule with another kind is never stored.
_KINDS: dict[str, type] = {"bool": bool, "int": int, "float": float, "str": str, "list": list}


@dataclass(frozen=True)
class RuleSpec:
    code: str
    name: str
    options: tuple[RuleOption, ...] = ()

    def default_settings(self) -> dict[str, Any]:
        return {option.name: option.default for option in self.options}


def from_registry() -> dict[str, RuleSpec]:
    from h2dlint.registry import all_rules

    return {
        code: RuleSpec(rule.code, rule.name, tuple(rule.options))
        for code, rule in all_rules().items()
    }


def known_rules(cache: ResultCache | None = None) -> dict[str, RuleSpec]:
    """Code -> spec of every registered rule: from ``cache`` when it holds this build's
    catalogue and the rules are not imported yet, else from the registry (and then stored in
    ``cache`` for the next run)."""
    if cache is not None and not _registry_loaded():
        stored = _load(cache.rules)
        if stored is not None:
            return stored
    specs = from_registry()
    if cache is not None:
        dumped = _dump(specs)
        if dumped is not None and dumped != cache.rules and _load(dumped) == specs:
            cache.rules = dumped
            cache.dirty = True
    return specs


def _registry_loaded() -> bool:
    registry = sys.modules.get("h2dlint.registry")
    return registry is not None and registry.all_rules.cache_info().currsize > 0


def _dump(specs: Mapping[str, RuleSpec]) -> dict[str, Any] | None:
    """``specs`` as JSON values; None when an option cannot be written so that it reads back
    the same."""
    rules = []
    for spec in specs.values():
        options = []
        for option in spec.options:
            kind = _kind_name(option.kind)
            item = None if option.item_kind is None else _kind_name(option.item_kind)
            if kind is None or (option.item_kind is not None and item is None):
                return None
            options.append([option.name, kind, option.default, option.help, item])
        rules.append([spec.code, spec.name, options])
    try:  # as it will read back: a tuple default becomes a list, which would not compare equal
        dumped: dict[str, Any] = json.loads(
            json.dumps({"build": build_fingerprint(), "rules": rules})
        )
    except (TypeError, ValueError):
        return None
    return dumped


def _load(data: Any) -> dict[str, RuleSpec] | None:
    """The catalogue ``data`` holds; None when it is another build's or not one at all."""
    try:
        if data["build"] != build_fingerprint():
            return None
        specs = {}
        for code, name, options in data["rules"]:
            parsed = tuple(
                RuleOption(
                    option,
                    _KINDS[kind],
                    default,
                    help_text,
                    None if item is None else _KINDS[item],
                )
                for option, kind, default, help_text, item in options
            )
            specs[code] = RuleSpec(code, name, parsed)
        return specs
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


def _kind_name(kind: type) -> str | None:
    return next((name for name, known in _KINDS.items() if known is kind), None)

"""Reading one configuration file: ``[tool.h2dlint]`` of a ``pyproject.toml`` or the top level of
an ``h2dlint.toml``, every key validated (:class:`ConfigError` names the file and the key); where
the nearest one is; and the formatter's ``line-length``. ``config.py`` turns what is read into a
directory's settings.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from h2dlint import confidence, legacy_codes
from h2dlint.catalogue import RuleSpec
from h2dlint.diagnostics import Confidence
from h2dlint.globs import Glob
from h2dlint.selection import SelectionError, validate

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


CONFIG_FILES = ("h2dlint.toml", "pyproject.toml")
# Where the formatter's line length may be set, in the order Ruff looks in one directory.
FORMATTER_FILES = (".ruff.toml", "ruff.toml", "pyproject.toml")
# Ruff's limit.
MAX_LINE_LENGTH = 320

LIST_KEYS = ("select", "ignore", "extend-select", "exclude", "extend-exclude")
KNOWN_KEYS = (
    *LIST_KEYS,
    "per-file-ignores",
    "unsafe-fixes",
    "min-confidence",
    "line-length",
    "rules",
    "analysis",
)
# [tool.h2dlint.analysis]: facts about the project that the provenance analysis cannot see.
ANALYSIS_KEYS = {
    # Functions (bare or dotted names, as called) that return pinned host memory.
    "pinned-helpers": "a list of function names",
    # Attributes (``name`` or ``self.name``) that hold pinned host memory.
    "pinned-attributes": "a list of attribute names",
    # Functions that run per step or per request, besides those h2dlint finds (names,
    # ``Class.method``, fnmatch globs); see h2dlint/analysis/hot_paths.py.
    "hot-functions": "a list of function names or globs",
    # Functions that are never hot, whatever their name or callers.
    "cold-functions": "a list of function names or globs",
}


class ConfigError(Exception):
    """A configuration problem; the message names the file and the key."""


@dataclass(frozen=True)
class FileConfig:
    """What one configuration file says, validated."""

    path: Path | None
    root: Path
    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    exclude: tuple[str, ...] | None = None
    extend_exclude: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    unsafe_fixes: bool | None = None
    min_confidence: Confidence | None = None
    line_length: int | None = None
    rule_options: tuple[tuple[str, tuple[tuple[str, Any], ...]], ...] = ()
    analysis: tuple[tuple[str, tuple[str, ...]], ...] = ()


def setting_origin(path: Path | None, key: str) -> str:
    if path is not None and path.name == "pyproject.toml":
        return f"{path}: [tool.h2dlint] {key}"
    return f"{path or '<command line>'}: {key}"


def _string_list(value: Any, path: Path | None, key: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{setting_origin(path, key)}: expected a list of strings, got {value!r}")
    return tuple(value)


def rule_names(rules: Mapping[str, RuleSpec]) -> dict[str, str]:
    return {code: rule.name for code, rule in rules.items()}


def _rule_options(
    value: Any, path: Path | None, rules: Mapping[str, RuleSpec]
) -> tuple[tuple[str, tuple[tuple[str, Any], ...]], ...]:
    if not isinstance(value, dict):
        raise ConfigError(f"{setting_origin(path, 'rules')}: expected a table of rule tables")
    out = []
    for code, options in sorted(value.items()):
        renamed = legacy_codes.new_code(code)
        if renamed is not None:
            legacy_codes.note(setting_origin(path, f"rules.{code}"), code.upper(), (renamed,))
        rule = rules.get(renamed or code.upper()) or next(
            (r for r in rules.values() if r.name == code), None
        )
        if rule is None:
            raise ConfigError(f"{setting_origin(path, f'rules.{code}')}: unknown rule {code!r}")
        if not isinstance(options, dict):
            raise ConfigError(
                f"{setting_origin(path, f'rules.{code}')}: expected a table of options"
            )
        declared = {option.name: option for option in rule.options}
        checked = []
        for name, option_value in sorted(options.items()):
            key = f"rules.{code}.{name}"
            if name not in declared:
                known = ", ".join(sorted(declared)) or "none"
                raise ConfigError(
                    f"{setting_origin(path, key)}: unknown option for {rule.code} (known: {known})"
                )
            problem = declared[name].validate(option_value)
            if problem:
                raise ConfigError(f"{setting_origin(path, key)}: {problem}")
            checked.append((name, frozen_value(option_value)))
        out.append((rule.code, tuple(checked)))
    return tuple(out)


def frozen_value(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


def parse_config(
    data: Mapping[str, Any], path: Path | None, root: Path, rules: Mapping[str, RuleSpec]
) -> FileConfig:
    """Validate the ``[tool.h2dlint]`` table ``data`` read from ``path`` against ``rules``."""
    unknown = sorted(set(data) - set(KNOWN_KEYS))
    if unknown:
        raise ConfigError(
            f"{setting_origin(path, unknown[0])}: unknown key (known keys: {', '.join(KNOWN_KEYS)})"
        )
    known = rule_names(rules)
    kwargs: dict[str, Any] = {}
    try:
        for key in ("select", "extend-select", "ignore"):
            if key in data:
                selectors = _string_list(data[key], path, key)
                kwargs[key.replace("-", "_")] = validate(
                    selectors, known, setting_origin(path, key)
                )
    except SelectionError as exc:
        raise ConfigError(str(exc)) from exc
    for key in ("exclude", "extend-exclude"):
        if key in data:
            patterns = _string_list(data[key], path, key)
            for pattern in patterns:
                _glob(pattern, path, key)
            kwargs[key.replace("-", "_")] = patterns
    if "per-file-ignores" in data:
        kwargs["per_file_ignores"] = _per_file_ignores(data["per-file-ignores"], path, known)
    if "unsafe-fixes" in data:
        if not isinstance(data["unsafe-fixes"], bool):
            raise ConfigError(f"{setting_origin(path, 'unsafe-fixes')}: expected true or false")
        kwargs["unsafe_fixes"] = data["unsafe-fixes"]
    if "min-confidence" in data:
        kwargs["min_confidence"] = _min_confidence(data["min-confidence"], path)
    if "line-length" in data:
        kwargs["line_length"] = _line_length(
            data["line-length"], setting_origin(path, "line-length")
        )
    if "rules" in data:
        kwargs["rule_options"] = _rule_options(data["rules"], path, rules)
    if "analysis" in data:
        kwargs["analysis"] = _analysis_options(data["analysis"], path)
    return FileConfig(path=path, root=root, **kwargs)


def _min_confidence(value: Any, path: Path | None) -> Confidence:
    if not isinstance(value, str):
        raise ConfigError(
            f"{setting_origin(path, 'min-confidence')}: expected a string, got {value!r}"
        )
    try:
        return confidence.parse(value)
    except ValueError as exc:
        raise ConfigError(f"{setting_origin(path, 'min-confidence')}: {exc}") from exc


def _line_length(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_LINE_LENGTH:
        raise ConfigError(
            f"{where}: expected an integer from 1 to {MAX_LINE_LENGTH}, got {value!r}"
        )
    return value


def formatter_file_in(folder: Path) -> Path | None:
    """The formatter configuration in ``folder`` that decides the line length, if any."""
    for name in FORMATTER_FILES:
        candidate = folder / name
        if not candidate.is_file():
            continue
        if name != "pyproject.toml":
            return candidate
        try:
            data = candidate.read_bytes()
        except OSError:
            continue
        if b"tool.ruff" in data or b"tool.black" in data:
            return candidate
    return None


def formatter_line_length(path: Path) -> tuple[int, str] | None:
    """The line length the formatter configuration ``path`` sets, and where: ``line-length``
    of a ruff.toml, else ``[tool.ruff]``'s, else ``[tool.black]``'s. None when it sets none or
    cannot be read (it is the formatter's file, not ours: no error)."""
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    if path.name == "pyproject.toml":
        tool = raw.get("tool")
        tool = tool if isinstance(tool, dict) else {}
        tables = [(f"[tool.{name}]", tool.get(name)) for name in ("ruff", "black")]
    else:
        tables = [("", raw)]
    for table_name, table in tables:
        if isinstance(table, dict):
            value = table.get("line-length")
            if isinstance(value, int) and not isinstance(value, bool) and value > 0:
                return value, f"{path}: {table_name} line-length".replace(":  ", ": ")
    return None


def _analysis_options(value: Any, path: Path | None) -> tuple[tuple[str, tuple[str, ...]], ...]:
    if not isinstance(value, dict):
        raise ConfigError(f"{setting_origin(path, 'analysis')}: expected a table")
    out = []
    for key, item in sorted(value.items()):
        if key not in ANALYSIS_KEYS:
            known = ", ".join(ANALYSIS_KEYS)
            raise ConfigError(
                f"{setting_origin(path, f'analysis.{key}')}: unknown key (known: {known})"
            )
        out.append((key, _string_list(item, path, f"analysis.{key}")))
    return tuple(out)


def _glob(pattern: str, path: Path | None, key: str) -> Glob:
    try:
        return Glob.compile(pattern)
    except ValueError as exc:
        raise ConfigError(f"{setting_origin(path, key)}: {exc}") from exc


def _per_file_ignores(
    value: Any, path: Path | None, known: Mapping[str, str]
) -> tuple[tuple[str, tuple[str, ...]], ...]:
    key = "per-file-ignores"
    if not isinstance(value, dict):
        raise ConfigError(f"{setting_origin(path, key)}: expected a table of glob = [codes]")
    out = []
    for pattern, codes in value.items():
        _glob(pattern, path, f"{key}.{pattern!r}")
        selectors = _string_list(codes, path, f"{key}.{pattern!r}")
        try:
            out.append(
                (pattern, validate(selectors, known, setting_origin(path, f"{key}.{pattern!r}")))
            )
        except SelectionError as exc:
            raise ConfigError(str(exc)) from exc
    return tuple(out)


def read_config_file(path: Path, rules: Mapping[str, RuleSpec]) -> FileConfig | None:
    """The configuration in ``path``, or None for a ``pyproject.toml`` without h2dlint's table."""
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not valid UTF-8: {exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from exc
    if path.name == "pyproject.toml":
        tool = raw.get("tool", {})
        if not isinstance(tool, dict) or "h2dlint" not in tool:
            return None
        table = tool["h2dlint"]
    else:
        table = raw.get("tool", {}).get("h2dlint", raw) if "tool" in raw else raw
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.h2dlint] must be a table")
    return parse_config(table, path, path.parent.resolve(), rules)


def find_config_file(directory: Path) -> Path | None:
    """The nearest configuration file at or above ``directory``."""
    for folder in (directory, *directory.parents):
        found = config_file_in(folder)
        if found is not None:
            return found
    return None


def config_file_in(folder: Path) -> Path | None:
    for name in CONFIG_FILES:
        candidate = folder / name
        if candidate.is_file() and (name != "pyproject.toml" or _mentions_h2dlint(candidate)):
            return candidate
    return None


def _mentions_h2dlint(pyproject: Path) -> bool:
    try:
        return b"tool.h2dlint" in pyproject.read_bytes()
    except OSError:
        return False

"""Configuration: ``[tool.h2dlint]`` in ``pyproject.toml``, or the top level of ``h2dlint.toml``.

``line-length`` (how long a line the code that fixes write may be) falls back on the formatter's
setting: ``line-length`` of the nearest ``.ruff.toml`` or ``ruff.toml``, else of ``[tool.ruff]``
or ``[tool.black]`` in the nearest ``pyproject.toml`` that has either table, at or above the
checked file's directory; else 88, as both formatters default to.

Each checked file uses the nearest configuration at or above its directory (``h2dlint.toml`` wins
over ``pyproject.toml`` in the same directory; a ``pyproject.toml`` without ``[tool.h2dlint]`` is
passed over), unless ``--config`` names one file for the whole run. Every key is validated: an
unknown key or a value of the wrong type is a :class:`ConfigError` naming the file and the key.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from h2dlint import __version__, confidence, legacy_codes
from h2dlint.catalogue import RuleSpec, known_rules
from h2dlint.diagnostics import Confidence
from h2dlint.excludes import DEFAULT_EXCLUDE as DEFAULT_EXCLUDE  # re-exported: it was here
from h2dlint.excludes import exclude_patterns
from h2dlint.globs import Glob
from h2dlint.jobs import DEFAULT_LINE_LENGTH, LINE_LENGTH_OPTION, EnabledRule
from h2dlint.selection import Layer, SelectionError, resolve, validate

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


@dataclass(frozen=True)
class Overrides:
    """What the command line says, applied on top of every configuration file."""

    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    unsafe_fixes: bool | None = None
    extend_exclude: tuple[str, ...] = ()
    min_confidence: Confidence | None = None
    # ``--exclude``: replaces ``exclude`` (the defaults, or the configuration's list).
    exclude: tuple[str, ...] | None = None
    # Where ``--exclude`` and ``--extend-exclude`` patterns with a ``/`` are anchored (as Ruff
    # does: the directory the command runs in); None: at each configuration's root.
    cwd: Path | None = None


@dataclass(frozen=True)
class Settings:
    """Everything that decides how the files under one configuration are checked."""

    root: Path
    config_path: Path | None
    rules: tuple[EnabledRule, ...]
    exclude: tuple[Glob, ...]
    per_file_ignores: tuple[tuple[Glob, frozenset[str]], ...]
    unsafe_fixes: bool
    analysis: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # Findings less sure than this are not shown, nor fixed (confidence.py).
    min_confidence: Confidence = confidence.DEFAULT
    # Where each ``exclude`` pattern comes from (a setting and its file), for --show-settings
    # and for saying why a path was skipped; parallel to ``exclude``.
    exclude_origins: tuple[str, ...] = ()
    # How long a line the code that fixes write may be, and where that was set.
    line_length: int = DEFAULT_LINE_LENGTH
    line_length_origin: str = "default"

    @property
    def job_analysis(self) -> tuple[tuple[str, Any], ...]:
        """The analysis options a file's check gets: ``analysis`` and the line length."""
        return (*self.analysis, (LINE_LENGTH_OPTION, self.line_length))

    def rules_for(self, rel_path: str) -> tuple[EnabledRule, ...]:
        """The enabled rules, less those that ``per-file-ignores`` turn off for ``rel_path``."""
        off: set[str] = set()
        for glob, codes in self.per_file_ignores:
            if glob.matches(rel_path):
                off |= codes
        if not off:
            return self.rules
        return tuple(rule for rule in self.rules if rule.code not in off)

    def is_excluded(self, rel_path: str) -> bool:
        return any(glob.matches(rel_path) for glob in self.exclude)

    def exclusion(self, rel_path: str, name: str | None = None) -> tuple[str, str] | None:
        """(pattern, where it is set) of the first exclude pattern that matches ``rel_path``
        (as a walk entry named ``name`` when given); None when none does."""
        for index, glob in enumerate(self.exclude):
            hit = glob.matches_entry(rel_path, name) if name is not None else glob.matches(rel_path)
            if hit:
                origin = self.exclude_origins[index] if index < len(self.exclude_origins) else ""
                return glob.pattern, origin
        return None

    def is_excluded_entry(self, rel_path: str, name: str) -> bool:
        names, globs = self._entry_excludes
        return name in names or any(glob.matches_entry(rel_path, name) for glob in globs)

    @cached_property
    def _entry_excludes(self) -> tuple[frozenset[str], tuple[Glob, ...]]:
        """The exclude patterns that are plain names (``.git``, ``build``: a set lookup, which
        the walk makes for every entry), and the other globs."""
        plain = frozenset(
            glob.pattern for glob in self.exclude if glob.component and glob.is_literal
        )
        return plain, tuple(g for g in self.exclude if not (g.component and g.is_literal))


def _where(path: Path | None, key: str) -> str:
    if path is not None and path.name == "pyproject.toml":
        return f"{path}: [tool.h2dlint] {key}"
    return f"{path or '<command line>'}: {key}"


def _string_list(value: Any, path: Path | None, key: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{_where(path, key)}: expected a list of strings, got {value!r}")
    return tuple(value)


def _names(rules: Mapping[str, RuleSpec]) -> dict[str, str]:
    return {code: rule.name for code, rule in rules.items()}


def _rule_options(
    value: Any, path: Path | None, rules: Mapping[str, RuleSpec]
) -> tuple[tuple[str, tuple[tuple[str, Any], ...]], ...]:
    if not isinstance(value, dict):
        raise ConfigError(f"{_where(path, 'rules')}: expected a table of rule tables")
    out = []
    for code, options in sorted(value.items()):
        renamed = legacy_codes.new_code(code)
        if renamed is not None:
            legacy_codes.note(_where(path, f"rules.{code}"), code.upper(), (renamed,))
        rule = rules.get(renamed or code.upper()) or next(
            (r for r in rules.values() if r.name == code), None
        )
        if rule is None:
            raise ConfigError(f"{_where(path, f'rules.{code}')}: unknown rule {code!r}")
        if not isinstance(options, dict):
            raise ConfigError(f"{_where(path, f'rules.{code}')}: expected a table of options")
        declared = {option.name: option for option in rule.options}
        checked = []
        for name, option_value in sorted(options.items()):
            key = f"rules.{code}.{name}"
            if name not in declared:
                known = ", ".join(sorted(declared)) or "none"
                raise ConfigError(
                    f"{_where(path, key)}: unknown option for {rule.code} (known: {known})"
                )
            problem = declared[name].validate(option_value)
            if problem:
                raise ConfigError(f"{_where(path, key)}: {problem}")
            checked.append((name, _freeze(option_value)))
        out.append((rule.code, tuple(checked)))
    return tuple(out)


def _freeze(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


def parse_config(
    data: Mapping[str, Any], path: Path | None, root: Path, rules: Mapping[str, RuleSpec]
) -> FileConfig:
    """Validate the ``[tool.h2dlint]`` table ``data`` read from ``path`` against ``rules``."""
    unknown = sorted(set(data) - set(KNOWN_KEYS))
    if unknown:
        raise ConfigError(
            f"{_where(path, unknown[0])}: unknown key (known keys: {', '.join(KNOWN_KEYS)})"
        )
    known = _names(rules)
    kwargs: dict[str, Any] = {}
    try:
        for key in ("select", "extend-select", "ignore"):
            if key in data:
                selectors = _string_list(data[key], path, key)
                kwargs[key.replace("-", "_")] = validate(selectors, known, _where(path, key))
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
            raise ConfigError(f"{_where(path, 'unsafe-fixes')}: expected true or false")
        kwargs["unsafe_fixes"] = data["unsafe-fixes"]
    if "min-confidence" in data:
        kwargs["min_confidence"] = _min_confidence(data["min-confidence"], path)
    if "line-length" in data:
        kwargs["line_length"] = _line_length(data["line-length"], _where(path, "line-length"))
    if "rules" in data:
        kwargs["rule_options"] = _rule_options(data["rules"], path, rules)
    if "analysis" in data:
        kwargs["analysis"] = _analysis_options(data["analysis"], path)
    return FileConfig(path=path, root=root, **kwargs)


def _min_confidence(value: Any, path: Path | None) -> Confidence:
    if not isinstance(value, str):
        raise ConfigError(f"{_where(path, 'min-confidence')}: expected a string, got {value!r}")
    try:
        return confidence.parse(value)
    except ValueError as exc:
        raise ConfigError(f"{_where(path, 'min-confidence')}: {exc}") from exc


def _line_length(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_LINE_LENGTH:
        raise ConfigError(
            f"{where}: expected an integer from 1 to {MAX_LINE_LENGTH}, got {value!r}"
        )
    return value


def _formatter_file_in(folder: Path) -> Path | None:
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
        raise ConfigError(f"{_where(path, 'analysis')}: expected a table")
    out = []
    for key, item in sorted(value.items()):
        if key not in ANALYSIS_KEYS:
            known = ", ".join(ANALYSIS_KEYS)
            raise ConfigError(f"{_where(path, f'analysis.{key}')}: unknown key (known: {known})")
        out.append((key, _string_list(item, path, f"analysis.{key}")))
    return tuple(out)


def _glob(pattern: str, path: Path | None, key: str) -> Glob:
    try:
        return Glob.compile(pattern)
    except ValueError as exc:
        raise ConfigError(f"{_where(path, key)}: {exc}") from exc


def _per_file_ignores(
    value: Any, path: Path | None, known: Mapping[str, str]
) -> tuple[tuple[str, tuple[str, ...]], ...]:
    key = "per-file-ignores"
    if not isinstance(value, dict):
        raise ConfigError(f"{_where(path, key)}: expected a table of glob = [codes]")
    out = []
    for pattern, codes in value.items():
        _glob(pattern, path, f"{key}.{pattern!r}")
        selectors = _string_list(codes, path, f"{key}.{pattern!r}")
        try:
            out.append((pattern, validate(selectors, known, _where(path, f"{key}.{pattern!r}"))))
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
        found = _config_file_in(folder)
        if found is not None:
            return found
    return None


def _config_file_in(folder: Path) -> Path | None:
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


class SettingsResolver:
    """Settings per directory, from the nearest configuration file, cached."""

    def __init__(
        self,
        overrides: Overrides,
        config_file: Path | None,
        cwd: Path,
        rules: Mapping[str, RuleSpec] | None = None,
    ) -> None:
        self.rules = known_rules() if rules is None else rules
        self.overrides = overrides
        self.cwd = cwd
        self._by_dir: dict[str, Settings] = {}  # by real path
        # By configuration file and formatter configuration file.
        self._by_config: dict[tuple[Path | None, Path | None], Settings] = {}
        self._config_of: dict[Path, Path | None] = {}
        self._formatter_of: dict[Path, Path | None] = {}
        self._fixed: Settings | None = None
        if config_file is not None:
            loaded = read_config_file(config_file, self.rules)
            if loaded is None:
                raise ConfigError(f"{config_file}: no [tool.h2dlint] table")
            self._fixed = build_settings(
                loaded, overrides, self.rules, self._formatter_length(config_file.parent.resolve())
            )

    def _config_file(self, directory: Path) -> Path | None:
        """:func:`find_config_file`, remembering each directory's answer for the run: a walk
        asks for every directory, and siblings share their parents' answers."""
        if directory in self._config_of:
            return self._config_of[directory]
        found = _config_file_in(directory)
        if found is None and directory.parent != directory:
            found = self._config_file(directory.parent)
        self._config_of[directory] = found
        return found

    def _formatter_file(self, directory: Path) -> Path | None:
        """The nearest formatter configuration at or above ``directory``, remembered."""
        if directory in self._formatter_of:
            return self._formatter_of[directory]
        found = _formatter_file_in(directory)
        if found is None and directory.parent != directory:
            found = self._formatter_file(directory.parent)
        self._formatter_of[directory] = found
        return found

    def _formatter_length(self, directory: Path) -> tuple[int, str] | None:
        found = self._formatter_file(directory)
        return formatter_line_length(found) if found is not None else None

    def for_real_directory(self, real: str, may_hold_config: bool = True) -> Settings:
        """The settings for files in the directory whose real path is ``real``. A walk that
        saw no configuration file's name among its entries says so (``may_hold_config``): it
        then shares its parent's settings without a look at the disk."""
        if self._fixed is not None:
            return self._fixed
        found = self._by_dir.get(real)
        if found is None:
            if not may_hold_config:
                found = self._by_dir.get(os.path.dirname(real))
            if found is None:
                found = self._settings_at(Path(real))
            self._by_dir[real] = found
        return found

    def for_directory(self, directory: Path) -> Settings:
        """The settings for files in ``directory``."""
        if self._fixed is not None:
            return self._fixed
        return self.for_real_directory(str(directory.resolve()))

    def _settings_at(self, directory: Path) -> Settings:
        """The settings of the configuration nearest to the real path ``directory``."""
        config_path = self._config_file(directory)
        formatter = self._formatter_file(directory)
        settings = self._by_config.get((config_path, formatter))
        if settings is None:
            if config_path is None:
                loaded = FileConfig(path=None, root=self.cwd.resolve())
            else:
                loaded = read_config_file(config_path, self.rules) or FileConfig(
                    path=None, root=config_path.parent.resolve()
                )
            length = formatter_line_length(formatter) if formatter is not None else None
            settings = build_settings(loaded, self.overrides, self.rules, length)
            self._by_config[(config_path, formatter)] = settings
        return settings


def build_settings(
    config: FileConfig,
    overrides: Overrides,
    rules: Mapping[str, RuleSpec],
    formatter_length: tuple[int, str] | None = None,
) -> Settings:
    """The settings of ``config`` under ``overrides``; ``formatter_length``: the line length
    the formatter's configuration sets, and where (:func:`formatter_line_length`)."""
    known = _names(rules)
    try:
        cli_select = validate(overrides.select, known, "--select") if overrides.select else None
        layers = [
            Layer(select=("ALL",)),
            Layer(config.select, config.extend_select, config.ignore),
            Layer(
                cli_select,
                validate(overrides.extend_select, known, "--extend-select"),
                validate(overrides.ignore, known, "--ignore"),
            ),
        ]
    except SelectionError as exc:
        raise ConfigError(str(exc)) from exc
    enabled = resolve(layers, known)
    options = dict(config.rule_options)
    enabled_rules = tuple(
        EnabledRule(code, _settings_for(rules[code], dict(options.get(code, ()))))
        for code in sorted(enabled)
    )
    excludes = exclude_patterns(
        config.path, config.root, config.exclude, config.extend_exclude, overrides
    )
    per_file = tuple(
        (Glob.compile(pattern), frozenset(_expand(codes, known)))
        for pattern, codes in config.per_file_ignores
    )
    unsafe = overrides.unsafe_fixes if overrides.unsafe_fixes is not None else config.unsafe_fixes
    threshold = overrides.min_confidence or config.min_confidence or confidence.DEFAULT
    if config.line_length is not None:
        length = (config.line_length, _where(config.path, "line-length"))
    else:
        length = formatter_length or (DEFAULT_LINE_LENGTH, "default")
    return Settings(
        root=config.root,
        config_path=config.path,
        rules=enabled_rules,
        exclude=tuple(Glob.compile(p) for p, _ in excludes),
        per_file_ignores=per_file,
        unsafe_fixes=bool(unsafe),
        analysis=config.analysis,
        min_confidence=threshold,
        exclude_origins=tuple(origin for _, origin in excludes),
        line_length=length[0],
        line_length_origin=length[1],
    )


def _settings_for(rule: RuleSpec, given: dict[str, Any]) -> tuple[tuple[str, Any], ...]:
    merged = {**rule.default_settings(), **given}
    return tuple(sorted((k, _freeze(v)) for k, v in merged.items()))


def _expand(selectors: Sequence[str], known: Mapping[str, str]) -> set[str]:
    """The codes a list of selectors names (for per-file-ignores)."""
    return set(resolve([Layer(select=tuple(selectors))], known))


def fingerprint(rules: Sequence[EnabledRule], analysis: Any = ()) -> str:
    """Identifies what a check of one file's content depends on, for the cache."""
    payload = json.dumps(
        [__version__, [(r.code, repr(r.settings)) for r in rules], repr(analysis)],
        sort_keys=True,
    )
    return hashlib.blake2b(payload.encode(), digest_size=16).hexdigest()

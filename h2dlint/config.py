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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from h2dlint import __version__, confidence
from h2dlint.catalogue import RuleSpec, known_rules
from h2dlint.config_file import CONFIG_FILES as CONFIG_FILES
from h2dlint.config_file import ConfigError as ConfigError
from h2dlint.config_file import FileConfig as FileConfig
from h2dlint.config_file import (
    config_file_in,
    formatter_file_in,
    frozen_value,
    rule_names,
    setting_origin,
)
from h2dlint.config_file import find_config_file as find_config_file
from h2dlint.config_file import formatter_line_length as formatter_line_length
from h2dlint.config_file import parse_config as parse_config
from h2dlint.config_file import read_config_file as read_config_file
from h2dlint.diagnostics import Confidence
from h2dlint.excludes import DEFAULT_EXCLUDE as DEFAULT_EXCLUDE  # re-exported: it was here
from h2dlint.excludes import exclude_patterns
from h2dlint.globs import Glob
from h2dlint.jobs import DEFAULT_LINE_LENGTH, LINE_LENGTH_OPTION, EnabledRule
from h2dlint.overrides import Overrides as Overrides
from h2dlint.selection import Layer, SelectionError, resolve, validate


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
        found = config_file_in(directory)
        if found is None and directory.parent != directory:
            found = self._config_file(directory.parent)
        self._config_of[directory] = found
        return found

    def _formatter_file(self, directory: Path) -> Path | None:
        """The nearest formatter configuration at or above ``directory``, remembered."""
        if directory in self._formatter_of:
            return self._formatter_of[directory]
        found = formatter_file_in(directory)
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
    known = rule_names(rules)
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
        length = (config.line_length, setting_origin(config.path, "line-length"))
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
    return tuple(sorted((k, frozen_value(v)) for k, v in merged.items()))


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

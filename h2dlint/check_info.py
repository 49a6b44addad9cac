"""What ``h2dlint check`` can say about a run besides its findings: the files it would check
(``--show-files``), the settings of a file (``--show-settings``), what it is about to do (``-v``),
and why it found nothing to check."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import click

from h2dlint.check_args import EXIT_OK, CheckArgs, Console
from h2dlint.config import Settings, SettingsResolver
from h2dlint.discovery import Candidate, Skip, Walked, display_path, relative_to_root

# How many different reasons for skipping paths the warning names, per path given.
MAX_REASONS = 3


def _config_label(settings: Settings, cwd: Path) -> str:
    if settings.config_path is None:
        return "the defaults (no configuration file)"
    return display_path(settings.config_path, cwd)


# -- why nothing was checked -------------------------------------------------------------------
def explain_nothing_checked(walked: Sequence[Walked], console: Console) -> None:
    """Warn that no file was found to check, and say why for each path given."""
    console.warn("No Python files found under the given path(s)")
    kinds: set[str] = set()
    for item in walked:
        if item.files:
            continue
        kinds.update(skip.kind for skip in item.skipped)
        for line in _reasons(item):
            console.warn(line)
    if "gitignore" in kinds:
        console.warn("--no-respect-gitignore also checks what .gitignore files leave out")
    if "exclude" in kinds:
        console.warn(
            "a file named on the command line is always checked (unless --force-exclude); "
            "--exclude replaces the `exclude` patterns"
        )


def _reasons(item: Walked) -> list[str]:
    """Why nothing under one path given was checked: the commonest reasons, each with the first
    path it applies to (below the path given, or the path itself)."""
    if not item.skipped:
        return [f"{item.display} holds no *.py or *.pyi file"] if item.is_dir else []
    by_reason: dict[str, list[Skip]] = {}
    for skip in item.skipped:
        by_reason.setdefault(skip.reason, []).append(skip)
    ranked = sorted(by_reason.values(), key=lambda skips: -len(skips))
    lines = []
    for skips in ranked[:MAX_REASONS]:
        others = len(skips) - 1
        more = f" (as {'is' if others == 1 else 'are'} {others} more)" if others else ""
        lines.append(f"{skips[0].display} {skips[0].reason}{more}")
    if len(ranked) > MAX_REASONS:
        others = len(ranked) - MAX_REASONS
        lines.append(f"{item.display}: {others} more reasons; -v lists every path passed over")
    return lines


# -- -v ----------------------------------------------------------------------------------------
def log_plan(
    console: Console,
    candidates: Sequence[Candidate],
    walked: Sequence[Walked],
    cache_dir: Path | None,
    cwd: Path,
) -> None:
    """-v: the cache, the configurations and files to check, and every path passed over."""
    if not console.verbose_enabled:
        return
    console.verbose(f"cache: {cache_dir if cache_dir is not None else 'off'}")
    by_config: dict[str, int] = {}
    for candidate in candidates:
        label = _config_label(candidate.settings, cwd)
        by_config[label] = by_config.get(label, 0) + 1
    for label, count in by_config.items():
        console.verbose(f"settings from {label}: {count} file{'s' if count != 1 else ''}")
    for candidate in candidates:
        if candidate.error is not None:
            console.verbose(f"{candidate.display}: {candidate.error}")
        else:
            console.verbose(f"{candidate.display}: {_config_label(candidate.settings, cwd)}")
    for item in walked:
        for skip in item.skipped:
            console.verbose(f"skipped: {skip.display} {skip.reason}")


# -- --show-files ------------------------------------------------------------------------------
def show_files(
    args: CheckArgs, candidates: Sequence[Candidate], cwd: Path, console: Console
) -> int:
    """Each file a check would read, with the configuration file that applies to it."""
    files = sorted((c for c in candidates if c.error is None), key=lambda c: c.display)
    for candidate in candidates:
        if candidate.error is not None:
            console.warn(f"{candidate.display}: {candidate.error}")
    rows = [(c.display, _config_label(c.settings, cwd)) for c in files]
    if args.output_format == "json":
        records = [
            {"path": display, "config": None if c.settings.config_path is None else config}
            for (display, config), c in zip(rows, files, strict=True)
        ]
        click.echo(json.dumps(records, indent=2))
        return EXIT_OK
    width = max((len(display) for display, _ in rows), default=0)
    for display, config in rows:
        click.echo(f"{display.ljust(width)}  {config}")
    return EXIT_OK


# -- --show-settings ---------------------------------------------------------------------------
def show_settings(
    args: CheckArgs,
    resolver: SettingsResolver,
    candidates: Sequence[Candidate],
    paths: Sequence[Path],
    cwd: Path,
) -> int:
    """The settings that apply to the first file the run would check (or to the first path)."""
    first = next((c for c in candidates if c.error is None), None)
    if first is not None:
        target, settings = first.display, first.settings
        absolute = first.path
    else:
        path = Path(os.path.abspath(paths[0] if paths else Path(".")))
        directory = path if path.is_dir() else path.parent
        settings = resolver.for_directory(directory)
        target, absolute = display_path(path, cwd), str(path)
    data = _settings_data(args, resolver, settings, target, absolute, cwd)
    if args.output_format == "json":
        click.echo(json.dumps(data, indent=2))
    else:
        click.echo(_settings_text(data))
    return EXIT_OK


def _settings_data(
    args: CheckArgs,
    resolver: SettingsResolver,
    settings: Settings,
    target: str,
    absolute: str,
    cwd: Path,
) -> dict[str, Any]:
    rel = relative_to_root(absolute, settings)
    enabled = {rule.code for rule in settings.rules_for(rel)}
    names = {code: spec.name for code, spec in resolver.rules.items()}
    return {
        "file": target,
        "config": None if settings.config_path is None else display_path(settings.config_path, cwd),
        "root": str(settings.root),
        "rules": [
            {
                "code": rule.code,
                "name": names.get(rule.code, ""),
                "options": dict(rule.settings),
                "on_for_this_file": rule.code in enabled,
            }
            for rule in settings.rules
        ],
        "per-file-ignores": {
            glob.pattern: sorted(codes) for glob, codes in settings.per_file_ignores
        },
        "exclude": [
            {"pattern": glob.pattern, "from": origin}
            for glob, origin in zip(settings.exclude, _origins(settings), strict=True)
        ],
        "unsafe-fixes": settings.unsafe_fixes,
        "min-confidence": settings.min_confidence.value,
        "line-length": {"value": settings.line_length, "from": settings.line_length_origin},
        "analysis": {key: list(values) for key, values in settings.analysis},
        "respect-gitignore": args.respect_gitignore,
        "force-exclude": args.force_exclude,
        "output-format": args.output_format,
    }


def _origins(settings: Settings) -> tuple[str, ...]:
    missing = len(settings.exclude) - len(settings.exclude_origins)
    return settings.exclude_origins + ("",) * max(missing, 0)


def _settings_text(data: Mapping[str, Any]) -> str:
    lines = [
        f"Resolved settings for: {data['file']}",
        f"Configuration file: {data['config'] or '(none: the defaults)'}",
        f"Project root: {data['root']}",
        "",
        f"Rules ({len(data['rules'])} enabled):",
    ]
    for rule in data["rules"]:
        off = "" if rule["on_for_this_file"] else "  (off here: per-file-ignores)"
        options = ", ".join(f"{k} = {_toml(v)}" for k, v in rule["options"].items())
        lines.append(f"  {rule['code']}  {rule['name']}{f'  [{options}]' if options else ''}{off}")
    lines.append(f"unsafe-fixes = {_toml(data['unsafe-fixes'])}")
    lines.append(f"min-confidence = {_toml(data['min-confidence'])}")
    length = data["line-length"]
    lines.append(f"line-length = {length['value']}  ({length['from']})")
    lines.append("per-file-ignores:" if data["per-file-ignores"] else "per-file-ignores: (none)")
    for pattern, codes in data["per-file-ignores"].items():
        lines.append(f"  {_toml(pattern)} = {_toml(codes)}")
    lines.append("exclude:")
    by_origin: dict[str, list[str]] = {}
    for item in data["exclude"]:
        by_origin.setdefault(item["from"] or "?", []).append(item["pattern"])
    for origin, patterns in by_origin.items():
        lines.append(f"  {origin}: {', '.join(patterns)}")
    if data["analysis"]:
        lines.append("analysis:")
        for key, values in data["analysis"].items():
            lines.append(f"  {key} = {_toml(values)}")
    lines.append(f"respect-gitignore = {_toml(data['respect-gitignore'])}")
    lines.append(f"force-exclude = {_toml(data['force-exclude'])}")
    lines.append(f"output-format = {_toml(data['output-format'])}")
    return "\n".join(lines)


def _toml(value: Any) -> str:
    """``value`` as it would be written in the configuration file."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml(item) for item in value) + "]"
    if isinstance(value, str):
        return json.dumps(value)
    return str(value)

"""SARIF 2.1.0, for GitHub code scanning and other static-analysis dashboards."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path, PurePath
from typing import Any
from urllib.parse import quote

import h2dlint
from h2dlint.diagnostics import (
    INTERNAL_ERROR_CODE,
    IO_ERROR_CODE,
    SYNTAX_ERROR_CODE,
    Confidence,
    Edit,
    Finding,
    FixInfo,
)
from h2dlint.reporters.json_format import is_pseudo_path
from h2dlint.reporters.options import ReportOptions, RunSummary
from h2dlint.rule import Rule

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_VERSION = "2.1.0"
SRCROOT = "%SRCROOT%"
# A result's rank (SARIF 2.1.0 `result.rank`: 0.0 to 100.0, higher is more important), from
# how sure the finding is; the level stays "warning" (or "error" for a file diagnostic).
RANKS: dict[Confidence, float] = {Confidence.HIGH: 90.0, Confidence.MEDIUM: 50.0}

# The diagnostics that are not rules: code -> (name, short description, full description).
_FILE_DIAGNOSTICS: dict[str, tuple[str, str, str]] = {
    SYNTAX_ERROR_CODE: (
        "syntax-error",
        "Syntax error",
        "The file could not be parsed as Python, so no rule could check it.",
    ),
    IO_ERROR_CODE: (
        "io-error",
        "I/O error",
        "The file could not be read or decoded, so no rule could check it.",
    ),
    INTERNAL_ERROR_CODE: (
        "internal-error",
        "Internal error",
        "h2dlint failed while checking the file; please report this as a bug.",
    ),
}


def render_sarif(findings: Sequence[Finding], summary: RunSummary, options: ReportOptions) -> str:
    root = sarif_root(options)
    descriptors = _descriptors(findings)
    index = {descriptor["id"]: i for i, descriptor in enumerate(descriptors)}
    run = {
        "tool": {
            "driver": {
                "name": "h2dlint",
                "version": h2dlint.__version__,
                "rules": descriptors,
            }
        },
        "columnKind": "unicodeCodePoints",
        "originalUriBaseIds": {SRCROOT: {"uri": directory_uri(root)}},
        "results": [_result(finding, index, root, options.cwd) for finding in findings],
    }
    log = {"$schema": SCHEMA_URI, "version": SARIF_VERSION, "runs": [run]}
    return json.dumps(log, indent=2) + "\n"


# -- where paths are relative to -----------------------------------------------------------------
def sarif_root(options: ReportOptions) -> Path:
    """``options.root``, else the git repository around ``options.cwd``, else ``options.cwd``;
    absolute."""
    if options.root is not None:
        return Path(os.path.abspath(options.cwd / options.root))
    cwd = Path(os.path.abspath(options.cwd))
    for directory in (cwd, *cwd.parents):
        if (directory / ".git").exists():
            return directory
    return cwd


def directory_uri(directory: Path) -> str:
    uri = directory.as_uri()
    return uri if uri.endswith("/") else uri + "/"


def artifact_location(path: str, root: Path, cwd: Path) -> dict[str, str]:
    """A URI relative to %SRCROOT% when ``path`` lies below the root, else an absolute one."""
    if is_pseudo_path(path):
        return {"uri": quote(path)}
    absolute = Path(os.path.abspath(cwd / path))
    relative = _relative_to(absolute, root)
    if relative is None:
        return {"uri": absolute.as_uri()}
    return {"uri": quote(os.fsencode(relative.as_posix()), safe="/"), "uriBaseId": SRCROOT}


def _relative_to(path: Path, root: Path) -> PurePath | None:
    """``path`` relative to ``root``, comparing as given and with symbolic links resolved."""
    for candidate, base in ((path, root), (_resolved(path), _resolved(root))):
        try:
            return candidate.relative_to(base)
        except ValueError:
            continue
    return None


def _resolved(path: Path) -> Path:
    try:
        return path.resolve()
    except OSError:
        return path


# -- rules -------------------------------------------------------------------------------------
def _descriptors(findings: Sequence[Finding]) -> list[dict[str, Any]]:
    """Every registered rule (by code), the file diagnostics, then any other code reported."""
    descriptors = [_rule_descriptor(rule) for _, rule in sorted(_registered_rules().items())]
    descriptors += [_file_descriptor(code, *info) for code, info in _FILE_DIAGNOSTICS.items()]
    known = {descriptor["id"] for descriptor in descriptors}
    for code in sorted({finding.code for finding in findings} - known):
        descriptors.append({"id": code, "defaultConfiguration": {"level": "warning"}})
    return descriptors


def _registered_rules() -> dict[str, type[Rule]]:
    from h2dlint import registry

    try:
        return dict(registry.all_rules())
    except (ImportError, registry.RegistryError):
        return {}


def _rule_descriptor(rule: type[Rule]) -> dict[str, Any]:
    documentation = rule.documentation()
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.message},
        "fullDescription": {"text": rule.summary()},
        # No helpUri: SARIF wants an absolute URI there, and the rule's page is a path in
        # h2dlint's repository. The whole page is the help; where it lies is a property.
        "help": {"text": documentation, "markdown": documentation},
        "defaultConfiguration": {"level": rule.severity.value},
        "properties": {"documentation": rule.url()},
    }


def _file_descriptor(code: str, name: str, short: str, full: str) -> dict[str, Any]:
    return {
        "id": code,
        "name": name,
        "shortDescription": {"text": short},
        "fullDescription": {"text": full},
        "help": {"text": full, "markdown": full},
        "defaultConfiguration": {"level": "error"},
    }


# -- results -----------------------------------------------------------------------------------
def _result(finding: Finding, index: dict[str, int], root: Path, cwd: Path) -> dict[str, Any]:
    artifact = artifact_location(finding.path, root, cwd)
    result: dict[str, Any] = {
        "ruleId": finding.code,
        "ruleIndex": index[finding.code],
        "level": finding.level,
        "message": {"text": finding.message},
        "locations": [
            {"physicalLocation": {"artifactLocation": artifact, "region": _region(finding)}}
        ],
        "rank": RANKS[finding.confidence],
        "properties": {"confidence": finding.confidence.value},
    }
    if finding.trace is not None:
        result["properties"]["trace"] = finding.trace.to_dict()
    if finding.fix is not None and finding.fix.edits:
        result["fixes"] = [_fix(finding.fix, artifact)]
    return result


def _region(finding: Finding) -> dict[str, int]:
    start, end = finding.start, finding.end
    if end <= start:
        # A point (a file-level diagnostic): the start alone.
        return {"startLine": start.row, "startColumn": start.column}
    return {
        "startLine": start.row,
        "startColumn": start.column,
        "endLine": end.row,
        "endColumn": end.column,
    }


def _fix(fix: FixInfo, artifact: dict[str, str]) -> dict[str, Any]:
    sarif_fix: dict[str, Any] = {
        "artifactChanges": [
            {
                "artifactLocation": dict(artifact),
                "replacements": [_replacement(edit) for edit in fix.edits],
            }
        ],
        "properties": {"applicability": fix.safety.value},
    }
    if fix.message:
        sarif_fix["description"] = {"text": fix.message}
    return sarif_fix


def _replacement(edit: Edit) -> dict[str, Any]:
    # An insertion is a deleted region of zero width, so both ends are always given.
    return {
        "deletedRegion": {
            "startLine": edit.start.row,
            "startColumn": edit.start.column,
            "endLine": edit.end.row,
            "endColumn": edit.end.column,
        },
        "insertedContent": {"text": edit.content},
    }

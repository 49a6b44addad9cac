"""The GitHub Actions workflow of docs/examples/h2dlint.yml, which docs/ci.md shows: its structure
(jobs, permissions, steps), that it installs h2dlint from a commit rather than a release that does
not exist, and that the SARIF file the h2dlint step writes is the one the upload step sends. Its
h2dlint command is run here as written, and what it writes must be valid SARIF."""

from __future__ import annotations

import json
import os
import re
import shlex
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from h2dlint.cli import main

yaml = pytest.importorskip("yaml", reason="pyyaml comes with pre-commit, in the test extra")
jsonschema = pytest.importorskip("jsonschema")

ROOT = Path(__file__).resolve().parent.parent
WORKFLOW = ROOT / "docs" / "examples" / "h2dlint.yml"
CI_DOC = ROOT / "docs" / "ci.md"
SCHEMA = Path(__file__).parent / "data" / "sarif-schema-2.1.0.json"


@pytest.fixture(scope="module")
def workflow() -> dict[str, Any]:
    data = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def _runs(job: dict[str, Any]) -> list[str]:
    return [step["run"] for step in job["steps"] if "run" in step]


def _h2dlint_args(run: str) -> list[str]:
    words = shlex.split(run)
    assert words[0] == "h2dlint", run
    return words[1:]


def _output_file(args: list[str]) -> str | None:
    for i, word in enumerate(args):
        if word in ("-o", "--output-file") and i + 1 < len(args):
            return args[i + 1]
        if word.startswith("--output-file="):
            return word.split("=", 1)[1]
    return None


def test_triggers_and_default_permissions(workflow: dict[str, Any]) -> None:
    # YAML 1.1 reads the key `on` as True.
    triggers = workflow.get("on", workflow.get(True))
    assert set(triggers) == {"push", "pull_request"}
    assert workflow["permissions"] == {"contents": "read"}
    assert set(workflow["jobs"]) == {"annotate", "code-scanning"}


def test_installs_h2dlint_from_a_pinned_commit(workflow: dict[str, Any]) -> None:
    env = workflow["env"]
    assert set(env) == {"H2DLINT_REPO", "H2DLINT_COMMIT"}
    for name, job in workflow["jobs"].items():
        installs = [run for run in _runs(job) if "pip install" in run]
        assert installs == ['pip install "h2dlint @ git+${H2DLINT_REPO}@${H2DLINT_COMMIT}"'], name
    text = WORKFLOW.read_text(encoding="utf-8")
    assert not re.search(r"h2dlint==|h2dlint\[|pip install h2dlint\b", text)


def test_annotate_job_prints_workflow_commands(workflow: dict[str, Any]) -> None:
    job = workflow["jobs"]["annotate"]
    assert "permissions" not in job  # read-only, from the workflow
    (check,) = [run for run in _runs(job) if run.startswith("h2dlint")]
    args = _h2dlint_args(check)
    assert args[args.index("--output-format") + 1] == "github"
    assert "--exit-zero" not in args  # a required check must fail on findings


def test_code_scanning_uploads_the_file_h2dlint_writes(workflow: dict[str, Any]) -> None:
    job = workflow["jobs"]["code-scanning"]
    assert job["permissions"]["security-events"] == "write"
    assert job["permissions"]["contents"] == "read"
    steps = job["steps"]
    (check_at,) = [i for i, s in enumerate(steps) if s.get("run", "").startswith("h2dlint")]
    (upload_at,) = [
        i
        for i, s in enumerate(steps)
        if s.get("uses", "").startswith("github/codeql-action/upload-sarif@")
    ]
    assert check_at < upload_at
    args = _h2dlint_args(steps[check_at]["run"])
    assert args[args.index("--output-format") + 1] == "sarif"
    # Findings are for code scanning to judge; exit code 2 (a broken run) still fails the job.
    assert "--exit-zero" in args
    written = _output_file(args)
    assert written is not None, args
    assert steps[upload_at]["with"]["sarif_file"] == written
    assert steps[upload_at]["with"]["category"] == "h2dlint"
    assert [s["uses"].split("@")[0] for s in steps[:2]] == [
        "actions/checkout",
        "actions/setup-python",
    ]


def test_the_sarif_command_runs_as_written(
    workflow: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a copy of the repository's example (three findings): exit 0, and a valid SARIF log
    with the findings in the file the upload step sends."""
    job = workflow["jobs"]["code-scanning"]
    (run,) = [run for run in _runs(job) if run.startswith("h2dlint")]
    args = _h2dlint_args(run)
    project = tmp_path / "project"
    project.mkdir()
    (project / "serving_batch.py").write_bytes(
        (ROOT / "examples" / "serving_batch.py").read_bytes()
    )
    monkeypatch.chdir(project)
    result = CliRunner().invoke(main, ["--no-cache", *args])
    assert result.exit_code == 0, result.output
    written = _output_file(args)
    assert written is not None
    log = json.loads((project / written).read_text(encoding="utf-8"))
    jsonschema.Draft4Validator(json.loads(SCHEMA.read_text(encoding="utf-8"))).validate(log)
    results = log["runs"][0]["results"]
    assert len(results) == 3
    assert {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results} == {
        "serving_batch.py"
    }
    assert set(os.listdir(project)) == {"serving_batch.py", written}


def test_ci_doc_shows_the_workflow_file_as_it_is() -> None:
    doc = CI_DOC.read_text(encoding="utf-8")
    blocks = re.findall(r"```yaml\n(.*?)```", doc, re.S)
    assert WORKFLOW.read_text(encoding="utf-8") in blocks
    assert "examples/h2dlint.yml" in doc

"""Every shell command the docs show (``sh`` and ``console`` blocks of README.md and docs/*.md)
that runs h2dlint is run here, as written, on a copy of the repository's example and fixtures: it
must exit with the code the docs give it, print what the docs show (in a ``console`` block, whose
output is of an example project, any number stands for any number), and never a traceback.

Commands that do something else are left out by rule, each rule with its reason (installing
packages, creating a virtual environment, needing a GPU, ...). Every command found must be either
run or left out by one of those rules, and every expected exit code below must belong to a
command the docs still show: a new command in the docs fails this test until it is added here.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"^```(\w*)\n(.*?)^```\n(?:\n```text\n(.*?)^```\n)?", re.S | re.M)

# The exit code each h2dlint command the docs show must give here (0: nothing to report, 1:
# findings remain or, for --diff, something to fix, 2: usage or configuration error). The
# workspace is below: src/ holds examples/ and every fixtures/<CODE>/before.py, whose findings
# have no safe fix (so --diff, which shows safe fixes only, has nothing to show).
EXPECTED_EXIT: dict[str, int] = {
    # README.md
    ".venv/bin/h2dlint examples/serving_batch.py": 1,
    "h2dlint src/": 1,
    "h2dlint --fix src/": 1,
    "h2dlint --fix --unsafe-fixes src/": 1,
    "h2dlint --diff src/": 1,  # HTD301 before.py has safe fixes
    "h2dlint --output-format github .": 1,
    "h2dlint rule HTD102": 0,
    "h2dlint rule --all": 0,
    # docs/usage.md
    "h2dlint --add-noqa .": 0,
    # docs/pre-commit.md
    "h2dlint legacy/old.py": 1,
    "h2dlint --force-exclude legacy/old.py": 0,
}

# (what the rule leaves out, reason): each command not run matches exactly one.
SKIP_RULES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"^python3? -m venv "), "creates a virtual environment"),
    (re.compile(r"^(\S*/)?pip install "), "installs packages"),
    (re.compile(r"^(\S*/)?pytest\b"), "runs this test suite itself"),
    (
        re.compile(r"^(\S*/)?h2dlint verify\b"),
        "needs a CUDA GPU and takes seconds per pair; tests/test_verify_gpu.py runs verify there",
    ),
    (
        re.compile(r"^pre-commit (install|run|try-repo)\b"),
        "installs a git hook or needs the reader's repository and a mirror of h2dlint's; "
        "tests/test_precommit.py runs both hooks through pre-commit try-repo",
    ),
    (
        re.compile(r"^(\S*/)?h2dlint trace\b"),
        "needs a CUDA GPU; tests/test_trace_gpu.py runs the command on the example there",
    ),
    (
        re.compile(r"^(\S*/)?h2dlint check .*--trace\b"),
        "needs a trace recorded on a GPU; tests/test_trace.py runs check --trace on a recorded one",
    ),
    (
        re.compile(r"^\S*python \S*examples/trace_serving/serve\.py\b"),
        "a GPU serving step (seconds a step on the CPU); tests/test_trace.py runs it small",
    ),
    (re.compile(r"^cd "), "changes to a directory of the reader's"),
    (
        re.compile(r"^\S*python \S*benchmarks/bench_lint\.py\b"),
        "benchmarks on the downloaded corpus, minutes a run; tests/test_benchmark_script.py "
        "checks the script",
    ),
]

# docs/pre-commit.md's configuration for its --force-exclude example.
FORCE_EXCLUDE_CONFIG = """\
[tool.h2dlint]
extend-exclude = ["legacy", "third_party/**/*.py"]
"""


@dataclass(frozen=True)
class DocCommand:
    doc: str
    line: int
    # The command's words as the shell splits them, and joined by spaces (to match and show).
    words: tuple[str, ...]
    # Lines the docs show as its output, and whether they are this repository's real output
    # (the ``text`` block after an ``sh`` block) rather than an example's (a ``console`` block).
    output: tuple[str, ...] = ()
    exact: bool = True

    @property
    def command(self) -> str:
        return " ".join(self.words)

    @property
    def id(self) -> str:
        return f"{self.doc}:{self.line}:{self.command}"


def _split(line: str) -> list[tuple[str, ...]]:
    """The commands of one shell line: its words, comments dropped, split at ``&&``."""
    commands: list[tuple[str, ...]] = [()]
    for word in shlex.split(line, comments=True):
        if word == "&&":
            commands.append(())
        else:
            commands[-1] = (*commands[-1], word)
    return [words for words in commands if words]


def _sh_lines(body: str) -> list[tuple[int, tuple[str, ...]]]:
    """(offset in lines, words) of each command of an ``sh`` block; a trailing backslash joins
    a line to the next."""
    out: list[tuple[int, tuple[str, ...]]] = []
    pending, start = "", 0
    for i, raw in enumerate(body.splitlines()):
        if not pending:
            start = i
        if raw.rstrip().endswith("\\"):
            pending += raw.rstrip()[:-1] + " "
            continue
        out.extend((start, words) for words in _split(pending + raw))
        pending = ""
    return out


def doc_commands() -> list[DocCommand]:
    found: list[DocCommand] = []
    for path in DOCS:
        text = path.read_text(encoding="utf-8")
        doc = path.relative_to(ROOT).as_posix()
        for match in BLOCK.finditer(text):
            lang, body, shown = match.group(1), match.group(2), match.group(3)
            first = text[: match.start()].count("\n") + 2
            if lang == "sh":
                output = tuple(
                    line.strip()
                    for line in (shown or "").splitlines()
                    if line.strip() and line.strip() != "..."
                )
                for offset, words in _sh_lines(body):
                    found.append(DocCommand(doc, first + offset, words, output))
            elif lang == "console":
                current: DocCommand | None = None
                for offset, raw in enumerate(body.splitlines()):
                    if raw.startswith("$ "):
                        if current is not None:
                            found.append(current)
                        (words,) = _split(raw[2:])
                        current = DocCommand(doc, first + offset, words, exact=False)
                    elif current is not None and raw.strip():
                        current = DocCommand(
                            current.doc,
                            current.line,
                            current.words,
                            (*current.output, raw.strip()),
                            exact=False,
                        )
                if current is not None:
                    found.append(current)
    return found


COMMANDS = doc_commands()


def _skip_reason(command: str) -> str | None:
    reasons = [reason for pattern, reason in SKIP_RULES if pattern.search(command)]
    assert len(reasons) <= 1, f"{command!r} matches several skip rules"
    return reasons[0] if reasons else None


def _runs_h2dlint(command: str) -> bool:
    head = command.split()[0]
    return head == "h2dlint" or head.endswith("/bin/h2dlint")


RUN = [c for c in COMMANDS if _skip_reason(c.command) is None]


def test_every_doc_command_is_run_or_left_out_with_a_reason() -> None:
    assert COMMANDS, "no commands found in the docs"
    unknown = [c.id for c in RUN if not _runs_h2dlint(c.command)]
    assert not unknown, f"doc commands this test neither runs nor skips: {unknown}"
    missing = [c.id for c in RUN if c.command not in EXPECTED_EXIT]
    assert not missing, (
        f"give these doc commands the exit code the docs give them, in EXPECTED_EXIT: {missing}"
    )
    stale = sorted(set(EXPECTED_EXIT) - {c.command for c in RUN})
    assert not stale, f"commands the docs no longer show: {stale}"
    used = {reason for c in COMMANDS if (reason := _skip_reason(c.command))}
    assert used == {reason for _, reason in SKIP_RULES}, "a skip rule no command needs"
    assert (ROOT / "docs" / "pre-commit.md").read_text(encoding="utf-8").count(
        FORCE_EXCLUDE_CONFIG
    ) == 1


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """examples/, fixtures/, src/ (the example and every fixture's before.py), and legacy/old.py
    under docs/pre-commit.md's configuration."""
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    shutil.copytree(ROOT / "fixtures", tmp_path / "fixtures")
    src = tmp_path / "src"
    shutil.copytree(ROOT / "examples", src)
    for before in sorted((ROOT / "fixtures").glob("*/before.py")):
        shutil.copyfile(before, src / f"{before.parent.name}_before.py")
    (tmp_path / "legacy").mkdir()
    shutil.copyfile(ROOT / "examples" / "serving_batch.py", tmp_path / "legacy" / "old.py")
    (tmp_path / "pyproject.toml").write_text(FORCE_EXCLUDE_CONFIG, encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("doc_command", RUN, ids=[c.id for c in RUN])
def test_doc_command(doc_command: DocCommand, workspace: Path) -> None:
    words = doc_command.words
    env = {
        **os.environ,
        "NO_COLOR": "1",
        # Its own cache, in the workspace: a doc command writes one as a reader's would.
        "H2DLINT_CACHE_DIR": str(workspace / ".h2dlint_cache"),
    }
    env.pop("FORCE_COLOR", None)
    result = subprocess.run(
        [sys.executable, "-m", "h2dlint", *words[1:]],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    shown = result.stdout + result.stderr
    assert "Traceback" not in shown, shown
    assert result.returncode == EXPECTED_EXIT[doc_command.command], shown
    # A terminal shows both streams, as the docs do.
    output = [line.strip() for line in shown.splitlines()]
    for line in doc_command.output:
        assert any(_shows(line, printed, doc_command.exact) for printed in output), (
            f"{doc_command.id} shows {line!r}; it printed:\n{shown}"
        )


def _shows(shown: str, printed: str, exact: bool) -> bool:
    """Whether a line the docs show matches a printed one. The output of a ``console`` block is
    of the reader's project, so its numbers are only examples: any number matches them."""
    if exact:
        return shown == printed
    pattern = r"\d+".join(re.escape(part) for part in re.split(r"\d+", shown))
    return re.fullmatch(pattern, printed) is not None

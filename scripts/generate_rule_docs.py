"""Write docs/rules/CODE.md for every rule, and docs/rules/README.md listing them.

The text comes from each rule's docstring (the same text `h2dlint rule CODE` prints), so the pages
never drift from the code: tests/test_docs.py fails when a page is stale. Run:

    python scripts/generate_rule_docs.py
"""

from __future__ import annotations

import sys
from pathlib import Path

from h2dlint.registry import all_rules

DOCS = Path(__file__).resolve().parents[1] / "docs" / "rules"


def index_page() -> str:
    lines = [
        "# Rules",
        "",
        "| Code | Name | Fix | Severity | What it flags |",
        "| --- | --- | --- | --- | --- |",
    ]
    for code, rule in all_rules().items():
        fix = {"none": "", "safe": "safe", "unsafe": "unsafe"}[rule.fix_safety.value]
        severity = rule.severity.value
        lines.append(f"| [{code}]({code}.md) | {rule.name} | {fix} | {severity} | {rule.message} |")
    return "\n".join(lines) + "\n"


def expected_pages() -> dict[Path, str]:
    pages = {DOCS / f"{code}.md": rule.documentation() for code, rule in all_rules().items()}
    pages[DOCS / "README.md"] = index_page()
    return pages


def main() -> int:
    DOCS.mkdir(parents=True, exist_ok=True)
    for path, text in expected_pages().items():
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path.relative_to(DOCS.parents[1])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

from __future__ import annotations

import libcst as cst

from h2dlint.legacy_codes import OLD_TO_NEW, case_variants
from h2dlint.rule import Invalid, Rule, Valid
from h2dlint.suppression import IGNORE, NOQA, raw_codes


class UnknownSuppressionCode(Rule):
    """## What it does
    Flags a suppression comment (`# noqa: HTD...` or `# h2dlint: ignore[HTD...]`) that names an
    h2dlint rule code that does not exist.

    Confidence: always HIGH (the comment's text is all the rule reads); hot paths do not apply.

    ## Why is this bad?
    A mistyped code suppresses nothing: the finding it was meant to silence is still reported,
    or, worse, the comment outlives a renamed rule and nobody notices that the line is no
    longer covered. Codes of other tools (`E501`, `F401`, `RUF100`) are left alone, since one
    `# noqa` comment often serves several linters.

    ## Example
    ```python
    ids = torch.tensor(batch).to(device, non_blocking=True)  # noqa: HTD02
    ```

    ## Use instead
    ```python
    ids = torch.tensor(batch).to(device, non_blocking=True)  # noqa: HTD102
    ```
    `h2dlint rule --all` lists every code.

    ## Fix safety
    No automatic fix: which code was meant is for a person to say.
    """

    code = "HTD901"
    name = "unknown-suppression-code"
    message = "suppression comment names an h2dlint rule that does not exist"
    # Only an HTD code (or an old H2D one; in any case: codes are read case-blind) can be
    # unknown to h2dlint, so a file whose suppression comments name other tools' codes alone is
    # never parsed for this rule. (Ruff reads a `noqa` directive in any comment, even in prose
    # after another `#`: keep the directive's spelling out of comments here.)
    prefilter = case_variants("HTD", "H2D")
    has_fixture = False  # about comments, not about code that runs

    valid = (
        Valid("x = 1  # noqa: HTD102\n"),
        Valid("x = 1  # noqa\n"),
        Valid("x = 1  # noqa: E501, F401\n"),
        Valid("x = 1  # h2dlint: ignore[HTD102]\n"),
        Valid("x = 1  # h2dlint: ignore\n"),
        Valid("x = '# noqa: HTD999'\n"),
        Valid("# h2dlint: skip-file\nx = 1\n"),
        Valid("x = 1  # NOQA: htd102\n"),
        Valid("x = 1  # noqa: RUF100  (HTD999 is mentioned in prose, not as a code)\n"),
        Valid("x = 1  # noqa: H2D002\n"),  # an old code: HTD902's business
    )
    invalid = (
        Invalid("x = 1  # noqa: HTD999\n", 1, 8, message_contains="HTD999"),
        Invalid("x = 1  # noqa: HTD02\n", 1, 8, message_contains="HTD02"),
        Invalid("x = 1  # noqa: E501, HTD998\n", 1, 8),
        Invalid("x = 1  # noqa:HTD997\n", 1, 8),
        Invalid("x = 1  # h2dlint: ignore[HTD996]\n", 1, 8),
        Invalid("x = 1  # h2dlint: ignore[HTD102, HTD995]\n", 1, 8, message_contains="HTD995"),
        Invalid("def f():\n    return 1  # NOQA: htd994\n", 2, 15, message_contains="HTD994"),
        Invalid("# noqa: HTD993\nx = 1\n", 1, 1),
        Invalid("x = [  # noqa: HTD992\n    1,\n]\n", 1, 8),
        Invalid("x = 1  # NOQA: htd991\n", 1, 8),
        Invalid("x = 1  # h2dlint: ignore[HTD990]\n", 1, 8),
        Invalid("x = 1  # noqa: H2D999\n", 1, 8, message_contains="H2D999"),
    )

    def visit_Comment(self, node: cst.Comment) -> None:
        text = node.value
        named: set[str] = set()
        for pattern in (NOQA, IGNORE):
            for match in pattern.finditer(text):
                if match.group("codes"):
                    named |= raw_codes(match.group("codes"))
        unknown = sorted(
            c
            for c in named
            if (c.startswith("HTD") and c not in _known())
            or (c.startswith("H2D") and c not in OLD_TO_NEW)
        )
        if unknown:
            listed = ", ".join(unknown)
            self.report(
                node,
                f"suppression comment names unknown h2dlint rule {listed} (a typo?); "
                "`h2dlint rule --all` lists the codes",
            )


def _known() -> frozenset[str]:
    from h2dlint.registry import all_rules

    return frozenset(all_rules())

from __future__ import annotations

import libcst as cst

from h2dlint.rule import Invalid, Rule, Valid
from h2dlint.suppression import IGNORE, NOQA, split_codes


class UnknownSuppressionCode(Rule):
    """## What it does
    Flags a suppression comment (`# noqa: H2D...` or `# h2dlint: ignore[H2D...]`) that names an
    h2dlint rule code that does not exist.

    ## Why is this bad?
    A mistyped code suppresses nothing: the finding it was meant to silence is still reported,
    or, worse, the comment outlives a renamed rule and nobody notices that the line is no
    longer covered. Codes of other tools (`E501`, `F401`, `RUF100`) are left alone, since one
    `# noqa` comment often serves several linters.

    ## Example
    ```python
    ids = torch.tensor(batch).to(device, non_blocking=True)  # noqa: H2D02
    ```

    ## Use instead
    ```python
    ids = torch.tensor(batch).to(device, non_blocking=True)  # noqa: H2D002
    ```
    `h2dlint rule --all` lists every code.

    ## Fix safety
    No automatic fix: which code was meant is for a person to say.
    """

    code = "H2D100"
    name = "unknown-suppression-code"
    message = "suppression comment names an h2dlint rule that does not exist"
    # Only an H2D code (in any case: codes are read case-blind) can be unknown to h2dlint, so a
    # file whose `# noqa` comments name other tools' codes alone is never parsed for this rule.
    prefilter = (b"H2D", b"h2d", b"H2d", b"h2D")
    has_fixture = False  # about comments, not about code that runs

    valid = (
        Valid("x = 1  # noqa: H2D002\n"),
        Valid("x = 1  # noqa\n"),
        Valid("x = 1  # noqa: E501, F401\n"),
        Valid("x = 1  # h2dlint: ignore[H2D002]\n"),
        Valid("x = 1  # h2dlint: ignore\n"),
        Valid("x = '# noqa: H2D999'\n"),
        Valid("# h2dlint: skip-file\nx = 1\n"),
        Valid("x = 1  # NOQA: h2d002\n"),
        Valid("x = 1  # noqa: RUF100  (H2D999 is mentioned in prose, not as a code)\n"),
    )
    invalid = (
        Invalid("x = 1  # noqa: H2D999\n", 1, 8, message_contains="H2D999"),
        Invalid("x = 1  # noqa: H2D02\n", 1, 8, message_contains="H2D02"),
        Invalid("x = 1  # noqa: E501, H2D998\n", 1, 8),
        Invalid("x = 1  # noqa:H2D997\n", 1, 8),
        Invalid("x = 1  # h2dlint: ignore[H2D996]\n", 1, 8),
        Invalid("x = 1  # h2dlint: ignore[H2D002, H2D995]\n", 1, 8, message_contains="H2D995"),
        Invalid("def f():\n    return 1  # NOQA: h2d994\n", 2, 15, message_contains="H2D994"),
        Invalid("# noqa: H2D993\nx = 1\n", 1, 1),
        Invalid("x = [  # noqa: H2D992\n    1,\n]\n", 1, 8),
        Invalid("x = 1  # NOQA: h2d991\n", 1, 8),
        Invalid("x = 1  # h2dlint: ignore[H2D990]\n", 1, 8),
    )

    def visit_Comment(self, node: cst.Comment) -> None:
        text = node.value
        named: set[str] = set()
        for pattern in (NOQA, IGNORE):
            for match in pattern.finditer(text):
                if match.group("codes"):
                    named |= split_codes(match.group("codes"))
        unknown = sorted(c for c in named if c.startswith("H2D") and c not in _known())
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

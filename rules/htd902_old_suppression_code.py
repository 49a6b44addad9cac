from __future__ import annotations

import re

import libcst as cst

from h2dlint.diagnostics import FixSafety
from h2dlint.legacy_codes import OLD_TO_NEW, case_variants
from h2dlint.rule import Invalid, Rule, Valid
from h2dlint.suppression import IGNORE, NOQA, raw_codes

_OLD = re.compile(r"(?<![A-Za-z0-9])H2D\d{3}(?!\d)", re.IGNORECASE)


class OldSuppressionCode(Rule):
    """## What it does
    Flags a suppression comment that names a rule by its old code (`# noqa: H2D002`), from
    before h2dlint's codes were renamed to the `HTD` prefix, and rewrites it to the new code.

    Confidence: always HIGH (the comment's text is all the rule reads); hot paths do not apply.

    ## Why is this bad?
    Ruff reads a rule code as letters followed by digits, so it reads `H2D002` as two codes,
    `H2` and `D002`: it warns about every such comment ("Missing or joined rule code(s)"),
    reports `RUF102`, and takes the comment as a suppression of pydocstyle's `D002`. h2dlint
    still honours the old codes, but only for a while.

    ## Example
    ```python
    ids = flat.to(device, non_blocking=True)  # noqa: H2D002
    ```

    ## Use instead
    ```python
    ids = flat.to(device, non_blocking=True)  # noqa: HTD102
    ```

    | old | new | | old | new |
    |---|---|---|---|---|
    | H2D001 | HTD101 | | H2D005 | HTD104 |
    | H2D002 | HTD102 | | H2D006 | HTD105 |
    | H2D003 | HTD103 | | H2D007 | HTD106 |
    | H2D004 | HTD201 | | H2D100 | HTD901 |

    ## Fix safety
    Safe: the new code suppresses exactly what the old one did, and the rest of the comment
    is kept as it is.
    """

    code = "HTD902"
    name = "old-suppression-code"
    message = "suppression comment uses an old h2dlint code"
    fix_safety = FixSafety.SAFE
    fix_message = "Rename to the new code"
    prefilter = case_variants("H2D")
    has_fixture = False  # about comments, not about code that runs

    valid = (
        Valid("x = 1  # noqa: HTD102\n"),
        Valid("x = 1  # noqa: H2D999\n"),  # no such old code: HTD901 reports it
        Valid("x = '# noqa: H2D002'\n"),
        Valid("x = 1  # noqa: E501  (H2D002 named in prose)\n"),
        Valid("x = 1  # noqa\n"),
        Valid("x = 1  # h2dlint: ignore\n"),
        Valid("x = 1  # h2dlint: ignore[HTD101]\n"),
        Valid("# H2D002 was the old code of HTD102\nx = 1\n"),
        Valid("x = 1  # noqa: H2D02\n"),
    )
    invalid = (
        Invalid(
            "x = 1  # noqa: H2D002\n", 1, 8, "x = 1  # noqa: HTD102\n", message_contains="HTD102"
        ),
        Invalid("x = 1  # noqa: E501, h2d004\n", 1, 8, "x = 1  # noqa: E501, HTD201\n"),
        Invalid(
            "x = 1  # h2dlint: ignore[H2D001, H2D005] keep\n",
            1,
            8,
            "x = 1  # h2dlint: ignore[HTD101, HTD104] keep\n",
        ),
        Invalid("x = 1  # NOQA:H2D003\n", 1, 8, "x = 1  # NOQA:HTD103\n"),
        Invalid("x = 1  # noqa: H2D006, HTD106\n", 1, 8, "x = 1  # noqa: HTD105, HTD106\n"),
        Invalid("# noqa: H2D007\nx = 1\n", 1, 1, "# noqa: HTD106\nx = 1\n"),
        Invalid(
            "def f():\n    return 1  # noqa: H2D100\n",
            2,
            15,
            "def f():\n    return 1  # noqa: HTD901\n",
        ),
        Invalid("x = [  # noqa: H2D002\n    1,\n]\n", 1, 8, "x = [  # noqa: HTD102\n    1,\n]\n"),
    )

    def visit_Comment(self, node: cst.Comment) -> None:
        text = node.value
        spans: list[tuple[int, int]] = []
        for pattern in (NOQA, IGNORE):
            for match in pattern.finditer(text):
                codes = match.group("codes")
                if not codes or not any(c in OLD_TO_NEW for c in raw_codes(codes)):
                    continue
                spans.append(match.span("codes"))
        if not spans:
            return
        pieces: list[str] = []
        last = 0
        renamed: list[tuple[str, str]] = []
        for start, end in sorted(spans):
            pieces.append(text[last:start])
            part = _OLD.sub(lambda m: _rename(m.group(0), renamed), text[start:end])
            pieces.append(part)
            last = end
        pieces.append(text[last:])
        listed = ", ".join(f"{old} is now {new}" for old, new in renamed)
        self.report(
            node,
            f"suppression comment uses an old h2dlint code: {listed}",
            replacements=[(node, node.with_changes(value="".join(pieces)))],
        )


def _rename(code: str, renamed: list[tuple[str, str]]) -> str:
    new = OLD_TO_NEW.get(code.upper())
    if new is None:
        return code
    renamed.append((code.upper(), new))
    return new

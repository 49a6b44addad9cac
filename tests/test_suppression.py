"""Suppression comments, as users write them."""

from __future__ import annotations

import pytest

from h2dlint.engine import EnabledRule, check_text
from h2dlint.registry import get_rule

H2D002 = get_rule("H2D002")
assert H2D002 is not None
RULES = (EnabledRule(H2D002),)
COPY = "torch.tensor([1]).to('cuda', non_blocking=True)"


def codes(text: str) -> list[str]:
    return [f.code for f in check_text(text, "m.py", RULES)]


@pytest.mark.parametrize(
    "comment",
    [
        "# noqa",
        "# noqa: H2D002",
        "#noqa:H2D002",
        "# NOQA: h2d002",
        "# noqa: E501, H2D002",
        "# noqa: E501 H2D002",
        "# h2dlint: ignore[H2D002]",
        "# h2dlint: ignore[H2D001, H2D002]",
        "# h2dlint: ignore",
        "# type: ignore  # noqa: H2D002",
    ],
)
def test_comment_on_the_reported_line_suppresses(comment: str) -> None:
    assert codes(f"import torch\nx = {COPY}  {comment}\n") == []


@pytest.mark.parametrize(
    "comment",
    ["# noqa: H2D003", "# h2dlint: ignore[H2D001]", "# noqa:", "# noqa: bad", "# nocheck"],
)
def test_other_codes_or_malformed_comments_do_not_suppress(comment: str) -> None:
    assert codes(f"import torch\nx = {COPY}  {comment}\n") == ["H2D002"]


def test_noqa_inside_a_string_is_not_a_comment() -> None:
    assert codes(f"import torch\nx = ({COPY}, '# noqa')\n") == ["H2D002"]


def test_multiline_statement_first_line_or_reported_line() -> None:
    first = f"import torch\nx = [  # noqa: H2D002\n    1,\n    {COPY},\n]\n"
    assert codes(first) == []
    reported = f"import torch\nx = [\n    1,\n    {COPY},  # noqa: H2D002\n]\n"
    assert codes(reported) == []
    elsewhere = f"import torch\nx = [\n    1,  # noqa: H2D002\n    {COPY},\n]\n"
    assert codes(elsewhere) == ["H2D002"]


def test_comment_on_another_line_does_not_suppress() -> None:
    assert codes(f"import torch\n# noqa: H2D002\nx = {COPY}\n") == ["H2D002"]


def test_skip_file(tmp_path: object) -> None:
    from h2dlint.pipeline import FileJob, process

    text = f"# h2dlint: skip-file\nimport torch\nx = {COPY}\n"
    assert process(FileJob("m.py", "m.py", text.encode(), RULES)).findings == []
    in_string = f"s = '# h2dlint: skip-file'\nimport torch\nx = {COPY}\n"
    assert [
        f.code for f in process(FileJob("m.py", "m.py", in_string.encode(), RULES)).findings
    ] == ["H2D002"]

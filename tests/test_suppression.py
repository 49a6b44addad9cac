"""Suppression comments, as users write them."""

from __future__ import annotations

import pytest

from h2dlint.engine import EnabledRule, check_text
from h2dlint.registry import get_rule

HTD102 = get_rule("HTD102")
assert HTD102 is not None
RULES = (EnabledRule(HTD102),)
COPY = "torch.tensor([1]).to('cuda', non_blocking=True)"


def codes(text: str) -> list[str]:
    return [f.code for f in check_text(text, "m.py", RULES)]


@pytest.mark.parametrize(
    "comment",
    [
        "# noqa",
        "# noqa: HTD102",
        "#noqa:HTD102",
        "# NOQA: htd102",
        "# noqa: E501, HTD102",
        "# noqa: E501 HTD102",
        "# h2dlint: ignore[HTD102]",
        "# h2dlint: ignore[HTD101, HTD102]",
        "# noqa: H2D002",  # the old code, still honoured (HTD902 rewrites it)
        "# h2dlint: ignore[h2d002]",
        "# h2dlint: ignore",
        "# type: ignore  # noqa: HTD102",
    ],
)
def test_comment_on_the_reported_line_suppresses(comment: str) -> None:
    assert codes(f"import torch\nx = {COPY}  {comment}\n") == []


@pytest.mark.parametrize(
    "comment",
    ["# noqa: HTD103", "# h2dlint: ignore[HTD101]", "# noqa:", "# noqa: bad", "# nocheck"],
)
def test_other_codes_or_malformed_comments_do_not_suppress(comment: str) -> None:
    assert codes(f"import torch\nx = {COPY}  {comment}\n") == ["HTD102"]


def test_noqa_inside_a_string_is_not_a_comment() -> None:
    assert codes(f"import torch\nx = ({COPY}, '# noqa')\n") == ["HTD102"]


def test_multiline_statement_first_line_or_reported_line() -> None:
    first = f"import torch\nx = [  # noqa: HTD102\n    1,\n    {COPY},\n]\n"
    assert codes(first) == []
    reported = f"import torch\nx = [\n    1,\n    {COPY},  # noqa: HTD102\n]\n"
    assert codes(reported) == []
    elsewhere = f"import torch\nx = [\n    1,  # noqa: HTD102\n    {COPY},\n]\n"
    assert codes(elsewhere) == ["HTD102"]


def test_comment_on_another_line_does_not_suppress() -> None:
    assert codes(f"import torch\n# noqa: HTD102\nx = {COPY}\n") == ["HTD102"]


def test_skip_file(tmp_path: object) -> None:
    from h2dlint.pipeline import FileJob, process

    text = f"# h2dlint: skip-file\nimport torch\nx = {COPY}\n"
    assert process(FileJob("m.py", "m.py", text.encode(), RULES)).findings == []
    in_string = f"s = '# h2dlint: skip-file'\nimport torch\nx = {COPY}\n"
    assert [
        f.code for f in process(FileJob("m.py", "m.py", in_string.encode(), RULES)).findings
    ] == ["HTD102"]

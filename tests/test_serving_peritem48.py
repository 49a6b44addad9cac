"""Session 48 (peritem48): HTD201 on serving and inference code (docs/precision.md, "Session
48 (peritem48)"): a read in the arm of a tensor type test that runs only for a number is left
out (``analysis/tensor_type_arms.py``); its look-alikes stay reported."""

from __future__ import annotations

import libcst as cst
from lint_runs import lint

from h2dlint.analysis.tensor_type_arms import in_non_tensor_arm

# fastvideo 0.2.1 ``pipelines/basic/ltx2/stages/ltx2_denoising.py:634``.
LTX2 = """
import torch

def denoise(latents, steps):
    sigmas = torch.linspace(1.0, 0.0, steps + 1, device=latents.device)
    for step_index in range(len(sigmas) - 1):
        sigma = sigmas[step_index]
        sigma_value = sigma.to(torch.float32) if isinstance(sigma, torch.Tensor) else torch.tensor(
            float(sigma),
            device=latents.device,
        )
        latents = latents * sigma_value
    return latents
"""


def _rows(code: str) -> list[int]:
    return sorted(f.start.row for f in lint(code, "HTD201"))


def test_number_arm_of_a_conditional_expression_is_clean() -> None:
    assert _rows(LTX2) == []


def test_else_of_an_isinstance_statement_is_clean() -> None:
    head, _, tail = LTX2.partition("        sigma_value = sigma.to(")
    tail = tail.partition("        latents = latents * sigma_value")[2]
    code = (
        head
        + "        if isinstance(sigma, torch.Tensor):\n"
        + "            sigma_value = sigma\n"
        + "        elif sigma is not None:\n"
        + "            sigma_value = float(sigma)\n"
        + "        latents = latents * sigma_value"
        + tail
    )
    assert "elif" in code
    assert _rows(code) == []


def test_body_of_a_negated_is_tensor_test_is_clean() -> None:
    code = LTX2.replace(
        "sigma.to(torch.float32) if isinstance(sigma, torch.Tensor) else torch.tensor(",
        "sigma if torch.is_tensor(sigma) else torch.tensor(",
    ).replace(
        "        latents = latents * sigma_value\n",
        "        if not torch.is_tensor(sigma):\n            latents = latents + float(sigma)\n"
        "        latents = latents * sigma_value\n",
    )
    assert "not torch.is_tensor" in code
    assert _rows(code) == []


def test_tensor_arm_stays_reported() -> None:
    code = LTX2.replace(
        "sigma.to(torch.float32) if isinstance(sigma, torch.Tensor) else torch.tensor(\n"
        "            float(sigma),",
        "torch.tensor(float(sigma)) if isinstance(sigma, torch.Tensor) else torch.tensor(\n"
        "            sigma,",
    )
    assert _rows(code) == [8]


def test_number_arm_reading_another_value_stays_reported() -> None:
    code = LTX2.replace("float(sigma),", "float(sigmas[step_index + 1]),")
    assert _rows(code) == [9]


def test_a_test_that_admits_numbers_too_stays_reported() -> None:
    # `isinstance(x, (torch.Tensor, float))` is true for numbers as well: its `else` is not
    # the only arm a number takes, and a tensor of another type test is not excluded.
    admits = "isinstance(sigma, (torch.Tensor, float))"
    code = LTX2.replace("isinstance(sigma, torch.Tensor)", admits)
    assert _rows(code) == [9]


def test_the_helper_answers_by_arm() -> None:
    module = cst.parse_module("for x in xs:\n    y = x if isinstance(x, Tensor) else float(x)\n")
    loop = module.body[0]
    assert isinstance(loop, cst.For)
    assign = loop.body.body[0]
    assert isinstance(assign, cst.SimpleStatementLine)
    value = assign.body[0]
    assert isinstance(value, cst.Assign) and isinstance(value.value, cst.IfExp)
    assert in_non_tensor_arm(loop, value.value.orelse)
    assert not in_non_tensor_arm(loop, value.value.body)

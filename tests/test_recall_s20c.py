"""The facts behind session 20's held-out rows in generation code (docs/recall.md, "Session 20:
held-out rows, generation code (helper recall20c)"): value-exact functions and views between a
host factory and its move, a 0-d constant chosen between two numbers, and a device-wide wait in
the function a serving loop calls on every step; each beside its correct look-alike."""

from __future__ import annotations

import ast
import json
import textwrap
from pathlib import Path

import libcst as cst
import pytest
from click.testing import CliRunner

from h2dlint.analysis.factories import constant_choice, factory_of
from h2dlint.analysis.step_loops import _steps
from h2dlint.cli import main


def _expr(code: str) -> cst.BaseExpression:
    return cst.parse_expression(code)


@pytest.mark.parametrize(
    "code",
    [
        "torch.triu(torch.ones([8, 8]), diagonal=1).bool()",
        "torch.tril(torch.ones(4, 4))",
        "torch.arange(n).expand_as(ids)",
        "torch.zeros(2, 3).transpose(0, 1).flatten()",
    ],
)
def test_factory_seen_through_exact_functions_and_views(code: str) -> None:
    factory = factory_of(_expr(code))
    assert factory is not None
    assert cst.Module([]).code_for_node(factory.func).rsplit(".", 1)[1] in (
        "ones",
        "arange",
        "zeros",
    )


def test_other_functions_and_methods_end_the_chain() -> None:
    """``torch.exp`` and ``cumsum`` are no value-exact steps: the chain ends at them."""
    module = cst.Module([])
    for code, root in (
        ("torch.exp(torch.ones(3))", "torch.exp"),
        ("torch.ones(3).cumsum(0)", "torch.ones(3).cumsum"),
    ):
        factory = factory_of(_expr(code))
        assert factory is not None and module.code_for_node(factory.func) == root


def test_constant_choice() -> None:
    assert constant_choice(_expr("0.0 if done else 1.0"))
    assert constant_choice(_expr("-1 if done else 1"))
    assert not constant_choice(_expr("0 if done else ids"))
    assert not constant_choice(_expr("0.0"))


LOOP = """
    import time
    import torch
    class Manager:
        def run_loop(self, processor):
            while processor.has_pending_requests():
                self.{name}(processor)
        def {name}(self, processor):
            {wait}
            if not processor.prepare_next_batch():
                return
            self._generation_step(processor)
            processor.update_batch()
        def _generation_step(self, processor):
            processor.out.copy_(self.model(processor.ids).logits.argmax(-1))
"""


def test_step_loop_through_the_callee() -> None:
    code = textwrap.dedent(LOOP.format(name="_inner_generation_loop", wait="pass"))
    loops = _steps(ast.parse(code))["loops"]
    assert loops["Manager.run_loop"][0][2] == "_inner_generation_loop` -> `_generation_step"
    plain = code.replace("self._generation_step(processor)", "self._prepare(processor)")
    assert "Manager.run_loop" not in _steps(ast.parse(plain))["loops"]


def _check(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: str) -> list[tuple[int, str]]:
    package = tmp_path / "engine"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "loop.py").write_text(textwrap.dedent(code))
    monkeypatch.chdir(tmp_path)
    args = ["-j1", "--no-cache", "--select", "HTD202", "--output-format", "json", "engine"]
    result = CliRunner().invoke(main, ["check", *args], catch_exceptions=False)
    return [(f["location"]["row"], f["message"]) for f in json.loads(result.stdout)]


def test_device_wait_in_the_function_a_serving_loop_calls(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    code = LOOP.format(name="_inner_generation_loop", wait="torch.cuda.synchronize()")
    found = _check(tmp_path, monkeypatch, code)
    assert [row for row, _ in found] == [9]
    assert "all the work queued on the device on every step" in found[0][1]
    assert "_inner_generation_loop` -> `_generation_step()" in found[0][1]


@pytest.mark.parametrize(
    ("name", "wait"),
    [
        ("_inner_generation_loop", "pass"),  # the post-fix loop (5.4)
        ("_inner_generation_loop", "self.compute_stream.synchronize()"),  # a stream's wait
        ("_warmup_or_step", "torch.cuda.synchronize()"),  # named for warm-up
        ("_timed_inner_loop", "torch.cuda.synchronize(); t0 = time.perf_counter()"),  # timing
    ],
)
def test_waits_left_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, wait: str
) -> None:
    assert _check(tmp_path, monkeypatch, LOOP.format(name=name, wait=wait)) == []


def test_wait_in_a_loop_that_runs_no_step(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    code = LOOP.format(name="_inner_generation_loop", wait="torch.cuda.synchronize()").replace(
        "self._generation_step(processor)", "self._prepare(processor)"
    )
    assert _check(tmp_path, monkeypatch, code) == []

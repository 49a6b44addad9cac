"""Session 39 (reads39): the in-file model-loop test (``hot_calls.runs_model``) and the index's
``while`` loops (``step_loops._model_while``) share one test of a call, ``runs_model_call``: a
tokenizer's or processor's "model" is host work on both sides."""

from __future__ import annotations

import ast
import textwrap

import libcst as cst

from h2dlint.analysis.hot_calls import runs_model, runs_model_call
from h2dlint.analysis.step_loops import _model_while

CODE = textwrap.dedent(
    """
    while pieces:
        text = self.tokenizer_model.decode(pieces.pop())
    while queue:
        out = self.model(queue.pop())
    """
)


def test_one_test_of_a_call() -> None:
    assert runs_model_call("self.model")
    assert runs_model_call("self.unet")
    assert not runs_model_call("self.tokenizer_model.decode")
    assert not runs_model_call("llava_model.tokenizer.decode")
    assert not runs_model_call("self.model.get_token_len_from_template")


def test_both_sides_answer_alike() -> None:
    cst_loops = [s for s in cst.parse_module(CODE).body if isinstance(s, cst.While)]
    ast_loops = [s for s in ast.parse(CODE).body if isinstance(s, ast.While)]
    assert [runs_model(loop) for loop in cst_loops] == [False, True]
    assert [_model_while(loop) is not None for loop in ast_loops] == [False, True]

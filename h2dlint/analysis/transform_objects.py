"""A name that the same function calls a data transform's method on holds a transform object,
not a tensor: ``if self.in_normalizer: x = self.in_normalizer.transform(x)`` tests whether a
normaliser was configured (neuraloperator 2.0.0's data processors,
``data/transforms/data_processors.py:385``, where ``self.in_normalizer =
in_normalizer.to(self.device)`` moves an ``nn.Module``, session 48, triage48b). A tensor has
none of these methods (:data:`TRANSFORM_METHODS`: scikit-learn's and neuraloperator's scaler
API), so the truth test reads no device value."""

from __future__ import annotations

import libcst as cst

from h2dlint.walk import visit_read_only

# Methods of a fitted data transform (a scaler, a normaliser) that ``torch.Tensor`` lacks.
TRANSFORM_METHODS = frozenset(
    {"transform", "inverse_transform", "fit", "fit_transform", "partial_fit"}
)


class _Receivers(cst.CSTVisitor):
    def __init__(self, tested: cst.BaseExpression) -> None:
        self.tested = tested
        self.found = False

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if (
            isinstance(func, cst.Attribute)
            and func.attr.value in TRANSFORM_METHODS
            and func.value.deep_equals(self.tested)
        ):
            self.found = True


def transform_object(function: cst.FunctionDef, tested: cst.BaseExpression) -> bool:
    """Whether ``function`` calls a :data:`TRANSFORM_METHODS` method on ``tested`` (a name or
    an attribute of one, as the test reads it)."""
    if not isinstance(tested, (cst.Name, cst.Attribute)):
        return False
    finder = _Receivers(tested)
    visit_read_only(function.body, finder)
    return finder.found

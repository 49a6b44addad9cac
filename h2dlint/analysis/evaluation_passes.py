"""Host copies of an evaluation pass's results (HTD202, session 46).

Two places run only when a model is evaluated, not trained, and copy what they computed to
the host for a metric or for the caller's host decoding:

- the evaluation arm of a ``forward`` that tests ``self.training`` (the ``else`` of ``if
  self.training:``, the body of ``if not self.training and ...:``): stanza's dependency
  parser returns its scores as numpy for the host MST decoder (``preds.append(F.log_softmax(
  scores, 2).detach().cpu().numpy())``, ``depparse/model.py:359``), FunASR's Paraformer hands
  its hypotheses to a host error calculator for the validation CER (``cer = self.
  error_calculator(ys_hat.cpu(), ys_pad.cpu())``, ``paraformer/model.py:479``). The training
  step never takes the arm; the copy is the evaluation's output.
- a hand-written evaluation loop, a function named for the pass (``validate``,
  ``evaluate``): BigVGAN's ``validate`` turns each waveform into int16 numpy for PESQ
  (``train.py:337``), text2vec's ``evaluate`` collects each batch's predictions for
  scikit-learn (``bertmatching_model.py:372``). As Lightning's ``validation_step``
  (:mod:`evaluation_steps`), the copy is what the pass is for.

Only whole-tensor copies whose result leaves as host data count (the rule asks for ``kind ==
"copy"``): one collected into a list (``.append``/``.extend``), one handed to a metric or an
error calculator (a callee named so), or, in the evaluation arm, one that becomes numpy or a
list; in an evaluation loop, one bound to a name too. A copy handed to the project's other
helpers (gpt-sovits' ``plot_spectrogram_to_numpy(mel[0].cpu().numpy())`` in ``evaluate``), a
copy used as a size or an index, ``.item()`` and ``if`` tests stay reported, as does an
evaluation loop's copy of a tensor proven on the device (HIGH: text2vec's labels moved to the
device and read back, ``bertmatching_model.py:364``; the rule asks about loops only at
MEDIUM).
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from h2dlint.analysis.enclosing_branches import enclosing_branches
from h2dlint.analysis.host_io_calls import VALUE_KEEPING_METHODS

# Functions that run an evaluation pass, by name (``validation_step``/``test_step`` are
# :mod:`evaluation_steps`' hooks).
EVALUATION_LOOPS = frozenset(
    {
        *("validate", "evaluate", "evaluation", "run_validation", "run_evaluation"),
        *("validate_epoch", "evaluate_epoch", "eval_epoch", "valid_epoch"),
    }
)
# Methods that keep a copy's values on the host on the way out (``.numpy().astype(...)``).
_ON_THE_WAY = VALUE_KEEPING_METHODS | {"astype", "tolist", "data"}
# Words of a callee that consumes host results as a metric.
_METRIC_WORDS = ("metric", "calculator", "error", "pesq", "score")
# Where a copy leaves: collected into a list.
_COLLECTORS = frozenset({"append", "extend"})


def evaluation_copy(
    ancestors: Sequence[cst.CSTNode], copy: cst.CSTNode | None, medium: bool
) -> bool:
    """Whether ``copy`` (a host copy's call below ``ancestors``, outermost first) is an
    evaluation pass's result leaving for host code (see the module). ``medium``: the copied
    tensor's device is unknown (an evaluation loop's copy counts only then)."""
    if not isinstance(copy, cst.Call):
        return False
    path = [*ancestors, copy]
    exit_at, host_array = _leaving(path)
    if exit_at is None:
        return False
    how = _how_it_leaves(path, exit_at)
    if how is None:
        return False
    if _in_evaluation_arm(path) and (how != "bound" or host_array):
        return True
    return medium and _in_evaluation_loop(ancestors)


def _leaving(path: Sequence[cst.CSTNode]) -> tuple[int | None, bool]:
    """The index in ``path`` of the outermost expression that still holds the copy at its end
    (through value-keeping methods, subscripts and numpy arithmetic), and whether it became a
    host array or list on the way."""
    i = len(path) - 1
    host_array = False
    while i >= 2:
        parent = path[i - 1]
        node = path[i]
        if isinstance(parent, cst.Attribute) and parent.value is node:
            above = path[i - 2]
            name = parent.attr.value
            if name in _ON_THE_WAY and isinstance(above, cst.Call) and above.func is parent:
                host_array = host_array or name in ("numpy", "tolist")
                i -= 2
                continue
            if name in ("data", "T"):
                i -= 1
                continue
            return None, host_array
        if isinstance(parent, cst.Subscript) and parent.value is node:
            i -= 1
            continue
        if isinstance(parent, cst.BinaryOperation) and host_array:
            i -= 1
            continue
        break
    return i, host_array


def _how_it_leaves(path: Sequence[cst.CSTNode], at: int) -> str | None:
    """How the expression at ``path[at]`` leaves: ``"bound"`` to a name, ``"collected"`` into
    a list, ``"metric"`` (an argument of a metric's call), or None."""
    node = path[at]
    parent = path[at - 1] if at >= 1 else None
    if isinstance(parent, cst.Assign) and parent.value is node:
        targets = [target.target for target in parent.targets]
        return "bound" if all(_names(target) for target in targets) else None
    if not isinstance(parent, cst.Arg) or at < 2:
        return None
    call = path[at - 2]
    if not isinstance(call, cst.Call):
        return None
    func = call.func
    name = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", "")
    if not isinstance(name, str):
        return None
    if isinstance(func, cst.Attribute) and name in _COLLECTORS:
        return "collected"
    return "metric" if any(word in name.lower() for word in _METRIC_WORDS) else None


def _names(target: cst.BaseExpression) -> bool:
    """Whether an assignment target is a name or a tuple of names."""
    if isinstance(target, cst.Name):
        return True
    if isinstance(target, (cst.Tuple, cst.List)):
        return all(_names(element.value) for element in target.elements)
    return False


def _in_evaluation_loop(ancestors: Sequence[cst.CSTNode]) -> bool:
    """Whether a function around ``ancestors`` is named for an evaluation pass."""
    return any(
        isinstance(node, cst.FunctionDef) and node.name.value.lstrip("_") in EVALUATION_LOOPS
        for node in ancestors
    )


def _in_evaluation_arm(path: Sequence[cst.CSTNode]) -> bool:
    """Whether the end of ``path`` is in the arm of an ``if`` (of its own function) that runs
    only when ``self.training`` is false."""
    for _, parent, child in enclosing_branches(path):
        training = _training_test(parent.test)
        if training is False and child is parent.body:
            return True
        if training is True and child is parent.orelse and isinstance(child, cst.Else):
            return True
    return False


def _training_test(test: cst.BaseExpression) -> bool | None:
    """True when ``test`` holds whenever ``self.training`` does (``self.training``, ``self.
    training or x``), False when it holds only while it does not (``not self.training``, ``not
    self.training and x``), None otherwise."""
    if _is_training(test):
        return True
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return False if _is_training(test.expression) else None
    if isinstance(test, cst.BooleanOperation):
        if isinstance(test.operator, cst.Or) and _training_test(test.left) is True:
            return True
        if isinstance(test.operator, cst.And) and _training_test(test.left) is False:
            return False
    return None


def _is_training(node: cst.BaseExpression) -> bool:
    """Whether ``node`` is ``self.training``."""
    return (
        isinstance(node, cst.Attribute)
        and node.attr.value == "training"
        and isinstance(node.value, cst.Name)
        and node.value.value == "self"
    )

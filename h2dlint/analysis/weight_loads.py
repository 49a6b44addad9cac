"""Functions that load a model's weights on every call: no per-step code.

``model = AutoModelForSeq2SeqLM.from_pretrained(name)`` as a statement of a function's own body
(not under an ``if``, a loop or a ``try``) reads a checkpoint each time the function runs: no
one's design calls it per step, so it runs once per request at most, and a read of the model's
output there waits for the few kernels the call itself queued (llama-cookbook's
``SalesforceSafetyChecker.__call__``: loads the checker, generates once, reads its scores). A
tokenizer's, a processor's or a config's ``from_pretrained`` reads small files and proves
nothing. A function with a loop that may run a model keeps its per-step reads (the load runs
once, the loop does not): a loop that calls the loaded model, a parameter, ``self`` or one of
its attributes, or any function by a bare name other than a builtin (a local alias of a
model: ``unet = self.unet``) is such a loop; a loop over the output's rows is not.
"""

from __future__ import annotations

import builtins

import libcst as cst

from h2dlint.walk import visit_read_only

LOADERS = frozenset({"from_pretrained", "from_single_file"})
# Words of a loader's class that say it loads no model weights.
HOST_LOADER_WORDS = ("Tokenizer", "Processor", "Config", "FeatureExtractor", "Scheduler")


def loads_model_each_call(function: cst.FunctionDef) -> bool:
    """Whether ``function``'s own body loads a model unconditionally and runs it in no loop."""
    body = function.body
    if not isinstance(body, cst.IndentedBlock):
        return False
    loaded: set[str] = set()
    for statement in body.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            name = _loaded_name(small)
            if name is not None:
                loaded.add(name)
    if not loaded:
        return False
    params = {p.name.value for p in (*function.params.params, *function.params.kwonly_params)}
    finder = _LoopCalls(loaded | params | {"self", "cls"})
    visit_read_only(body, finder)
    return not finder.found


def _loaded_name(small: cst.CSTNode) -> str | None:
    """``name = Cls.from_pretrained(...)`` of a model class: ``name``."""
    if not isinstance(small, cst.Assign) or len(small.targets) != 1:
        return None
    target, value = small.targets[0].target, small.value
    if not isinstance(target, cst.Name) or not isinstance(value, cst.Call):
        return None
    func = value.func
    if not (isinstance(func, cst.Attribute) and func.attr.value in LOADERS):
        return None
    owner = func.value
    owner_name = owner.value if isinstance(owner, cst.Name) else None
    if isinstance(owner, cst.Attribute):
        owner_name = owner.attr.value
    if not owner_name or any(word in owner_name for word in HOST_LOADER_WORDS):
        return None
    return target.value


BUILTINS = frozenset(dir(builtins))


class _LoopCalls(cst.CSTVisitor):
    """Finds a call in a loop that may run a model: of a function by a bare name other than a
    builtin, or a method of ``names`` (the loaded models, the parameters, ``self``)."""

    def __init__(self, names: set[str]) -> None:
        self.names = names
        self.depth = 0
        self.found = False

    def visit_For(self, node: cst.For) -> None:
        self.depth += 1

    def leave_For(self, original_node: cst.For) -> None:
        self.depth -= 1

    def visit_While(self, node: cst.While) -> None:
        self.depth += 1

    def leave_While(self, original_node: cst.While) -> None:
        self.depth -= 1

    def visit_Call(self, node: cst.Call) -> None:
        if self.depth == 0:
            return
        func = node.func
        if isinstance(func, cst.Name):
            self.found = self.found or func.value not in BUILTINS or func.value in self.names
            return
        while isinstance(func, (cst.Attribute, cst.Subscript, cst.Call)):
            func = func.func if isinstance(func, cst.Call) else func.value
        if isinstance(func, cst.Name) and func.value in self.names:
            self.found = True

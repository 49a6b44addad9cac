"""A whole generated sequence copied to the host to become text, once.

``outputs = torch.cat(self.tokens[i], dim=1)``, ``outputs = outputs.cpu()``, then
``tokenizer.batch_decode(outputs)``: the tokens kept step by step, joined into the whole
sequence and decoded by a tokenizer, which works on the host, so the ids must reach it
whatever the code does. Outside a loop of its function the copy runs once per call that
finishes a batch or a request, not once per step: there is nothing to move off the hot path.
A copy of one step's new tokens (``logits.argmax(-1).cpu()`` handed to ``detokenize``, per
step), a copy in a loop (streaming each token through ``decode``) and a copy whose ids go
anywhere else first stay reported.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from h2dlint.analysis.arguments import keyword, positional
from h2dlint.walk import holds, visit_read_only

# Methods that only a tokenizer (or a processor wrapping one) has.
_TOKENIZER_METHODS = frozenset({"batch_decode", "detokenize", "convert_ids_to_tokens"})
# ``decode`` is a tokenizer's when its receiver is named for one.
_TOKENIZER_WORDS = ("tokenizer", "processor", "detokenizer", "tok")


def decoded_output(ancestors: Sequence[cst.CSTNode], copy: cst.CSTNode) -> bool:
    """Whether ``copy`` (a ``.cpu()``/``.tolist()`` below ``ancestors``, innermost last) is in
    no loop of its function, copies a joined sequence (``torch.cat(kept)``, or a name the
    block bound to it just before) and its ids go to a tokenizer's decode: as the first
    argument of the decode in the same statement, or bound to a name (``out = ids.cpu()``)
    that a later statement of the same block decodes (see the module's docs)."""
    statement: cst.SimpleStatementLine | None = None
    block: cst.IndentedBlock | None = None
    for i in range(len(ancestors) - 1, -1, -1):
        node = ancestors[i]
        if isinstance(node, (cst.FunctionDef, cst.Lambda)):
            break
        if isinstance(node, (cst.For, cst.While, cst.BaseComp, cst.DictComp)):
            return False
        if statement is None and isinstance(node, cst.SimpleStatementLine):
            statement = node
            parent = ancestors[i - 1] if i else None
            block = parent if isinstance(parent, cst.IndentedBlock) else None
    if statement is None or block is None or not _whole_sequence(copy, block, statement):
        return False
    if any(holds(_first_argument(call), copy) for call in _decodes(statement)):
        return True
    name = _bound_name(statement, copy)
    if name is None:
        return False
    body = list(block.body)
    later = body[body.index(statement) + 1 :]
    for following in later:
        for call in _decodes(following):
            first = _first_argument(call)
            if isinstance(first, cst.Name) and first.value == name:
                return True
    return False


# Calls that join the tokens kept per step into one sequence.
_JOINS = frozenset({"cat", "concat", "concatenate", "stack", "hstack"})


def _whole_sequence(
    copy: cst.CSTNode, block: cst.IndentedBlock, statement: cst.SimpleStatementLine
) -> bool:
    """Whether ``copy`` (``x.cpu()``/``x.tolist()``) copies ``torch.cat(...)`` of kept tokens:
    the call itself, or a name an earlier statement of ``block`` binds to it."""
    if not (isinstance(copy, cst.Call) and isinstance(copy.func, cst.Attribute)):
        return False
    source = copy.func.value
    if isinstance(source, cst.Name):
        body = list(block.body)
        for earlier in reversed(body[: body.index(statement)] if statement in body else []):
            value = _assigned_to(earlier, source.value)
            if value is not None:
                source = value
                break
    return (
        isinstance(source, cst.Call)
        and isinstance(source.func, cst.Attribute)
        and source.func.attr.value in _JOINS
        and isinstance(source.func.value, cst.Name)
        and source.func.value.value == "torch"
    )


def _assigned_to(statement: cst.BaseStatement, name: str) -> cst.BaseExpression | None:
    """The value of ``name = value`` when ``statement`` is that assignment."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    small = statement.body[0]
    if (
        isinstance(small, cst.Assign)
        and len(small.targets) == 1
        and isinstance(small.targets[0].target, cst.Name)
        and small.targets[0].target.value == name
    ):
        return small.value
    return None


def _bound_name(statement: cst.SimpleStatementLine, copy: cst.CSTNode) -> str | None:
    """``name`` of ``name = <value holding copy>``."""
    if len(statement.body) != 1:
        return None
    small = statement.body[0]
    if not (
        isinstance(small, cst.Assign)
        and len(small.targets) == 1
        and isinstance(small.targets[0].target, cst.Name)
        and holds(small.value, copy)
    ):
        return None
    return small.targets[0].target.value


def _first_argument(call: cst.Call) -> cst.BaseExpression | None:
    args = positional(call)
    return args[0].value if args else None


def _decodes(statement: cst.CSTNode) -> list[cst.Call]:
    """The tokenizer decode calls in ``statement``."""
    finder = _Decodes()
    visit_read_only(statement, finder)
    return finder.calls


class _Decodes(cst.CSTVisitor):
    def __init__(self) -> None:
        self.calls: list[cst.Call] = []

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not isinstance(func, cst.Attribute):
            return
        method = func.attr.value
        if method in _TOKENIZER_METHODS or (method == "decode" and _tokenizer(func.value)):
            self.calls.append(node)


# What a tokenizer's decode takes the ids as, by keyword (Hugging Face's names).
_IDS_KEYWORDS = ("token_ids", "sequences", "ids")


def decoded_ids(call: cst.Call) -> cst.BaseExpression | None:
    """The ids ``call`` decodes when it is a tokenizer's ``decode`` (its receiver named for a
    tokenizer: ``self.tokenizer.decode(ids)``) or ``batch_decode`` (``convert_ids_to_tokens``,
    ``detokenize``): a tokenizer works on the host, and given a tensor it reads every id with
    ``.tolist()``, a copy to the host that waits for the device to finish the ids. None for
    any other call (a VAE's ``decode(latents)`` runs on the device)."""
    func = call.func
    if not isinstance(func, cst.Attribute):
        return None
    method = func.attr.value
    if not (method in _TOKENIZER_METHODS or (method == "decode" and _tokenizer(func.value))):
        return None
    first = _first_argument(call)
    if first is not None:
        return first
    for name in _IDS_KEYWORDS:
        if (arg := keyword(call, name)) is not None:
            return arg.value
    return None


def _tokenizer(receiver: cst.BaseExpression) -> bool:
    """``tokenizer``, ``self.tokenizer``, ``processor``: a name that says tokenizer."""
    name = receiver.attr.value if isinstance(receiver, cst.Attribute) else None
    if isinstance(receiver, cst.Name):
        name = receiver.value
    return name is not None and name.lower().endswith(_TOKENIZER_WORDS)

"""A dataclass's field, placed by the arguments its constructions pass.

``MultiModalKwargs(torch.tensor(grids), torch.as_tensor(vids))`` made by a collector function
fills fields that no method assigns (``image_grid_thw: torch.Tensor`` in the class body): the
annotation says a tensor, not where it is. The constructions say: each call of the class
passes the field's argument by its position (the fields' order) or its name, or leaves it to
its default. Argument flow's rules apply (:mod:`~h2dlint.analysis.argument_flow`): every
reference to the class in its module is a call of it or an annotation, every call elsewhere in
the project is told (``project/passed_sites.py``), and what another module's summary cannot
place is asked in that module (:mod:`~h2dlint.analysis.chained_arguments`).

Only a plain dataclass: ``@dataclass`` with no base, no ``__init__`` or ``__post_init__``, and
fields that its methods never assign (a method's assignment is a binding the analysis already
joins). ``@dataclass(kw_only=True)`` too (session 49: fish-speech's ``EncodedMessage``, whose
``tokens`` its ``encode()`` builds on the host): each field is then passed by name only; not
``init=False`` (no generated ``__init__``) nor a ``kw_only`` flag computed at run time.
"""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.argument_flow import (
    MAX_CALL_SITES,
    Argument,
    Passed,
    Slot,
    name_uses,
    slot_argument,
)
from h2dlint.analysis.arguments import is_false, is_true
from h2dlint.analysis.chained_arguments import remote_facts
from h2dlint.analysis.constructions import constructions_elsewhere
from h2dlint.analysis.fact_source import FactSource
from h2dlint.analysis.facts import Fact, join
from h2dlint.analysis.frames import Frame
from h2dlint.imports import dotted_name


def field_fact(
    source: FactSource, cls: cst.ClassDef, attr: str, depth: int, known: dict[str, Fact]
) -> Fact | None:
    """What every construction of the dataclass ``cls`` passes for its field ``attr`` agrees
    on; None when ``cls`` is no plain dataclass or a construction is not known."""
    flow = _field_arguments(source, cls, attr)
    if flow is None:
        return None
    facts = [
        a.source.fact(a.value, a.frame, depth + 1)
        for a in flow.local
        if not (isinstance(a.value, cst.Name) and a.value.value == "None")
    ]
    facts.extend(remote_facts(source, flow, depth, known, join([]), facts))
    return join(facts) if facts else None


def _field_arguments(source: FactSource, cls: cst.ClassDef, attr: str) -> Passed | None:
    keyword_only = _dataclass(cls)
    if cls.bases or keyword_only is None:
        return None
    fields = _fields(cls)
    methods = source.index.methods.get(cls, {})
    if attr not in fields or "__init__" in methods or "__post_init__" in methods:
        return None
    # ``kw_only=True``: each field is passed by its name, never by its position.
    slot = Slot(attr, None if keyword_only else list(fields).index(attr))
    default = fields[attr]
    own = cls.name.value
    found: list[Argument] = []
    for use in name_uses(source).get(own, []):
        if use.annotation:
            continue
        if use.call is None or use.call.func is not use.node:
            return None  # passed as a factory, or an attribute of the class read
        told, value = slot_argument(use.call, slot)
        if not told:
            return None
        if value is not None:
            found.append(Argument(source, value, use.argument_frame(source, value)))
        elif default is not None:
            found.append(Argument(source, default, Frame(source.context.module)))
        else:
            return None
        if len(found) > MAX_CALL_SITES:
            return None
    elsewhere = constructions_elsewhere(source, own, slot, default, found)
    if elsewhere is None:
        return None
    codes, pending = elsewhere
    return Passed(found, codes, tuple(pending)) if found or codes else None


def _dataclass(cls: cst.ClassDef) -> bool | None:
    """Whether ``cls`` is a dataclass whose generated ``__init__`` takes every field as a
    keyword only (``@dataclass(kw_only=True)``); None when it is no dataclass, or makes no
    ``__init__`` (``init=False``). Options that leave ``__init__`` as it is (``frozen``,
    ``slots``, ``eq``) do not matter."""
    for decorator in cls.decorators:
        node = decorator.decorator
        name = dotted_name(node.func if isinstance(node, cst.Call) else node)
        if name not in ("dataclass", "dataclasses.dataclass"):
            continue
        options = {
            arg.keyword.value: arg.value
            for arg in (node.args if isinstance(node, cst.Call) else ())
            if arg.keyword is not None
        }
        if "init" in options and not is_true(options["init"]):
            return None
        if "kw_only" in options:
            if is_true(options["kw_only"]):
                return True
            if not is_false(options["kw_only"]):
                return None  # a flag computed at run time
        return False
    return None


def _fields(cls: cst.ClassDef) -> dict[str, cst.BaseExpression | None]:
    """The fields of a dataclass's body in order, each with its default (None: none, or one
    that is not a plain value: ``field(default_factory=...)``)."""
    fields: dict[str, cst.BaseExpression | None] = {}
    body = cls.body.body if isinstance(cls.body, cst.IndentedBlock) else ()
    for statement in body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if not isinstance(small, cst.AnnAssign) or not isinstance(small.target, cst.Name):
                continue
            written = small.annotation.annotation
            if isinstance(written, cst.Subscript):
                written = written.value  # ``ClassVar[int]``
            annotation = dotted_name(written) or ""
            if annotation.rsplit(".", 1)[-1] in ("ClassVar", "InitVar"):
                continue
            value = small.value
            if isinstance(value, cst.Call):
                value = None  # ``field(...)``: its default, if any, is not followed
            fields[small.target.value] = value
    return fields

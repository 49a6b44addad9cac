"""Which class an expression is an instance of, within the module and across the project.

``self.positions = self._make_buffer(3, n)`` where ``_make_buffer`` returns
``CpuGpuBuffer(...)`` imported from another module: ``self.positions`` is a ``CpuGpuBuffer``,
so ``self.positions.cpu`` has the fact of that class's ``cpu`` attribute. Conservative: every
binding or assignment must agree on one class, else the class is unknown (None).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import libcst as cst

from h2dlint.analysis import container_items
from h2dlint.analysis.ecosystem_models import ecosystem_model
from h2dlint.analysis.fact_source import ClassRef as ClassRef
from h2dlint.analysis.fact_source import FactSource
from h2dlint.analysis.frames import Frame, parameter_annotation
from h2dlint.analysis.names import conditional_arms
from h2dlint.project.call_edges import RETURNING_SELF
from h2dlint.project.forward_classes import nearby_class_module

# Class methods of a module class that load and return an object of it.
MODULE_LOADERS = frozenset({"from_pretrained", "from_config", "from_single_file"})

MAX_DEPTH = 8
# Classes outside the project whose instances are modules: calling one runs a model on its
# parameters' device.
MODULE_BASES = ("torch.nn.Module", "nn.Module")


def class_of(
    provenance: FactSource, node: cst.BaseExpression, frame: Frame, depth: int = 0
) -> ClassRef | None:
    """The class ``node`` is an instance of, when every way it is bound agrees. Memoised per
    (node, frame); an answer cut short by the depth limit is None, which only loses a fact."""
    if depth > MAX_DEPTH:
        return None
    memo = provenance.class_memo
    key = (node, frame)
    if key in memo:
        return memo[key]
    memo[key] = None  # a cycle through this node finds no class
    result: ClassRef | None = None
    if isinstance(node, cst.Name):
        result = _name_class(provenance, node, frame, depth)
    elif isinstance(node, cst.Call):
        result = _call_class(provenance, node, frame, depth)
    elif isinstance(node, cst.Attribute):
        result = _attribute_class(provenance, node, frame, depth)
    elif isinstance(node, cst.Subscript):
        container = container_items.indexed_container(node)
        if container is not None:
            result = _item_class(provenance, container, frame, depth, values=False)
    memo[key] = result
    return result


def named_class(provenance: FactSource, node: cst.BaseExpression) -> ClassRef | None:
    """The class an expression names (``Buffer``, ``buffers.Buffer``, ``nn.Linear``)."""
    if isinstance(node, cst.Name):
        local = provenance.index.classes.get(node.value)
        if local is not None:
            return ClassRef(provenance.module_name or node.value, provenance, local)
    qualified = provenance.qualify(node)
    if qualified is None:
        return None
    found = provenance.resolve(qualified)
    if found is not None:
        other, definition = found
        if isinstance(definition, cst.ClassDef):
            return ClassRef(qualified, other, definition)
        return None
    last = qualified.rsplit(".", 1)[-1]
    if last[:1].isupper() and not qualified.startswith("."):
        return ClassRef(qualified)  # a class outside the project, by its name's shape
    return None


def is_module_class(ref: ClassRef, depth: int = 0) -> bool:
    """Whether instances of ``ref`` are ``torch.nn`` modules."""
    if depth > MAX_DEPTH:
        return False
    if ref.node is None or ref.provenance is None:
        return ref.qualified.startswith("torch.nn.") and ref.qualified not in (
            "torch.nn.Parameter",
            "torch.nn.parameter.Parameter",
        )
    for base in ref.node.bases:
        qualified = ref.provenance.qualify(base.value) or ""
        if qualified in MODULE_BASES or qualified.startswith("torch.nn.modules"):
            return True
        parent = named_class(ref.provenance, base.value)
        if parent is not None and parent.node is None and ecosystem_model(parent.qualified):
            return True  # ``class Policy(LlamaForCausalLM)``: a model of transformers
        if parent is not None and is_module_class(parent, depth + 1):
            return True
    return False


def agree(refs: list[ClassRef | None]) -> ClassRef | None:
    if not refs or any(r is None for r in refs):
        return None
    first = refs[0]
    assert first is not None
    return first if all(r == first for r in refs) else None


def _name_class(
    provenance: FactSource, node: cst.Name, frame: Frame, depth: int
) -> ClassRef | None:
    bindings = provenance.bindings(frame)
    reaching = bindings.reaching_bindings(node)
    if not reaching:
        return None

    def refs() -> Iterator[ClassRef | None]:
        for binding in reaching:
            if binding.value is not None:
                if isinstance(binding.value, cst.Name) and binding.value.value == "None":
                    continue
                yield class_of(provenance, binding.value, frame, depth + 1)
            elif binding.statement is bindings.root:
                yield _annotated(provenance, parameter_annotation(node, frame))
            elif (
                isinstance(binding.statement, cst.For)
                and isinstance(binding.statement.target, cst.Name)
                and binding.statement.target.value == node.value
            ):
                yield _walked_item_class(provenance, binding.statement, frame, depth)
            else:
                yield None

    return agreed_class(refs())


def _chosen_class(provenance: FactSource, name: cst.Name, frame: Frame) -> ClassRef | None:
    """The class a local name stands for (``encoder = Packed if packed else Plain``): the one
    class every choice names; for modules that differ, any ``nn.Module`` (their instances'
    outputs are on the device alike)."""
    leaves: list[cst.BaseExpression] = []
    for value in provenance.bindings(frame).reaching(name):
        if value is None:
            return None
        leaves.extend(conditional_arms(value))
    return agreed_class((named_class(provenance, leaf) for leaf in leaves), modules=True)


def agreed_class(refs: Iterable[ClassRef | None], modules: bool = False) -> ClassRef | None:
    """:func:`agree` (with ``modules``, :func:`agree_or_module`) of ``refs``, taken one at a
    time: a None leaves no class to agree on, and without ``modules`` neither do two classes
    that differ, so the refs after it are not computed (each may resolve a class elsewhere,
    parsing its module)."""
    taken: list[ClassRef | None] = []
    for ref in refs:
        taken.append(ref)
        if ref is None or (not modules and ref != taken[0]):
            return None
    return agree_or_module(taken) if modules else agree(taken)


def agree_or_module(refs: list[ClassRef | None]) -> ClassRef | None:
    """The one class ``refs`` agree on; for ``torch.nn`` modules that differ (``self.loss_fn =
    PairWiseLoss()`` in one branch, ``LogExpLoss()`` in the other; ``Packed if packed else
    Plain``), any ``nn.Module``: calling either runs a module, whose outputs are on the device
    alike."""
    agreed = agree(refs)
    if agreed is not None:
        return agreed
    if refs and all(r is not None and is_module_class(r) for r in refs):
        return ClassRef("torch.nn.Module")
    return None


def _annotated(provenance: FactSource, annotation: cst.BaseExpression | None) -> ClassRef | None:
    if annotation is None:
        return None
    if isinstance(annotation, cst.SimpleString):
        value = annotation.evaluated_value
        if isinstance(value, str) and value.isidentifier():
            annotation = cst.Name(value)
        else:
            return None
    named = named_class(provenance, annotation)
    if named is None and isinstance(annotation, cst.Name):
        return _forward_class(provenance, annotation.value)
    return named


def _forward_class(provenance: FactSource, name: str) -> ClassRef | None:
    """The class of the package a forward reference names when the module neither defines,
    imports nor binds ``name`` (``context: "DynamicInferenceContext"``, to avoid an import
    cycle): :func:`~h2dlint.project.forward_classes.nearby_class_module`."""
    project, module = provenance.project, provenance.module_name
    if project is None or module is None or not name[:1].isupper():
        return None
    if provenance.bindings(Frame(provenance.context.module)).of(name):
        return None  # an alias or a variable of the module (``Context = Union[...]``)
    home = nearby_class_module(project, module, name)
    if home is None or home == module:
        return None
    found = provenance.resolve(f"{home}.{name}")
    if found is None or not isinstance(found[1], cst.ClassDef):
        return None
    return ClassRef(f"{home}.{name}", found[0], found[1])


def _call_class(
    provenance: FactSource, call: cst.Call, frame: Frame, depth: int
) -> ClassRef | None:
    func = call.func
    constructed = named_class(provenance, func)
    if constructed is not None:
        return constructed
    if isinstance(func, cst.Attribute) and func.attr.value in RETURNING_SELF:
        # ``Model(...).to(device)``, ``.eval()``: a module's methods that return the module.
        moved = class_of(provenance, func.value, frame, depth + 1)
        return moved if moved is not None and is_module_class(moved) else None
    if isinstance(func, cst.Attribute) and func.attr.value in MODULE_LOADERS:
        # ``Qwen2_5_VLMoEForAction.from_pretrained(path)``: a module class's loader makes one
        loaded = named_class(provenance, func.value)
        return loaded if loaded is not None and is_module_class(loaded) else None
    if isinstance(func, cst.Name):
        chosen = _chosen_class(provenance, func, frame)
        if chosen is not None:
            return chosen
    function = provenance.callee(call, frame, depth + 1)
    if function is None:
        return None
    owner, definition = function
    return owner.return_class(definition, depth + 1)


def _attribute_class(
    provenance: FactSource, node: cst.Attribute, frame: Frame, depth: int
) -> ClassRef | None:
    base = node.value
    attr = node.attr.value
    if isinstance(base, cst.Name) and frame.cls is not None and base.value == frame.self_name:
        return provenance.attribute_class(frame.cls, attr, depth + 1)
    owner = class_of(provenance, base, frame, depth + 1)
    if owner is None or owner.provenance is None or owner.node is None:
        return None
    return owner.provenance.attribute_class(owner.node, attr, depth + 1)


def _walked_item_class(
    provenance: FactSource, loop: cst.For, frame: Frame, depth: int
) -> ClassRef | None:
    """The class of ``req`` in ``for req in self.requests.values()`` (``for req in reqs``),
    by the container's annotation."""
    walked = container_items.iterated_container(loop.iter)
    if walked is None:
        return None
    container, values = walked
    return _item_class(provenance, container, frame, depth, values=values)


def _item_class(
    provenance: FactSource,
    container: cst.BaseExpression,
    frame: Frame,
    depth: int,
    *,
    values: bool,
) -> ClassRef | None:
    """The class of an item of ``container`` by its annotation (``dict[str, Request]``,
    ``list[Request]``), read in the module that declares it."""
    declared = _container_annotation(provenance, container, frame, depth)
    if declared is None:
        return None
    source, annotation = declared
    item = container_items.item_annotation(annotation, values)
    return _annotated(source, item) if item is not None else None


def _container_annotation(
    provenance: FactSource, container: cst.BaseExpression, frame: Frame, depth: int
) -> tuple[FactSource, cst.BaseExpression] | None:
    if isinstance(container, cst.Name):
        found = container_items.local_annotation(container, frame)
        return (provenance, found) if found is not None else None
    if not isinstance(container, cst.Attribute):
        return None
    attr = container.attr.value
    base = container.value
    if isinstance(base, cst.Name) and frame.cls is not None and base.value == frame.self_name:
        source, cls = provenance, frame.cls
    else:
        owner = class_of(provenance, base, frame, depth + 1)
        if owner is None or owner.provenance is None or owner.node is None:
            return None
        source, cls = owner.provenance, owner.node
    methods = source.index.methods.get(cls, {})
    found = container_items.attribute_annotation(cls, methods, attr)
    return (source, found) if found is not None else None

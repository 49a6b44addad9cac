"""Torch modules the project never moves to a device: their tensors are host tensors.

A model class whose every object in the project is built on the host and never handed to
anything that could move it keeps its weights in host memory, and so do the outputs of its
layers: a ``.cpu()`` there copies nothing and an ``.item()`` waits for no queued kernel.
imaginAIry's safety checker is such a class: ``Checker.from_pretrained(model_id)`` in an
``lru_cache``'d loader that returns it, unpacked by its only caller and called, never moved.

The proof, read with CPython's ``ast`` over every module of the project that names the class
(test modules left out, as ``gpu_less_actors`` does):

- the class is declared once, defines ``forward``, and its own body names no device (no
  ``device``, ``cuda``, ``.to(``): it does not move itself or its inputs; an ``__init__`` that
  builds a sub-module through a function (``self.encoder = build_encoder(cfg)``, which may
  return it moved) is no proof either;
- the class is built in its own module (``name = Cls(...)`` or ``= Cls.from_...(``): the
  cheap gate before the scan, which reads the project (a library's model classes, built as
  sub-modules of others or by their users, stop there);
- every use of its name is an annotation, a type test, or a construction (``Cls(...)``,
  ``Cls.from_pretrained(...)``) with no device argument, outside any ``with`` that names a
  device, bound to a local name of a function;
- that name is only called (``model(x)``, ``model.eval()``), read, compared or returned; a
  move (``.to``, ``.cuda``, ``.half`` and the like), an argument of another call (a
  pipeline's constructor, ``accelerator.prepare``), an attribute or container it is stored
  in, are unknown places and the answer is no;
- a name returned by a plain function (alone or as an item of a tuple) is followed once into
  that function's callers, whose unpacked names must pass the same test;
- no module of the project sets a default device (``torch.set_default_device``).

A subclass is no proof: its objects are the class's too, and not followed here. A module that
imports the class under another name makes the answer no, and so does a package ``__init__``
that names it (exported: its users build and move it) and a project that never runs an object
of it (``model(x)``: the project is then its library, not its user).
"""

from __future__ import annotations

import ast
import functools
import os
import re
from typing import TYPE_CHECKING

import libcst as cst

from h2dlint.analysis.gpu_less_actors import gpu_less_method, trees_naming
from h2dlint.analysis.provenance import Provenance
from h2dlint.context import SharedKey

if TYPE_CHECKING:
    from h2dlint.context import FileContext
    from h2dlint.project.index import ProjectIndex

# Class methods that build an object of the class.
LOADERS = frozenset({"from_pretrained", "from_config", "from_single_file", "from_checkpoint"})
# Methods of a module that move it (or may: a dtype-only ``.to`` is not told apart).
MOVES = frozenset(
    {"to", "cuda", "xpu", "npu", "mps", "ipu", "to_empty", "share_memory", "register_module"}
)
# Words in a class body, a construction's arguments or a ``with`` item that may name a device.
DEVICE_WORDS = re.compile(r"device|cuda|\.to\(|\.xpu\(|\.npu\(|accelerat")
DEFAULT_DEVICE = "set_default_device"

_ANSWERS: SharedKey[dict[str, bool]] = SharedKey("host_only_modules")


def host_only_method(context: FileContext, cls: cst.ClassDef | None, actors: bool) -> bool:
    """Whether a method of ``cls`` (a top-level class of the file) runs on host tensors only:
    a Ray actor without GPUs (``gpu_less_actors``, asked when ``actors``) or a torch module
    the project never moves (this module)."""
    if cls is None:
        return False
    if actors and gpu_less_method(context, cls):
        return True
    answers = context.shared(_ANSWERS, dict)
    name = cls.name.value
    if name not in answers:
        answers[name] = (
            _built_here(context.source, name)
            and _own_body_host(context, cls)
            and _never_moved(context, name)
        )
    return answers[name]


def _built_here(source: str, cls: str) -> bool:
    """The cheap gate before the scan, which reads the project: the module builds an object of
    the class bound to a plain name (``model = Cls(...)``, ``= Cls.from_pretrained(``), and
    none stored on an attribute (``self.model = Cls(...)``, a use the proof never takes, so the
    answer is no without reading further: a library's model classes, built as sub-modules of
    others, stop here)."""
    targets = _constructions(source).get(cls, ())
    return "." not in "".join(targets) and any(targets)


# A line that calls a name or a loader of it (``Cls(``, ``Cls.from_``), bound to a target or not.
_BUILT = re.compile(r"^[ \t]*(?:([A-Za-z_][\w.]*)\s*=\s*)?([A-Za-z_]\w*)(?:\(|\.from_)", re.M)


@functools.lru_cache(maxsize=4)
def _constructions(source: str) -> dict[str, list[str]]:
    """Per name called at the start of a line of ``source``, the targets it is bound to, in
    order ("" for none): one scan of the file for all its classes, which the gate asks about
    one by one (a line holds one such call: a name at its start, or after one target)."""
    found: dict[str, list[str]] = {}
    for match in _BUILT.finditer(source):
        found.setdefault(match.group(2), []).append(match.group(1) or "")
    return found


def _own_body_host(context: FileContext, cls: cst.ClassDef) -> bool:
    """A module class that names no device in its own body and builds its sub-modules only
    through class constructors."""
    if not cls.bases or not any(
        isinstance(s, cst.FunctionDef) and s.name.value == "forward"
        for s in getattr(cls.body, "body", ())
    ):
        return False
    # The file's CPython tree, which the run parsed already: the class is not printed and
    # parsed a second time.
    found = _python_class(context.python_tree, cls.name.value)
    if found is None:
        return False
    first = min([found.lineno, *(d.lineno for d in found.decorator_list)])
    lines = context.source.splitlines()[first - 1 : found.end_lineno]
    if DEVICE_WORDS.search("\n".join(lines)):
        return False
    return not any(_built_by_function(node) for node in ast.walk(found))


def _python_class(tree: ast.Module | None, name: str) -> ast.ClassDef | None:
    """The top-level class ``name`` of the file's CPython tree (the last of that name, as
    Python binds it)."""
    found = None
    for node in tree.body if tree is not None else ():
        if isinstance(node, ast.ClassDef) and node.name == name:
            found = node
    return found


def _built_by_function(node: ast.AST) -> bool:
    """``self.x = build(...)``: a function may hand back a sub-module it moved."""
    if not isinstance(node, ast.Assign) or not isinstance(node.value, ast.Call):
        return False
    if not any(isinstance(t, ast.Attribute) for t in node.targets):
        return False
    func = node.value.func
    name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
    return not name[:1].isupper()


def _never_moved(context: FileContext, cls: str) -> bool:
    provenance = Provenance.of(context)
    project, module = provenance.project, provenance.module_name
    if project is None or module is None:
        return False
    if any(
        project.mentions(name, cls)
        for name, path in project.layout.modules.items()
        if name.rpartition(".")[2] == "__init__" or os.path.basename(path) == "__init__.py"
    ):
        return False  # exported by a package: its users build and move it
    if _sets_default_device(project):
        return False
    trees = trees_naming(project, cls)
    declared = 0
    scan = _Scan(project)
    for tree in trees:
        parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        for node in ast.walk(tree):
            if isinstance(node, ast.alias) and node.name.rpartition(".")[2] == cls and node.asname:
                return False
            if isinstance(node, ast.ClassDef) and node.name == cls:
                declared += 1
            elif _names(node, cls) and not _harmless(node, parents, scan, 1):
                return False
    return declared == 1 and scan.run


class _Scan:
    """One question's reading of the project: the index, and whether an object of the class
    was found run (``model(x)``): the project is then its user, not only its library (a
    conversion script that saves it)."""

    __slots__ = ("project", "run")

    def __init__(self, project: ProjectIndex) -> None:
        self.project = project
        self.run = False


@functools.lru_cache(maxsize=2)
def _sets_default_device(project: ProjectIndex) -> bool:
    """Whether a module of the project sets a default device (asked once per project)."""
    return bool(trees_naming(project, DEFAULT_DEVICE))


def _names(node: ast.AST, name: str) -> bool:
    return (isinstance(node, ast.Name) and node.id == name) or (
        isinstance(node, ast.Attribute) and node.attr == name
    )


def _harmless(node: ast.AST, parents: dict[ast.AST, ast.AST], scan: _Scan, hops: int) -> bool:
    """A use of the class's name that builds no object, or builds one that stays put."""
    parent = parents.get(node)
    if isinstance(parent, ast.ClassDef):
        return node not in parent.bases and all(node is not k.value for k in parent.keywords)
    if isinstance(parent, ast.Call) and node in parent.args:
        return isinstance(parent.func, ast.Name) and parent.func.id in ("isinstance", "issubclass")
    call: ast.AST | None = None
    if isinstance(parent, ast.Call) and parent.func is node:
        call = parent
    elif isinstance(parent, ast.Attribute) and parent.attr in LOADERS:
        grand = parents.get(parent)
        call = grand if isinstance(grand, ast.Call) and grand.func is parent else None
    if call is None:
        return _in_annotation(node, parents)
    assert isinstance(call, ast.Call)
    if any(k.arg is None for k in call.keywords) or any(
        isinstance(a, ast.Starred) for a in call.args
    ):
        return False
    if DEVICE_WORDS.search(" ".join(ast.unparse(a) for a in (*call.args, *call.keywords))):
        return False
    return _bound_and_kept(call, parents, scan, hops)


def _in_annotation(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    child, parent = node, parents.get(node)
    while parent is not None:
        if isinstance(parent, (ast.arg, ast.AnnAssign)):
            return child is parent.annotation
        if isinstance(parent, ast.FunctionDef | ast.AsyncFunctionDef):
            return child is parent.returns
        if isinstance(parent, ast.stmt | ast.Call):
            return False
        child, parent = parent, parents.get(parent)
    return False


def _bound_and_kept(
    value: ast.AST, parents: dict[ast.AST, ast.AST], scan: _Scan, hops: int
) -> bool:
    """``name = value`` in a function, outside a device ``with``, and ``name`` kept there."""
    assign = parents.get(value)
    if not (
        isinstance(assign, ast.Assign)
        and len(assign.targets) == 1
        and isinstance(assign.targets[0], ast.Name)
    ):
        return False
    function = _enclosing(assign, parents)
    if function is None:
        return False
    return _kept(function, assign.targets[0].id, parents, scan, hops)


def _enclosing(
    node: ast.AST, parents: dict[ast.AST, ast.AST]
) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    parent = parents.get(node)
    while parent is not None:
        if isinstance(parent, ast.With | ast.AsyncWith) and DEVICE_WORDS.search(
            " ".join(ast.unparse(item) for item in parent.items)
        ):
            return None
        if isinstance(parent, ast.FunctionDef | ast.AsyncFunctionDef):
            return parent
        if isinstance(parent, ast.ClassDef | ast.Lambda):
            return None
        parent = parents.get(parent)
    return None


def _kept(
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    name: str,
    parents: dict[ast.AST, ast.AST],
    scan: _Scan,
    hops: int,
) -> bool:
    """Whether every use of ``name`` in ``function`` leaves the object where it is."""
    for node in ast.walk(function):
        if not (isinstance(node, ast.Name) and node.id == name) or isinstance(node.ctx, ast.Store):
            continue
        parent = parents.get(node)
        if isinstance(parent, ast.Call) and parent.func is node:
            scan.run = True
            continue  # run: ``model(x)``
        if isinstance(parent, ast.Attribute):
            while isinstance(parent, ast.Attribute):  # ``model.unet.to(...)`` moves a part
                if parent.attr in MOVES:
                    return False
                parent = parents.get(parent)
            continue  # a method or an attribute: ``model.eval()``, ``model.config``
        if isinstance(parent, ast.Compare | ast.Delete):
            continue
        position = None
        if isinstance(parent, ast.Tuple) and isinstance(parents.get(parent), ast.Return):
            position = parent.elts.index(node)
            parent = parents.get(parent)
        if isinstance(parent, ast.Return) and hops > 0:
            if not _callers_keep(function, position, scan, hops - 1):
                return False
            continue
        return False
    return True


def _callers_keep(
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    position: int | None,
    scan: _Scan,
    hops: int,
) -> bool:
    """Whether every call of a plain function that returns the object keeps what it gets."""
    name = function.name
    found = False
    for tree in trees_naming(scan.project, name):
        parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and any(
                isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef) and s.name == name
                for s in node.body
            ):
                return False  # a method of that name: its calls are not told apart
            if isinstance(node, ast.alias) and node.name.rpartition(".")[2] == name and node.asname:
                return False
            if not _names(node, name) or isinstance(parents.get(node), ast.alias):
                continue
            call = parents.get(node)
            if not isinstance(call, ast.Call) or call.func is not node:
                return False
            if not _unpacked_kept(call, position, parents, scan, hops):
                return False
            found = True
    return found


def _unpacked_kept(
    call: ast.Call,
    position: int | None,
    parents: dict[ast.AST, ast.AST],
    scan: _Scan,
    hops: int,
) -> bool:
    if position is None:
        return _bound_and_kept(call, parents, scan, hops)
    assign = parents.get(call)
    if not (isinstance(assign, ast.Assign) and len(assign.targets) == 1):
        return False
    target = assign.targets[0]
    if not isinstance(target, ast.Tuple) or position >= len(target.elts):
        return False
    item = target.elts[position]
    function = _enclosing(assign, parents)
    if not isinstance(item, ast.Name) or function is None:
        return False
    return _kept(function, item.id, parents, scan, hops)

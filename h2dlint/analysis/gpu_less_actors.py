"""Classes whose code runs in a Ray actor that holds no GPU: no tensor there is on a device.

Ray sets ``CUDA_VISIBLE_DEVICES`` of every actor to the GPUs it reserved for it, so an actor
declared without GPUs (a bare ``@ray.remote``, or ``@ray.remote(num_cpus=...)`` with no
``num_gpus`` or ``num_gpus=0``) sees none: ``torch.cuda.is_available()`` is False in it and
every tensor it makes or receives (``ray.get`` of another actor's results) is a host tensor. A
per-step ``.item()`` there reads host memory and waits for nothing (the drivers of RL trainers:
rollout statistics computed in the controller). Ray's opt-out,
``RAY_EXPERIMENTAL_NOSET_CUDA_VISIBLE_DEVICES``, leaves the variable alone; a project that sets
it (an ``os.environ[...] =`` or a ``runtime_env`` dict naming it) gets no answer here.

A class runs in such actors when it is declared a GPU-less actor itself, or when it is a base
class that the project never builds directly (no call of it, no other use than as a base, an
annotation or an ``isinstance`` test) and whose every subclass (in any module of the project,
two levels down at most) runs in such actors. Each actor class's creation sites must not ask
for GPUs either (``Actor.options(num_gpus=1)``, or ``**`` options that may). A module that
imports the class under another name makes the answer "unknown" (False): its uses cannot be
followed by name. What test modules (``test_*.py``, ``pkg.testing``) do with the class is not
asked: a test that builds a trainer directly to check a method says nothing of where production
runs it.

Only modules that name Ray (``ray.remote``, ``import ray``) ask: the scan reads the modules of
the project that name the class, so a base class in a module that does not name Ray keeps its
findings.
"""

from __future__ import annotations

import ast
import os
from typing import TYPE_CHECKING

import libcst as cst

from h2dlint.analysis.hot_names import test_module
from h2dlint.analysis.provenance import Provenance
from h2dlint.context import SharedKey

if TYPE_CHECKING:
    from h2dlint.context import FileContext
    from h2dlint.project.index import ProjectIndex

NOSET = "RAY_EXPERIMENTAL_NOSET_CUDA_VISIBLE_DEVICES"
# How many levels of subclasses are followed below a base class.
MAX_DEPTH = 2
# Calls whose arguments may name a class without building it.
TYPE_TESTS = frozenset({"isinstance", "issubclass", "type", "super"})

# Calls that set an environment variable named by their first argument.
SETTERS = frozenset({"setdefault", "putenv", "__setitem__"})

# Per file (the modules read are recorded as that file's dependencies for the result cache):
# class name -> the answer, and "" -> whether the project sets the opt-out.
_ANSWERS: SharedKey[dict[str, bool]] = SharedKey("gpu_less_actors")


def may_hold_actor(source: str) -> bool:
    """Whether a module's text names Ray (``ray.remote``, ``import ray``): the cheap gate
    before any scan. A base class whose module does not name Ray is not asked about."""
    return "ray.remote" in source or "import ray" in source


def gpu_less_method(context: FileContext, cls: cst.ClassDef | None) -> bool:
    """Whether a method of ``cls`` (a top-level class of the file) runs in GPU-less actors."""
    if cls is None:
        return False
    answers = context.shared(_ANSWERS, dict)
    name = cls.name.value
    if name not in answers:
        provenance = Provenance.of(context)
        answers[name] = gpu_less_class(provenance.project, provenance.module_name, name)
    return answers[name]


def gpu_less_class(project: ProjectIndex | None, module: str | None, cls: str) -> bool:
    """Whether every instance of class ``cls`` of ``module`` lives in a Ray actor without GPUs
    (see the module's docstring); False when unknown."""
    if project is None or module is None:
        return False
    return _gpu_less(project, cls, 0) and not _sets_noset(project)


def trees_naming(project: ProjectIndex, name: str) -> list[ast.Module]:
    """The `ast` trees of the project's modules (test modules left out) whose text names
    ``name``."""
    trees = []
    for module, path in project.layout.modules.items():
        if test_module(module, os.path.basename(path)) or not project.mentions(module, name):
            continue
        data = project.read(path)
        # The index's own parse: CPython's warnings about the code hidden, and the few trees
        # asked last kept (a base class's subclasses are named in the same modules).
        tree = None if data is None else project.summaries.tree(project.digest(path, data), data)
        if tree is not None:
            trees.append(tree)
    return trees


def _gpu_less(project: ProjectIndex, cls: str, depth: int) -> bool:
    """Whether the class named ``cls`` runs only in GPU-less actors, judged by every module
    of the project that names it."""
    trees = trees_naming(project, cls)
    declared: list[ast.ClassDef] = []
    subclasses: list[str] = []
    for tree in trees:
        parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        for node in ast.walk(tree):
            if isinstance(node, ast.alias) and _last(node.name) == cls and node.asname:
                return False  # imported under another name: its uses are not followed
            if isinstance(node, ast.ClassDef):
                if node.name == cls:
                    declared.append(node)
                elif any(_last_of(base) == cls for base in node.bases):
                    subclasses.append(node.name)
            elif _names(node, cls) and not _harmless_use(node, parents):
                return False
    if len(declared) != 1:
        return False  # not found, or two classes of that name: not told apart here
    decorated = _actor_decorator(declared[0])
    if decorated is not None:
        return decorated
    if not subclasses or depth >= MAX_DEPTH:
        return False
    return all(_gpu_less(project, sub, depth + 1) for sub in subclasses)


def _last(dotted: str) -> str:
    return dotted.rpartition(".")[2]


def _last_of(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _names(node: ast.AST, cls: str) -> bool:
    return (isinstance(node, ast.Name) and node.id == cls) or (
        isinstance(node, ast.Attribute) and node.attr == cls
    )


def _harmless_use(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    """Whether this use of the class's name builds no instance of it outside an actor: a
    base of a class statement, an annotation, a type test's argument, or an actor's
    ``.remote(...)`` / ``.options(...)`` that asks for no GPU."""
    parent = parents.get(node)
    if isinstance(parent, ast.ClassDef) and node in parent.bases:
        return True
    if isinstance(parent, ast.Attribute) and parent.value is node:
        call = parents.get(parent)
        if parent.attr == "remote":
            return True  # ``Actor.remote(...)``: the declared actor's own resources
        if parent.attr == "options" and isinstance(call, ast.Call) and call.func is parent:
            return _no_gpus(call)
        return False
    if isinstance(parent, ast.Call) and node in parent.args:
        return _last_of(parent.func) in TYPE_TESTS
    child: ast.AST = node
    while parent is not None:  # inside an annotation
        if isinstance(parent, (ast.arg, ast.AnnAssign)):
            return child is parent.annotation
        if isinstance(parent, ast.FunctionDef):
            return child is parent.returns
        if isinstance(parent, (ast.stmt, ast.Call)):
            return False
        child, parent = parent, parents.get(parent)
    return False


def _actor_decorator(node: ast.ClassDef) -> bool | None:
    """True for ``@ray.remote`` without GPUs, False for one with them (or options that may
    hold them), None when the class is no declared actor."""
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if not _is_ray_remote(target):
            continue
        return not isinstance(decorator, ast.Call) or (not decorator.args and _no_gpus(decorator))
    return None


def _is_ray_remote(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "remote"
        and isinstance(node.value, ast.Name)
        and node.value.id == "ray"
    )


def _no_gpus(call: ast.Call) -> bool:
    """Whether the keywords of ``ray.remote(...)`` / ``.options(...)`` reserve no GPU."""
    for keyword in call.keywords:
        if keyword.arg is None:
            return False  # ``**options``: may hold num_gpus
        if keyword.arg == "num_gpus":
            value = keyword.value
            if not (isinstance(value, ast.Constant) and value.value in (0, 0.0)):
                return False
    return True


def _sets_noset(project: ProjectIndex) -> bool:
    """Whether a module of the project sets Ray's opt-out of ``CUDA_VISIBLE_DEVICES`` (as a
    key of a dict literal, a subscript assigned to, or the first argument of a call such as
    ``os.environ.setdefault``); reading it is no setting."""
    return any(_sets(tree) for tree in trees_naming(project, NOSET))


def _sets(tree: ast.Module) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict) and any(_is_noset(k) for k in node.keys):
            return True
        if isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Subscript) and _is_noset(t.slice) for t in targets):
                return True
        if isinstance(node, ast.Call) and (
            (node.args and _is_noset(node.args[0]) and _last_of(node.func) in SETTERS)
            or any(k.arg == NOSET for k in node.keywords)
        ):
            return True
    return False


def _is_noset(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Constant) and node.value == NOSET

"""Copies written out: a tensor copied to the host whose value the same function then writes
to a file or a stream (HTD202).

An extraction script that encodes each batch and writes the codes to a tar shard
(``stoks = model.encode(x).cpu().numpy()`` ... ``sink.write(sample)``), a benchmark that saves
each generated waveform (``wave = vocoder(mel).cpu()`` ... ``torchaudio.save(path, wave)``), a
separation pipeline writing each speaker's signal: file I/O reads host memory, so the data must
reach the host whatever the code does, and the copy is the output itself, not a stall of a step
that could have been queued behind it. Only a copy assigned to a name whose value (through later
assignments, loop targets, items written into a dict or list, ``.append``/``.extend``) reaches
an argument of a writing call (:data:`WRITE_CALLS`) after it in the function, or a copy inside
such a call's arguments, is one; a write under a condition the copy is not under (a sample
saved every N steps from a copy made every step) does not count, nor does text made of the
values (``log.write(f"{loss}\n")``: a per-step loss written to a log is the classic stall).
Scalar reads (``.item()``, ``int(t)``) are no copies and are not looked at.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from h2dlint.analysis.names import call_name, names_read
from h2dlint.walk import ReadOnlyVisitor, visit_read_only

# Calls that write their arguments to a file or a stream: ``f.write``, ``torch.save``,
# ``np.save``/``savez``, ``torchaudio.save``, ``sf.write``, ``cv2.imwrite``,
# ``torchvision.utils.save_image``, ``arr.tofile``, ``wave.writeframes``.
WRITE_CALLS = frozenset(
    {
        "write",
        "save",
        "savez",
        "savez_compressed",
        "savetxt",
        "imwrite",
        "save_image",
        "tofile",
        "writeframes",
        "write_video",
        "write_audio",
    }
)
# Methods that put a value into the container they are called on.
_FILLING = frozenset({"append", "extend", "update", "add", "insert", "put"})
_SCOPES = (cst.FunctionDef, cst.Lambda, cst.ClassDef)


def written_copy(ancestors: Sequence[cst.CSTNode], copy: cst.CSTNode) -> bool:
    """Whether the host copy ``copy`` (below ``ancestors``, innermost last) is written out by
    its function (see the module)."""
    function: cst.FunctionDef | None = None
    statement: cst.Assign | None = None
    loop: cst.For | cst.While | None = None
    conditions: set[int] = set()
    for node in reversed(ancestors):
        if isinstance(node, (cst.Lambda, cst.ClassDef)):
            return False
        if isinstance(node, cst.FunctionDef):
            function = node
            break
        if isinstance(node, (cst.For, cst.While)) and loop is None:
            loop = node
        if isinstance(node, cst.Call) and _write_call(node) and copy is not node.func:
            return True  # ``sf.write(path, x.cpu().numpy())``
        if isinstance(node, cst.Assign) and statement is None:
            statement = node
        if isinstance(node, (cst.If, cst.IfExp, cst.While)):
            conditions.add(id(node))
    if function is None or statement is None:
        return False
    start = _targets(statement)
    if not start:
        return False
    finder = _Flow(statement, start, conditions)
    visit_read_only(function.body, finder)
    if finder.written or loop is None:
        return finder.written
    finder.again()  # the loop carries a name to an earlier statement of its body
    visit_read_only(loop.body, finder)
    return finder.written


def _write_call(call: cst.Call) -> bool:
    return call_name(call) in WRITE_CALLS


def _targets(statement: cst.Assign | cst.AugAssign | cst.For) -> set[str]:
    """The names a statement binds or fills: plain names, tuples of them, and the containers
    of item writes (``sample["codes"] = ...``); attributes (``self.x = ...``) are none."""
    nodes: list[cst.BaseExpression] = []
    if isinstance(statement, cst.Assign):
        nodes = [target.target for target in statement.targets]
    else:
        nodes = [statement.target]
    found: set[str] = set()
    while nodes:
        node = nodes.pop()
        if isinstance(node, cst.Name):
            found.add(node.value)
        elif isinstance(node, (cst.Tuple, cst.List)):
            nodes.extend(element.value for element in node.elements)
        elif isinstance(node, cst.StarredElement):
            nodes.append(node.value)
        elif isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name):
            found.add(node.value.value)
    return found


class _Flow(ReadOnlyVisitor):
    """Follows the names holding the copy through the statements after it."""

    def __init__(self, statement: cst.Assign, start: set[str], conditions: set[int]) -> None:
        self.statement = statement
        self.tainted = set(start)
        self.conditions = conditions
        self.after = False
        self.written = False
        self._tests: list[int] = []

    def again(self) -> None:
        self.after = True

    def _reads(self, node: cst.CSTNode) -> bool:
        return any(name.value in self.tainted for name in names_read(node))

    def on_visit(self, node: cst.CSTNode) -> bool:
        if self.written:
            return False
        if node is self.statement:
            self.after = True
            return False
        if isinstance(node, _SCOPES):
            return False
        if isinstance(node, (cst.If, cst.IfExp, cst.While)):
            self._tests.append(id(node))
        if not self.after:
            return super().on_visit(node)
        if isinstance(node, (cst.Assign, cst.AugAssign)) and node.value is not None:
            if self._reads(node.value):
                self.tainted |= _targets(node)
        elif isinstance(node, (cst.For, cst.CompFor)) and self._reads(node.iter):
            for name in names_read(node.target):
                self.tainted.add(name.value)
        elif isinstance(node, cst.Call):
            self._call(node)
        return super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        if self._tests and self._tests[-1] == id(original_node):
            self._tests.pop()
        super().on_leave(original_node)

    def _call(self, node: cst.Call) -> None:
        func = node.func
        arguments = [arg.value for arg in node.args]
        if not any(self._reads(argument) for argument in arguments):
            return
        if (
            isinstance(func, cst.Attribute)
            and func.attr.value in _FILLING
            and isinstance(func.value, cst.Name)
        ):
            self.tainted.add(func.value.value)
        elif (
            _write_call(node)
            and all(test in self.conditions for test in self._tests)
            and any(not _text(argument) and self._reads(argument) for argument in arguments)
        ):
            self.written = True


def _text(node: cst.BaseExpression) -> bool:
    """Whether an argument is text made of its values (a log line: ``f"{loss}"``,
    ``str(x)``, ``"%s" % x``, ``"{}".format(x)``), not the data itself."""
    if isinstance(node, (cst.FormattedString, cst.ConcatenatedString)):
        return True
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Modulo):
        return isinstance(node.left, (cst.SimpleString, cst.FormattedString))
    if isinstance(node, cst.Call):
        func = node.func
        if isinstance(func, cst.Name) and func.value in ("str", "repr"):
            return True
        return isinstance(func, cst.Attribute) and func.attr.value == "format"
    return False

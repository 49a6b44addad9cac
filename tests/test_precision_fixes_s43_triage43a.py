"""The analysis fact behind session 43's blind-style triage (docs/precision.md, "Session 43
(triage43a)"), with the twins that must keep their verdict. A host copy that the function sends
to another process (a socket, a pipe, a message queue: a call whose name's first word is
``send``, ``sendall`` or ``sendto``) is written to a stream: the copy is the message, and a
``while`` loop that ships its draft tree every step (autodraft-sd's ``payload = {...:
draft_ids[0].tolist()}`` then ``send_json_with_size(sock, payload)``) keeps no loop state on the
host that could have stayed on the device. A call that says it sends to a device
(``send_to_device``), a copy kept in a list, and a log line made of the values stay reported."""

from __future__ import annotations

import libcst as cst
import pytest

from h2dlint.analysis.written_outputs import loop_copy_written, sending_name, written_copy

LOOP = """
def run_draft(sock, model, ids, store):
    while True:
        draft_ids = model(ids)
        payload = {{"type": "tree_step", "draft_input_ids": draft_ids[0].tolist()}}
        {call}
        if payload["draft_input_ids"][-1] == 2:
            break
"""


def _copy_and_loop(source: str) -> tuple[list[cst.CSTNode], cst.While, cst.Call]:
    """The ancestors of the ``while`` loop, the loop and its ``.tolist()`` call."""
    module = cst.parse_module(source)
    function = module.body[0]
    assert isinstance(function, cst.FunctionDef)
    loop = function.body.body[0]
    assert isinstance(loop, cst.While)
    found: list[cst.Call] = []

    class Finder(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            if isinstance(node.func, cst.Attribute) and node.func.attr.value == "tolist":
                found.append(node)

    loop.visit(Finder())
    return [module, function, function.body], loop, found[0]


@pytest.mark.parametrize(
    "call",
    [
        "send_json_with_size(sock, payload)",
        "sock.sendall(json.dumps(payload).encode())",
        "conn.send(payload)",
        "socket.send_pyobj(payload)",
        "np.save(path, payload)",
    ],
)
def test_a_copy_sent_to_another_process_each_iteration_is_its_message(call: str) -> None:
    ancestors, loop, copy = _copy_and_loop(LOOP.format(call=call))
    assert loop_copy_written(ancestors, loop, copy)


@pytest.mark.parametrize(
    "call",
    [
        "send_to_device(payload, 'cuda')",  # a device move, no stream
        "store.append(payload)",  # kept, nothing written
        "keep_json(sock, payload)",  # no send in its name
        "sock.send(f'{payload}'.encode())",  # a log line made of the values
        "sender(payload)",  # a word that only starts like one
    ],
)
def test_a_copy_kept_or_moved_to_a_device_stays_loop_state(call: str) -> None:
    ancestors, loop, copy = _copy_and_loop(LOOP.format(call=call))
    assert not loop_copy_written(ancestors, loop, copy)


def test_a_send_under_a_condition_the_copy_is_not_under_does_not_count() -> None:
    source = LOOP.format(call="if step % 10 == 0:\n            sock.sendall(payload)")
    ancestors, loop, copy = _copy_and_loop(source)
    assert not loop_copy_written(ancestors, loop, copy)


def test_send_names() -> None:
    for name in ("send", "sendall", "sendto", "send_json", "send_multipart", "Send_Json"):
        assert sending_name(name), name
    for name in ("send_to_device", "send_to_gpu", "sender", "resend", "keep", "to_send"):
        assert not sending_name(name), name


def test_a_copy_outside_a_loop_sent_by_its_function_is_written() -> None:
    source = "def reply(sock, out):\n    msg = {'ids': out.cpu().tolist()}\n    sock.sendall(msg)\n"
    module = cst.parse_module(source)
    function = module.body[0]
    assert isinstance(function, cst.FunctionDef)
    statement = function.body.body[0]
    assert isinstance(statement, cst.SimpleStatementLine)
    assign = statement.body[0]
    assert isinstance(assign, cst.Assign)
    assert isinstance(assign.value, cst.Dict)
    copy = assign.value.elements[0].value
    ancestors = [module, function, function.body, statement, assign, assign.value]
    assert written_copy([*ancestors, assign.value.elements[0]], copy)

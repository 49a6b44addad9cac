"""HTD202 MEDIUM on serving code (session 11, docs/precision.md "HTD202 MEDIUM"): a helper
asked for the host copy by a literal ``"cpu"`` argument returns host memory, and a helper
called only under an off-by-default diagnostic switch from the environment is not per step.
Each look-alike and its true twin."""

from __future__ import annotations

import textwrap

import libcst as cst

from h2dlint.analysis.env_switches import diagnostic_switch
from h2dlint.analysis.facts import Where
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.targets import asks_for_host
from h2dlint.context import FileContext


def _context(code: str) -> FileContext:
    text = textwrap.dedent(code)
    return FileContext("m.py", text, cst.parse_module(text), {})


def _call(code: str) -> cst.Call:
    expression = cst.parse_expression(code)
    assert isinstance(expression, cst.Call)
    return expression


def test_a_literal_cpu_device_argument_asks_for_the_host() -> None:
    assert asks_for_host(_call('get_for_device(params, "slots", "cpu")'))
    assert asks_for_host(_call('fetch(params, "slots", device=torch.device("cpu"))'))
    assert asks_for_host(_call('fetch(x, target_device="cpu")'))
    assert not asks_for_host(_call('fetch(x, src_device="cpu")'))
    assert not asks_for_host(_call("get_for_device(params, 'slots', self.device)"))
    assert not asks_for_host(_call('fetch(x, "cuda")'))


def test_the_result_of_a_helper_asked_for_the_host_is_on_the_host() -> None:
    context = _context(
        """
        import torch
        def get_for_device(params: dict, key: str, device) -> torch.Tensor:
            return params[key].to(device)
        def host(params):
            return get_for_device(params, "slots", "cpu")
        def device(params, dev):
            return get_for_device(params, "slots", dev)
        """
    )
    provenance = Provenance.of(context)
    for name, where in (("host", Where.HOST), ("device", Where.DEVICE)):
        function = next(
            s
            for s in context.module.body
            if isinstance(s, cst.FunctionDef) and s.name.value == name
        )
        last = function.body.body[-1]
        assert isinstance(last, cst.SimpleStatementLine)
        statement = last.body[0]
        assert isinstance(statement, cst.Return) and statement.value is not None
        assert provenance.where(statement.value, Frame(function)) is where, name


def _switch(code: str) -> bool:
    module = cst.parse_module(textwrap.dedent(code))
    function = next(s for s in module.body if isinstance(s, cst.FunctionDef))
    test = next(s.test for s in function.body.body if isinstance(s, cst.If))
    return diagnostic_switch(test, module, function)


def test_off_by_default_diagnostic_switches_from_the_environment() -> None:
    assert _switch(
        """
        import os
        _routing_check = os.environ.get("EXL3_TP_ROUTING_CHECK", "0") != "0"
        def forward(self):
            check = _routing_check and self.replicated
            if check:
                pass
        """
    )
    assert _switch(
        """
        import os
        def forward(self):
            if os.getenv("MODEL_DEBUG"):
                pass
        """
    )
    # named for the check only by the Python name it is bound to
    assert _switch(
        """
        import os
        _verify = os.environ.get("MOE_X", "") == "1"
        def forward(self):
            if _verify:
                pass
        """
    )


def test_switches_on_by_default_or_named_for_a_feature_stay_per_step() -> None:
    assert not _switch(
        """
        import os
        _routing_check = os.environ.get("EXL3_TP_ROUTING_CHECK", "1") != "0"
        def forward(self):
            if _routing_check:
                pass
        """
    )
    assert not _switch(
        """
        import os
        _fast = os.environ.get("MOE_SHARED_COOP", "0") != "0"
        def forward(self):
            if _fast:
                pass
        """
    )
    assert not _switch(
        """
        def forward(self):
            if self.check:
                pass
        """
    )

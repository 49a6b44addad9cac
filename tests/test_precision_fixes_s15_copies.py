"""The analysis facts behind session 15's triage of the copy rules (HTD102-HTD105) on serving
and model code (docs/precision.md, "Session 15"): the false alarms of HTD104 in run-once code
and in tables grown on demand, and the pageable sources HTD102 missed (conversions and
elementwise math of pageable memory, lists of a local mapping of Python data). Each case comes
with its twin that must keep its verdict."""

from __future__ import annotations

from lint_runs import lint, method_of

from h2dlint.analysis.memo_methods import grown_cache, memoised


def _findings(code: str, rule_code: str) -> list[int]:
    return [f.start.row for f in lint(code, rule_code)]


RELATIVE_POSITIONS = """
    import torch
    class RelPositionalEncoding(torch.nn.Module):
        def __init__(self, max_len):
            super().__init__()
            self.pe = self.extend_pe(torch.tensor(0.0).expand(1, max_len))
        def extend_pe(self, x, pe=None):
            '''Reset the positional encodings.'''
            if pe is not None:
                if pe.size(1) >= x.size(1) * 2 - 1:
                    if pe.device != x.device:
                        pe = pe.to(device=x.device)
                    return pe
            pe = torch.cat([torch.zeros(1, x.size(1), 4), torch.zeros(1, x.size(1), 4)], dim=1)
            return pe.to(device=x.device, dtype=x.dtype)
        def forward(self, x):
            self.pe = self.extend_pe(x, self.pe)
            return self.pe
    """


def test_a_table_passed_back_to_self_is_a_grown_cache() -> None:
    function, cls = method_of(RELATIVE_POSITIONS, "extend_pe")
    assert grown_cache(function, cls)
    assert memoised(function, cls)
    assert _findings(RELATIVE_POSITIONS, "HTD104") == []
    # called once without handing the table back: rebuilt on that call every time
    other = "        def other(self, x):\n            return self.extend_pe(x)\n"
    per_call = RELATIVE_POSITIONS.rstrip(" ") + other
    function, cls = method_of(per_call, "extend_pe")
    assert not grown_cache(function, cls)
    assert _findings(per_call, "HTD104") == [14]


def test_a_default_made_when_none_is_passed_is_no_cache() -> None:
    code = """
        import torch
        class Positions(torch.nn.Module):
            def positions(self, x, pos=None):
                if pos is not None:
                    return pos
                return torch.cat([torch.arange(4), torch.arange(4)]).to(x.device)
            def forward(self, x):
                self.pos = self.positions(x)
                return self.pos
        """
    function, cls = method_of(code, "positions")
    assert not grown_cache(function, cls)
    assert _findings(code, "HTD104") == [7]


def test_a_table_kept_on_self_is_a_grown_cache() -> None:
    code = """
        import torch
        class Encoding:
            def extend_pe(self, x):
                if self.pe is not None:
                    if self.pe.size(1) >= x.size(1):
                        return
                self.pe = torch.cat([torch.zeros(x.size(1)), torch.ones(1)]).to(x.device)
        """
    function, cls = method_of(code, "extend_pe")
    assert grown_cache(function, cls)
    # the same early return without keeping the table: a rebuild per call
    rebuilt = code.replace("self.pe = torch", "table = torch")
    function, cls = method_of(rebuilt, "extend_pe")
    assert not grown_cache(function, cls)
    assert _findings(rebuilt, "HTD104") == [8]


def test_joins_copied_once_are_not_reported() -> None:
    code = """
        import torch
        class Pipeline:
            def initialize_training_pipeline(self, scheduler):
                self.steps = torch.cat((scheduler.timesteps.cpu(), torch.tensor([0.0]))).cuda()
            def sample(self, scheduler):
                return torch.cat((scheduler.timesteps.cpu(), torch.tensor([0.0]))).cuda()
        """
    assert _findings(code, "HTD104") == [7]


def test_conversions_keep_pageable_memory_pageable() -> None:
    code = """
        import torch
        def f(x, lr, device, params):
            a = torch.tensor([lr]).to(params[0].dtype)
            b = torch.from_numpy(x).float().reshape(-1)
            c = torch.arange(8, device="cpu").float().cos()
            return (
                a.to(device, non_blocking=True),
                b.to(device, non_blocking=True),
                c.to(device, non_blocking=True),
            )
        """
    assert _findings(code, "HTD102") == [8, 9, 10]
    pinned = """
        import torch
        def f(n, device):
            a = torch.zeros(n, pin_memory=True).float()
            return a.to(device, non_blocking=True)
        """
    assert _findings(pinned, "HTD102") == []


def test_lists_of_a_local_mapping_are_python_data() -> None:
    code = """
        import torch
        from collections import defaultdict
        def f(names, blocks, device, cache):
            ids = {name: [] for name in names}
            more = defaultdict(list)
            copied = {k: v for k, v in cache.items()}
            for name in names:
                ids[name].extend(blocks)
                more[name].append(1)
            return (
                torch.as_tensor(ids["a"]).to(device, non_blocking=True),
                torch.as_tensor(more["a"]).to(device, non_blocking=True),
                torch.as_tensor(copied["a"]).to(device, non_blocking=True),
            )
        """
    assert _findings(code, "HTD102") == [12, 13]

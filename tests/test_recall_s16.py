"""The analysis facts behind session 16's recall changes (docs/recall.md, "Session 16"): each
shape a held-out upstream fix needed, and the correct look-alike beside it."""

from __future__ import annotations

import textwrap

import libcst as cst
from lint_runs import lint

from h2dlint.analysis.installed_closures import installed_closures
from h2dlint.analysis.item_writes import used_as_tensor
from h2dlint.analysis.nested_functions import nested_functions


def _findings(code: str, rule_code: str = "HTD202", path: str = "m.py") -> list[str]:
    return [f.message for f in lint(code, rule_code, path=path)]


# -- closures a factory returns or installs ----------------------------------------------------

FACTORY = """
    from typing import Optional
    import types
    import torch

    def get_attention_forward(cfg):
        def forward(self, hidden: torch.Tensor, position_ids: Optional[torch.LongTensor] = None):
            n = max(hidden.shape[1], position_ids[:, -1].max().item()) + 1
            return self.rotary(hidden, n)
        return forward

    def patch(module):
        def _forward(self, hidden: torch.Tensor):
            return hidden * hidden.sum().item()
        module.forward = types.MethodType(_forward, module)

    def build(model):
        def forward(hidden: torch.Tensor):
            return hidden.sum().item()
        total = forward(model.weight)
        return total
"""


def test_installed_closures_are_found_with_their_binding() -> None:
    module = cst.parse_module(textwrap.dedent(FACTORY))
    closures = installed_closures(nested_functions(module))
    found = {function.name.value: method for function, method in closures.items()}
    assert found == {"forward": True, "_forward": True}  # build's local forward is only called


def test_returned_and_installed_forwards_are_hot() -> None:
    messages = _findings(FACTORY)
    assert len(messages) == 2, messages
    assert any("position_ids" in m for m in messages)
    assert any("hidden.sum()" in m for m in messages)


def test_a_closure_only_called_in_its_cold_factory_stays_cold() -> None:
    code = """
        import torch
        def build(model):
            def forward(hidden: torch.Tensor):
                return hidden.sum().item()
            return forward(model.weight)
        def make_init(std):
            def init_weights(self, m: torch.Tensor):
                return m.std().item()
            return init_weights
    """
    assert _findings(code) == []


# -- container entries written in place with a tensor method ------------------------------------

KV_CACHE = """
    import torch
    class SelfAttention(torch.nn.Module):
        def forward(self, q, kv_cache, current_end):
            size = kv_cache["k"].shape[1]
            if current_end > kv_cache["end"].item():
                evicted = kv_cache["end"].item() - size
            else:
                evicted = 0
            kv_cache["end"].fill_(current_end)
            return evicted
"""


def test_an_entry_written_with_fill_is_a_tensor() -> None:
    module = cst.parse_module(textwrap.dedent(KV_CACHE))
    forward = next(n for n in module.body[1].body.body if isinstance(n, cst.FunctionDef))
    entry = cst.parse_expression('kv_cache["end"]')
    assert used_as_tensor(forward, entry)
    assert not used_as_tensor(forward, cst.parse_expression('kv_cache["k"]'))
    assert not used_as_tensor(forward, cst.parse_expression("kv_cache"))
    assert len(_findings(KV_CACHE)) == 2


def test_an_entry_assigned_a_number_is_no_tensor() -> None:
    code = """
        import torch
        class Counter(torch.nn.Module):
            def forward(self, q, stats):
                n = stats["count"].item()
                stats["count"] = n + 1
                return q * n
    """
    assert _findings(code) == []


# -- a process group's collective returns its tensor ---------------------------------------------

LOSS = """
    class Trainer:
        def train_one_step(self, batch):
            loss = self.model(batch).mean()
            loss.backward()
            avg_loss = loss.detach().clone()
            avg_loss = self.world_group.all_reduce(avg_loss, op=None)
            batch.total_loss += avg_loss.item()
            return batch
"""


def test_a_collective_of_a_tensor_is_a_tensor() -> None:
    messages = _findings(LOSS)
    assert len(messages) == 1 and "avg_loss" in messages[0]


def test_a_collective_of_host_data_stays_silent() -> None:
    code = """
        class Trainer:
            def train_one_step(self, batch):
                counts = self.world_group.all_reduce(batch.counts, op=None)
                batch.total += counts.item()
                return batch
    """
    assert _findings(code) == []


# -- names a function uses as tensors -------------------------------------------------------------

DISPATCH = """
    import torch
    class Dispatcher:
        def token_permutation(self, hidden, max_ind):
            global_indices = self.gather(max_ind)
            mask = (global_indices >= self.lo) & (global_indices <= self.hi)
            local_indices = global_indices.masked_select(mask)
            local_map = mask.nonzero()[:, 0]
            return local_indices, local_map
        def forward(self, hidden, max_ind):
            return self.token_permutation(hidden, max_ind)
"""


def test_a_name_bound_once_and_masked_selected_is_a_tensor() -> None:
    module = cst.parse_module(textwrap.dedent(DISPATCH))
    method = module.body[1].body.body[0]
    assert isinstance(method, cst.FunctionDef)
    assert used_as_tensor(method, cst.parse_expression("global_indices"))
    assert not used_as_tensor(method, cst.parse_expression("hidden"))  # never used as one
    messages = _findings(DISPATCH)
    assert len(messages) == 2, messages
    assert any("masked_select()" in m for m in messages)
    assert any("nonzero()" in m for m in messages)


def test_a_rebound_name_or_a_host_tensor_is_not_proven_by_its_use() -> None:
    code = """
        import torch
        class Dispatcher:
            def forward(self, hidden, counts_cpu):
                ids = self.lookup(hidden)
                ids = self.remap(ids)
                ids.contiguous()
                n = ids.item()
                kept = counts_cpu.masked_select(counts_cpu > 0)
                return kept.tolist(), n
    """
    module = cst.parse_module(textwrap.dedent(code))
    forward = module.body[1].body.body[0]
    assert isinstance(forward, cst.FunctionDef)
    assert not used_as_tensor(forward, cst.parse_expression("ids"))
    assert _findings(code) == []


def test_a_tensor_compared_with_none_is_a_python_bool() -> None:
    code = """
        from typing import Optional
        import torch
        def get_forward(cfg):
            def forward(self, hidden: torch.Tensor, attention_mask: Optional[torch.Tensor] = None):
                if attention_mask != None:
                    hidden = hidden * attention_mask
                if attention_mask == None or hidden.sum() > 0:
                    return hidden
                return hidden
            return forward
    """
    messages = _findings(code)
    assert len(messages) == 1 and "hidden.sum() > 0" in messages[0], messages


def test_the_else_of_a_type_test_on_an_entry_reads_no_tensor() -> None:
    code = """
        import torch
        class SelfAttention(torch.nn.Module):
            def forward(self, q, kv_cache, current_end):
                end = (
                    int(kv_cache["end"].item())
                    if isinstance(kv_cache["end"], torch.Tensor)
                    else int(kv_cache["end"])
                )
                if isinstance(kv_cache["end"], torch.Tensor):
                    kv_cache["end"].fill_(current_end)
                else:
                    kv_cache["end"] = int(kv_cache["end"]) + 1
                return q * end
    """
    messages = _findings(code)
    assert len(messages) == 1 and ".item()" in messages[0], messages


def test_parameter_surgery_by_setattr_and_debugging_modules_are_cold() -> None:
    surgery = """
        import torch
        class Model(torch.nn.Module):
            def forward(self, x):
                self._rescale(self.layer)
                return self.layer(x)
            def _rescale(self, target_layer):
                w = self.dequantize(target_layer.weight.data)
                w.div_(2)
                new = self.quantize(w.to("cpu")).to(w.device)
                setattr(target_layer, "weight", new)
    """
    assert _findings(surgery) == []
    debugger = """
        import torch
        def _serialize(value):
            return value.detach().cpu()
        def attach(model):
            def top_wrapped_forward(*args):
                out = model.forward_orig(*args)
                return _serialize(out)
            model.forward = top_wrapped_forward
    """
    assert _findings(debugger, path="model_debugging_utils.py") == []
    assert len(_findings(debugger, path="model_utils.py")) == 1

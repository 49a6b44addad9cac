"""The causes behind session 21's held-out serving rows (docs/recall.md, "Session 21: held-out
rows, serving (helper recall21a)"): an entry made when it is missing from a mapping the
function is given is made on every call (HTD202), and a `.permute()`/`.movedim()` view of a
value proves it is a tensor, beside the look-alikes that stay silent."""

from __future__ import annotations

from lint_runs import lint


def _rows(code: str, rule_code: str = "HTD202") -> list[int]:
    return [f.start.row for f in lint(code, rule_code)]


# exllamav3 1.4.0's MLA prefill (held-out positive): host lengths kept in the forward's params.
MLA = """
    class MLAttention:
        def forward(self, x, {mapping}):
            cache_seqlens = params["cache_seqlens"]
            host_seqlens = {mapping}.get("_host_seqlens")
            if host_seqlens is None:
                host_seqlens = {mapping}["_host_seqlens"] = cache_seqlens.cpu().tolist()
            return self.attend(x, host_seqlens)
"""


def test_entry_of_a_per_call_mapping_is_made_every_forward() -> None:
    code = MLA.format(mapping="params")
    assert _rows(code) == [7]


def test_local_bound_to_a_per_call_lookup_is_made_every_forward() -> None:
    code = """
        class MLAttention:
            def forward(self, x, params, **kwargs):
                lens = kwargs.get("host_lens")
                if lens is None:
                    lens = params["cache_seqlens"].cpu().tolist()
                return self.attend(x, lens)
    """
    assert _rows(code) == [6]


def test_cache_named_mapping_and_self_cache_stay_cache_misses() -> None:
    named = """
        class MLAttention:
            def forward(self, x, params, seq_cache):
                lens = seq_cache.get("host_lens")
                if lens is None:
                    lens = seq_cache["host_lens"] = params["cache_seqlens"].cpu().tolist()
                return self.attend(x, lens)
    """
    assert _rows(named) == []
    own = """
        class MLAttention:
            def forward(self, x, params):
                lens = self._lens.get(x.shape[1])
                if lens is None:
                    lens = self._lens[x.shape[1]] = params["cache_seqlens"].cpu().tolist()
                return self.attend(x, lens)
    """
    assert _rows(own) == []


def test_host_read_under_a_device_type_test_is_silent() -> None:
    # exllamav3 1.4.9's look-alike: the generator's pinned host copy read with .tolist()
    code = """
        import torch
        class MLAttention:
            def forward(self, x, params):
                src = params.get("cache_seqlens")
                if isinstance(src, torch.Tensor) and src.device.type == "cpu":
                    return self.attend(x, src.tolist())
                return self.attend(x, None)
    """
    assert _rows(code) == []


# exllamav3 0.0.20's MoE torch path (held-out positive) and 0.0.25's fix (its look-alike).
MOE = """
    import torch
    import torch.nn.functional as F
    class SparseMoE:
        def forward(self, y, selected):
            out = torch.zeros_like(y)
            expert_mask = F.one_hot(selected, num_classes=self.n).{view}
            for e in range(self.n):
                idx, top_x = torch.where(expert_mask[e])
                out.index_add_(0, top_x, self.experts[e](y[top_x]))
            return out
"""


def test_where_of_a_permuted_or_moved_mask_per_expert_is_reported() -> None:
    assert _rows(MOE.format(view="permute(2, 1, 0)")) == [9]
    assert _rows(MOE.format(view="movedim(-1, 0)")) == [9]


def test_sorted_slices_per_expert_are_silent() -> None:
    code = """
        import torch
        class SparseMoE:
            def forward(self, y, flat_expert, flat_token):
                order = flat_expert.argsort()
                token_sorted = flat_token[order]
                ptr = [0, 4, 9]
                out = torch.zeros_like(y)
                for e in range(2):
                    top_x = token_sorted[ptr[e] : ptr[e + 1]]
                    out.index_add_(0, top_x, self.experts[e](y[top_x]))
                return out
    """
    assert _rows(code) == []


# exllamav3 1.4.9's fix: the caller's host copy is read when given; the device read is the
# fallback for harnesses (silent), unlike a test of the synced tensor itself (reported).
FALLBACK = """
    import torch
    def host_lens(params, cache_seqlens):
        src = params.get("{tested}")
        if isinstance(src, torch.Tensor) and src.device.type == "cpu":
            return src.tolist()
        else:
            return {synced}.cpu().tolist()
    class MLAttention:
        def forward(self, x, params):
            return self.attend(x, host_lens(params, params["cache_seqlens"]))
"""


def test_device_read_as_the_fallback_of_a_host_copy_is_silent() -> None:
    assert _rows(FALLBACK.format(tested="cache_seqlens_cpu", synced="cache_seqlens")) == []


def test_device_read_of_the_tested_tensor_is_reported() -> None:
    code = """
        import torch
        class MLAttention:
            def forward(self, x, lens: torch.Tensor):
                if lens.device.type == "cpu":
                    host = lens.tolist()
                else:
                    host = lens.cpu().tolist()
                return self.attend(x, host)
    """
    assert _rows(code) == [8]

"""Session 31 (recall31): general causes behind the held-out rows still missed.

- ``self.a, self.b = self._pick(x)``: each return of ``_pick`` (a display) gives the attributes
  their values (``analysis/returned_displays.py``, read by ``frames.ClassAttributes``).
- ``max(a, b)``/``min(a, b)`` compares in Python: ``bool()`` of a tensor comparison, a sync
  (``builtin_walks.compared_values``; HTD201 per row, HTD202 on a hot path).
- A method a subclass inherits unchanged is called through the subclass
  (``call_edges.inheriting_classes``), and a loop of steps makes hot what its callee calls in
  the same module (``step_loops.step_loop_reason``, one home hop).
- A ``device="cpu"`` parameter every call passes a device names the device
  (``targets._callers_name_device``), constructions of a plain class included
  (``constructions.constructed``); a plain class made in a function that does not run once has
  a per-call ``__init__`` (``per_call_objects.made_per_call``).
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path
from typing import Any

import libcst as cst
from lint_runs import lint, lint_project, write_files

from h2dlint.analysis.builtin_walks import compared_values
from h2dlint.analysis.frames import ModuleIndex
from h2dlint.project.call_edges import call_edges, inheriting_classes


def _rows(records: list[dict[str, Any]], code: str) -> list[tuple[str, int]]:
    return sorted(
        (r["filename"].rsplit("/", 1)[-1], r["location"]["row"])
        for r in records
        if r["code"] == code
    )


# -- attributes unpacked from an own method's returns --------------------------------------------


def _attribute_values(code: str, attr: str) -> list[str | None]:
    module = cst.parse_module(textwrap.dedent(code))
    index = ModuleIndex.build(module)
    (klass,) = index.classes.values()
    return [
        None if value is None else module.code_for_node(value)
        for value, _ in index.attributes.get(klass).get(attr, [])
    ]


PICKING = """
    import torch

    class Beam:
        def _pick(self, log_probs):
            scores, ids = torch.topk(log_probs, 2)
            if self.greedy:
                return scores[:, :1], ids[:, :1]
            return scores, ids

        def advance(self, log_probs):
            self.scores, self.ids = self._pick(log_probs)
"""


def test_each_returned_display_gives_an_unpacked_attribute_a_value() -> None:
    assert _attribute_values(PICKING, "scores") == ["scores[:, :1]", "scores"]
    assert _attribute_values(PICKING, "ids") == ["ids[:, :1]", "ids"]


def test_a_return_of_anything_but_a_display_leaves_the_attribute_unknown() -> None:
    code = PICKING.replace("return scores, ids", "return self.cache")
    assert _attribute_values(code, "scores") == [None]
    code = PICKING.replace("self._pick(log_probs)", "self.other._pick(log_probs)")
    assert _attribute_values(code, "scores") == [None]


# -- max()/min() of values compared in Python ------------------------------------------------------


def _call(code: str) -> cst.Call:
    expression = cst.parse_expression(code)
    assert isinstance(expression, cst.Call)
    return expression


def test_compared_values_are_the_operands_of_a_builtin_comparison() -> None:
    assert [cst.Module([]).code_for_node(v) for v in compared_values(_call("max(s, b[i], 0)"))] == [
        "s",
        "b[i]",
    ]
    assert compared_values(_call("max(xs)")) == []  # a walk: builtin_walk's
    assert compared_values(_call("max(a, b, key=len)")) == []
    assert compared_values(_call("min(*pair)")) == []
    assert compared_values(_call("torch.max(a, b)")) == []
    # a helper's result may be a Python number already: ``max(eps, self._rms(p))``
    (eps,) = compared_values(_call("max(eps, self._rms(p), norm(q))"))
    assert isinstance(eps, cst.Name) and eps.value == "eps"


def test_max_of_a_device_row_is_a_read_per_row_and_of_host_rows_none() -> None:
    code = """
        import torch

        def best_rows(scores: torch.Tensor, best: list):
            scores = scores.cuda()
            for i in range(len(best)):
                best[i] = max(scores[i], best[i])
            return best
    """
    assert [(f.code, f.start.row) for f in lint(code, "HTD201")] == [("HTD201", 7)]
    host = code.replace("scores = scores.cuda()", "scores = scores.cuda().tolist()")
    assert lint(host, "HTD201") == []


def test_max_of_a_device_value_on_a_hot_path_is_a_sync() -> None:
    code = """
        import torch

        class M(torch.nn.Module):
            def forward(self, x):
                loss = x.cuda().mean()
                self.best = min(self.best, loss)
                return loss
    """
    assert [(f.code, f.start.row) for f in lint(code, "HTD202")] == [("HTD202", 7)]
    counts = code.replace("min(self.best, loss)", "min(self.best, x.shape[0])")
    assert lint(counts, "HTD202") == []


# -- methods inherited through a subclass; a step loop's helpers ----------------------------------

SEARCH = """
    import torch

    class SearchBase:
        def initialize(self, device):
            self.topk_scores = torch.empty((4, 2), device=device)

        def _pick(self, log_probs):
            topk_scores, topk_ids = torch.topk(log_probs, 2, dim=-1)
            return topk_scores, topk_ids

        def advance(self, log_probs):
            self.topk_scores, self.topk_ids = self._pick(log_probs)

        def rows_done(self, i, finished, best):
            for j in [k for k, fin in enumerate(finished[i]) if fin]:
                s = self.topk_scores[i, j] / 2
                best[i] = max(s, best[i])
            return best

        def update_finished(self, finished, best):
            return [i for i in range(len(finished)) if self.rows_done(i, finished, best)]

    class Search(SearchBase):
        def initialize(self, device):
            super().initialize(device)
"""
DRIVER = """
    from pkg.search import Search

    class Driver:
        def run(self, batch):
            strategy = Search()
            return self._decode(batch, strategy)

        def _decode(self, batch, strategy):
            for step in range(self.max_length):
                log_probs = self.model.decoder(batch)
                strategy.advance(log_probs)
                strategy.update_finished(self.finished, self.best)
"""


def test_inheriting_classes_are_the_subclasses_that_keep_the_method() -> None:
    raw = call_edges(ast.parse(textwrap.dedent(SEARCH)))
    assert inheriting_classes(raw, "SearchBase", "update_finished") == ("Search",)
    assert inheriting_classes(raw, "SearchBase", "initialize") == ()


def test_a_per_row_read_in_a_helper_of_an_inherited_step_method(tmp_path: Path) -> None:
    files = {"pkg/__init__.py": "", "pkg/search.py": SEARCH, "pkg/driver.py": DRIVER}
    write_files(tmp_path, files)
    assert _rows(lint_project(tmp_path, "HTD201"), "HTD201") == [("search.py", 18)]
    # the subclass overrides the method: the driver's calls are not the base's
    override = "\n        def update_finished(self, finished, best):\n            return []\n"
    overridden = SEARCH + override
    write_files(tmp_path, {**files, "pkg/search.py": overridden})
    assert _rows(lint_project(tmp_path, "HTD201"), "HTD201") == []


# -- a cpu default no call takes; masks made per call ---------------------------------------------

MASKS = """
    import torch

    class CausalMask:
        def __init__(self, B, L, device="cpu"):
            self.mask = torch.ones(B, L, L, dtype=torch.bool).triu(1).to(device)

    class Attention(torch.nn.Module):
        def forward(self, q):
            return CausalMask(q.shape[0], q.shape[1], device=q.device).mask
"""


def test_a_mask_made_in_every_forward_with_the_inputs_device(tmp_path: Path) -> None:
    assert [(f.code, f.start.row) for f in lint(MASKS, "HTD301")] == [("HTD301", 6)]


def test_a_mask_one_construction_leaves_on_the_host_is_unproven() -> None:
    code = MASKS + "\n    HOST_MASK = CausalMask(1, 4)\n"
    assert lint(code, "HTD301") == []


def test_a_mask_made_once_by_its_owner_runs_once() -> None:
    code = MASKS.replace(
        """    def forward(self, q):
            return CausalMask(q.shape[0], q.shape[1], device=q.device).mask""",
        """    def __init__(self, q):
            super().__init__()
            self.causal = CausalMask(q.shape[0], q.shape[1], device=q.device)""",
    )
    assert lint(code, "HTD301") == []


def test_a_plain_class_called_from_another_module_must_pass_a_device(tmp_path: Path) -> None:
    user = """
        from pkg.masks import CausalMask

        def host_mask(n):
            return CausalMask(1, n).mask
    """
    write_files(tmp_path, {"pkg/__init__.py": "", "pkg/masks.py": MASKS, "pkg/user.py": user})
    assert _rows(lint_project(tmp_path, "HTD301"), "HTD301") == []


def test_a_construction_elsewhere_passing_an_unknown_value_is_asked_there(tmp_path: Path) -> None:
    user = """
        from pkg.masks import CausalMask

        def make(q, dev):
            return CausalMask(q.shape[0], q.shape[1], device=dev).mask
    """
    write_files(tmp_path, {"pkg/__init__.py": "", "pkg/masks.py": MASKS, "pkg/user.py": user})
    records = lint_project(tmp_path, "HTD301")
    assert not [r for r in records if r["code"].startswith("E9")]  # its argument is pending
    # another module's argument counts only as a device it can place there (code ``d``)
    assert _rows(records, "HTD301") == []


def test_a_mask_made_on_a_cache_miss_runs_once_per_key() -> None:
    code = MASKS.replace(
        """    def forward(self, q):
            return CausalMask(q.shape[0], q.shape[1], device=q.device).mask""",
        """    def forward(self, q):
            key = (q.shape[0], q.shape[1])
            if key not in CACHE:
                CACHE[key] = CausalMask(q.shape[0], q.shape[1], device=q.device)
            return CACHE[key].mask""",
    )
    assert lint("CACHE = {}\n" + textwrap.dedent(code), "HTD301") == []

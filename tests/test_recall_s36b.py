"""Session 36 (recall36b): a mixin's method called through ``self`` by its subclasses in other
modules is hot through their hot callers (``call_edges.importing_subclasses``): LLaVA's
``LlavaLlamaForCausalLM(LlamaForCausalLM, LlavaMetaForCausalLM).forward`` calls the mixin's
``prepare_inputs_labels_for_multimodal``, which searches each sample's image tokens on the host.
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

from lint_runs import lint_project, write_files

from h2dlint.project.call_edges import call_edges, importing_subclasses

ARCH = """
    import torch

    IMAGE_TOKEN_INDEX = -200

    class MetaForCausalLM:
        def prepare_multimodal(self, input_ids, images):
            out = []
            for cur_input_ids in input_ids:
                where = torch.where(cur_input_ids == IMAGE_TOKEN_INDEX)[0].tolist()
                out.append(where)
            return out
"""
MODEL = """
    from transformers import LlamaForCausalLM

    from .arch import MetaForCausalLM

    class LlavaForCausalLM(LlamaForCausalLM, MetaForCausalLM):
        def forward(self, input_ids, images):
            return self.prepare_multimodal(input_ids, images)

    class Tuned(LlavaForCausalLM):
        pass
"""


def _rows(root: Path) -> list[tuple[str, int]]:
    # the lines reported (since session 37 the ids are proven tensors by their comparison inside
    # ``torch.where``, so its nonzero is reported beside the ``.tolist()``, on the same line)
    return sorted(
        {
            (r["filename"].rsplit("/", 1)[-1], r["location"]["row"])
            for r in lint_project(root, "HTD202")
        }
    )


def test_importing_subclasses_keep_the_mixins_method() -> None:
    raw = call_edges(ast.parse(textwrap.dedent(MODEL)))

    def absolute(name: str) -> str:
        return "pkg.arch.MetaForCausalLM" if name == ".arch.MetaForCausalLM" else name

    found = importing_subclasses(raw, {"pkg.arch.MetaForCausalLM"}, "prepare_multimodal", absolute)
    assert found == ("LlavaForCausalLM", "Tuned")
    assert importing_subclasses(raw, {"pkg.arch.MetaForCausalLM"}, "forward", absolute) == ()
    assert (
        importing_subclasses(raw, {"pkg.other.MetaForCausalLM"}, "prepare_multimodal", absolute)
        == ()
    )


def test_a_mixins_method_called_from_a_subclass_forward_elsewhere(tmp_path: Path) -> None:
    files = {"pkg/__init__.py": "", "pkg/arch.py": ARCH, "pkg/model.py": MODEL}
    write_files(tmp_path, files)
    assert _rows(tmp_path) == [("arch.py", 10)]


def test_a_mixins_method_the_subclass_overrides_or_runs_once(tmp_path: Path) -> None:
    # the subclass's own method is what its forward calls: the mixin's is not hot through it
    own = "        def prepare_multimodal(self, input_ids, images):\n            return []\n\n"
    override = MODEL.replace("    class Tuned", own + "    class Tuned")
    files = {"pkg/__init__.py": "", "pkg/arch.py": ARCH, "pkg/model.py": override}
    write_files(tmp_path, files)
    assert _rows(tmp_path) == []
    # the subclass calls it once, at load: nothing per step
    once = MODEL.replace(
        "def forward(self, input_ids, images):", "def __init__(self, input_ids, images):"
    )
    write_files(tmp_path, {**files, "pkg/model.py": once})
    assert _rows(tmp_path) == []

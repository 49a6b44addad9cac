"""Session 38 (placement38): a torch module the project never moves keeps its tensors on the
host (``analysis/host_only_modules.py``). The proof reads every module that names the class,
so it is checked on small projects written to disk."""

from __future__ import annotations

from pathlib import Path

from lint_runs import lint, lint_project, write_files

CHECKER = """
from functools import lru_cache

import torch
from transformers import PreTrainedModel


class SafetyChecker(PreTrainedModel):
    def forward(self, clip_input):
        embeds = self.vision_model(clip_input)[1]
        scores = (embeds @ self.concept_embeds.T).cpu().numpy()
        flags = []
        for i in range(len(scores[0])):
            flags.append(scores[0][i] > self.concept_weights[i].item())
        return flags


@lru_cache
def safety_models():
    extractor = load_extractor()
    checker = SafetyChecker.from_pretrained("org/safety-checker"{kwargs})
    checker.eval()
    return extractor, checker
"""

CALLER = """
import torch

from pkg.checker import safety_models


def check(image):
    extractor, checker = safety_models()
    pixels = extractor([image], return_tensors="pt").pixel_values
    {use}
    return checker(pixels)
"""


def _reported(
    root: Path, kwargs: str = "", use: str = "pass", more: dict[str, str] | None = None
) -> list[tuple[str, int]]:
    files = {
        "pkg/__init__.py": "",
        "pkg/checker.py": CHECKER.replace("{kwargs}", kwargs),
        "pkg/caller.py": CALLER.replace("{use}", use),
        **(more or {}),
    }
    write_files(root, files)
    found = lint_project(root, "HTD201", "HTD202", target="pkg")
    return sorted((f["code"], f["location"]["row"]) for f in found)


def test_a_checker_loaded_and_never_moved_holds_host_tensors(tmp_path: Path) -> None:
    # Loaded in a cached loader, returned in a tuple, unpacked by its only caller and run.
    assert _reported(tmp_path) == []


def test_a_checker_moved_or_handed_on_stays_reported(tmp_path: Path) -> None:
    both = [("HTD201", 14), ("HTD202", 11)]
    # Moved by the caller, loaded onto a device, or handed to something that may move it.
    assert _reported(tmp_path / "a", use="checker.to(torch.device('cuda'))") == both
    assert _reported(tmp_path / "b", kwargs=', device_map="auto"') == both
    assert _reported(tmp_path / "c", kwargs=", **options") == both
    assert _reported(tmp_path / "d", use="pipe = Pipeline(checker)") == both
    assert _reported(tmp_path / "e", use="self.checker = checker") == both
    assert _reported(tmp_path / "j", use="checker.vision_model.cuda()") == both
    # A second caller that moves what the loader returns.
    other = "from pkg.checker import safety_models\nmodel = safety_models()[1].cuda()\n"
    assert _reported(tmp_path / "f", more={"pkg/other.py": other}) == both
    # A subclass: its objects are the checker's too, and not followed.
    sub = "from pkg.checker import SafetyChecker\nclass Big(SafetyChecker):\n    pass\n"
    assert _reported(tmp_path / "g", more={"pkg/sub.py": sub}) == both
    # Exported by the package: its users build and move it.
    export = "from pkg.checker import SafetyChecker\n"
    assert _reported(tmp_path / "h", more={"pkg/__init__.py": export}) == both
    # A default device set anywhere in the project.
    default = "import torch\ntorch.set_default_device('cuda')\n"
    assert _reported(tmp_path / "i", more={"pkg/boot.py": default}) == both


LOADING_CALL = """
from transformers import AutoModelForSeq2SeqLM, AutoTokenizer


class SafetyChecker:
    def __call__(self, text, keys):
        tokenizer = AutoTokenizer.from_pretrained("org/checker")
        model = AutoModelForSeq2SeqLM.from_pretrained("org/checker")
        ids = tokenizer(text, return_tensors="pt").input_ids
        outputs = model.generate(ids, output_scores=True, return_dict_in_generate=True)
        scores = {}
        for k, i in zip(keys, range(3, 20, 2)):
            scores[k] = {step}
        return scores
"""


def test_a_call_that_loads_its_model_runs_no_step_unless_a_loop_runs_a_model() -> None:
    # The loop only reads rows of the output the loaded model made: once per request.
    read = "round(outputs.scores[i][0, :2].softmax(0)[0].item(), 5)"
    assert lint(LOADING_CALL.replace("{step}", read), "HTD202") == []
    # A loop that may run a model: the loaded one, the object's own, a local alias.
    for call in ("model(ids)", "self.scorer(ids)", "scorer(ids)"):
        step = f"({read}, {call})"
        assert len(lint(LOADING_CALL.replace("{step}", step), "HTD202")) == 1, call

"""Hot paths (h2dlint/analysis/hot_paths.py): which functions run per step or per request."""

from __future__ import annotations

from typing import Any

import libcst as cst
import pytest
from hot_path_reasons import FunctionsByName, Options, reasons

from h2dlint.analysis.hot_names import HOT_ENTRY_POINTS
from h2dlint.analysis.hot_paths import HotPaths
from h2dlint.context import FileContext
from h2dlint.walk import visit_read_only

MODULE = """
import torch

class Attention(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.table = self._table()

    def _table(self):
        return torch.arange(4)

    def forward(self, x):
        if self.cache is None:
            self.cache = self._build_cache(x)
        return self._attend(x)

    def _attend(self, x):
        return scale(self._mask(x))

    def _mask(self, x):
        return x

    def _build_cache(self, x):
        return x

    def unused(self, x):
        return x


def scale(x):
    return helper(x)


def helper(x):
    def inner(y):
        return y
    return inner(x)


def unrelated(x):
    return x


class Sampler:
    def __call__(self, logits):
        return logits

    def sample(self, logits):
        return logits


def __call__(x):
    return x
"""


def test_entry_points_and_what_they_reach() -> None:
    found = reasons(MODULE)
    assert found["Attention.forward"] == HOT_ENTRY_POINTS["forward"]
    assert found["Attention._attend"] == "called from `Attention.forward()`"
    assert found["Attention._mask"] == (
        "called from `Attention.forward()` through `Attention._attend()`"
    )
    assert found["scale"] is not None and "Attention.forward" in found["scale"]
    assert found["helper"] is not None
    assert found["helper.inner"] == found["helper"]  # a closure is as hot as its function
    assert found["Sampler.__call__"] == HOT_ENTRY_POINTS["__call__"]
    assert found["Sampler.sample"] == HOT_ENTRY_POINTS["sample"]


def test_cold_code_is_never_hot() -> None:
    found = reasons(MODULE)
    assert found["Attention.__init__"] is None
    assert found["Attention._table"] is None  # only __init__ calls it
    assert found["Attention._build_cache"] is None  # only under a run-once guard
    assert found["Attention.unused"] is None
    assert found["unrelated"] is None
    assert found["__call__"] is None  # a module-level __call__ is no call of an object


def test_configured_hot_and_cold_functions() -> None:
    options: Options = (
        ("hot-functions", ("unrelated",)),
        ("cold-functions", ("Attention._attend", "*.sample")),
    )
    found = reasons(MODULE, options)
    assert found["unrelated"] == "`unrelated()` is configured hot"
    assert found["Attention._attend"] is None
    assert found["Attention._mask"] is None  # hot only through a cold function
    assert found["scale"] is None
    assert found["Sampler.sample"] is None
    assert found["Attention.forward"] is not None


def test_the_project_index_marks_functions_hot_across_modules(tmp_path: Any) -> None:
    from h2dlint.project.index import ProjectIndex, install
    from h2dlint.project.layout import build_layout

    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    code = "def helper(x):\n    return inner(x)\n\ndef inner(x):\n    return x\n"
    (package / "utils.py").write_text(code)
    (package / "model.py").write_text(
        "from .utils import helper\n\n"
        "class Model:\n    def forward(self, x):\n        return helper(x)\n"
    )
    path = str(package / "utils.py")
    assert reasons(code, path=path) == {"helper": None, "inner": None}
    install(ProjectIndex(build_layout([path])))
    try:
        found = reasons(code, path=path)
    finally:
        install(None)
    assert found["helper"] == "called from `Model.forward()` in pkg.model"
    # What it calls in its own module is hot through it: the path crosses modules once.
    assert found["inner"] == (
        "called from `helper()` in pkg.utils, called from `Model.forward()` in pkg.model"
    )


def test_methods_are_hot_through_an_instance_another_module_constructs(tmp_path: Any) -> None:
    from h2dlint.project.index import ProjectIndex, install
    from h2dlint.project.layout import build_layout

    package = tmp_path / "eng"
    package.mkdir()
    (package / "__init__.py").write_text("")
    code = (
        "class InputBatch:\n"
        "    def add_request(self, req):\n        return req\n"
        "    def debug_dump(self):\n        return self\n"
        "    def __init__(self):\n        self.add_request(None)\n"
    )
    (package / "batch.py").write_text(code)
    (package / "runner.py").write_text(
        "from eng.batch import InputBatch\n\n"
        "class Runner:\n"
        "    def __init__(self):\n        self.batch = InputBatch()\n"
        "    def _update_states(self, reqs):\n"
        "        for r in reqs:\n            self.batch.add_request(r)\n"
        "    def execute_model(self, out):\n        self._update_states(out)\n"
        "    def load_model(self):\n        self.batch.debug_dump()\n"
    )
    # A step that calls `.add_request(` on something it does not hold as an InputBatch (it
    # neither constructs nor annotates one) is no caller of InputBatch.add_request.
    (package / "other.py").write_text(
        "from eng.batch import InputBatch\n\ndef step(queue):\n    queue.add_request(InputBatch)\n"
    )
    path = str(package / "batch.py")
    install(ProjectIndex(build_layout([path])))
    try:
        found = reasons(code, path=path)
    finally:
        install(None)
    assert found["InputBatch.add_request"] == (
        "called from `Runner._update_states()` in eng.runner, "
        "called from `Runner.execute_model()` in eng.runner"
    )
    assert found["InputBatch.debug_dump"] is None  # only a run-once method calls it
    assert found["InputBatch.__init__"] is None


def test_a_path_inside_one_module_is_left_to_the_file_analysis(tmp_path: Any) -> None:
    from h2dlint.project.index import ProjectIndex, install
    from h2dlint.project.layout import build_layout

    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    # forward calls the dump only every 100 steps: the file's analysis sees the guard, and
    # the project must not make the dump hot through the same module's forward.
    code = (
        "class Model:\n"
        "    def forward(self, x, step):\n"
        "        if step % 100 == 0:\n            self.dump(x)\n        return x\n"
        "    def dump(self, x):\n        return x\n"
    )
    (package / "model.py").write_text(code)
    path = str(package / "model.py")
    install(ProjectIndex(build_layout([path])))
    try:
        found = reasons(code, path=path)
    finally:
        install(None)
    assert found["Model.dump"] is None


def _reasons_in_project(tmp_path: Any, files: dict[str, str], checked: str) -> dict[str, Any]:
    from h2dlint.project.index import ProjectIndex, install
    from h2dlint.project.layout import build_layout

    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for name, text in files.items():
        (package / name).write_text(text)
    path = str(package / checked)
    install(ProjectIndex(build_layout([path])))
    try:
        return reasons(files[checked], path=path)
    finally:
        install(None)


DRAFTER = """
class Proposer:
    def propose(self, ids):
        return ids

    def load(self):
        return None


class Ngram:
    def propose(self, ids):
        return ids
"""


@pytest.mark.parametrize(
    "runner",
    [
        # an attribute assigned an instance in __init__, one of two classes by branch
        "from .drafter import Ngram, Proposer\n"
        "class Runner:\n"
        "    def __init__(self, fast):\n"
        "        if fast:\n"
        "            self.drafter = Ngram()\n"
        "        else:\n"
        "            self.drafter = Proposer()\n"
        "        self.drafter.load()\n"
        "    def execute_model(self, ids):\n"
        "        return self.drafter.propose(ids)\n",
        # a dataclass field, through a method of the runner that its step calls
        "from dataclasses import dataclass\n"
        "from pkg import drafter\n"
        "@dataclass\n"
        "class Runner:\n"
        "    drafter: 'drafter.Proposer | None' = None\n"
        "    def execute_model(self, ids):\n"
        "        return self._propose(ids)\n"
        "    def _propose(self, ids):\n"
        "        return self.drafter.propose(ids)\n",
        # a parameter annotated with the class, stored on self by the constructor
        "from typing import Optional\n"
        "from .drafter import Proposer\n"
        "class Runner:\n"
        "    def __init__(self, drafter: Optional[Proposer]):\n"
        "        self.drafter = drafter\n"
        "    def execute_model(self, ids):\n"
        "        return self.drafter.propose(ids)\n",
        # a parameter of a hot function annotated with the class
        "from .drafter import Proposer\n"
        "def execute_model(drafter: Proposer, ids):\n"
        "    return drafter.propose(ids)\n",
    ],
)
def test_methods_called_through_objects_of_their_class_are_hot(tmp_path: Any, runner: str) -> None:
    found = _reasons_in_project(
        tmp_path, {"drafter.py": DRAFTER, "runner.py": runner}, "drafter.py"
    )
    assert found["Proposer.propose"] is not None
    assert "execute_model()` in pkg.runner" in found["Proposer.propose"]
    assert found["Proposer.load"] is None  # called from __init__ only


@pytest.mark.parametrize(
    "runner",
    [
        # an object of another class of the same name and method
        "class Proposer:\n"
        "    def propose(self, ids):\n"
        "        return ids\n"
        "class Runner:\n"
        "    def __init__(self):\n"
        "        self.drafter = Proposer()\n"
        "    def execute_model(self, ids):\n"
        "        return self.drafter.propose(ids)\n",
        # an object of unknown class, and one made by a function
        "from .drafter import make\n"
        "class Runner:\n"
        "    def __init__(self, drafter):\n"
        "        self.drafter = drafter\n"
        "        self.other = make()\n"
        "    def execute_model(self, ids):\n"
        "        return self.drafter.propose(ids) + self.other.propose(ids)\n",
        # called only from run-once code
        "from .drafter import Proposer\n"
        "class Runner:\n"
        "    def __init__(self):\n"
        "        self.drafter = Proposer()\n"
        "        self.drafter.propose([])\n",
    ],
)
def test_methods_of_objects_of_unknown_or_other_classes_are_not_hot(
    tmp_path: Any, runner: str
) -> None:
    found = _reasons_in_project(
        tmp_path, {"drafter.py": DRAFTER, "runner.py": runner}, "drafter.py"
    )
    assert found["Proposer.propose"] is None
    assert found["Ngram.propose"] is None


@pytest.mark.parametrize("name", ["step", "training_step", "execute_model", "schedule"])
def test_step_like_functions_are_hot_at_top_level_too(name: str) -> None:
    found = reasons(f"def {name}(batch):\n    return batch\n")
    assert found[name] == HOT_ENTRY_POINTS[name]


def test_a_pipeline_call_is_hot_only_in_its_loops() -> None:
    code = (
        "import torch\n"
        "class ImagePipeline:\n"
        "    def __call__(self, prompt, steps):\n"
        "        embeds = self.encode_prompt(prompt)\n"
        "        for t in steps:\n"
        "            embeds = self.denoise(embeds, t)\n"
        "        return embeds\n"
        "    def encode_prompt(self, prompt):\n"
        "        return prompt\n"
        "    def denoise(self, x, t):\n"
        "        return x\n"
    )
    module = cst.parse_module(code)
    context = FileContext("m.py", code, module, {})
    functions = FunctionsByName()
    visit_read_only(module, functions)
    hot = HotPaths.of(context)
    found = functions.found
    assert hot.why_hot(found["ImagePipeline.encode_prompt"]) is None  # once per request
    assert hot.why_hot(found["ImagePipeline.denoise"]) == "called from `ImagePipeline.__call__()`"
    call = found["ImagePipeline.__call__"]
    body = call.body
    assert isinstance(body, cst.IndentedBlock)
    first, loop = body.body[0], body.body[1]
    assert hot.why_hot_at([module, call, body, first]) is None
    assert hot.why_hot_at([module, call, body, loop]) is not None


@pytest.mark.parametrize(
    ("name", "hot"),
    [
        ("update_step_context", True),
        ("decode_step", True),
        ("_optimizer_step", True),
        ("forward_decode", True),
        ("_attn_forward", True),
        ("pre_process_fwd_hook", True),
        ("_prepare_for_flash_attn_varlen", True),
        ("set_step", False),
        ("get_attention_backend", False),
        ("num_steps", False),
        ("register_forward_hook", False),
        ("stepper", False),
        ("prepare", False),
    ],
)
def test_names_that_say_step_or_forward_are_hot(name: str, hot: bool) -> None:
    found = reasons(f"def {name}(x):\n    return x\n")
    assert (found[name] is not None) is hot, found[name]


def test_attention_words_make_only_top_level_functions_hot() -> None:
    found = reasons("class Backend:\n    def attention_mask(self, x):\n        return x\n")
    assert found["Backend.attention_mask"] is None


def test_test_modules_have_no_hot_functions() -> None:
    code = "def forward_step(model, batch):\n    return model(batch)\n"
    assert reasons(code, path="pkg/test_utils/test_sharding.py")["forward_step"] is None
    assert reasons(code, path="test_model.py")["forward_step"] is None
    # pytest's other default name (session 32: torchft's process_group_test.py)
    assert reasons(code, path="pkg/process_group_test.py")["forward_step"] is None
    assert reasons(code, path="pkg/model.py")["forward_step"] is not None
    # a name that only ends in "test" is no test module
    assert reasons(code, path="pkg/latest.py")["forward_step"] is not None
    assert reasons(code, path="pkg/contest.py")["forward_step"] is not None


def test_a_pipeline_block_is_hot_only_in_loops_that_run_a_model() -> None:
    code = (
        "class EncoderStep(ModularPipelineBlocks):\n"
        "    def __call__(self, components, state):\n"
        "        for image in state.images:\n"
        "            self.encode(image)\n"
        "        for i in range(state.max_tokens):\n"
        "            self.pick(components.language_model.lm_head(state.hidden))\n"
        "        return state\n"
        "    def encode(self, image):\n"
        "        return image\n"
        "    def pick(self, logits):\n"
        "        return logits\n"
    )
    found = reasons(code)
    assert found["EncoderStep.encode"] is None  # a loop over inputs: once per request
    assert found["EncoderStep.pick"] == "called from `EncoderStep.__call__()`"


@pytest.mark.parametrize(
    ("cls", "method", "hot"),
    [
        # the state a serving engine builds for every step, by its class's name
        ("StepContext", "new", True),
        ("ForwardBatch", "init_new", True),
        ("ScheduleBatch", "prepare_for_decode", True),
        ("InputBatch", "from_requests", True),
        ("GatheredDPForwardMeta", "from_values", True),
        # pipeline blocks named `...Step` run once per request; models named for a step; other
        # methods of per-step state; state classes without a step word
        ("FluxPrepareLatentsStep", "prepare_latents", False),
        ("AceStepPipeline", "prepare_latents", False),
        ("StepContext", "get_block_offsets", False),
        ("StepContext", "set_cache", False),
        ("ResponseTokenBatch", "from_rollout", False),
        ("BatchNorm", "create", False),
    ],
)
def test_builders_of_per_step_state_are_hot(cls: str, method: str, hot: bool) -> None:
    code = f"class {cls}:\n    @classmethod\n    def {method}(cls, x):\n        return x\n"
    assert (reasons(code)[f"{cls}.{method}"] is not None) is hot


def test_methods_called_through_attributes_holding_a_class_of_the_module_are_hot() -> None:
    code = (
        "class Batch:\n"
        "    def refresh(self):\n"
        "        return 1\n"
        "    def reset(self):\n"
        "        return 0\n"
        "class Engine:\n"
        "    def __init__(self, other):\n"
        "        self.batch = Batch()\n"
        "        self.other = other\n"
        "        self.batch.reset()\n"
        "    def step(self):\n"
        "        self.other.reset()\n"
        "        return self.batch.refresh()\n"
    )
    found = reasons(code)
    assert found["Batch.refresh"] == "called from `Engine.step()`"
    assert found["Batch.reset"] is None  # from __init__, and through an object of unknown class


@pytest.mark.parametrize(
    "caller",
    [
        # a logger reads values to show them: nothing is hot through it
        "from .drafter import Proposer\n"
        "class Connector:\n"
        "    def __init__(self):\n"
        "        self.drafter = Proposer()\n"
        "    def update_train_step_metrics(self):\n"
        "        self.log_metrics()\n"
        "    def log_metrics(self):\n"
        "        return self.drafter.propose([])\n",
        # a block of a modular pipeline runs its __call__ once per request
        "from .drafter import Proposer\n"
        "class PrepareStep(ModularPipelineBlocks):\n"
        "    def __init__(self):\n"
        "        self.drafter = Proposer()\n"
        "    def __call__(self, ids):\n"
        "        return self.drafter.propose(ids)\n",
    ],
)
def test_no_method_is_hot_through_loggers_or_per_request_calls(tmp_path: Any, caller: str) -> None:
    found = _reasons_in_project(
        tmp_path, {"drafter.py": DRAFTER, "runner.py": caller}, "drafter.py"
    )
    assert found["Proposer.propose"] is None

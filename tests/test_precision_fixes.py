"""The analysis facts behind the false alarms found by the precision triage of serving code
(docs/precision.md): each look-alike the analysis must now tell apart, and its true twin."""

from __future__ import annotations

import textwrap

import libcst as cst

from h2dlint.analysis.device_branches import holds_on_cuda, only_off_cuda
from h2dlint.analysis.hot_paths import HotPaths
from h2dlint.analysis.loop_body import first_pass_branch, occasional, saving_code
from h2dlint.analysis.memo_methods import memoised, memoised_by_key, rewrites_parameters
from h2dlint.analysis.syncs import row_loop
from h2dlint.context import FileContext


def _function(code: str) -> cst.FunctionDef:
    module = cst.parse_module(textwrap.dedent(code))
    function = module.body[0]
    assert isinstance(function, cst.FunctionDef)
    return function


def _if(code: str) -> cst.If:
    statement = cst.parse_module(textwrap.dedent(code)).body[0]
    assert isinstance(statement, cst.If)
    return statement


def test_memoised_by_hand() -> None:
    assert memoised(
        _function(
            """
            def order(self):
                cached = getattr(self, "order_", None)
                total = self.g_idx.shape[0]
                if cached is not None and cached.numel() == total:
                    return cached
                self.order_ = compute()
                return self.order_
            """
        )
    )
    assert memoised(
        _function(
            """
            def table(self):
                if self._table is not None:
                    return self._table
                self._table = compute()
                return self._table
            """
        )
    )


def test_not_memoised() -> None:
    # returns a kept value but never keeps what it computes
    assert not memoised(
        _function(
            """
            def order(self):
                if self.order_ is not None:
                    return self.order_
                return compute()
            """
        )
    )
    # work before the guard: not "first"
    assert not memoised(
        _function(
            """
            def order(self, x):
                for row in x:
                    use(row)
                if self.order_ is not None:
                    return self.order_
                self.order_ = compute()
            """
        )
    )


def test_first_pass_branch() -> None:
    assert first_pass_branch(_if("if prefill:\n    prefill = False\n    x = 1\n"))
    assert first_pass_branch(_if("if not done:\n    done = True\n"))
    assert not first_pass_branch(_if("if prefill:\n    x = 1\n"))
    assert not first_pass_branch(_if("if self.ready:\n    self.ready = False\n"))
    assert not first_pass_branch(_if("if flag:\n    other = False\n"))


def test_chunked_range_is_no_row_loop() -> None:
    target = cst.Name("i")
    chunked = cst.parse_expression("range(0, n, chunk)")
    strided = cst.parse_expression("range(0, n, 2)")
    plain = cst.parse_expression("range(n)")
    assert row_loop(chunked, target) is None
    assert row_loop(strided, target) is not None
    assert row_loop(plain, target) is not None


def test_rewrites_parameters() -> None:
    assert rewrites_parameters(
        _function(
            """
            def rotate(layer, Q):
                for W in [layer.q_proj, layer.k_proj]:
                    W.weight.data = W.weight.data @ Q
            """
        )
    )
    assert not rewrites_parameters(
        _function(
            """
            def forward(self, x):
                self.cache.data = x
                return x @ self.weight.data
            """
        )
    )


def test_closures_of_a_pipeline_call_are_hot_only_where_its_loops_call_them() -> None:
    code = (
        "class ImagePipeline:\n"
        "    def __call__(self, x, steps):\n"
        "        def step(x, t):\n"
        "            return x\n"
        "        def to_numpy(x):\n"
        "            return x\n"
        "        for t in steps:\n"
        "            x = step(x, t)\n"
        "        return to_numpy(x)\n"
    )
    module = cst.parse_module(code)
    context = FileContext("m.py", code, module, {})
    hot = HotPaths.of(context)
    cls = module.body[0]
    assert isinstance(cls, cst.ClassDef) and isinstance(cls.body, cst.IndentedBlock)
    call = cls.body.body[0]
    assert isinstance(call, cst.FunctionDef) and isinstance(call.body, cst.IndentedBlock)
    step, to_numpy = call.body.body[0], call.body.body[1]
    assert isinstance(step, cst.FunctionDef) and isinstance(to_numpy, cst.FunctionDef)
    assert hot.why_hot_at([module, cls, call, call.body, step, step.body]) is not None
    assert hot.why_hot_at([module, cls, call, call.body, to_numpy, to_numpy.body]) is None


def test_model_surgery_is_cold_but_a_forward_that_reprojects_its_weights_is_not() -> None:
    code = (
        "class M:\n"
        "    def forward(self, x):\n"
        "        self.delta.weight.data = self.project()\n"
        "        return x\n"
        "    def project(self):\n"
        "        return self.delta.weight.clone()\n"
        "def rotate_attention_output(layer, Q):\n"
        "    layer.o_proj.weight.data = layer.o_proj.weight.data @ Q\n"
    )
    module = cst.parse_module(code)
    hot = HotPaths.of(FileContext("m.py", code, module, {}))
    cls, rotate = module.body[0], module.body[1]
    assert isinstance(cls, cst.ClassDef) and isinstance(cls.body, cst.IndentedBlock)
    forward, project = cls.body.body[0], cls.body.body[1]
    assert isinstance(forward, cst.FunctionDef) and isinstance(project, cst.FunctionDef)
    assert isinstance(rotate, cst.FunctionDef)
    assert hot.why_hot(forward) is not None
    assert hot.why_hot(project) is not None
    assert hot.why_hot(rotate) is None


def test_cuda_tests() -> None:
    def test(code: str) -> tuple[bool, bool]:
        expression = cst.parse_expression(code)
        return only_off_cuda(expression), holds_on_cuda(expression)

    assert test('device.type == "cuda"') == (False, True)
    assert test("x.is_cuda") == (False, True)
    assert test('device.type != "cuda"') == (True, False)
    assert test('x.device.type == "cpu"') == (True, False)
    assert test("not x.is_cuda") == (True, False)
    assert test('device.type != "cpu"') == (False, True)
    assert test("flag") == (False, False)


def test_memoised_by_key() -> None:
    hit_returned = """
        def descriptor(k):
            key = (k.data_ptr(), k.shape)
            cache = getattr(descriptor, "_cache", None)
            if cache is None:
                cache = {}
            cached = cache.get(key)
            if cached is not None:
                cache.move_to_end(key)
                return cached
            cache[key] = desc = encode(k)
            return desc
        """
    assert memoised_by_key(_function(hit_returned))
    membership = """
        def compiled(shape):
            if shape in _KERNELS:
                return _KERNELS[shape]
            _KERNELS[shape] = kernel = compile(shape)
            return kernel
        """
    assert memoised_by_key(_function(membership))
    # a lookup that is returned but never stored: no memo, the work runs on every miss
    never_stored = """
        def lookup(table, key):
            found = table.get(key)
            if found is not None:
                return found
            return compute(key)
        """
    assert not memoised_by_key(_function(never_stored))
    # a key read from a tensor's values: the read runs on every call, hit or miss
    keyed_by_values = """
        def plan(lengths):
            key = int(lengths.max().item())
            cached = _PLANS.get(key)
            if cached is not None:
                return cached
            _PLANS[key] = plan = make(key)
            return plan
        """
    assert not memoised_by_key(_function(keyed_by_values))


def _ancestors(code: str) -> list[cst.CSTNode]:
    function = _function(code)
    return [function]


def test_cold_code_named_for_setup_benchmarks_and_tuning() -> None:
    def cold(code: str) -> bool:
        return occasional("pkg/kernels.py", _ancestors(code), cold=True)

    assert cold("def run(m, warmup_iterations: int, iterations: int): pass")
    assert cold("def bench(fn, num_warmup=3, repeat=10): pass")
    assert not cold("def fit(model, lr_warmup_steps: int, max_iters: int): pass")
    assert cold("def create_gather_gemm_tensors(n): pass")
    assert cold("def make_workspace(): pass")
    assert cold("def _build_workspace(self, module, session): pass")
    assert not cold("def build_attn_metadata(self, batch): pass")
    assert not cold("def make_inputs(batch): pass")
    assert cold("def create_weights(self, layer, input_size: int): pass")
    assert cold("def _allocate_kv_cache(self, num_blocks): pass")
    assert cold("def preprocess_mega_weights(w): pass")
    assert cold("def process_weights_after_loading(layer): pass")
    assert not cold("def compute_routing_weights(logits): pass")
    assert cold("def pack_gpu(self, linear: nn.Module, scales, zeros): pass")
    assert not cold("def pack_tokens(self, ids: torch.Tensor): pass")
    assert cold("def autotune_knobs(ok): pass")
    # only for cold code: in a loop or on a hot path these names say nothing
    assert not occasional("pkg/kernels.py", _ancestors("def make_workspace(): pass"))


def test_saving_code() -> None:
    assert saving_code("pkg/finetune/lora.py", _ancestors("def save_lora_checkpoint(m): pass"))
    assert saving_code("pkg/_distributed.py", _ancestors("def gather_cpu_state_dict(m): pass"))
    assert not saving_code("pkg/train.py", _ancestors("def chunked_loss(x): pass"))


def test_attention_named_functions_that_return_python_lists_are_not_hot() -> None:
    code = (
        "import torch\n"
        "def _apply_attention_mask(batch: list[list[int]], mask) -> list[list[int]]:\n"
        "    return batch\n"
        "def _prepare_attention(q, cu: torch.Tensor) -> list[torch.Tensor]:\n"
        "    return [cu]\n"
        "def _flash_attention(q, k):\n"
        "    return q\n"
    )
    module = cst.parse_module(code)
    hot = HotPaths.of(FileContext("m.py", code, module, {}))
    prompts, prepare, flash = module.body[1], module.body[2], module.body[3]
    assert isinstance(prompts, cst.FunctionDef) and isinstance(prepare, cst.FunctionDef)
    assert isinstance(flash, cst.FunctionDef)
    assert hot.why_hot(prompts) is None
    assert hot.why_hot(prepare) is not None
    assert hot.why_hot(flash) is not None

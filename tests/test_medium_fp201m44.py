"""Session 44 (fp201m44): HTD201 and HTD101 MEDIUM false alarms, by class (docs/precision.md,
"Session 44 (fp201m44)"): each class left out, and the true twin that stays reported."""

from __future__ import annotations

from lint_runs import lint

from h2dlint.analysis.host_runtimes import host_runtime_module


def _findings(code: str, rule_code: str, path: str = "m.py") -> list[str]:
    return [f.message for f in lint(code, rule_code, path=path)]


ROWS = """
    import torch
    def loudness(meter, array: torch.Tensor):
        array /= array.abs().max()
        return [meter.loudness(array[i].T).item() for i in range(array.shape[0])]
    """


def test_rows_of_unknown_tensors_in_a_host_runtime_folder_are_left_out() -> None:
    assert _findings(ROWS, "HTD201", path="pkg/models/m.py")
    assert not _findings(ROWS, "HTD201", path="optimum/intel/openvino/modeling_seq2seq.py")
    assert not _findings(ROWS, "HTD201", path="executorch/backends/cortex_m/ops/operators.py")
    assert not _findings(ROWS, "HTD201", path="examples/apple/coreml/llama/llama_transformer.py")
    # A file named for a runtime exports a model that may run on CUDA; npu names a device.
    assert _findings(ROWS, "HTD201", path="transformers/integrations/openvino.py")
    assert _findings(ROWS, "HTD201", path="gptqmodel/npu/m.py")


def test_rows_proven_on_the_device_stay_reported_in_a_host_runtime_folder() -> None:
    device = """
        import torch
        def f(x):
            t = x.cuda()
            return [r.item() for r in t]
        """
    assert _findings(device, "HTD201", path="optimum/intel/openvino/m.py")


def test_host_runtime_folders() -> None:
    assert host_runtime_module("a/openvino/b.py")
    assert host_runtime_module("a\\CoreML\\b.py")
    assert not host_runtime_module("a/openvino.py")
    assert not host_runtime_module("a/mps/b.py")


DECODE = """
    import torch
    class {cls}:
        def {method}(self, ids: torch.Tensor):
            texts = []
            for i in range(ids.shape[0]):
                seq = ids[i].tolist()
                texts.append(self.sp.decode(seq))
            return texts
    """


def test_a_text_tokenizers_decode_reads_host_ids() -> None:
    assert not _findings(DECODE.format(cls="ExLlamaV2Tokenizer", method="decode"), "HTD201")
    assert not _findings(DECODE.format(cls="Tokenizer", method="batch_decode"), "HTD201")
    # A generator's decode is a decoding step; a tokenizer's other methods are not decode.
    assert _findings(DECODE.format(cls="ExLlamaV2Generator", method="decode"), "HTD201")
    assert _findings(DECODE.format(cls="ExLlamaV2Tokenizer", method="encode"), "HTD201")
    # A neural tokenizer (an audio codec) is a model: its decode runs on the device.
    assert _findings(DECODE.format(cls="WavTokenizer(torch.nn.Module)", method="decode"), "HTD201")
    assert _findings(DECODE.format(cls="SpeechTokenizer(CodecModel)", method="decode"), "HTD201")


NUMPY = """
    import torch
    def boxes(array: torch.Tensor):
        array /= array.abs().max()
        return [{read}.tolist() for i in range(array.shape[0])]
    """


def test_a_row_read_through_numpy_is_a_host_row() -> None:
    # `.numpy()` raises on a device tensor: the rows are in host memory.
    assert not _findings(NUMPY.format(read="array[i].numpy()"), "HTD201")
    assert not _findings(NUMPY.format(read="array[i].detach().numpy()"), "HTD201")
    # Moved first, the row may have been on the device: the usual per-row copy.
    assert _findings(NUMPY.format(read="array[i].cpu().numpy()"), "HTD201")
    assert _findings(NUMPY.format(read='array[i].to("cpu").numpy()'), "HTD201")
    assert _findings(NUMPY.format(read="array[i]"), "HTD201")


AUGMENTOR = """
    import torch
    from pkg.data.{module} import AudioBatch
    class {cls}:
        def __call__(self, batch: {annotation}):
            lengths: torch.Tensor = batch.audio_len
            lengths /= lengths.max()
            for i in range(lengths.shape[0]):
                n = int(lengths[i] * self.rate)
                batch.noise[i, :n] = 0
            return batch
    """


def test_a_batch_augmentor_of_a_datasets_batch_reads_host_rows() -> None:
    def found(module: str, cls: str, annotation: str = "AudioBatch") -> list[str]:
        code = AUGMENTOR.format(module=module, cls=cls, annotation=annotation)
        return _findings(code, "HTD201")

    assert not found("ssl_dataset", "SpeakerNoiseAugmentation")
    assert not found("collate", "NoiseAugmentor(object)")
    # The batch type of a module not named for data loading, a class not named for
    # augmentation, a torch module's augmentation: judged as before.
    assert found("ssl_batches", "SpeakerNoiseAugmentation")
    assert found("ssl_dataset", "SpeakerNoiseMixer")
    assert found("ssl_dataset", "SpecAugmentation(torch.nn.Module)")
    assert found("ssl_dataset", "SpeakerNoiseAugmentation", annotation="torch.Tensor")


def test_rows_in_a_data_loading_folder_are_host_rows() -> None:
    assert not _findings(ROWS, "HTD201", path="pykeen/datasets/ea/combination.py")
    assert not _findings(ROWS, "HTD201", path="modelscope/preprocessors/ofa/vqa.py")
    assert not _findings(ROWS, "HTD201", path="pytorch_forecasting/data/data_module/tslib.py")
    # A plain `data/` folder holds model-side helpers too; a torch module under `datasets/`
    # is a model.
    assert _findings(ROWS, "HTD201", path="fairseq/data/data_utils.py")
    module = """
        import torch
        class Folder(torch.nn.Module):
            def forward(self, array: torch.Tensor):
                array /= array.abs().max()
                return [self.f(array[i].T).item() for i in range(array.shape[0])]
        """
    assert _findings(module, "HTD201", path="opencompass/datasets/omegafold/confidence.py")
    # A Lightning data module is named like a torch module and is none.
    data_module = module.replace("torch.nn.Module", "LightningDataModule")
    assert not _findings(data_module, "HTD201", path="forecasting/data_module/tslib.py")


HANDLER = """
    import torch
    def fill(out: torch.Tensor, lens: torch.Tensor):
        out /= out.abs().max()
        for i in range(lens.shape[0]):
            try:
                out[i, :4] = 0
            except {kind}:
                n = lens[i].item()
                out[i, :n] = 0
    """


def test_a_read_in_a_handler_of_any_error_is_on_the_error_path() -> None:
    assert not _findings(HANDLER.format(kind="Exception as e"), "HTD201")
    assert not _findings(HANDLER.format(kind="(ValueError, Exception)"), "HTD201")
    assert not _findings(HANDLER.replace("except {kind}", "except"), "HTD201")  # bare
    # A narrow handler may be the normal path (a cache miss); the try block is the step.
    assert _findings(HANDLER.format(kind="KeyError"), "HTD201")
    in_try = HANDLER.format(kind="Exception").replace("out[i, :4]", "out[i, : lens[i].item()]")
    assert _findings(in_try, "HTD201")


STAR = """
    import torch
    class Call(torch.autograd.Function):
        @staticmethod
        def forward(ctx, flag, {params}):
            {unpack}
            out = []
            for tensor in {walked}:
                out.append(tensor.cpu())
            return out
    """


def test_a_loop_over_star_arguments_reads_the_calls_few_arguments() -> None:
    def found(params: str, walked: str, unpack: str = "pass") -> list[str]:
        code = STAR.format(params=params, walked=walked, unpack=unpack)
        return _findings(code, "HTD201")

    assert not found("*flat_inputs: torch.Tensor", "flat_inputs")
    assert not found("*raw: torch.Tensor", "rest", unpack="mask, *rest = raw")
    # A sequence parameter holds as many tensors as the caller puts in it.
    assert found("flat_inputs: list[torch.Tensor]", "flat_inputs")
    # Another parameter of a function with `*args` is judged as before.
    assert found("*extra: torch.Tensor, xs: list[torch.Tensor]", "xs")

"""Session 27's precision fix (helper precision27, docs/precision.md, "Session 27
(precision27)"): a host-in, host-out wrapper split into helper methods (mineru 4's OCR text
detector) returns its copy from a helper that ``__call__`` reaches once per request
(``analysis/host_io_calls.py``); a helper reached only from a loop stays reported."""

from __future__ import annotations

from lint_runs import lint


def _findings(code: str, rule_code: str = "HTD202") -> list[int]:
    return [f.start.row for f in lint(code, rule_code)]


DETECTOR = """
    import numpy as np
    import torch

    class TextDetector:
        def _build_preds(self, outputs):
            preds = {}
            preds["maps"] = outputs["maps"].float().cpu().numpy()
            return preds

        def _run(self, batch):
            inp = torch.from_numpy(np.stack(batch)).to(self.device)
            outputs = self.net(inp)
            return self._build_preds(outputs)

        def __call__(self, img):
            return self._run([img])
"""


def test_a_helper_the_call_reaches_once_returns_its_copy() -> None:
    assert not _findings(DETECTOR)


def test_a_helper_reached_only_from_a_loop_stays_reported() -> None:
    looped = DETECTOR.replace(
        "            return self._run([img])",
        "            out = []\n            while len(out) < 4:\n"
        "                out.append(self._run([img]))\n            return out",
    )
    assert _findings(looped) == [8]


def test_a_module_or_no_host_input_keeps_the_helpers_copy() -> None:
    module = DETECTOR.replace("class TextDetector:", "class TextDetector(torch.nn.Module):")
    assert _findings(module) == [8]
    tensor_in = DETECTOR.replace("torch.from_numpy(np.stack(batch))", "batch")
    assert _findings(tensor_in) == [8]


def test_a_copy_in_a_loop_of_the_helper_stays_reported() -> None:
    per_level = DETECTOR.replace(
        '            preds["maps"] = outputs["maps"].float().cpu().numpy()',
        "            for key, out in outputs.items():\n"
        "                preds[key] = out.float().cpu().numpy()",
    )
    assert _findings(per_level) == [9]


# -- a mapping's fields taken by key through .items() (HTD101) ----------------------------------

FIELDS = """
    class Model:
        def forward(self, input):
            for key, value in ITER:
                input[key] = input[key].to(self._device)
            return self.net(**input)
"""


def test_a_mappings_fields_by_key_are_left_alone() -> None:
    for target, spelling in (
        ("key, value", "input.items()"),
        ("key", "input.keys()"),
        ("key", "input"),
    ):
        code = FIELDS.replace("key, value in ITER", f"{target} in {spelling}")
        assert not _findings(code, "HTD101"), spelling


def test_a_list_by_its_positions_or_another_mapping_stays_reported() -> None:
    by_position = FIELDS.replace("key, value in ITER", "key, value in enumerate(input)")
    assert _findings(by_position, "HTD101") == [5]
    other = FIELDS.replace("ITER", "other.items()")
    assert _findings(other, "HTD101") == [5]


# -- a numpy array's own methods keep it a numpy array (provenance, HTD201) -------------------

KEYPOINTS = """
    import numpy as np
    import torch

    def parse(values):
        kps = MADE.reshape((5, 3))
        for li in range(kps.shape[0]):
            if (kps[li, :] == -1).all():
                kps[li][2] = 0.0
        return kps
"""


def test_rows_of_a_reshaped_numpy_array_are_host_data() -> None:
    for made in ("np.array(values)", "np.asarray(values).astype(np.float32)", "x.numpy()"):
        code = KEYPOINTS.replace("MADE", made)
        if made == "x.numpy()":
            code = code.replace("def parse(values):", "def parse(values, x):")
        assert not _findings(code, "HTD201"), made


def test_rows_of_a_reshaped_tensor_stay_reported() -> None:
    code = KEYPOINTS.replace("MADE", "torch.as_tensor(values)")
    assert _findings(code, "HTD201") == [8]


# A label decoder in a module named for post-processing (mineru 4's `CTCLabelDecode` in
# `postprocess/rec_postprocess.py`): the copy of the model's output is the object's result.
DECODER = """
    import torch

    class CTCLabelDecode:
        def __call__(self, preds):
            probs, idx = preds.max(dim=2)
            idx = idx.cpu().numpy()
            return self.decode(idx)
"""


def _findings_in(code: str, path: str) -> list[int]:
    return [f.start.row for f in lint(code, "HTD202", path=path)]


def test_a_class_in_a_post_processing_module_returns_its_copy() -> None:
    assert _findings_in(DECODER, "ocr/rec_postprocess.py") == []
    assert _findings_in(DECODER, "ocr/postprocessing.py") == []


def test_the_same_class_elsewhere_or_a_module_stays_reported() -> None:
    assert _findings_in(DECODER, "ocr/rec_decode.py") == [7]
    module = DECODER.replace("class CTCLabelDecode:", "class CTCLabelDecode(torch.nn.Module):")
    assert _findings_in(module, "ocr/rec_postprocess.py") == [7]

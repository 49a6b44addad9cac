"""Session 46 (fp1xx46): HTD201 MEDIUM false alarms of numpy-only modules (docs/precision.md,
"Session 46 (fp1xx46)"): the class left out, and the look-alikes that stay reported."""

from __future__ import annotations

import textwrap

from lint_runs import lint

# modelscope's COCO metric over mmdet-style numpy results, mmaction2's ground-truth tubes.
ROWS = """
    {imports}

    def proposals_to_json(img_ids, results):
        json_results = []
        for idx in range(len(img_ids)):
            bboxes = results[idx]
            for i in range(bboxes.shape[0]):
                json_results.append(dict(image_id=img_ids[idx], score=float(bboxes[i][4])))
        return json_results

    def ground_truth(tubes):
        gt = {{}}
        for tube in tubes:
            for i in range(tube.shape[0]):
                k = int(tube[i, 0])
                gt.setdefault(k, []).append(tube[i, 1:5].tolist())
        return gt
    {extra}
    """


def _lines(imports: str, extra: str = "") -> list[int]:
    code = textwrap.dedent(ROWS).format(imports=imports, extra=textwrap.dedent(extra))
    return sorted(f.start.row for f in lint(code, "HTD201"))


def test_rows_in_a_module_in_numpy_without_torch_are_left_out() -> None:
    assert _lines("import numpy as np") == []
    assert _lines("from numpy import ndarray") == []
    assert _lines("import numpy as np\nimport cv2") == []


def test_a_module_that_imports_torch_keeps_the_rows() -> None:
    assert len(_lines("import numpy as np\nimport torch")) == 3
    assert len(_lines("import numpy as np\nfrom torch import Tensor")) == 3
    local = """
    def as_tensor(x):
        import torch
        return torch.as_tensor(x)
    """
    assert len(_lines("import numpy as np", local)) == 3


def test_a_module_that_calls_a_tensor_method_keeps_the_rows() -> None:
    methods = ("x.cpu()", "x.cuda()", "x.detach()", "x.numpy()", "x.to(device)", "x.sum().item()")
    for method in methods:
        extra = f"""
    def host(x, device=None):
        return {method}
    """
        assert len(_lines("import numpy as np", extra)) == 3, method


def test_a_module_without_numpy_or_with_a_starred_import_keeps_the_rows() -> None:
    # whisperlivekit's align_att_base.py:149 (a true row) imports neither numpy nor torch.
    assert len(_lines("import logging")) == 3
    # ``from .utils import *`` may bring torch in.
    assert len(_lines("import numpy as np\nfrom .utils import *")) == 3


def test_rows_proven_on_the_device_are_never_left_out_by_the_module_test() -> None:
    # A tensor method anywhere in the module already keeps them; the device proof is HIGH.
    device = """
    import numpy as np
    def f(x):
        t = x.cuda()
        return [r.item() for r in t]
    """
    found = lint(device, "HTD201")
    assert [f.start.row for f in found] == [5]

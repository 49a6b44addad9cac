"""The analysis facts behind session 49's blind-style triage of per-step model code
(docs/precision.md, "Session 49 (triage49b)"), each with the look-alike that must keep its
verdict:

- a dataclass field declared ``np.ndarray`` holds a numpy array (alphafold3-pytorch 0.8.3
  ``common/biomolecule.py:1317``: analysis/provenance/numpy_attributes.py);
- ``x = x.cpu()`` followed in its block by ``torch.cuda.empty_cache()`` is an offload
  (protenix 2.0.0 ``model/modules/confidence.py:231``: analysis/optional_offloads.py);
- ``cache = getattr(owner, "_w", None)`` then ``if cache is None: ...; owner._w = cache`` runs
  its body once (fairchem-core 2.24.0 ``models/uma/uma_nitro/_inference.py:13291``:
  analysis/getattr_memos.py), in the module's own walk and in the project index's;
- a comparison with a whole numpy array is a host mask, and ``torch.isin`` is where its
  elements are (fairchem ``models/uma/escn_moe.py:598-606``: analysis/numpy_comparisons.py,
  torch_api.SAME_DEVICE_FUNCTIONS)."""

from __future__ import annotations

from pathlib import Path

from lint_runs import cli_rows

BIOMOLECULE = """
import dataclasses

import numpy as np
import torch


@dataclasses.dataclass(frozen=True)
class Biomolecule:
    restype: FIELD_TYPE
    chain_index: np.ndarray


def to_mmcif(biomol: Biomolecule) -> str:
    restype = biomol.restype
    chain_index = biomol.chain_index.astype(np.int32)
    _, unique_indices = np.unique(chain_index, return_index=True)
    unique_restype = restype[unique_indices]
    out = []
    for i in range(unique_restype.shape[0]):
        if unique_restype[i] == 32:
            out.append(i)
    return str(out)
"""


def test_dataclass_numpy_field_rows_are_host(tmp_path: Path) -> None:
    text = BIOMOLECULE.replace("FIELD_TYPE", "np.ndarray")
    assert cli_rows(tmp_path, text, "HTD201") == []


def test_optional_numpy_field_rows_are_host(tmp_path: Path) -> None:
    text = BIOMOLECULE.replace("FIELD_TYPE", "Optional[np.ndarray]")
    text = text.replace("import torch\n", "import torch\nfrom typing import Optional\n")
    assert cli_rows(tmp_path, text, "HTD201") == []


def test_tensor_field_rows_stay_reported(tmp_path: Path) -> None:
    text = BIOMOLECULE.replace("FIELD_TYPE", "torch.Tensor")
    assert cli_rows(tmp_path, text, "HTD201") == [21]


def test_field_a_method_assigns_a_tensor_stays_reported(tmp_path: Path) -> None:
    # The declaration says numpy, but the class's own method assigns a tensor: its
    # assignments decide, as before.
    text = BIOMOLECULE.replace("FIELD_TYPE", "np.ndarray").replace(
        "    chain_index: np.ndarray\n",
        "    chain_index: np.ndarray\n\n    def load(self, x):\n        self.restype = x.cuda()\n",
    )
    assert cli_rows(tmp_path, text, "HTD201") == [24]


OFFLOAD = """
import torch
from torch import nn


class Head(nn.Module):
    def forward(self, z_trunk, xs):
        outs = []
        for x in xs:
            pae = self.pae(x)
            if z_trunk.shape[-2] > 2000 and not self.training:
                pae = COPY
                AFTER
            outs.append(pae)
        return outs
"""


def offload(copy: str, after: str) -> str:
    return OFFLOAD.replace("COPY", copy).replace("AFTER", after)


def test_copy_then_empty_cache_is_an_offload(tmp_path: Path) -> None:
    text = offload("pae.cpu()", "torch.cuda.empty_cache()")
    assert cli_rows(tmp_path, text, "HTD202") == []


def test_copy_without_empty_cache_stays_reported(tmp_path: Path) -> None:
    assert cli_rows(tmp_path, offload("pae.cpu()", "pass"), "HTD202") == [12]


def test_copy_to_another_name_stays_reported(tmp_path: Path) -> None:
    text = OFFLOAD.replace("pae = COPY", "host = pae.cpu()").replace(
        "AFTER", "torch.cuda.empty_cache()"
    )
    assert cli_rows(tmp_path, text.replace("outs.append(pae)", "outs.append(host)"), "HTD202") == [
        12
    ]


def test_empty_cache_before_the_copy_stays_reported(tmp_path: Path) -> None:
    text = OFFLOAD.replace(
        "                pae = COPY\n                AFTER\n",
        "                torch.cuda.empty_cache()\n                pae = pae.cpu()\n",
    )
    assert cli_rows(tmp_path, text, "HTD202") == [13]


MEMO = """
import torch


def _bound(w):
    return float(w.detach().float().abs().sum(dim=1).max())


def merged(backbone, x):
    mlp = backbone.mlp
    cache = READ
    if cache is None:
        w = torch.cat([mlp.w1, mlp.w2], dim=0)
        cache = (w, _bound(mlp.fc2_weight))
        if not mlp.w1.requires_grad:
            STORE = cache
    w, b = cache
    return x @ w


class Model(torch.nn.Module):
    def forward(self, x):
        return merged(self.backbone, x)
"""


def memo(read: str, store: str) -> str:
    return MEMO.replace("READ", read).replace("STORE", store)


def test_getattr_memo_runs_once(tmp_path: Path) -> None:
    text = memo('getattr(backbone, "_merged", None)', "backbone._merged")
    assert cli_rows(tmp_path, text, "HTD202") == []


def test_getattr_memo_storing_another_attribute_stays_reported(tmp_path: Path) -> None:
    text = memo('getattr(backbone, "_merged", None)', "backbone._other")
    assert cli_rows(tmp_path, text, "HTD202") == [6]


def test_getattr_memo_with_another_default_stays_reported(tmp_path: Path) -> None:
    text = memo('getattr(backbone, "_merged", ())', "backbone._merged")
    assert cli_rows(tmp_path, text, "HTD202") == [6]


def test_getattr_memo_on_another_object_stays_reported(tmp_path: Path) -> None:
    text = memo('getattr(backbone, "_merged", None)', "mlp._merged")
    assert cli_rows(tmp_path, text, "HTD202") == [6]


MASKS = """
import numpy as np
import torch
from torch import nn


class Wrapper(nn.Module):
    def forward(self, data, emb):
        batch_full = data.batch_full.cpu()
        head_output = self.head(data, emb)
        names = NAMES
        full_output = {}
        for dataset_name in self.dataset_names:
            dataset_mask = names == dataset_name
            for key, out in head_output.items():
                output = out.new_zeros(out.shape)
                if dataset_mask.any():
                    if output.shape[0] == dataset_mask.shape[0]:
                        output[dataset_mask] = out[dataset_mask]
                    else:
                        atoms_mask = torch.isin(
                            batch_full, torch.where(torch.from_numpy(dataset_mask))[0]
                        )
                        output[atoms_mask] = out[atoms_mask]
                full_output[key] = output
        return full_output
"""


def test_numpy_name_masks_are_host(tmp_path: Path) -> None:
    text = MASKS.replace("NAMES", "np.array(data.dataset)")
    assert cli_rows(tmp_path, text, "HTD201") == []
    assert cli_rows(tmp_path, text, "HTD202") == [9]  # the `.cpu()` copy itself


def test_masks_of_an_unknown_array_stay_reported(tmp_path: Path) -> None:
    # ``atoms_mask`` is still a host mask: ``torch.isin`` of the ``.cpu()`` copy.
    text = MASKS.replace("NAMES", "data.names")
    assert cli_rows(tmp_path, text, "HTD202") == [9, 19]


def test_isin_of_unknown_elements_stays_reported(tmp_path: Path) -> None:
    text = MASKS.replace("NAMES", "np.array(data.dataset)")
    text = text.replace("batch_full = data.batch_full.cpu()", "batch_full = data.batch_full")
    assert cli_rows(tmp_path, text, "HTD202") == [24, 24]


def test_numpy_element_comparison_is_no_host_mask(tmp_path: Path) -> None:
    # An element of an array is a numpy scalar: compared with a device tensor it gives one.
    text = MASKS.replace("NAMES", "np.array(data.dataset)[0]")
    assert 19 in cli_rows(tmp_path, text, "HTD202")


FALLBACK = """
import torch


class PredictUnit:
    def predict_step(self, data):
        data_device = data.to(self.device)
        try:
            self.model.check(data_device)
        except ConsistencyError as error:
            HANDLER
            self._initialize(data_device.clone().cpu())
        return self.model(data_device)
"""


def test_handler_handing_its_error_on_is_a_fallback(tmp_path: Path) -> None:
    text = FALLBACK.replace("HANDLER", "self._fall_back(error)")
    assert cli_rows(tmp_path, text, "HTD202") == []


def test_handler_passing_other_values_stays_reported(tmp_path: Path) -> None:
    text = FALLBACK.replace("HANDLER", "self._fall_back(data)")
    assert cli_rows(tmp_path, text, "HTD202") == [12]

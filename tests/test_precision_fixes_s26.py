"""Session 26's precision fixes (helper precision26, docs/precision.md, "Session 26
(precision26)"): HTD101's MEDIUM findings over whole batches and over a local name bound to an
element of an activations collection (``analysis/whole_units.py``), and their true twins."""

from __future__ import annotations

from lint_runs import lint


def _findings(code: str, rule_code: str = "HTD101", path: str = "m.py") -> list[tuple[int, str]]:
    return [(f.start.row, str(f.confidence.value)) for f in lint(code, rule_code, path=path)]


# -- whole batches ------------------------------------------------------------------------------

BATCHES = """
    def prepare(model, NAME, device):
        return [batch.to(device) for batch in NAME]
"""


def test_a_collection_named_as_batches_is_left_alone() -> None:
    for name in ("batches", "processed_batches", "micro_batches", "microbatches", "minibatches"):
        assert not _findings(BATCHES.replace("NAME", name)), name


def test_a_collection_of_other_items_stays_reported() -> None:
    # `batch` (one batch's items) and `items` are no collections of batches
    for name in ("batch", "items", "crops", "batch_items"):
        assert _findings(BATCHES.replace("NAME", name)) == [(3, "medium")], name


def test_batches_proven_on_the_host_stay_reported() -> None:
    code = """
        import torch
        def upload(rows, device):
            batches = [torch.tensor(r) for r in rows]
            return [b.to(device) for b in batches]
    """
    assert _findings(code) == [(5, "high")]


def test_a_call_of_a_batch_mover_is_left_alone() -> None:
    code = """
        def to_device(batches, device):
            return [b.to(device, non_blocking=True) for b in batches]

        class Predictor:
            def forward(self, batches, device):
                return self.model(to_device(batches, device))
    """
    assert not _findings(code)


# -- a local name of activations -----------------------------------------------------------------

ALIAS = """
    class Offload:
        def forward(self, *inputs):
            self._activations = []
            for layer in self.slices:
                inputs = layer(*inputs)
                self._activations.append(inputs)
            result = VALUE
            return [r.cuda() for r in result]
"""


def test_an_element_of_activations_is_left_alone() -> None:
    for value in ("self._activations[-1]", "self._activations[1:]", "self.hidden_states[0]"):
        assert not _findings(ALIAS.replace("VALUE", value)), value


def test_other_aliases_stay_reported() -> None:
    # another collection, a call of the activations (it may return anything), a mixed binding
    for value in ("self.crops[-1]", "prepare(self._activations)", "inputs"):
        assert _findings(ALIAS.replace("VALUE", value)) == [(9, "medium")], value


# -- lengths handed to pack_padded_sequence (HTD201) ---------------------------------------------

TAGGER = """
    import torch
    from torch.nn.utils.rnn import pack_padded_sequence

    class Tagger(torch.nn.Module):
        def forward(self, sentence_tensor, lengths):
            if self.use_rnn:
                packed = pack_padded_sequence(sentence_tensor, PASSED, batch_first=True)
                sentence_tensor = self.rnn(packed)
            features = self.linear(sentence_tensor)
            return self._get_scores_from_features(features, lengths)

        @staticmethod
        def _get_scores_from_features(features: torch.Tensor, lengths: torch.Tensor):
            out = []
            for feat, length in zip(features, lengths):
                out.append(feat[:length])
            return torch.cat(out)

    def pack(features, lengths: torch.Tensor):
        return pack_padded_sequence(features, lengths.cpu())
"""


def test_lengths_handed_to_pack_padded_sequence_are_on_the_host() -> None:
    for passed in ("lengths", "lengths=lengths"):
        assert not _findings(TAGGER.replace("PASSED", passed), "HTD201"), passed


def test_lengths_not_handed_as_they_are_stay_reported() -> None:
    # a host copy handed to PyTorch says nothing of the value the helper reads
    assert _findings(TAGGER.replace("PASSED", "lengths.cpu()"), "HTD201") == [(17, "medium")]


def test_a_device_copy_before_the_host_lengths_stays_reported() -> None:
    code = """
        import torch
        from torch.nn.utils.rnn import pack_padded_sequence

        def encode(features, lengths: torch.Tensor):
            lengths = lengths.cuda()
            for feat, length in zip(features, lengths):
                print(feat[:length])
            lengths = lengths.cpu()
            return pack_padded_sequence(features, lengths)
    """
    assert _findings(code, "HTD201") == [(8, "high")]


# -- a collator named for its task (HTD202) ------------------------------------------------------

COLLATOR = """
    import torch

    class NAME:
        def __call__(self, features):
            return self.positions(features)

        def positions(self, features):
            unpadded_length = int(features["attention_mask"][0].bool().sum().item())
            return torch.arange(unpadded_length)
"""


def test_a_collator_named_for_its_task_runs_on_the_host() -> None:
    for name in (
        "MultiModalDataCollatorForSeq2Seq",
        "DataCollatorWithPadding",
        "PaddingCollator",
        "Packer(DataCollatorForSeq2Seq)",
    ):
        assert not _findings(COLLATOR.replace("NAME", name), "HTD202"), name


def test_other_callables_stay_reported() -> None:
    # a word that only begins with the letters of "Collator" is no collator
    for name in ("Runner", "Collatorless", "PositionHead"):
        assert _findings(COLLATOR.replace("NAME", name), "HTD202") == [(9, "medium")], name


# -- the distinct values of a tensor are where it is (HTD201) ------------------------------------

UNIQUE = """
    import torch
    from torch import nn

    class Head(nn.Module):
        def forward(self, roi_feats: torch.Tensor, rois: torch.Tensor, ctx: torch.Tensor):
            img_inds = VALUE
            fused_feats = torch.zeros_like(roi_feats)
            for img_id in img_inds:
                inds = rois[:, 0] == img_id.item()
                fused_feats[inds] = roi_feats[inds] + ctx[img_id]
            return fused_feats
"""


def test_distinct_values_of_a_host_copy_are_on_the_host() -> None:
    for value in (
        "torch.unique(rois[:, 0].detach().cpu(), sorted=True).long()",
        "rois[:, 0].cpu().unique()",
        "torch.nonzero(rois[:, 0].cpu())",
        "torch.unique_consecutive(rois[:, 0].cpu())",
    ):
        assert not _findings(UNIQUE.replace("VALUE", value), "HTD201"), value


def test_distinct_values_of_a_device_tensor_stay_reported() -> None:
    for value in ("torch.unique(rois[:, 0].cuda())", "rois[:, 0].cuda().unique()"):
        assert _findings(UNIQUE.replace("VALUE", value), "HTD201") == [(10, "high")], value


# -- a value memoised through a local name runs once (HTD101, RunOnce) ---------------------------

MEMO = """
    import torch

    def start_stop(end: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        start = torch.nonzero(end)
        return start, start + 1

    class Storage:
        def boundaries(self):
            boundaries = READ
            if boundaries is None:
                boundaries = start_stop(self.end)
                boundaries = tuple(value.to(self.device) for value in boundaries)
                STORE
            return boundaries
"""


def test_a_value_memoised_through_a_local_name_is_moved_once() -> None:
    code = MEMO.replace("READ", "self._boundaries")
    code = code.replace("STORE", "self._boundaries = boundaries")
    assert not _findings(code)


def test_other_guards_on_a_local_name_stay_reported() -> None:
    for read, store in (
        ("self._boundaries", "self.last = boundaries"),  # written back elsewhere: no cache
        ("self._boundaries", "pass"),  # never written back
        ("self.lookup()", "self._boundaries = boundaries"),  # not read from the attribute
    ):
        code = MEMO.replace("READ", read).replace("STORE", store)
        assert _findings(code) == [(13, "medium")], (read, store)

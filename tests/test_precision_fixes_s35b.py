"""Session 35 (precision35b): a statement that waited for the device although its value goes on
after the read (docs/precision.md, "Session 35 (precision35b)"), each with its true twin."""

from __future__ import annotations

from test_precision_fixes_s31 import _waited


def test_host_arithmetic_after_a_read_still_ends_in_the_wait() -> None:
    # A Python number combined with literals, negated or converted queues nothing.
    assert _waited("a = torch.nn.functional.softplus(preds.float()).item() + 0.5")
    assert _waited("a = -target.max().item()")
    assert _waited("a = int(target.sum().item()) * 2")


def test_device_work_in_the_arithmetic_stays_reported() -> None:
    # An operand that is (or may be) a tensor: the operation runs on the device after the read.
    assert not _waited("s = target.sum().item() * preds.softmax(-1)")
    assert not _waited("a = target.sum().item() + preds")
    assert not _waited("a = target.sum().item() + k")
    # Not surely a tensor: a numpy array's ``.item()`` reads no device.
    assert not _waited("a = lens.max().item() + 1")


def test_a_function_given_only_host_copies_ends_in_the_wait() -> None:
    # MONAI's ``sklearn_silhouette(emb.cpu().numpy(), labels.cpu().numpy(), metric=...)``.
    assert _waited(
        "s = silhouette(preds.detach().cpu().numpy(), target.cpu().numpy(), metric='cosine')"
    )
    assert _waited("s = score(target.tolist())")


def test_a_callee_that_may_run_the_device_stays_reported() -> None:
    # A tensor argument (``.cpu()`` alone: the callee may move it back), a name of unknown
    # kind, a method of a value (a model's), a torch function.
    assert not _waited("s = silhouette(preds.cpu(), target.cpu().numpy())")
    assert not _waited("s = silhouette(preds.cpu().numpy(), k)")
    assert not _waited("s = silhouette(preds.cpu().numpy(), metric=k)")
    assert not _waited("s = model.score(preds.cpu().numpy())")
    assert not _waited("s = torch.as_tensor(preds.cpu().numpy())")
    # A value that may be numpy: its ``.tolist()`` waited for nothing.
    assert not _waited("s = score(lens.tolist())")

"""Session 32 (precision32): the facts behind the session's precision fixes
(docs/precision.md, "Session 32 (precision32)"), each with its true twin."""

from __future__ import annotations

from lint_runs import lint

MOVER = """
import torch
def move_to_device(device, args):
    out = []
    for arg in args:
        {body}
    return out
"""


def _moved_per_item(body: str) -> bool:
    """Whether HTD101 reports the loop whose body is ``body``."""
    code = MOVER.format(body=body.replace("\n", "\n        "))
    return bool(lint(code, "HTD101"))


def test_a_default_kept_when_the_item_is_no_tensor_is_a_mixed_mover() -> None:
    # The item itself is stored when it is no tensor: the IfExp dispatch spelt in two lines.
    default = "new = arg\nif isinstance(arg, torch.Tensor):\n    new = arg.to(device=device)\n"
    assert not _moved_per_item(default + "out.append(new)")
    assert not _moved_per_item(
        default.replace("isinstance(arg, torch.Tensor)", "torch.is_tensor(arg)") + "out.append(new)"
    )
    assert not _moved_per_item(
        "out.append(arg.to(device) if isinstance(arg, torch.Tensor) else arg)"
    )


def test_a_filter_that_keeps_only_the_tensors_stays_reported() -> None:
    # Only tensors are stored (no default), or the default is no item (nothing else is kept).
    assert _moved_per_item("if isinstance(arg, torch.Tensor):\n    out.append(arg.to(device))")
    only = "if isinstance(arg, torch.Tensor):\n    new = arg.to(device=device)\n    out.append(new)"
    assert _moved_per_item(only)


TOKENIZED = """
import torch
def preprocess(tokenizer, text, ids, {param}):
    enc = tokenizer(text, return_tensors={value}, padding=True)
    {between}
    labels = torch.full_like(enc.input_ids, -100)
    if (labels != -100).any().item():
        enc["labels"] = labels
    return enc
class Policy(torch.nn.Module):
    def forward(self, text):
        return self.model(**preprocess(self.tokenizer, text, self.ids))
"""


def _read_on_host(param: str, value: str, between: str = "pass") -> bool:
    """Whether the labels made like the tokenizer batch's ids are left alone by HTD202."""
    code = TOKENIZED.format(param=param, value=value, between=between)
    return not lint(code, "HTD202")


def test_a_tokenizer_batch_and_its_fields_are_host_data() -> None:
    assert _read_on_host('return_tensors: str = "pt"', "return_tensors")
    assert _read_on_host('return_tensors="pt"', "return_tensors")
    assert _read_on_host("flag=None", '"pt"')  # the literal format, read through a field


def test_a_moved_batch_or_a_format_of_unknown_value_stays_reported() -> None:
    # ``BatchEncoding.to`` moves the tensors in place; a parameter without a string default
    # says nothing of what the call is; a ``**`` argument may carry ``device=``.
    assert not _read_on_host('return_tensors: str = "pt"', "return_tensors", 'enc.to("cuda")')
    assert not _read_on_host("return_tensors=None", "return_tensors")
    assert not _read_on_host("return_tensors", "return_tensors")
    # A field the function sets may hold anything set there (diffsynth's Step1x embedder
    # writes ``inputs.input_ids = (...).to(get_device_type())`` later in the same loop).
    assert not _read_on_host("flag=None", '"pt"', 'enc.input_ids = ids.to("cuda")')

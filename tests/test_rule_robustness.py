"""Statement shapes that once raised inside a rule's analysis (reported as E900, the rule
skipped for the file): every rule runs on them without an internal error."""

from __future__ import annotations

import warnings
from types import SimpleNamespace

import pytest
from lint_runs import lint

from h2dlint.analysis import chained_arguments
from h2dlint.diagnostics import INTERNAL_ERROR_CODE
from h2dlint.registry import all_rules

SHAPES = {
    # transformers 5.24.0 modeling_blip.py: the run-once question asked of an `elif ... is
    # None:` test, whose parent is the `if` before it (a block, not a list of statements).
    "elif_is_none": """
        import torch

        class M(torch.nn.Module):
            def generate(self, input_ids, image_embeds, batch_size):
                if isinstance(input_ids, list):
                    input_ids = torch.LongTensor(input_ids)
                elif input_ids is None:
                    input_ids = (
                        torch.LongTensor([[self.decoder_input_ids, 2]])
                        .repeat(batch_size, 1)
                        .to(image_embeds.device)
                    )
                return input_ids
    """,
    # auto-round 0.16.1 shard_writer.py: the writes of a loop that calls a method of the class
    # are the method's, read through the methods it calls; a method that calls itself (a
    # fused tensor split into parts, each added again) recursed until Python's limit.
    "recursive_method_in_loop": """
        import torch

        class Writer:
            def add(self, name: str, tensor: torch.Tensor) -> None:
                if name.endswith("experts"):
                    for i, part in enumerate(tensor.unbind(0)):
                        self.add(f"{name}.{i}", part)
                        self.sizes[name] = tensor.detach().cpu()
                    return
                self.current[name] = tensor.to("cpu")
                self.flush()

            def flush(self):
                if len(self.current) > 8:
                    self.spill()

            def spill(self):
                self.flush_count += 1
                self.add("marker", torch.zeros(1))

            def write(self, tensors, device):
                for name, tensor in tensors.items():
                    self.add(name, tensor)
                    scale = torch.ones(1).to(device)
    """,
}


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_no_rule_raises(name: str) -> None:
    codes = sorted(all_rules())
    errors = [f.message for f in lint(SHAPES[name], *codes) if f.code == INTERNAL_ERROR_CODE]
    assert errors == []


def test_compiler_warnings_about_the_code_are_not_raised_or_printed() -> None:
    """CPython warns about some code it compiles (an invalid escape sequence in a docstring,
    ``\\in``: a DeprecationWarning, a SyntaxWarning from 3.12, shown by default). Those
    warnings name no file and are not h2dlint's to report; under ``-W error`` they would make
    the parse fail. chai-lab 0.6.1's ``ranking/ptm.py`` printed one from the tree read to
    locate a call's chained arguments."""
    source = 'def f(x):\n    """ipTM over chains c \\in C"""\n    return x\n'
    holder = SimpleNamespace(context=SimpleNamespace(python_tree=None, source=source))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tree = chained_arguments._python_tree(holder)  # type: ignore[arg-type]
    assert tree is not None

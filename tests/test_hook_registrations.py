"""Hooks as hot paths (session 36): the function a registration is given, found through a
nested definition, a lambda, ``partial`` or a factory's returned closure
(:mod:`h2dlint.analysis.hook_registrations`); and ``self.m()`` of a base class of the module."""

from __future__ import annotations

from hot_path_reasons import reasons


def test_a_nested_hook_called_from_a_lambda_is_hot() -> None:
    found = reasons(
        "def transcribe(model, audio):\n"
        "    def record(layer, ins, outs, index):\n"
        "        return outs\n"
        "    def helper(x):\n"
        "        return x\n"
        "    for j, block in enumerate(model.blocks):\n"
        "        block.register_forward_hook(lambda l, i, o, index=j: record(l, i, o, index))\n"
        "    return helper(model.transcribe(audio))\n"
    )
    assert "register_forward_hook" in (found["transcribe.record"] or "")
    assert found["transcribe.helper"] is None
    assert found["transcribe"] is None


def test_a_factory_closure_and_a_tensor_hook_are_hot() -> None:
    found = reasons(
        "from functools import partial\n"
        "def capture(model, store):\n"
        "    def make_hook(name):\n"
        "        def hook(module, args, output):\n"
        "            store[name] = output\n"
        "        return hook\n"
        "    for name, module in model.named_modules():\n"
        "        module.register_forward_hook(make_hook(name))\n"
        "def watch(t, scores):\n"
        "    def save_grad(grad, scale):\n"
        "        scores.append(grad)\n"
        "    t.register_hook(partial(save_grad, scale=2))\n"
    )
    assert "register_forward_hook" in (found["capture.make_hook.hook"] or "")
    assert found["capture.make_hook"] is None
    assert "register_hook" in (found["watch.save_grad"] or "")


def test_load_hooks_are_not_hot() -> None:
    found = reasons(
        "def attach(model):\n"
        "    def fix(module, keys):\n"
        "        return keys\n"
        "    model.register_load_state_dict_post_hook(fix)\n"
    )
    assert found["attach.fix"] is None


def test_a_base_class_helper_is_hot_through_a_subclass_method() -> None:
    found = reasons(
        "class Inference:\n"
        "    def _pad(self, predictions):\n"
        "        return predictions\n"
        "class Translator(Inference):\n"
        "    def _align_forward(self, batch, predictions):\n"
        "        return self._pad(predictions)\n"
    )
    assert found["Translator._align_forward"] is not None
    assert found["Inference._pad"] == "called from `Translator._align_forward()`"

"""Model classes of torch ecosystem packages outside the project, known by where they come
from and their name's shape: a project class that subclasses one is an ``nn.Module``.

lerobot's ``Qwen2_5_VLMoEForAction(Qwen2_5_VLForConditionalGeneration)`` subclasses a model
class of ``transformers``; its instances are modules, so ``outputs = self.model(**batch)`` is
on the model's device and ``outputs.loss.item()`` a read of a device tensor. The package is
not in the project, so its class statement cannot be read: the name tells. Only the torch
models of each package: ``transformers``' TensorFlow and Flax classes (``TFBertModel``,
``FlaxBertModel``) are no modules, nor are its configs, tokenizers or processors.
"""

from __future__ import annotations

import re

# Packages whose model classes are ``torch.nn.Module`` subclasses.
_PACKAGES = frozenset({"transformers", "diffusers", "peft"})
# ``PreTrainedModel``, ``BertModel``, ``LlamaPreTrainedModel``, ``ModelMixin``, ``PeftModel``,
# ``UNet2DConditionModel``; a task head of transformers (``Qwen2_5_VLForConditionalGeneration``,
# ``LlamaForCausalLM``).
_MODEL_NAME = re.compile(r"^(?:[A-Z]\w*)?(?:Model|ModelMixin)$|^[A-Z][A-Za-z0-9_]*For[A-Z]\w*$")
# Classes of other frameworks ``transformers`` ships beside its torch models.
_OTHER_FRAMEWORKS = ("TF", "Flax")


def ecosystem_model(qualified: str) -> bool:
    """Whether ``qualified`` (``transformers.models.llama.modeling_llama.LlamaForCausalLM``,
    as a module's imports qualify a base it names) is a torch model class of a known torch
    ecosystem package: one of :data:`_PACKAGES`, named as a model."""
    root, _, rest = qualified.partition(".")
    if root not in _PACKAGES or not rest:
        return False
    name = rest.rsplit(".", 1)[-1]
    if name.startswith(_OTHER_FRAMEWORKS) or name.startswith("Auto"):
        return False
    return _MODEL_NAME.match(name) is not None

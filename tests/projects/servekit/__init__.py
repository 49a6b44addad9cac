"""A serving engine for language and vision-language models, laid out the way current engines
are: a worker whose persistent input batch keeps host/device tensor pairs made by a helper
module, block tables, attention metadata builders, a sampler with logits processors,
speculative decoding, LoRA, structured output, pooling outputs, KV offload to pinned host
memory, and model code (rotary position helpers, a mixture-of-experts layer, a vision encoder)
that is hot only because the worker of another module calls it every step."""

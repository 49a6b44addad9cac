"""A small LLM serving engine in another style than serving_mm: a step-based scheduler with host
bookkeeping, a model runner, attention metadata builders, a speculative-decoding proposer, a LoRA
manager and a sampler. Facts cross modules: the runner's staging buffers come from a helper
module, the sampler's outputs are device tensors, the scheduler's state is numpy."""

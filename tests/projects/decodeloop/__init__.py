"""A small decode-loop serving engine: a persistent pinned staging area, attention metadata
built per step by a helper of another module, a sampler, and training-side helpers (gradient
clipping, checkpoint saving) that share its utilities."""

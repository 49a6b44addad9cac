"""The sampler and its logits processors."""

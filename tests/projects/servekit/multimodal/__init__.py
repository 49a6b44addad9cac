"""Multimodal inputs: the items of a request, batched for the encoder."""

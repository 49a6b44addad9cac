"""Speculative decoding: rejection sampling of draft tokens and a draft-model proposer."""

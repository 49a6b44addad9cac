"""Attention backends and the metadata each builds per step."""

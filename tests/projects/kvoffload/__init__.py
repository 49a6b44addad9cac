"""Offloading of KV-cache blocks to host memory and back. Two modules define a class called
``Buffer``: the pinned host pool's, and a pageable scratch one; names alone cannot tell them
apart."""

from kvoffload.host_pool import Buffer, make_staging

__all__ = ["Buffer", "make_staging"]

"""The digest of a file's bytes, by which the result cache and the project index know content."""

from __future__ import annotations

import hashlib


def content_digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=20).hexdigest()

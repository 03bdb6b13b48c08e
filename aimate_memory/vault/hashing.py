"""The body hash written as `content_hash`: a body that no longer matches it was edited by hand."""

from __future__ import annotations

import hashlib


def content_hash(body: str) -> str:
    return "sha256:" + hashlib.sha256(body.encode("utf-8")).hexdigest()

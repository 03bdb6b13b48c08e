"""The body hash written as `content_hash` (a body that no longer matches it was edited by hand), and the
id git gives a file's bytes (`git_blob_id`)."""

from __future__ import annotations

import hashlib


def content_hash(body: str) -> str:
    return "sha256:" + hashlib.sha256(body.encode("utf-8")).hexdigest()


def git_blob_id(data: bytes) -> str:
    """The object id git gives `data` stored as a blob (SHA-1 of `blob <size>\\0` and the bytes): what a
    writer that scanned these bytes for secrets hands the commit guard, which then need not read them again
    (a file changed since has another id and is scanned). A SHA-256 repository's ids never match: all scanned."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()

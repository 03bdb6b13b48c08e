"""The vault: memory files, their format, their places (DESIGN §3, §4)."""

from aimate_memory.vault.changes import ChangeSet, FileChange
from aimate_memory.vault.codec import MemoryDocument, content_hash, parse_document, read_document
from aimate_memory.vault.layout import Layer, Scope
from aimate_memory.vault.model import Memory
from aimate_memory.vault.store import ScanResult, Vault

__all__ = [
    "ChangeSet",
    "FileChange",
    "Layer",
    "Memory",
    "MemoryDocument",
    "ScanResult",
    "Scope",
    "Vault",
    "content_hash",
    "parse_document",
    "read_document",
]

"""The vault: memory files, their format, their places (docs/design.md §3, §4).

Exports resolve on first use, so that importing one light module (`vault.filters`, `vault.layout`) does not
load the YAML stack the codec needs.
"""

import importlib
from typing import Any

_EXPORTS = {
    "ChangeSet": "aimate_memory.vault.changes",
    "FileChange": "aimate_memory.vault.changes",
    "MemoryDocument": "aimate_memory.vault.codec",
    "parse_document": "aimate_memory.vault.codec",
    "read_document": "aimate_memory.vault.codec",
    "content_hash": "aimate_memory.vault.hashing",
    "Layer": "aimate_memory.vault.layout",
    "Scope": "aimate_memory.vault.layout",
    "Memory": "aimate_memory.vault.model",
    "ScanResult": "aimate_memory.vault.store",
    "Vault": "aimate_memory.vault.store",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'aimate_memory.vault' has no attribute {name!r}")

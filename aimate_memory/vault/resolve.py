"""Turn what a person typed (an id, a unique id prefix like git, or a path) into one memory."""

from __future__ import annotations

import os
from pathlib import Path

from aimate_memory.errors import InvalidInputError, NotFoundError, OutsideVaultError
from aimate_memory.vault.model import Memory
from aimate_memory.vault.store import Vault


def looks_like_path(ref: str) -> bool:
    return ref.endswith(".md") or "/" in ref or os.sep in ref


def resolve_reference(ref: str, memories: list[Memory], vaults: list[Vault]) -> Memory:
    ref = ref.strip()
    if not ref:
        raise InvalidInputError("empty id", "give an id, an id prefix or a path")
    if looks_like_path(ref):
        return _by_path(ref, memories, vaults)
    exact = [memory for memory in memories if memory.id == ref]
    if exact:
        return exact[0]
    matches = [memory for memory in memories if memory.id.startswith(ref)]
    if len(matches) == 1:
        return matches[0]
    if len(matches) > 1:
        shown = ", ".join(memory.id[:13] for memory in matches[:5])
        raise InvalidInputError(
            f"id prefix '{ref}' matches {len(matches)} memories ({shown})", "type more of it"
        )
    raise NotFoundError(f"no memory with id '{ref}'", "run `aimate mem list` to see ids")


def _by_path(ref: str, memories: list[Memory], vaults: list[Vault]) -> Memory:
    """A path is taken relative to the working directory, else to each vault root; one that resolves
    outside every vault (`../../etc/passwd`, a symlink out) is refused, not read."""
    given = Path(ref).expanduser()
    candidates = [given] if given.is_absolute() else [Path.cwd() / given, *(v.root / given for v in vaults)]
    inside_any = False
    for candidate in candidates:
        for vault in vaults:
            try:
                rel = vault.rel_path(candidate)
            except OutsideVaultError:
                continue
            inside_any = True
            for memory in memories:
                if memory.scope is vault.scope and memory.rel_path == rel:
                    return memory
    if not inside_any:
        raise OutsideVaultError(
            f"'{ref}' is outside the memory vaults", "give an id or a path inside a vault"
        )
    raise NotFoundError(f"no memory at '{ref}'", "run `aimate mem list` to see paths")

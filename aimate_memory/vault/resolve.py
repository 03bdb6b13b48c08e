"""Turn what a person typed (an id, a unique id prefix like git, or a path) into one memory file."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from typing import TypeVar

from aimate_memory.errors import InvalidInputError, NotFoundError, OutsideVaultError
from aimate_memory.vault.store import Vault

T = TypeVar("T")


def looks_like_path(ref: str) -> bool:
    return ref.endswith(".md") or "/" in ref or os.sep in ref


def check_reference(ref: str) -> str:
    ref = ref.strip()
    if not ref:
        raise InvalidInputError("empty id", "give an id, an id prefix or a path")
    return ref


def id_starts_with(memory_id: str, ref: str) -> bool:
    """Whether `ref` is `memory_id` or a prefix of it — case-insensitively, as the index's LIKE matches and
    as a person copies a uuid (the review command had lower-cased, show had not: `show 0958F2` failed)."""
    return memory_id.casefold().startswith(ref.strip().casefold())


def pick_by_id(ref: str, candidates: Sequence[tuple[str, T]]) -> T:
    """From (id, thing) pairs whose id starts with `ref`: the exact match, else the only one."""
    exact = [thing for memory_id, thing in candidates if memory_id.casefold() == ref.strip().casefold()]
    if exact:
        return exact[0]
    matches = [(memory_id, thing) for memory_id, thing in candidates if id_starts_with(memory_id, ref)]
    if len(matches) == 1:
        return matches[0][1]
    if len(matches) > 1:
        shown = ", ".join(memory_id[:13] for memory_id, _ in matches[:5])
        raise InvalidInputError(f"id prefix '{ref}' matches {len(matches)} memories ({shown})", "type more of it")
    raise NotFoundError(f"no memory with id or title '{ref}'", "run `aimate mem list` to see ids and titles")


def pick_by_title(ref: str, candidates: Sequence[tuple[str, str, T]]) -> T | None:
    """From (title, id, thing) triples: the one whose title is `ref` (case-insensitive), None when none is;
    several → an error listing them, so the person can pick by id."""
    wanted = ref.casefold()
    matches = [(memory_id, thing) for title, memory_id, thing in candidates if title.strip().casefold() == wanted]
    if len(matches) > 1:
        shown = ", ".join(memory_id[:8] for memory_id, _ in matches[:5])
        raise InvalidInputError(f"title '{ref}' matches {len(matches)} memories ({shown})", "give one of these ids")
    return matches[0][1] if matches else None


def resolve_path(ref: str, vaults: list[Vault]) -> tuple[Vault, PurePosixPath]:
    """A path is taken relative to the working directory, else to each vault root; one that resolves
    outside every vault (`../../etc/passwd`, a symlink out) is refused, not read."""
    given = Path(ref).expanduser()
    candidates = [given] if given.is_absolute() else [Path.cwd() / given, *(v.root / given for v in vaults)]
    inside: tuple[Vault, PurePosixPath] | None = None
    for candidate in candidates:
        for vault in vaults:
            try:
                rel = vault.rel_path(candidate)
            except OutsideVaultError:
                continue
            if vault.abs_path(rel).is_file():
                return vault, rel
            inside = inside or (vault, rel)
    if inside is None:
        raise OutsideVaultError(f"'{ref}' is outside the memory vaults", "give an id or a path inside a vault")
    raise NotFoundError(f"no memory at '{ref}'", "run `aimate mem list` to see paths")

"""Opening a vault's repository for a test (the product reaches these through the facade)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from aimate_memory.git import review
from aimate_memory.git.repo import VaultRepo
from aimate_memory.git.review import PendingChange


@contextmanager
def opened(root: Path) -> Iterator[VaultRepo]:
    with VaultRepo(root) as repo:
        yield repo


def pending_at(root: Path) -> list[PendingChange]:
    """The review list of the repository holding `root` (tests only: the facade is `pending_changes`)."""
    with opened(root) as repo:
        return review.pending_changes(repo)


def with_repo(root: Path, action: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """`action(repo, *args, **kwargs)` on the repository holding `root`."""
    with opened(root) as repo:
        return action(repo, *args, **kwargs)

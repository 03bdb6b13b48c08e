"""Git-native memory (DESIGN §8): commits with reasons, the review gate, history, sync with a
frontmatter merge driver, and a secret guard in front of every commit."""

import importlib
from typing import Any

# Exports resolve on first use: gitpython costs ~100 ms to import, and most commands never touch git.
_EXPORTS = {
    **dict.fromkeys(
        (
            "GitCommitter",
            "GitError",
            "LogEntry",
            "PendingChange",
            "RejectResult",
            "SecretFoundError",
            "SyncResult",
            "VaultRepo",
            "accept",
            "attach_auto_commit",
            "commit_changeset",
            "commit_paths",
            "commit_pending",
            "diff",
            "init_vault_repo",
            "install_project_attributes",
            "log_memory",
            "pending_changes",
            "reject",
            "sync",
        ),
        "aimate_memory.git.repo",
    ),
    **dict.fromkeys(("Finding", "contains_sensitive", "scan_text"), "aimate_memory.git.secrets"),
}


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'aimate_memory.git' has no attribute {name!r}")


__all__ = sorted(_EXPORTS)

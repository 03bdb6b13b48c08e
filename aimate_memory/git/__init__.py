"""Git-native memory (docs/design.md §8). One job per module:

- `repo`: the repository handle (vault ↔ repository paths, running git, identity) and building a commit
  of exactly the given paths in a temporary index, behind the secret guard;
- `review`: uncommitted changes (hand edits, moves, conflicts), accept / reject;
- `history`: one memory's commits across moves, a vault's recent commits;
- `sync`: fetch, merge, push the global vault;
- `setup`: making a vault a repository, the merge driver registration;
- `committer`: automatic commits of tool actions, holding out unreviewed hand edits and secrets;
- `merge`: the frontmatter-aware merge driver git calls; `secrets`: the scanner (pure).
"""

import importlib
from typing import Any

# Exports resolve on first use: gitpython costs ~100 ms to import, and most commands never touch git.
_EXPORTS = {
    **dict.fromkeys(("GitError", "SecretFoundError", "VaultRepo"), "aimate_memory.git.repo"),
    **dict.fromkeys(
        ("PendingChange", "RejectResult", "accept", "diff", "pending_changes", "reject", "unreviewed_paths"),
        "aimate_memory.git.review",
    ),
    **dict.fromkeys(("LogEntry", "log_memory", "log_vault"), "aimate_memory.git.history"),
    # `sync` the function is `aimate_memory.git.sync.sync`: the submodule's name would shadow it here.
    **dict.fromkeys(("SyncResult",), "aimate_memory.git.sync"),
    **dict.fromkeys(("init_vault_repo", "install_project_attributes"), "aimate_memory.git.setup"),
    **dict.fromkeys(
        ("CommitReport", "GitCommitter", "HeldPath", "held_warnings", "unreviewed_paths_for"),
        "aimate_memory.git.committer",
    ),
    **dict.fromkeys(("Finding", "contains_sensitive", "scan_text"), "aimate_memory.git.secrets"),
}


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'aimate_memory.git' has no attribute {name!r}")


__all__ = sorted(_EXPORTS)

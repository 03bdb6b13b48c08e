"""Actions for long-running faces (the daemon, soon the MCP server): sync one vault's index for the paths
a watcher saw change, share one loaded embedding model between systems, load the search code ahead."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from aimate_memory.system.base import SystemBase

if TYPE_CHECKING:
    from aimate_memory.index.memory_index import RefreshReport
    from aimate_memory.vault.store import Vault


class LiveActions(SystemBase):
    def refresh_vault(self, vault: Vault, paths: Iterable[str] | None = None) -> RefreshReport:
        """Hash-sync one vault's index; `paths` (vault-relative, a folder stands for what is under it)
        limits the walk to what changed, None walks the whole vault."""
        return self.index_for(vault).refresh(paths=paths)

    def share_embedder(self, other: SystemBase) -> bool:
        """Use `other`'s embedding model when both are configured for the same one (one model in memory
        for a daemon serving many projects, not one per project); True when shared. Call it before the
        first search or sync: an index opened earlier keeps the model it was opened with."""
        if self.embedder is other.embedder:
            return True
        if self.embedder.fingerprint != other.embedder.fingerprint:
            return False
        self.__dict__["embedder"] = other.embedder  # replaces the cached_property's value
        return True

    def warm_up(self) -> bool:
        """Load the search code and the embedding model now, so the first query does not pay for them;
        True when the model is loaded (False: vectors off, or the model is unavailable)."""
        import aimate_memory.retrieval.hybrid  # noqa: F401  (the search code, loaded before the first query)

        if self.embedder.enabled:
            self.embedder.get()
        return self.embedder.loaded

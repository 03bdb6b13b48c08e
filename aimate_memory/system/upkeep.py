"""`Upkeep`: lifecycle runs (expire, promote, archive by uses) and near-duplicate merging, reached as
`system.upkeep` (`lifecycle/maintenance.py` does the work through the `MaintenanceHost` the store is)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aimate_memory.lifecycle.maintenance import VaultRun
    from aimate_memory.system.sessions import Sessions
    from aimate_memory.system.store import Store
    from aimate_memory.vault.store import Vault


class Upkeep:
    """Keeping the vaults tidy. Offers `maintain` (one lifecycle run per vault) and `dedupe`."""

    def __init__(self, store: Store, sessions: Sessions) -> None:
        self._store = store
        self._sessions = sessions

    def maintain(self, dry_run: bool = False, vaults: list[Vault] | None = None) -> list[VaultRun]:
        """One lifecycle run per vault (all, or `vaults`), each one git commit listing every move;
        `dry_run` returns the plan and changes nothing. First, sessions left running by a client that died
        are ended (`Sessions.close_idle`), so they are distilled and filed like any other."""
        from aimate_memory.lifecycle.maintenance import run_maintenance

        if not dry_run:
            self._sessions.close_idle()
        return run_maintenance(self._store, dry_run=dry_run, vaults=vaults)

    def dedupe(self, apply: bool = False) -> list[VaultRun]:
        """Near-duplicate groups per vault; `apply` merges each into its survivor."""
        from aimate_memory.lifecycle.maintenance import run_dedupe

        return run_dedupe(self._store, apply=apply)

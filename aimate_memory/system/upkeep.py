"""Lifecycle actions: maintenance runs (expire, promote, archive, fold uses) and near-duplicate merging."""

from __future__ import annotations

from typing import TYPE_CHECKING

from aimate_memory.system.base import SystemBase

if TYPE_CHECKING:
    from aimate_memory.lifecycle.maintenance import VaultRun
    from aimate_memory.vault.store import Vault


class UpkeepActions(SystemBase):
    def maintain(self, dry_run: bool = False, vaults: list[Vault] | None = None) -> list[VaultRun]:
        """One lifecycle run per vault (all, or `vaults`), each one git commit listing every move;
        `dry_run` returns the plan and changes nothing."""
        from aimate_memory.lifecycle.maintenance import run_maintenance

        return run_maintenance(self, dry_run=dry_run, vaults=vaults)

    def dedupe(self, apply: bool = False) -> list[VaultRun]:
        """Near-duplicate groups per vault; `apply` merges each into its survivor."""
        from aimate_memory.lifecycle.maintenance import run_dedupe

        return run_dedupe(self, apply=apply)

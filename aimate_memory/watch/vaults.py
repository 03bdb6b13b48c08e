"""The vaults the daemon watches, each under a key ("global", or the project folder): one `MemorySystem`
per project (kept open: warm indexes), all sharing one embedding model, plus the global-only one."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from aimate_memory.watch.registry import registered_projects

if TYPE_CHECKING:
    from aimate_memory.system import MemorySystem
    from aimate_memory.vault.store import Vault

log = logging.getLogger("aimate.daemon")

GLOBAL_KEY = "global"
PROJECT_DIR = ".aimate"


class WatchedVaults:
    def __init__(
        self,
        home: Path,
        on_watch: Callable[[str, Path], None],
        on_open: Callable[[MemorySystem], None] | None = None,
    ) -> None:
        """`on_watch(key, folder)` is called once for each vault that starts being watched; `on_open(system)`
        once for each system opened."""
        self.home = home
        self.on_watch = on_watch
        self.on_open = on_open
        self._systems: dict[Path | None, MemorySystem] = {}  # project `.aimate` folder (None: none) → system
        self._watched: dict[str, tuple[MemorySystem, Vault]] = {}

    def system(self, project_aimate: Path | None) -> MemorySystem:
        """The open system for a project's `.aimate` folder (None: global only), opened on first use."""
        if project_aimate not in self._systems:
            self._systems[project_aimate] = self._open(project_aimate)
        return self._systems[project_aimate]

    def _open(self, project_aimate: Path | None) -> MemorySystem:
        from aimate_memory.system import MemorySystem
        from aimate_memory.vault.roots import Roots

        system = MemorySystem(Roots(self.home, project_aimate))
        first = self._first()
        if first is not None:
            system.store.share_embedder(first.store)  # one model in memory, not one per project
        if self.on_open is not None:
            self.on_open(system)
        return system

    def _first(self) -> MemorySystem | None:
        return next(iter(self._systems.values()), None)

    @property
    def model_loaded(self) -> bool:
        first = self._first()
        return first is not None and first.store.model_loaded

    def open_registered(self) -> list[str]:
        """Watch the global vault and every registered project vault that exists; returns the new keys."""
        added = []
        system = self.system(None)
        if GLOBAL_KEY not in self._watched and system.global_vault.exists:
            self._watch(GLOBAL_KEY, system, system.global_vault)
            added.append(GLOBAL_KEY)
        added.extend(str(project) for project in registered_projects(self.home) if self.add_project(project))
        return added

    def add_project(self, project_dir: Path) -> bool:
        """Watch the vault of `project_dir`; False when already watched or it has none."""
        key = str(project_dir)
        aimate = project_dir / PROJECT_DIR
        if key in self._watched or not (aimate / "memory").is_dir():
            return False
        system = self.system(aimate)
        assert system.project_vault is not None
        self._watch(key, system, system.project_vault)
        return True

    def is_watched(self, key: str) -> bool:
        return key in self._watched

    def _watch(self, key: str, system: MemorySystem, vault: Vault) -> None:
        self._watched[key] = (system, vault)
        self.on_watch(key, vault.root)
        log.info("watching %s (%s)", vault.root, key)

    def __getitem__(self, key: str) -> tuple[MemorySystem, Vault]:
        return self._watched[key]

    def items(self) -> Iterator[tuple[str, tuple[MemorySystem, Vault]]]:
        """(key, (system, vault)) for every watched vault; safe while another thread adds one."""
        return iter(list(self._watched.items()))

    @property
    def keys(self) -> list[str]:
        return list(self._watched)

    def key_for(self, vault: Vault) -> str | None:
        for key, (_, watched) in self.items():
            if watched.root == vault.root:
                return key
        return None

    def close(self) -> None:
        for system in self._systems.values():
            with contextlib.suppress(Exception):  # shutting down: close the others all the same
                system.close()

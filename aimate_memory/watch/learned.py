"""The assistants' own memories, watched (docs/agents.md, "The assistants' own memories"): with
`learned.watch` on in the person's config, the daemon looks every `learned.poll` seconds at Claude Code's auto
memory of each watched project (`~/.claude/projects/<project>/memory/`) and at Codex's memories
(`$CODEX_HOME/memories/`); when a folder's files changed, it runs the one-shot importer's path
(`Transfer.import_learned`) on the daemon's one queue: new entries become **pending** captures, the source
recorded, deduplicated by the vault and by `state/learned.json`. The clients' files are only read.

Polling, not the file watcher: these folders are outside every vault, may not exist yet (Claude Code makes a
project's folder on its first note), and change a few times a day — a stat of a handful of files a minute
costs nothing, where an inotify watch per folder would need re-arming whenever one appears or is replaced.
A failure is logged and retried at the folder's next change (or the next start); it never stops the daemon."""

from __future__ import annotations

import logging
import threading
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from aimate_memory.vault.assistant_memories import default_learned_folder
from aimate_memory.watch.vaults import GLOBAL_KEY

if TYPE_CHECKING:
    from aimate_memory.system import MemorySystem
    from aimate_memory.watch.tasks import Result, TaskQueue
    from aimate_memory.watch.vaults import WatchedVaults

log = logging.getLogger("aimate.daemon")

Signature = tuple[tuple[str, int, int], ...]  # (file, mtime_ns, size) of every file under a folder


class LearnedWatch:
    def __init__(self, tasks: TaskQueue, vaults: WatchedVaults) -> None:
        self._tasks = tasks
        self._vaults = vaults
        self._seen: dict[tuple[str, Path], Signature] = {}  # touched by the timer thread only

    def start(self) -> None:
        """Read the config; when the watch is on, start the poll thread (its first look is at once, so what
        the clients noted while the daemon was off is taken too). Off (the default): nothing."""
        config = self._vaults.system(None).config
        if not config.get("learned.watch"):
            return
        poll = float(config.get("learned.poll"))
        log.info("watching the assistants' own memories every %.0f s", poll)
        threading.Thread(target=self._timer, args=(poll,), name="aimate-learned", daemon=True).start()

    def _timer(self, poll: float) -> None:
        self.look()
        while not self._tasks.stopping.wait(poll):
            self.look()

    def look(self) -> None:
        """Queue an import for each client folder whose files changed since the last look."""
        for kind, folder, system in self._sources():
            try:
                signature = _signature(folder)
            except OSError as exc:  # a folder being replaced right now: look again next time
                log.info("learned watch: cannot read %s: %s", folder, exc)
                continue
            if self._seen.get((kind, folder)) == signature:
                continue
            self._seen[(kind, folder)] = signature
            if signature:
                self._tasks.put(f"import {kind}", partial(self.run, kind, folder, system))

    def _sources(self) -> list[tuple[str, Path, MemorySystem]]:
        """Codex's memories into the global system; each watched project's Claude Code auto memory into that
        project's system (so scope is decided as it would be by `import` run inside the project)."""
        home = Path.home()
        sources = [("codex-memories", default_learned_folder("codex-memories", home, home), self._vaults.system(None))]
        for key, (system, _) in self._vaults.items():
            if key != GLOBAL_KEY:
                folder = default_learned_folder("claude-auto-memory", home, Path(key))
                sources.append(("claude-auto-memory", folder, system))
        return sources

    def run(self, kind: str, folder: Path, system: MemorySystem) -> Result:
        try:
            outcomes = system.transfer.import_learned(kind, folder)
        except Exception as exc:  # logged; the folder's next change (or the next start) tries again
            log.warning("learned watch: import of %s failed: %s", folder, getattr(exc, "message", None) or exc)
            return {"ok": False, "error": str(exc)}
        pending = sum(outcome["action"] == "pending" for outcome in outcomes)
        if pending:
            log.info("learned watch: %d new pending capture(s) from %s (%s)", pending, folder, kind)
        return {"ok": True, "pending": pending}


def _signature(folder: Path) -> Signature:
    """Every file under `folder` with its mtime and size; empty when the folder does not exist."""
    if not folder.is_dir():
        return ()
    stats = ((path, path.stat()) for path in folder.rglob("*") if path.is_file())
    return tuple(sorted((str(path.relative_to(folder)), stat.st_mtime_ns, stat.st_size) for path, stat in stats))

"""The worker process that re-embeds a vault after a switch of embedding model (index/reembed.py), and how a
command starts it: detached from the command, so the command answers at once (keywords) and the worker
outlives it. Run as `python -m aimate_memory.system.reembed --home H [--project P] --scope S --fingerprint F`.
"""

from __future__ import annotations

import argparse
import logging
import os
import subprocess
import sys
from pathlib import Path

from aimate_memory.vault.layout import Scope
from aimate_memory.vault.roots import Roots

log = logging.getLogger(__name__)

LOG_FILE = "reembed.log"  # in the home's state folder: what the worker said (it has no terminal)

# The workers this process started: kept so none is collected (and warned about) while it still runs.
_started: list[subprocess.Popen[bytes]] = []


def launch(roots: Roots, scope: Scope, fingerprint: str) -> None:
    """Start the worker for `scope`'s index, detached (its own session, no terminal); `fingerprint` is the
    model the starting process wants, so a worker whose config reads differently builds nothing."""
    state = Roots.state_dir(roots.home)
    state.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", __name__, "--home", str(roots.home), "--scope", scope.value]
    command += ["--fingerprint", fingerprint]
    if roots.project is not None:
        command += ["--project", str(roots.project)]
    fd = os.open(state / LOG_FILE, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        _started.append(
            subprocess.Popen(
                command, stdin=subprocess.DEVNULL, stdout=fd, stderr=fd, start_new_session=True, close_fds=True
            )
        )
    except OSError as exc:  # no worker: the next sync tries again; searching by keywords goes on
        log.warning("could not start the re-embedding worker: %s", exc)
    finally:
        os.close(fd)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="aimate-reembed", description=__doc__)
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--project", type=Path)
    parser.add_argument("--scope", choices=[scope.value for scope in Scope], required=True)
    parser.add_argument("--fingerprint", required=True)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    from aimate_memory.config import load_config
    from aimate_memory.embedding.lazy import embedder_for
    from aimate_memory.system.store import Store

    roots = Roots(args.home, args.project)
    config = load_config(roots.home, roots.project)
    embedder = embedder_for(config, Roots.state_dir(roots.home))
    store = Store(roots, config, embedder=embedder)
    try:
        index = store.index_for(store.vault_for(args.scope))
        if embedder.fingerprint != args.fingerprint:  # its endpoint did not answer this process (or config moved)
            log.warning("not re-embedding: this process's config asks for another model than the one that started it")
            index.reembed_failed()  # the next syncs wait before starting another (index/reembed.py)
            return 1
        report = index.reembed_now()
    finally:
        store.close()
    log.info("re-embedded the %s vault: %d chunks, swapped in: %s", args.scope, report.embedded_chunks, report.rebuilt)
    return 0


if __name__ == "__main__":
    sys.exit(main())

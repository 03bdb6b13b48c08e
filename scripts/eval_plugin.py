"""Retrieval-benchmark plugin: the real system (files → index → search), default configuration.

    python3 ../shared/bench/eval_retrieval.py --dataset locomo --baselines none \
        --retriever scripts/eval_plugin.py:make

Each benchmark document becomes one memory file in a vault of its own (a temp AIMATE_HOME per bench
vault), written the way `aimate mem add` writes it (title = the start of the text, body = the text);
then `MemorySystem.refresh()` indexes the files and `MemorySystem.search()` answers every question. The
bench data is read at run time only; nothing of it is stored in the project.

`AIMATE_EVAL_VECTORS=DIR` (opt-in) keeps the chunk vectors between runs, in `DIR/<embedder>.db` (chunk hash →
vector, as the index's own `vectors` table): a run then embeds only chunks no earlier run saw, so comparing
ranking variants costs the queries alone (LoCoMo: ~8 min → ~2). Without it every run embeds everything.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import os
import shutil
import sys
import tempfile
import time
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from aimate_memory.config import load_config  # noqa: E402
from aimate_memory.embedding.base import EmbedderUnavailable  # noqa: E402
from aimate_memory.embedding.lazy import LazyEmbedder  # noqa: E402
from aimate_memory.retrieval.hybrid import SearchHit  # noqa: E402
from aimate_memory.system import MemorySystem  # noqa: E402
from aimate_memory.vault.atomic import atomic_write_text  # noqa: E402
from aimate_memory.vault.codec import MemoryDocument, content_hash  # noqa: E402
from aimate_memory.vault.roots import Roots  # noqa: E402

WRITTEN_AT = datetime(2026, 1, 1, tzinfo=timezone.utc)
TITLE_CHARS = 60


def _title(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= TITLE_CHARS else flat[: TITLE_CHARS - 1] + "…"


def _write_vault(home: Path, docs: list, said: dict[str, datetime] | None = None) -> dict[str, str]:
    """The docs as memory files; `said`: when each session took place (LoCoMo), which an imported turn keeps
    as its `created_at` (its `updated_at` is the import, so recency ranks every turn alike)."""
    folder = home / "memory" / "long_term" / "knowledge"
    folder.mkdir(parents=True)
    ids: dict[str, str] = {}
    for number, doc in enumerate(docs):
        written = WRITTEN_AT + timedelta(seconds=number)
        created = said[doc.session] + timedelta(seconds=number) if said and doc.session in said else written
        memory_id = str(uuid.uuid4())
        ids[memory_id] = doc.id
        body = doc.text.strip() + "\n"
        meta = {
            "id": memory_id,
            "type": "long_term",
            "scope": "global",
            "category": "knowledge",
            "title": _title(doc.text),
            "tags": [],
            "status": "active",
            "importance": 3,
            "created_at": created,
            "updated_at": written,
            "access_count": 0,
            "content_hash": content_hash(body),
            "source": "import",
        }
        if doc.session:  # LoCoMo: each turn is captured from its conversation's session, in order
            meta["thread"] = doc.session
        atomic_write_text(folder / f"m{number:05d}.md", MemoryDocument.new(meta, body).render())
    return ids


class BenchVaults:
    """One indexed vault per bench vault, built on first use, sharing one loaded embedder.
    ``env``: config overrides as environment variables (e.g. the relevance floor)."""

    def __init__(self, corpus, env: dict[str, str] | None = None) -> None:
        self.corpus = corpus
        self.env = env
        self.workdir = Path(tempfile.mkdtemp(prefix="aimate-eval-"))
        # The vaults and their indexes (~100 MB for LoCoMo) go when the evaluation ends.
        atexit.register(shutil.rmtree, self.workdir, ignore_errors=True)
        # The embedder as configured here (AIMATE_EMBEDDING__PROVIDER=e5 … measures another model).
        defaults = load_config(self.workdir / "no-such-home", None, env=self.env)
        settings = defaults.section("embedding")
        settings["cache_dir"] = str(self.workdir / "models")
        self.embedder = LazyEmbedder(settings)  # one loaded model shared by every bench vault
        self.systems: dict[str, tuple[MemorySystem, dict[str, str]]] = {}
        self.said = _session_times(corpus)

    def system_for(self, vault_id: str) -> tuple[MemorySystem, dict[str, str]]:
        if vault_id not in self.systems:
            home = self.workdir / f"vault-{len(self.systems)}"
            ids = _write_vault(home, self.corpus.vaults[vault_id], self.said.get(vault_id))
            cache = _vector_cache(self.embedder)
            started = time.perf_counter()
            if cache is not None:  # keywords first, then the cached vectors in, so the sync embeds only the rest
                keyword_only = LazyEmbedder(self.embedder.settings)
                keyword_only.unavailable = EmbedderUnavailable("eval: keyword part of the build", None)
                with self._system(home, keyword_only) as first:
                    first.refresh()
                    _copy_vectors(first, cache, into_index=True)
            system = self._system(home, self.embedder)
            report = system.refresh()["global"]
            if cache is not None:
                _copy_vectors(system, cache, into_index=False)
            print(
                f"[aimate] {vault_id}: {report.added} memories, {report.embedded_chunks} chunks embedded "
                f"in {time.perf_counter() - started:.1f}s",
                file=sys.stderr,
            )
            self.systems[vault_id] = (system, ids)
        return self.systems[vault_id]

    def _system(self, home: Path, embedder: LazyEmbedder) -> MemorySystem:
        return MemorySystem(Roots(home, None), config=load_config(home, None, env=self.env), embedder=embedder)

    def search(self, vault_id: str, question: str, k: int) -> list[tuple[str, SearchHit]]:
        """(bench doc id, hit) pairs, best first."""
        system, ids = self.system_for(vault_id)
        if not question.strip():
            return []
        return [(ids[hit.memory.id], hit) for hit in system.search(question, k).results]


def _session_times(corpus) -> dict[str, dict[str, datetime]]:
    """LoCoMo: when each conversation's sessions took place (UTC), read from the data file the bench loaded (its
    `--data`, else its default); the bench's own records carry no dates. {} for other data or if unreadable."""
    main = sys.modules.get("__main__")
    if getattr(corpus, "name", "") != "locomo" or main is None or not hasattr(main, "l2v"):
        return {}
    data = next((sys.argv[i + 1] for i, arg in enumerate(sys.argv[:-1]) if arg == "--data"), None)
    path = Path(data) if data else Path(main.__file__).parent / "data" / "locomo_dev.json"
    try:
        conversations = main.l2v.load_conversations(path)
    except (OSError, ValueError):
        return {}
    times = {
        conversation["conv_id"]: {
            f"S{session['n']}": session["created_at"].replace(tzinfo=timezone.utc)
            for session in conversation["sessions"]
            if session.get("created_at") is not None
        }
        for conversation in conversations
    }
    return {vault: sessions for vault, sessions in times.items() if vault in corpus.vaults}


def _vector_cache(embedder: LazyEmbedder) -> Path | None:
    folder = os.environ.get("AIMATE_EVAL_VECTORS")
    if not folder:
        return None
    Path(folder).mkdir(parents=True, exist_ok=True)
    # What the vectors depend on: provider, model, latin_weight… and the fingerprint, which also carries what
    # changes with the code (a model revision); not where models live or how many threads.
    keyed = {k: v for k, v in embedder.settings.items() if k not in ("cache_dir", "enabled", "threads")}
    keyed["fingerprint"] = embedder.fingerprint
    name = hashlib.sha256(json.dumps(keyed, sort_keys=True, default=str).encode()).hexdigest()[:16]
    return Path(folder) / f"{name}.db"


def _copy_vectors(system: MemorySystem, cache: Path, into_index: bool) -> None:
    """Chunk vectors from the cache file into the vault's index, or the index's new ones into the cache."""
    conn = system.store.index_for(system.global_vault).conn
    conn.execute("ATTACH DATABASE ? AS cache", (str(cache),))
    try:
        conn.execute("CREATE TABLE IF NOT EXISTS cache.vectors (chunk_hash TEXT PRIMARY KEY, vec BLOB NOT NULL)")
        target, source = ("main", "cache") if into_index else ("cache", "main")
        conn.execute("BEGIN IMMEDIATE")
        conn.execute(f"INSERT OR IGNORE INTO {target}.vectors SELECT chunk_hash, vec FROM {source}.vectors")
        conn.execute("COMMIT")
    finally:
        conn.execute("DETACH DATABASE cache")


def make(corpus):
    vaults = BenchVaults(corpus)

    def retrieve(vault_id: str, question: str, k: int) -> list[str]:
        return [doc_id for doc_id, _ in vaults.search(vault_id, question, k)]

    return retrieve

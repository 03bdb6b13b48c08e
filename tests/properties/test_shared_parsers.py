"""One table of dates and tag lists, English and Chinese, through every face: the Python API, the CLI (a
subprocess) and the MCP server (the SDK's own client). Each face must read each input the same way, and that
way must be the table's (vault/dates.py, vault/lists.py; docs/usage.md, "Dates and lists")."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from aimate_memory.cli.common import when
from aimate_memory.errors import InvalidInputError
from aimate_memory.system import MemorySystem
from aimate_memory.system.client import LocalClient
from aimate_memory.vault.dates import parse_optional_when, parse_when
from aimate_memory.vault.filters import MemoryFilter
from aimate_memory.vault.layout import Layer
from aimate_memory.vault.lists import split_list
from tests.conftest import make_runner
from tests.mcp.conftest import McpProcess, server_env

# A fixed now for the pure parser: a Thursday afternoon in Beijing.
NOW = datetime.fromisoformat("2026-11-26T15:30:00+08:00")
MIDNIGHT = NOW.replace(hour=0, minute=0)
LONG = Layer.LONG_TERM

# input → the bound it means (relative to NOW).
DATES: list[tuple[str, datetime]] = [
    ("7d", NOW - timedelta(days=7)),
    ("3m", NOW - timedelta(minutes=3)),  # minutes, as docker/kubectl/journalctl read it
    ("3mo", NOW - timedelta(days=90)),
    ("3 months ago", NOW - timedelta(days=90)),
    ("2 weeks", NOW - timedelta(weeks=2)),
    ("last 2 weeks", NOW - timedelta(weeks=2)),
    ("12h", NOW - timedelta(hours=12)),
    ("yesterday", MIDNIGHT - timedelta(days=1)),
    ("Today", MIDNIGHT),
    ("昨天", MIDNIGHT - timedelta(days=1)),
    ("前天", MIDNIGHT - timedelta(days=2)),
    ("3天以来", NOW - timedelta(days=3)),
    ("三天前", NOW - timedelta(days=3)),
    ("3天以前", NOW - timedelta(days=3)),
    ("两周内", NOW - timedelta(weeks=2)),
    ("最近十五天", NOW - timedelta(days=15)),
    ("二十天", NOW - timedelta(days=20)),
    ("半个月", NOW - timedelta(days=15)),
    ("3个月", NOW - timedelta(days=90)),
    ("30分钟", NOW - timedelta(minutes=30)),
    ("2026-03-01T00:00:00+08:00", datetime.fromisoformat("2026-03-01T00:00:00+08:00")),
]
NOT_DATES = ["someday", "last tuesday", "3x", "十二三天", "3 fortnights", "上周五", "7 parsecs"]

# input → the tags it means.
TAGS: list[tuple[str, list[str]]] = [
    ("缓存，redis", ["缓存", "redis"]),
    ("a, b;c", ["a", "b", "c"]),
    ("x、y", ["x", "y"]),
    ("部署；ops ,", ["部署", "ops"]),
    ("single", ["single"]),
]

# Memories this long before the faces' own now: each date input falls between two of them (none sits within
# a minute of a bound, so a test that runs slowly cannot move one across).
AGES = {
    "one minute": timedelta(minutes=1),
    "ten minutes": timedelta(minutes=10),
    "five hours": timedelta(hours=5),
    "two days": timedelta(days=2, hours=2),
    "five days": timedelta(days=5),
    "ten days": timedelta(days=10),
    "eighteen days": timedelta(days=18),
    "forty days": timedelta(days=40),
    "hundred days": timedelta(days=100),
    "four hundred days": timedelta(days=400),
}


@pytest.mark.parametrize(("text", "expected"), DATES)
def test_api_reads_each_date_as_the_table_says(text: str, expected: datetime) -> None:
    assert parse_when(text, NOW, "since") == expected


@pytest.mark.parametrize("text", NOT_DATES)
def test_api_refuses_what_is_not_a_date_naming_the_option(text: str) -> None:
    with pytest.raises(InvalidInputError, match="--since: not a date") as caught:
        parse_when(text, NOW, "--since")
    assert caught.value.hint and "7d" in caught.value.hint


def test_nothing_given_is_no_bound() -> None:
    assert parse_optional_when(None, NOW) is None
    assert parse_optional_when("  ", NOW) is None


@pytest.mark.parametrize(("text", "expected"), TAGS)
def test_api_splits_each_tag_string_as_the_table_says(text: str, expected: list[str]) -> None:
    assert split_list(text) == expected
    assert split_list([text, " "]) == expected


@pytest.fixture(scope="module")
def aged_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    """A global vault holding one memory per age in AGES (its updated_at that long before now), each about
    deploying, in English and Chinese."""
    root = tmp_path_factory.mktemp("shared-parsers")
    home, workdir = root / "aimate-home", root / "work"
    workdir.mkdir()
    cli = make_runner(home, workdir, vectors=False)
    assert cli("mem", "init").code == 0
    now = datetime.now().astimezone()
    for number, (title, age) in enumerate(AGES.items()):
        when = (now - age).isoformat(timespec="seconds")
        (home / "memory" / "long_term" / "knowledge" / f"aged-{number}.md").write_text(
            f"---\nid: 00000000-0000-4000-8000-{number:012d}\ntitle: {title}\ncreated_at: {when}\n"
            f"updated_at: {when}\n---\nDeploy checklist, 部署清单 {title}.\n",
            encoding="utf-8",
        )
    yield home, workdir


@pytest.fixture(scope="module")
def tag_home(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("shared-tags")
    home, workdir = root / "aimate-home", root / "work"
    workdir.mkdir()
    assert make_runner(home, workdir, vectors=False)("mem", "init").code == 0
    return home, workdir


def _expected_titles(text: str) -> set[str]:
    bound = parse_when(text, datetime.now().astimezone(), "since")
    now = datetime.now().astimezone()
    return {title for title, age in AGES.items() if now - age >= bound}


# The dates each face reads through its own process too (English, Chinese, months, an absolute date); the
# others reach the CLI's reading in process: `when`, what `list --since` and `search --since` call, and the
# client `search` answers through. A `list` and a `search` process per date were ~0.6 s of CPU each case.
CLI_DATES = ("7d", "昨天", "3个月", "2026-03-01T00:00:00+08:00")


@pytest.mark.parametrize(("text", "expected"), DATES)
def test_every_face_reads_since_the_same(
    aged_home: tuple[Path, Path], text: str, expected: datetime, monkeypatch: pytest.MonkeyPatch
) -> None:
    home, workdir = aged_home
    monkeypatch.setenv("AIMATE_HOME", str(home))
    monkeypatch.setenv("AIMATE_EMBEDDING__ENABLED", "false")
    wanted = _expected_titles(text)

    with MemorySystem.open(global_only=True) as system:
        bound = parse_when(text, system.clock.now(), "since")
        api = {memory.title for memory in system.list(MemoryFilter(layers=(LONG,), updated_after=bound))}
        if text not in CLI_DATES:
            where = MemoryFilter(layers=(LONG,), updated_after=when(text, "--since"))
            listed_here = {memory.title for memory in system.list(where)}
            searched_here = {
                hit.title for hit in LocalClient(lambda: system, borrowed=True).search("deploy", 50, where).hits
            }
            assert listed_here == searched_here == wanted
    if text in CLI_DATES:
        cli = make_runner(home, workdir, vectors=False)
        listed = cli("mem", "list", "--layer", "long_term", "--since", text, "--json")
        searched = cli("mem", "search", "deploy", "--layer", "long_term", "--since", text, "--limit", "50", "--json")
        assert listed.code == 0 and searched.code == 0, listed.err + searched.err
        assert {memory["title"] for memory in listed.json()} == wanted
        assert {hit["title"] for hit in searched.json()} == wanted
    mcp = _mcp(home, workdir)
    result = mcp.ok("memory_search", query="deploy", layer="long_term", since=text, limit=50)

    assert api == wanted
    assert {item["title"] for item in result["results"]} == wanted


@pytest.mark.parametrize("text", NOT_DATES[:2])
def test_every_face_refuses_the_same_non_dates(aged_home: tuple[Path, Path], text: str) -> None:
    home, workdir = aged_home
    cli = make_runner(home, workdir, vectors=False)
    refused = cli("mem", "list", "--since", text)
    assert refused.code == 1 and "--since: not a date" in refused.err
    answer = _mcp(home, workdir).call("memory_search", query="deploy", since=text)
    assert answer.isError and "since: not a date" in answer.content[0].text


@pytest.mark.parametrize(("text", "expected"), TAGS)
def test_every_face_splits_tags_the_same(
    tag_home: tuple[Path, Path], text: str, expected: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    home, workdir = tag_home
    monkeypatch.setenv("AIMATE_HOME", str(home))
    monkeypatch.setenv("AIMATE_EMBEDDING__ENABLED", "false")
    cli = make_runner(home, workdir, vectors=False)

    with MemorySystem.open(global_only=True) as system:
        api = system.add(f"api {text}", "deploy 部署", tags=text)
        set_later = system.set_fields(api.id, {"tags": text})
    added = cli("mem", "add", f"cli {text}", "--body", "deploy 部署", "--tags", text, "--json")
    assert added.code == 0, added.err
    assigned = cli("mem", "set", added.json()["id"], f"tags={text}", "--json")
    assert assigned.code == 0, assigned.err
    mcp = _mcp(home, workdir)
    updated = mcp.ok("memory_update", id=api.id[:13], tags=text)

    assert api.tags == set_later.tags == expected
    assert added.json()["tags"] == assigned.json()["tags"] == expected
    assert updated["tags"] == expected
    # As a filter, the same string names the same tags (all of them must be present).
    both = {f"api {text}", f"cli {text}"}
    listed = cli("mem", "list", "--tag", text, "--json").json()
    searched = mcp.ok("memory_search", query="deploy", tags=text, limit=50)["results"]
    assert {memory["title"] for memory in listed} == both
    assert {item["title"] for item in searched} == both


_servers: dict[Path, McpProcess] = {}


def _mcp(home: Path, workdir: Path) -> McpProcess:
    """One server per home for the module (starting one per case would be most of the test's time)."""
    if home not in _servers:
        _servers[home] = McpProcess(["mem", "mcp"], workdir, server_env(home))
    return _servers[home]


@pytest.fixture(scope="module", autouse=True)
def _close_servers() -> Iterator[None]:
    yield
    for server in _servers.values():
        server.close()
    _servers.clear()


# A reference to a memory: its id, a prefix of it in either case, its exact title (any case), its path.
REFS = [
    ("full id", lambda memory: memory["id"]),
    ("prefix", lambda memory: memory["id"][:8]),
    ("upper-case prefix", lambda memory: memory["id"][:8].upper()),
    ("title", lambda memory: memory["title"]),
    ("title in another case", lambda memory: memory["title"].swapcase()),
    ("path", lambda memory: memory["path"]),
]


@pytest.mark.parametrize("title", ["选用 Redis 做会话缓存", "Deploy Checklist"])
@pytest.mark.parametrize(("form", "ref_of"), REFS, ids=[form for form, _ in REFS])
def test_every_face_resolves_a_reference_the_same(
    tag_home: tuple[Path, Path], title: str, form: str, ref_of, monkeypatch: pytest.MonkeyPatch
) -> None:
    home, workdir = tag_home
    monkeypatch.setenv("AIMATE_HOME", str(home))
    monkeypatch.setenv("AIMATE_EMBEDDING__ENABLED", "false")
    cli = make_runner(home, workdir, vectors=False)
    with MemorySystem.open(global_only=True) as system:
        found = [memory for memory in system.list(MemoryFilter()) if memory.title == title]
        memory = found[0] if found else system.add(title, "deploy 部署")
        ref = ref_of(memory.public_dict())
        api = system.get(ref).id
    shown = cli("mem", "show", ref, "--json")
    assert shown.code == 0, shown.err
    got = _mcp(home, workdir).ok("memory_get", id=ref)
    assert api == shown.json()["id"] == got["id"] == memory.id

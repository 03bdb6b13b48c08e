"""What a new user meets in the first ten minutes (issue 26): errors before `init`, a memory that moved,
counted nouns, a mistyped config key, the grouped help. The CLI as a subprocess against a temp home."""

from __future__ import annotations

import re

import pytest

from aimate_memory import __version__
from aimate_memory.wording import plural, with_article

READ_COMMANDS = [
    ("search", "redis"),
    ("search", "缓存"),
    ("list",),
    ("show", "0958"),
    ("stats",),
    ("diagnose",),
    ("export",),
    ("index",),
    ("maintain", "--dry-run"),
    ("dedupe",),
    ("review",),
    ("log",),
    ("agents-md",),
    ("fix", "--dry-run"),
]


@pytest.mark.parametrize("args", READ_COMMANDS, ids=lambda args: " ".join(args))
def test_every_read_command_before_init_says_run_init(cli, home, args: tuple[str, ...]) -> None:
    result = cli("mem", *args)
    assert result.code == 1, (result.out, result.err)
    assert "run `aimate mem init`" in result.err
    assert result.err.count("\n") == 2, result.err  # one line and its hint
    assert not (home / "memory").exists()  # reading made no vault


def test_config_works_before_init(cli) -> None:
    assert cli("mem", "config", "get", "retrieval.decay").out.strip() == "0.95"


@pytest.mark.parametrize(
    ("title", "moved_to", "new_title"),
    [
        ("Use Redis for the session cache", "knowledge", "Redis, decided"),
        ("选用 Redis 做会话缓存", "knowledge", "缓存已定"),
    ],
)
def test_set_and_edit_after_a_category_move(cli, initialized, title: str, moved_to: str, new_title: str) -> None:
    memory_id = cli("mem", "add", title, "--category", "decision", "--json").json()["id"]
    assert cli("mem", "search", "Redis").code == 0  # indexed at long_term/decisions/
    moved = cli("mem", "set", memory_id[:8], f"category={moved_to}")
    assert moved.code == 0 and f"long_term/{moved_to}/" in moved.out
    again = cli("mem", "set", memory_id[:8], "importance=4", f"title={new_title}")
    assert again.code == 0, again.err  # was: unexpected FileNotFoundError … long_term/decisions/….md
    edited = cli("mem", "edit", memory_id[:8], env={"EDITOR": "true", "VISUAL": ""})
    assert edited.code == 0 and f"long_term/{moved_to}/" in edited.out, edited.err
    shown = cli("mem", "show", memory_id[:8], "--json").json()
    assert (shown["importance"], shown["title"]) == (4, new_title)


def test_counted_nouns_in_english_and_chinese_searches(cli, initialized) -> None:
    cli("mem", "add", "选用 Redis 做会话缓存", "--body", "我们决定用 Redis 做会话缓存。")
    cli("mem", "add", "Deploy on Fridays never", "--body", "We never deploy on a Friday afternoon.")
    assert "1 result," in cli("mem", "search", "会话缓存").out
    assert "1 result," in cli("mem", "search", "Friday deploy").out
    listed = cli("mem", "list", "--layer", "long_term").out
    assert listed.rstrip().endswith("2 memories")
    assert cli("mem", "list", "-n", "1").out.rstrip().endswith("1 of 4 memories")  # two core starters
    assert cli("mem", "list", "--category", "rule").out.rstrip().endswith("1 memory")


@pytest.mark.parametrize("title", ["AWS 密钥", "AWS key"])
def test_a_refused_secret_names_its_kind_with_the_right_article(cli, initialized, title: str) -> None:
    result = cli("mem", "add", title, "--body", "aws_access_key_id = AKIAIOSFODNN7EXAMPLE")
    assert result.code == 1 and "looks like an AWS access key" in result.err, result.err


def test_wording_rules() -> None:
    assert [plural(n, "memory", "memories") for n in (0, 1, 2)] == ["0 memories", "1 memory", "2 memories"]
    assert plural(1, "result") == "1 result"
    articles = {noun: with_article(noun) for noun in ("AWS access key", "secret", "JWT", "SSH key", "email", "user")}
    assert articles == {
        "AWS access key": "an AWS access key",
        "secret": "a secret",
        "JWT": "a JWT",
        "SSH key": "an SSH key",
        "email": "an email",
        "user": "a user",  # spelt with a vowel, said with a consonant
    }


@pytest.mark.parametrize(
    ("typed", "suggested"),
    [
        ("short_term.default_tll_days", "short_term.default_ttl_days"),
        ("retreival.decay", "retrieval.decay"),
        ("default_ttl_days", "short_term.default_ttl_days"),
    ],
)
def test_a_mistyped_config_key_suggests_the_nearest(cli, typed: str, suggested: str) -> None:
    for args in (("get", typed), ("set", typed, "3")):
        result = cli("mem", "config", *args)
        assert result.code == 1 and f"did you mean `{suggested}`?" in result.err
        assert "max_file_bytes" not in result.err  # not every key


def test_help_lists_version_and_groups_commands(cli) -> None:
    top = cli("--help").out
    assert "--version" in top
    assert cli("--version").out.strip() == f"aimate {__version__}"
    assert cli("--version", "mem", "--help").out.strip() == f"aimate {__version__}"  # eager, any spelling
    text = cli("mem", "--help").out
    headings = re.findall(r"^(\w+):$", text, flags=re.MULTILINE)
    assert headings == ["Options", "Everyday", "Assistants", "Git", "Maintenance"]
    sections = dict(re.findall(r"^(\w+):\n((?:  .*\n)+)", text, flags=re.MULTILINE))
    assert re.search(r"^  install\b", sections["Assistants"], flags=re.MULTILINE)
    assert re.search(r"^  review\b", sections["Git"], flags=re.MULTILINE)
    assert re.search(r"^  search\b", sections["Everyday"], flags=re.MULTILINE)
    commands = re.findall(r"^  ([a-z-]+)  ", text, flags=re.MULTILINE)
    assert len(commands) == len(set(commands)) >= 35  # every command once

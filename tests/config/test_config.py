"""Configuration: precedence, validation naming the key, comment-preserving edits."""

from __future__ import annotations

from pathlib import Path

import pytest

from aimate_memory.config import load_config, set_config_value
from aimate_memory.errors import ConfigError


def write(path: Path, text: str) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    (path / "config.yaml").write_text(text, encoding="utf-8")
    return path


def test_defaults_then_global_then_project_then_env(tmp_path: Path) -> None:
    home = write(tmp_path / "home", "short_term:\n  default_ttl_days: 10\n  promote_threshold: 7\n")
    project = write(tmp_path / "proj", "short_term:\n  default_ttl_days: 3\n")
    config = load_config(home, project, env={"AIMATE_SHORT_TERM__PROMOTE_THRESHOLD": "9"})
    assert config.get("short_term.default_ttl_days") == 3
    assert config.get("short_term.promote_threshold") == 9
    assert config.get("long_term.archive_after_days") == 90


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("short_term:\n  default_ttl_dayz: 3\n", "short_term.default_ttl_dayz"),
        ("nosuch:\n  a: 1\n", "nosuch"),
        ("short_term:\n  default_ttl_days: soon\n", "short_term.default_ttl_days"),
        ("git:\n  auto_commit: 3\n", "git.auto_commit"),
        ("short_term: [1\n", "config.yaml:2: broken YAML"),
    ],
)
def test_bad_config_names_the_key(tmp_path: Path, text: str, needle: str) -> None:
    home = write(tmp_path / "home", text)
    with pytest.raises(ConfigError) as info:
        load_config(home, None, env={})
    assert needle in info.value.message


def test_unknown_env_key_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError):
        load_config(tmp_path, None, env={"AIMATE_STORAGE__NOPE": "1"})


def test_set_keeps_comments_and_order(tmp_path: Path) -> None:
    home = write(tmp_path / "home", "# 我的配置\nshort_term:\n  default_ttl_days: 7  # 一周\n")
    set_config_value(home / "config.yaml", "privacy.sensitive_keywords", "[密码, token]")
    set_config_value(home / "config.yaml", "short_term.promote_threshold", "3")
    text = (home / "config.yaml").read_text(encoding="utf-8")
    assert text.startswith("# 我的配置\nshort_term:\n  default_ttl_days: 7  # 一周\n")
    config = load_config(home, None, env={})
    assert config.get("privacy.sensitive_keywords") == ["密码", "token"]
    assert config.get("short_term.promote_threshold") == 3


def test_set_refuses_wrong_type_and_writes_nothing(tmp_path: Path) -> None:
    home = write(tmp_path / "home", "# keep\n")
    with pytest.raises(ConfigError):
        set_config_value(home / "config.yaml", "session.max_tokens", "lots")
    assert (home / "config.yaml").read_text() == "# keep\n"


def test_embedding_threads_is_a_number_that_reaches_the_embedder(tmp_path: Path) -> None:
    from aimate_memory.embedding.lazy import embedder_for

    home = write(tmp_path / "home", "embedding:\n  threads: 1\n")
    config = load_config(home, None, env={})
    assert embedder_for(config, tmp_path / "state").settings["threads"] == 1
    assert load_config(tmp_path / "none", None, env={}).get("embedding.threads") == 0  # every core
    with pytest.raises(ConfigError):
        set_config_value(home / "config.yaml", "embedding.threads", "two")


def test_the_renamed_floor_key_is_still_read_under_its_new_name(tmp_path: Path) -> None:
    home = write(tmp_path / "home", "retrieval:\n  min_similarity: 0.3  # 相关度下限\n")
    config = load_config(home, None, env={})
    assert config.get("retrieval.min_relevance") == config.get("retrieval.min_similarity") == 0.3
    where = home / "config.yaml"
    assert config.deprecations == [
        f"retrieval.min_similarity in {where} is now retrieval.min_relevance (the old name is still read)"
    ]
    from_env = load_config(tmp_path / "none", None, env={"AIMATE_RETRIEVAL__MIN_SIMILARITY": "0.2"})
    assert from_env.get("retrieval.min_relevance") == 0.2 and from_env.deprecations
    # Both names in one file: the new one wins, whatever the order.
    both = write(tmp_path / "both", "retrieval:\n  min_relevance: 0.4\n  min_similarity: 0.3\n")
    assert load_config(both, None, env={}).get("retrieval.min_relevance") == 0.4
    assert load_config(tmp_path / "none", None, env={}).deprecations == []


def test_setting_the_old_name_writes_the_new_one(tmp_path: Path) -> None:
    home = write(tmp_path / "home", "retrieval:\n  min_similarity: 0.3\n")
    set_config_value(home / "config.yaml", "retrieval.min_similarity", "0.25")
    assert (home / "config.yaml").read_text(encoding="utf-8") == "retrieval:\n  min_relevance: 0.25\n"
    assert load_config(home, None, env={}).deprecations == []


def test_config_get_names_the_renamed_key_it_read(cli, home: Path) -> None:
    write(home, "retrieval:\n  min_similarity: 0.3\n")
    got = cli("mem", "config", "get", "retrieval.min_relevance")
    assert got.code == 0 and got.out.strip() == "0.3"
    assert "retrieval.min_similarity" in got.err and "retrieval.min_relevance" in got.err

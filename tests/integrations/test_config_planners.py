"""The pure planners: realistic existing configs in, our entries merged in and taken out again exactly."""

from __future__ import annotations

import json

import pytest

from aimate_memory.integrations import claude, codex, kimi
from aimate_memory.integrations.edits import ConfigSyntaxError

# A user's Claude Code settings: 4-space indent, their own key order, Chinese text, their own hooks on
# events we also use (one group shared with a matcher).
CLAUDE_SETTINGS = """{
    "model": "opus",
    "permissions": {"allow": ["Bash(git status)"]},
    "hooks": {
        "SessionStart": [
            {"matcher": "startup", "hooks": [{"type": "command", "command": "echo 欢迎回来"}]}
        ],
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh"}]}
        ]
    },
    "env": {"说明": "中文值"}
}
"""
# As Claude Code writes it (JSON.stringify with 2 spaces): comes back byte for byte.
MCP_JSON = """{
  "mcpServers": {
    "context7": {
      "command": "npx",
      "args": [
        "-y",
        "@upstash/context7-mcp"
      ]
    }
  }
}
"""
CODEX_CONFIG = """# 我的 Codex 配置
model = "o3"  # favourite model

[mcp_servers.context7]
command = "npx"
args = ["-y", "@upstash/context7-mcp"]

[profiles.fast]
model = "gpt-4o"  # 快
"""
KIMI_CONFIG = """# Kimi 配置
default_model = "kimi-k2"

[[hooks]]
event = "UserPromptSubmit"
command = "./check-prompt.sh"  # 用户自己的

[providers.kimi]
type = "kimi"
"""


def test_claude_hooks_merge_keeps_the_users_settings_order_and_indent() -> None:
    merged = claude.add_hooks(CLAUDE_SETTINGS)
    data = json.loads(merged)
    assert list(data) == ["model", "permissions", "hooks", "env"]
    assert data["env"] == {"说明": "中文值"} and "中文值" in merged  # not \\u-escaped
    assert merged.splitlines()[1].startswith('    "model"')  # the user's 4-space indent
    start = data["hooks"]["SessionStart"]
    assert start[0]["hooks"][0]["command"] == "echo 欢迎回来"
    assert start[1] == {"hooks": [{"type": "command", "command": "aimate mem hook session-start"}]}
    commands = {e: [h["command"] for g in groups for h in g["hooks"]] for e, groups in data["hooks"].items()}
    assert commands["UserPromptSubmit"] == ["aimate mem hook prompt"]
    assert commands["PreCompact"] == commands["SessionEnd"] == ["aimate mem hook session-end"]
    assert commands["PreToolUse"] == ["./guard.sh"]


def test_claude_install_twice_changes_nothing_and_uninstall_gives_the_users_data_back() -> None:
    merged = claude.add_hooks(CLAUDE_SETTINGS)
    assert claude.add_hooks(merged) == merged
    removed = claude.remove_hooks(merged)
    # Same data, order and indent; objects the user wrote on one line come back one key a line.
    assert json.loads(removed) == json.loads(CLAUDE_SETTINGS)
    assert list(json.loads(removed)) == list(json.loads(CLAUDE_SETTINGS))
    assert claude.remove_hooks(removed) == removed


def test_claude_uninstall_keeps_a_users_command_sharing_our_group() -> None:
    ours, theirs = {"type": "command", "command": "aimate mem hook prompt"}, {"type": "command", "command": "x"}
    shared = {"hooks": {"UserPromptSubmit": [{"hooks": [ours, theirs]}]}}
    removed = json.loads(claude.remove_hooks(json.dumps(shared)))
    assert removed == {"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "x"}]}]}}


def test_claude_settings_made_by_us_alone_are_deleted_on_uninstall() -> None:
    assert claude.remove_hooks(claude.add_hooks(None)) is None
    assert claude.remove_server(claude.add_server(None)) is None


def test_mcp_server_merge_keeps_other_servers_and_a_users_own_aimate_entry() -> None:
    merged = claude.add_server(MCP_JSON)
    servers = json.loads(merged)["mcpServers"]
    assert list(servers) == ["context7", "aimate"]
    assert servers["aimate"] == {"command": "aimate", "args": ["mem", "mcp"]}
    assert claude.add_server(merged) == merged
    assert claude.remove_server(merged) == MCP_JSON
    custom = MCP_JSON.replace('"context7"', '"aimate"')  # the user pointed `aimate` elsewhere: theirs
    assert claude.add_server(custom) == custom


def test_codex_server_merge_keeps_comments_and_comes_out_exactly() -> None:
    merged = codex.add_server(CODEX_CONFIG)
    assert "# 我的 Codex 配置" in merged and "# favourite model" in merged and "# 快" in merged
    assert '[mcp_servers.aimate]\ncommand = "aimate"\nargs = ["mem", "mcp"]\nstartup_timeout_sec = 30\n' in merged
    assert "[profiles.fast]" in merged.split("[mcp_servers.aimate]")[1]  # inserted beside the other server
    assert codex.add_server(merged) == merged
    assert codex.remove_server(merged) == CODEX_CONFIG


@pytest.mark.parametrize("original", [None, 'model = "o3"\n', "[profiles.fast]\nmodel = 'x'\n"])
def test_codex_round_trip_from_small_files(original: str | None) -> None:
    assert codex.remove_server(codex.add_server(original)) == original


def test_kimi_hooks_append_to_the_users_array_and_come_out_exactly() -> None:
    merged = kimi.add_hooks(KIMI_CONFIG)
    assert "# 用户自己的" in merged and "# Kimi 配置" in merged
    assert merged.count("[[hooks]]") == 3
    assert 'event = "UserPromptSubmit"\ncommand = "aimate mem hook prompt --client kimi"' in merged
    assert 'event = "SessionEnd"\ncommand = "aimate mem hook session-end --client kimi"' in merged
    assert kimi.add_hooks(merged) == merged
    assert kimi.remove_hooks(merged) == KIMI_CONFIG


@pytest.mark.parametrize("original", [None, 'default_model = "k2"\n', '[providers.kimi]\ntype = "kimi"\n'])
def test_kimi_round_trip_from_small_files(original: str | None) -> None:
    merged = kimi.add_hooks(original)
    assert "\n\n\n" not in merged
    assert kimi.remove_hooks(merged) == original


def test_malformed_configs_are_refused() -> None:
    with pytest.raises(ConfigSyntaxError, match="line 2"):
        claude.add_hooks('{\n  "hooks": ,\n}')
    with pytest.raises(ConfigSyntaxError, match="not an object"):
        claude.add_hooks('{"hooks": []}')
    with pytest.raises(ConfigSyntaxError, match="JSON object"):
        claude.add_server("[1, 2]")
    with pytest.raises(ConfigSyntaxError, match="invalid TOML"):
        codex.add_server("[mcp_servers.x\ncommand = 1")
    with pytest.raises(ConfigSyntaxError, match="array of tables"):
        kimi.add_hooks('hooks = "none"\n')

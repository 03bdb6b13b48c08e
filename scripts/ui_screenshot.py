"""The README's screenshot of the page (docs/ui-review.png): a throwaway home with a few memories in English and
Chinese, two captures waiting for review and one hand edit, `aimate mem ui` on it, the review page at 1280×800 in
Debian's Chromium (Playwright), reduced to a 64-colour palette so it stays small.

Usage: .venv/bin/python scripts/ui_screenshot.py [OUT.png] [--lang en|zh] [--page /review]"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
AIMATE = Path(sys.executable).with_name("aimate")


def seed(home: Path, project: Path) -> dict[str, str]:
    env = {**os.environ, "AIMATE_HOME": str(home), "AIMATE_EMBEDDING__ENABLED": "false", "AIMATE_NO_DAEMON": "1"}

    def run(*args: str) -> None:
        subprocess.run([str(AIMATE), "mem", *args], cwd=project, env=env, check=True, capture_output=True)

    subprocess.run(["git", "init", "-q", str(project)], check=True)
    run("init")
    run("add", "Package manager", "-l", "core", "-c", "rule", "-s", "global", "-b", "Always use **pnpm**, never npm.")
    run("add", "提交说明", "-l", "core", "-c", "rule", "-s", "global", "-b", "始终用中文写提交说明。")
    run("add", "Session cache", "-c", "decision", "-s", "global", "-t", "redis,cache", "-b", "We chose Redis: TTLs.")
    run("add", "Deploys", "-l", "core", "-c", "rule", "-s", "project", "-b", "Deploy with `make ship`.")
    run("commit", "-m", "seed")
    run("remember", "We decided to deploy on Fridays only after the code freeze", "--confidence", "0.7")
    run("remember", "决定：数据库迁移必须先在预发环境跑一遍", "--confidence", "0.7")
    cache = next(home.glob("memory/long_term/decisions/*session-cache.md"))
    cache.write_text(cache.read_text(encoding="utf-8").replace("TTLs.", "TTLs, and streams for the job queue."))
    return env


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("out", nargs="?", default=str(ROOT / "docs" / "ui-review.png"))
    parser.add_argument("--lang", default="en")
    parser.add_argument("--page", default="/review")
    args = parser.parse_args()
    from PIL import Image
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as folder:
        home, project = Path(folder) / "home", Path(folder) / "shop"
        project.mkdir()
        env = seed(home, project)
        server = subprocess.Popen(
            [str(AIMATE), "mem", "ui", "--no-open"], cwd=project, env=env, stdout=subprocess.PIPE, text=True
        )
        try:
            assert server.stdout is not None
            url = re.search(r"http://\S+", server.stdout.readline())
            assert url, "no address printed"
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path=shutil.which("chromium") or "/usr/bin/chromium",
                    args=["--no-sandbox"] if os.geteuid() == 0 else [],
                )
                tab = browser.new_page(viewport={"width": 1280, "height": 800})
                tab.goto(url.group(0))
                tab.goto(url.group(0).split("/?")[0] + f"{args.page}?lang={args.lang}")
                raw = Path(folder) / "shot.png"
                tab.screenshot(path=str(raw))
                browser.close()
        finally:
            server.terminate()
            server.wait(timeout=20)
        image = Image.open(raw).convert("RGB").quantize(colors=64, method=Image.Quantize.MEDIANCUT)
        image.save(args.out, optimize=True)
    print(f"{args.out}: {Path(args.out).stat().st_size / 1024:.0f} KB")


if __name__ == "__main__":
    main()

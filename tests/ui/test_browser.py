"""The page in a real browser (Debian's Chromium, driven by Playwright; docs/ui.md): review accepts and rejects
exactly as `aimate mem review` does (seen with the CLI), an edit goes through the CLI's checks, the context
page shows every core memory with bars that add up, requests without the token or from another origin are
refused, nothing is fetched from anywhere but 127.0.0.1 — in English and Chinese, at 1280×800 and narrow.
Screenshots go to each test's tmp_path (not committed)."""

from __future__ import annotations

import http.client
import json
import re
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.ui.conftest import Page, Seeded, Server, run_cli

pytestmark = pytest.mark.slow  # a server and a browser tab each: 3-8 s a test


def card(page: Page, title: str) -> Any:  # a Playwright locator
    return page.tab.locator("article.review-card", has_text=title)


def pending_titles(seeded: Seeded) -> list[str]:
    done = run_cli(seeded, "mem", "review", "--json")
    assert done.returncode == 0, done.stderr
    return [item["title"] for item in json.loads(done.stdout)]


@pytest.mark.parametrize(("lang", "name", "accept", "done"), [("en", "capture", "Accept", "Accepted"),
                                                               ("zh", "capture_zh", "接受", "已接受")])  # fmt: skip
def test_accepting_a_capture_commits_it_as_review_accept_does(
    page: Page, seeded: Seeded, lang: str, name: str, accept: str, done: str
) -> None:
    tab = page.tab
    tab.goto(tab.url.split("?")[0] + f"?lang={lang}")
    title = seeded.titles[name]
    assert title in pending_titles(seeded)
    page.shot(f"review-{lang}")
    card(page, title).get_by_role("button", name=accept, exact=True).click()
    tab.wait_for_selector("#outcome")
    assert done in tab.inner_text("#outcome")
    assert card(page, title).count() == 0
    log = run_cli(seeded, "mem", "log", seeded.ids[name], "--json")
    assert log.returncode == 0, log.stderr
    subject = json.loads(log.stdout)[0]["subject"]  # the newest commit of this memory (a long title is cut)
    assert subject.startswith(f'memory: accept new "{title[:20]}'), subject
    assert title not in pending_titles(seeded)
    shown = run_cli(seeded, "mem", "show", seeded.ids[name], "--json")
    assert json.loads(shown.stdout)["status"] == "active"  # accepted: the capture is a memory now
    # The timeline has it: captured (uncommitted, then accepted in one commit), by day and by session.
    tab.click("nav a[href='/timeline']")
    event = tab.locator(f".event[data-id='{seeded.ids[name]}']").first
    assert event.get_attribute("data-kind") in ("capture", "accepted")
    words = {"en": ("captured", "accepted"), "zh": ("捕获", "接受")}[lang]
    assert any(word in event.inner_text().lower() for word in words), event.inner_text()
    page.shot(f"timeline-{lang}")
    tab.click("#by-session")
    assert tab.locator(f".event[data-id='{seeded.ids[name]}']").count() >= 1
    assert "by=session" in tab.url


def test_rejecting_restores_a_hand_edit_and_moves_a_capture_out(page: Page, seeded: Seeded) -> None:
    tab = page.tab
    edited_title = seeded.titles["redis"]
    assert "Lower latency" in card(page, edited_title).inner_text()  # the diff shows the hand edit
    card(page, edited_title).get_by_role("button", name="Reject").click()
    tab.wait_for_selector("#outcome")
    shown = run_cli(seeded, "mem", "show", seeded.ids["redis"])
    assert "Low latency, TTL support." in shown.stdout and "memcached" not in shown.stdout
    dropped = seeded.titles["capture_drop"]
    card(page, dropped).get_by_role("button", name="Reject").click()
    tab.wait_for_selector("#outcome")
    assert card(page, dropped).count() == 0
    assert dropped not in pending_titles(seeded)
    rejected = list((seeded.home / "state" / "rejected").rglob("*.md"))
    assert any(dropped.split()[0] in path.read_text(encoding="utf-8") for path in rejected)  # kept, not deleted


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_editing_a_memory_in_the_page(page: Page, seeded: Seeded, lang: str) -> None:
    tab = page.tab
    memory_id = seeded.ids["redis_zh"]
    tab.goto(f"{urlsplit(tab.url).scheme}://{urlsplit(tab.url).netloc}/memory/{memory_id}?lang={lang}")
    page.shot(f"memory-{lang}")
    assert tab.locator("#memory-history li").count() >= 1  # `git.log` across moves, through `details`
    tab.click("#edit-link")
    # A refused value (a secret in the body) writes nothing and keeps what was typed.
    tab.fill("textarea[name=body]", "延迟低。密钥 AKIAIOSFODNN7EXAMPLE")
    tab.click("#save")
    assert "AKIA" in tab.inner_text("#edit-problem")
    assert "AKIAIOSFODNN7EXAMPLE" in tab.input_value("textarea[name=body]")
    assert "AKIA" not in run_cli(seeded, "mem", "show", memory_id).stdout
    tab.fill("input[name=title]", "决定：会话缓存用 Redis 7")
    tab.fill("input[name=tags]", "缓存，redis")
    tab.fill("textarea[name=body]", "延迟低，支持过期；**7.2** 起用 Redis Functions。")
    tab.click("#save")
    tab.wait_for_selector("#outcome")
    assert tab.inner_text("#memory-title") == "决定：会话缓存用 Redis 7"
    assert tab.inner_html("#memory-body").count("<strong>7.2</strong>") == 1  # the body as Markdown
    shown = json.loads(run_cli(seeded, "mem", "show", memory_id, "--json").stdout)
    assert shown["title"] == "决定：会话缓存用 Redis 7" and shown["tags"] == ["缓存", "redis"]
    assert "Redis Functions" in shown["body"]
    log = run_cli(seeded, "mem", "log", memory_id)
    assert "update" in log.stdout  # one commit, as `aimate mem set` makes


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_context_page_shows_every_core_memory_and_its_bars_add_up(
    page: Page, seeded: Seeded, server: Server, lang: str
) -> None:
    tab = page.tab
    tab.goto(f"{server.base}/context?lang={lang}")
    page.shot(f"context-{lang}")
    placed = tab.locator("section.section[data-layer=core] li.placed").all_inner_texts()
    for title in seeded.core:
        assert any(title in line for line in placed), (title, placed)
    total = tab.locator("#context-total")
    used, budget = int(total.get_attribute("data-used") or 0), int(total.get_attribute("data-budget") or 0)
    sections = tab.locator("section.section")
    per_section = [int(sections.nth(i).get_attribute("data-used") or 0) for i in range(sections.count())]
    allowances = [int(sections.nth(i).get_attribute("data-allowance") or 0) for i in range(sections.count())]
    rects = tab.locator("#context-total rect")
    segments = [int(tokens or 0) for tokens in rects.evaluate_all("r => r.map(e => e.dataset.tokens)")]
    assert used > 0 and sum(per_section) == used == sum(segments) and used <= budget
    assert all(section <= allowance for section, allowance in zip(per_section, allowances, strict=True))
    widths = rects.evaluate_all("r => r.map(e => +e.getAttribute('width'))")
    assert sum(widths) == pytest.approx(100 * used / budget, abs=0.05)  # the drawn bar is the numbers
    # A prompt's context: the relevant long-term memory joins, and core stays.
    tab.fill("#context-query", "会话缓存 Redis" if lang == "zh" else "session cache Redis")
    tab.locator("form.query button").click()
    tab.wait_for_selector("section.section[data-layer=long_term]")
    assert tab.locator("section.section[data-layer=long_term] li.placed", has_text="Redis").count() >= 1


def test_without_the_token_or_from_elsewhere_it_is_refused(browser, page: Page, seeded: Seeded, server: Server) -> None:
    stranger = browser.new_context()
    tab = stranger.new_page()
    assert tab.goto(f"{server.base}/review").status == 403
    assert tab.goto(f"{server.base}/review?token=wrong").status == 403
    # A page from another origin posts the accept form (even with the right form token): refused.
    form_token = page.tab.locator("input[name=form_token]").first.get_attribute("value")
    path = card(page, seeded.titles["capture"]).locator("input[name=path]").first.get_attribute("value")
    for context in (stranger, page.tab.context):  # without the cookie, and with it (the Origin is wrong)
        attacker = context.new_page()
        attacker.set_content(
            f'<form method="post" action="{server.base}/review/accept"><input name="form_token" value="{form_token}">'
            f'<input name="scope" value="global"><input name="path" value="{path}"><button>go</button></form>'
        )
        with attacker.expect_navigation() as answer:
            attacker.click("button")
        assert answer.value.status == 403
    assert seeded.titles["capture"] in pending_titles(seeded)
    stranger.close()
    # DNS rebinding: the cookie is right, the Host is another name that resolves here.
    address, port = server.base.removeprefix("http://").rsplit(":", 1)
    connection = http.client.HTTPConnection(address, int(port), timeout=10)
    cookie = f"aimate_ui_{server.base.rsplit(':', 1)[1]}={server.token}"
    connection.request("GET", "/review", headers={"Host": "rebound.example", "Cookie": cookie})
    assert connection.getresponse().status == 403


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_page_at_1280_and_narrow_fetches_nothing_from_elsewhere(
    page: Page, seeded: Seeded, server: Server, lang: str
) -> None:
    tab = page.tab
    paths = ["/review", "/context", "/search?q=Redis", "/search?layer=core", f"/memory/{seeded.ids['pnpm']}",
             f"/memory/{seeded.ids['pnpm']}/edit", "/timeline"]  # fmt: skip
    for width, height in ((1280, 800), (390, 844)):
        tab.set_viewport_size({"width": width, "height": height})
        for path in paths:
            answer = tab.goto(f"{server.base}{path}{'&' if '?' in path else '?'}lang={lang}")
            assert answer is not None and answer.status == 200, path
            assert tab.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1"), (path, width)
            assert tab.locator("link[rel=stylesheet]").count() == 1
            name = re.sub(r"\W+", "-", path).strip("-")
            page.shot(f"{name}-{lang}-{width}")
    assert page.requests and all(url.startswith(server.base + "/") for url in page.requests), page.requests
    assert len(list(page.shots.glob("*.png"))) == 2 * len(paths)
    assert all(shot.stat().st_size > 5_000 for shot in page.shots.glob("*.png"))
    assert ("搜索" if lang == "zh" else "Search") in tab.inner_text("nav")

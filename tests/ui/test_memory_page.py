"""A memory's page and the timeline through the whole app (Starlette's test client): what `system.details` and
`system.timeline` return is what the page shows — the supersede chain, the conversation in order, a dangling
reference, the body's HTML escaped — in English and Chinese."""

from __future__ import annotations

from pathlib import Path

import pytest
from starlette.testclient import TestClient

from aimate_memory.system import MemorySystem
from tests.ui.conftest import GUARD


@pytest.fixture
def linked(page_client: TestClient, tmp_path: Path) -> dict[str, str]:
    """An old decision superseded by a new one, and a conversation of three memories (en, zh): numbered, since
    memories made in one second are in path order in their thread."""
    with MemorySystem.open(cwd=tmp_path) as system:
        old = system.add("Cache: memcached", "We use memcached.", category="decision", scope="global")
        new = system.add("缓存：改用 Redis", "改用 Redis，<script>alert(1)</script> 支持过期。", category="decision")
        vault = system.global_vault
        vault.update(vault.load(old.rel_path), {"superseded_by": new.id, "status": "superseded"})
        vault.update(vault.load(new.rel_path), {"supersedes": old.id, "related": ["deadbeef-gone"]})
        turns = [
            system.add(title, body, thread="chat-1", scope="global")
            for title, body in (("1 Asked about deploys", "When?"), ("2 部署时间", "周五冻结后。"), ("3 Thanks", "Ok."))
        ]  # fmt: skip
    page_client.cookies.set(GUARD.cookie_name, GUARD.token)
    return {"old": old.id, "new": new.id, "middle": turns[1].id, "first": turns[0].id, "last": turns[2].id}


def test_the_supersede_chain_both_ways_and_a_dangling_reference(
    page_client: TestClient, linked: dict[str, str]
) -> None:
    page = page_client.get(f"/memory/{linked['new']}?lang=zh").text
    assert "取代了" in page and f'href="/memory/{linked["old"]}"' in page and "Cache: memcached" in page
    assert "deadbeef-gone" in page and "不在记忆库中" in page  # related, but nothing has that id
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    back = page_client.get(f"/memory/{linked['old']}?lang=en").text
    assert "superseded by" in back and f'href="/memory/{linked["new"]}"' in back


def test_the_conversation_in_order(page_client: TestClient, linked: dict[str, str]) -> None:
    page = page_client.get(f"/memory/{linked['middle']}").text
    thread = page.split('id="thread"', 1)[1].split("</details>", 1)[0]
    first, middle, last = (
        thread.find(text) for text in ("1 Asked about deploys", "<strong>2 部署时间</strong>", "3 Thanks")
    )
    assert -1 < first < middle < last


@pytest.mark.parametrize(("lang", "word"), [("en", "added"), ("zh", "添加")])
def test_the_timeline_by_day_and_by_session(
    page_client: TestClient, linked: dict[str, str], lang: str, word: str
) -> None:
    page = page_client.get(f"/timeline?lang={lang}").text
    assert f'data-id="{linked["middle"]}"' in page and word in page
    by_session = page_client.get(f"/timeline?by=session&lang={lang}").text
    assert 'data-group="chat-1"' in by_session
    assert page_client.get("/timeline?since=someday").status_code == 400

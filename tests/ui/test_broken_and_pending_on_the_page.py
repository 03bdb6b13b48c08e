"""The page (issue 39): a broken memory file is named in a banner and its review card offers no accept; a
pending capture found by search is marked as not yet a memory. English and Chinese."""

from __future__ import annotations

from pathlib import Path

import pytest
from starlette.testclient import TestClient

from tests.ui.conftest import GUARD, HOST


@pytest.mark.parametrize(
    ("lang", "banner", "kind", "pending"),
    [
        ("en", "1 memory file(s) could not be read", "broken file", "pending review, not yet a memory"),
        ("zh", "1 个记忆文件无法读取", "损坏的文件", "待审阅，尚未成为记忆"),
    ],
)
def test_a_broken_file_has_a_banner_and_no_accept_and_pending_is_marked(
    page_client: TestClient, home: Path, lang: str, banner: str, kind: str, pending: str
) -> None:
    broken = home / "memory" / "core" / "坏掉的规则.md"
    broken.write_text("---\ntitle: [never closed\n---\n# 坏掉的规则\n", encoding="utf-8")
    page_client.cookies.set(GUARD.cookie_name, GUARD.token)

    review = page_client.get(f"/review?lang={lang}").text
    assert banner in review and "global:core/坏掉的规则.md" in review
    card = review.split('data-path="core/坏掉的规则.md"', 1)[1].split("</article>", 1)[0]
    assert kind in card and 'action="/review/accept"' not in card

    found = page_client.get(f"/search?lang={lang}&q=deploy+Fridays").text
    assert "We decided to deploy on Fridays" in found and pending in found


@pytest.mark.parametrize(
    ("lang", "said", "kind", "origin", "times"),
    [
        (
            "en",
            "We decided to use Pinia for state management.",
            "proposal from your conversation",
            "you said this in session",
            "said 2 times",
        ),
        ("zh", "我们决定前端的状态管理使用 Pinia。", "来自你的对话的提议", "你在会话", "说过 2 次"),
    ],
)
def test_a_sessions_proposal_is_marked_with_its_turn_and_settled_in_one_step(
    page_client: TestClient, home: Path, tmp_path: Path, lang: str, said: str, kind: str, origin: str, times: str
) -> None:
    """Consent without a chore (issue 39): the card says it is a proposal from the person's conversation, the
    session and turn it came from and how often they said it; Reject removes it in one step and it is never
    proposed again."""
    from aimate_memory.system import MemorySystem
    from aimate_memory.system.capture import SAID_FIELD

    with MemorySystem.open(cwd=tmp_path) as system:
        [proposed] = system.capture.propose_from_session("5e55103a-first", [("user", "Hello."), ("user", said)])
        assert proposed.memory is not None
        system.store.vault_for(proposed.memory.scope).update(system.get(proposed.memory.id), {SAID_FIELD: 2})
    page_client.cookies.set(GUARD.cookie_name, GUARD.token)
    review = page_client.get(f"/review?lang={lang}").text
    card = review.split(f'data-id="{proposed.memory.id}"', 1)[1].split("</article>", 1)[0]
    assert kind in card and origin in card and "5e55103a" in card and times in card
    assert ("turn 2" if lang == "en" else "第 2 轮") in card  # the second turn of the session
    path = card.split('name="path" value="', 1)[1].split('"', 1)[0]
    form = {"scope": "global", "path": path, "form_token": GUARD.form_token}
    done = page_client.post("/review/reject", data=form, headers={"origin": f"http://{HOST}"})
    assert done.status_code == 303, done.text
    assert proposed.memory.id not in page_client.get(f"/review?lang={lang}").text
    with MemorySystem.open(cwd=tmp_path) as system:
        assert system.capture.propose_from_session("5e55103a-again", [("user", said)]) == []

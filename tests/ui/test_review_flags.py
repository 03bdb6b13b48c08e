"""Flags other parts of the tool put in the records (issue 27: a memory whose anchors changed is `stale`; a
pending capture that may contradict active memories names them in `conflicts` / `conflicts_with`) are shown on
the review card when present, in both languages."""

from __future__ import annotations

from pathlib import Path

import pytest
from starlette.testclient import TestClient

from aimate_memory.system import MemorySystem
from aimate_memory.ui.app import Pages
from aimate_memory.ui.views import ReviewCard, flags_of
from aimate_memory.ui.wording import Words
from tests.ui.conftest import GUARD, HOST


def test_flags_are_read_from_the_records_when_they_are_there() -> None:
    assert flags_of({"stale": {"kind": "changed"}}, None) == ["flag.stale"]
    assert flags_of({"conflicts": [{"id": "x"}]}, {"conflicts_with": ["x"]}) == ["flag.conflict"]
    assert flags_of({"stale": None, "conflicts": []}, {}) == []


@pytest.mark.parametrize(("lang", "stale", "conflict"), [("en", "stale", "conflicts with"), ("zh", "可能过时", "冲突")])
def test_a_card_shows_stale_and_the_memories_it_conflicts_with(lang: str, stale: str, conflict: str) -> None:
    card = ReviewCard(
        scope="global", path="core/tabs.md", old_path=None, kind="pending", memory_id="1" * 36,
        title="Indent with tabs", layer="core", category="preference", tags=[], fields=[], body_diff=[("+", "Tabs")],
        diff="", secrets=[], flags=["flag.stale", "flag.conflict"],
        conflicts=[{"id": "2" * 36, "title": "Indent with 4 spaces", "reason": "indentation: tabs here, spaces there"}],
    )  # fmt: skip
    pages = Pages(client=None, guard=GUARD)  # type: ignore[arg-type]  # the templates alone: no client is asked
    html = pages.templates.get_template("review.html").render(
        t=Words(lang), lang=lang, form_token="f", here="/review", switch_url="/review", cards=[card], not_git=None,
        done={"done": "", "what": "", "commit": ""},
    )  # fmt: skip
    pages.worker.shutdown()
    assert stale in html and conflict in html
    assert f'href="/memory/{"2" * 36}"' in html and "indentation: tabs here, spaces there" in html


@pytest.mark.parametrize(("lang", "stale"), [("en", "stale"), ("zh", "可能过时")])
def test_a_search_result_whose_anchored_code_changed_says_so(lang: str, stale: str) -> None:
    from aimate_memory.system.records import HitRecord, SearchRecord
    from aimate_memory.ui.views import Filters, SearchView, explanation
    from aimate_memory.vault.anchors import Staleness

    hit = HitRecord(
        id="3" * 36, title="Sessions live in auth/session.py", path="long_term/knowledge/s.md", scope="project",
        layer="long_term", category="knowledge", tags=(), updated_at="2026-11-20T10:00:00+00:00", score=0.8,
        stale=Staleness("auth/session.py", "changed", "2026-11-20", 3),
    )  # fmt: skip
    view = SearchView(Filters(query="session"), hits=[hit], record=SearchRecord("session", (hit,), "keyword"))
    pages = Pages(client=None, guard=GUARD)  # type: ignore[arg-type]
    html = pages.templates.get_template("search.html").render(
        t=Words(lang), lang=lang, form_token="f", here="/search", switch_url="/search", view=view, problem=None,
        explain=explanation,
    )  # fmt: skip
    pages.worker.shutdown()
    assert stale in html and "auth/session.py changed in 3 commits" in html


@pytest.mark.parametrize("keep_both", [False, True])
def test_a_real_conflict_is_settled_from_the_card(page_client: TestClient, tmp_path: Path, keep_both: bool) -> None:
    """The table alone (no model) finds that tabs contradict 4 spaces: the card names the old memory and offers
    both ways out — accept (supersedes it) or keep both — as `review --accept [--keep-both]` does."""
    with MemorySystem.open(cwd=tmp_path) as system:
        old = system.remember("I prefer 4-space indentation").memory
        new = system.remember("我习惯用 Tab 缩进").memory
    assert old is not None and new is not None
    page_client.cookies.set(GUARD.cookie_name, GUARD.token)
    page = page_client.get("/review?lang=zh").text
    assert "与其他记忆冲突" in page and f'href="/memory/{old.id}"' in page
    assert "接受并取代它们" in page and "接受，两者都保留" in page
    path = page.split('name="path" value="', 1)[1].split('"', 1)[0]
    form = {
        "scope": "global",
        "path": path,
        "form_token": GUARD.form_token,
        **({"keep_both": "1"} if keep_both else {}),
    }
    done = page_client.post("/review/accept", data=form, headers={"origin": f"http://{HOST}"})
    assert done.status_code == 303, done.text
    with MemorySystem.open(cwd=tmp_path) as system:
        assert system.get(new.id).status == "active"
        assert system.get(old.id).status == ("active" if keep_both else "superseded")


@pytest.mark.parametrize(
    ("lang", "retired", "only"),
    [
        ("en", "retired if you accept", "Accept, replacing only this one"),
        ("zh", "接受后将被取代", "接受，只取代这一条"),
    ],
)
def test_the_card_says_what_accepting_retires_and_retires_only_the_one_chosen(
    page_client: TestClient, tmp_path: Path, lang: str, retired: str, only: str
) -> None:
    """Issue 39: accepting superseded every memory the capture's conflict named. The card marks each as
    retired on accept and, when there are several, accepts retiring only the one the person picks."""
    with MemorySystem.open(cwd=tmp_path) as system:
        kept = system.add("I prefer 4-space indentation", layer="core", category="preference")
        replaced = system.add("YAML 文件用两个空格缩进", layer="core", category="preference")
        new = system.remember("我习惯用 Tab 缩进").memory
    assert new is not None
    page_client.cookies.set(GUARD.cookie_name, GUARD.token)
    page = page_client.get(f"/review?lang={lang}").text
    assert page.count(retired) == 2 and page.count(only) == 2, page
    path = page.split('name="path" value="', 1)[1].split('"', 1)[0]
    form = {"scope": "global", "path": path, "form_token": GUARD.form_token, "replace": replaced.id}
    done = page_client.post("/review/accept", data=form, headers={"origin": f"http://{HOST}"})
    assert done.status_code == 303, done.text
    with MemorySystem.open(cwd=tmp_path) as system:
        assert system.get(new.id).status == "active" and system.get(replaced.id).status == "superseded"
        assert system.get(kept.id).status == "active"

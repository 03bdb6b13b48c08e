"""Flags other parts of the tool put in the records (issue 27: a memory whose anchors changed is `stale`; a
pending capture that may contradict active memories names them in `conflicts` / `conflicts_with`) are shown on
the review card when present, in both languages."""

from __future__ import annotations

import pytest

from aimate_memory.ui.app import Pages
from aimate_memory.ui.views import ReviewCard, flags_of
from aimate_memory.ui.wording import Words
from tests.ui.conftest import GUARD


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

"""The session start's notice of pending captures (context/build.py `pending_warnings`): the count for the model,
and for the person the newest few by title and id with the one-step accept/reject — never more than a handful
(docs/design.md, "Capture from a conversation"). English and Chinese titles."""

from __future__ import annotations

from aimate_memory.context.build import PROPOSALS_KIND, PROPOSALS_NAMED, pending_warnings


def test_the_newest_proposals_are_named_with_their_one_step_review() -> None:
    proposals = [
        ("0f1e2d3c-aaaa", "我们决定前端的状态管理使用 Pinia"),
        ("9a8b7c6d-bbbb", "We decided to use Redis for the session cache"),
        ("11112222-cccc", "以后都用中文回复"),
        ("33334444-dddd", "Never push to main directly"),
    ]
    count, named = pending_warnings(4, proposals)
    assert count.kind == "pending_captures" and count.message.startswith("4 pending captures wait")
    assert named.kind == PROPOSALS_KIND
    assert '"我们决定前端的状态管理使用 Pinia" [0f1e2d3c]' in named.message
    assert "[9a8b7c6d]" in named.message and "[11112222]" in named.message
    assert "33334444" not in named.message and PROPOSALS_NAMED == 3  # a handful, never a page
    assert "aimate mem review --accept 0f1e2d3c" in named.message and "--reject 0f1e2d3c" in named.message


def test_no_pending_capture_no_notice_and_no_titles_only_the_count() -> None:
    assert pending_warnings(0, [("0f1e2d3c", "x")]) == []
    (only,) = pending_warnings(1)
    assert only.kind == "pending_captures" and only.message == "1 pending capture waits for review (aimate mem review)"

"""The page (issue 39): a broken memory file is named in a banner and its review card offers no accept; a
pending capture found by search is marked as not yet a memory. English and Chinese."""

from __future__ import annotations

from pathlib import Path

import pytest
from starlette.testclient import TestClient

from tests.ui.conftest import GUARD


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

"""The page's words (aimate_memory/ui/wording.py): every key a template uses has a row in both languages,
and a request gets the language it asks for."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from aimate_memory.ui import views
from aimate_memory.ui.wording import WORDS, Words, choose_language

TEMPLATES = Path(__file__).parents[2] / "aimate_memory" / "ui" / "templates"
CJK = re.compile(r"[\u4e00-\u9fff]")


def used_keys() -> set[str]:
    text = "\n".join(path.read_text(encoding="utf-8") for path in TEMPLATES.glob("*.html"))
    keys = set(re.findall(r"t\('([a-z_.]+[a-z_])'", text))
    # Keys made from a value: section.<layer>, kind.<kind>, event.<kind>, and the flags views hand over.
    keys |= {f"section.{layer}" for layer in ("core", "session", "short_term", "long_term")}
    keys |= {f"kind.{kind}" for kind in ("pending", "added", "modified", "deleted", "renamed", "conflict")}
    keys |= set(views.FLAG_KEYS.values())
    kinds = ("capture", "add", "edit", "accepted", "expired", "promoted", "archived", "superseded", "moved", "removed")
    keys |= {f"event.{kind}" for kind in kinds}
    return keys


def test_every_word_the_templates_use_is_there_in_english_and_chinese() -> None:
    keys = used_keys()
    assert len(keys) > 60
    missing = sorted(keys - WORDS.keys())
    assert not missing
    for key in keys:
        english, chinese = WORDS[key]
        assert english.strip() and chinese.strip(), key
        assert set(re.findall(r"{(\w+)}", english)) == set(re.findall(r"{(\w+)}", chinese)), key
    # Chinese rows are Chinese (the language switch says the other language's name in it)
    assert sum(bool(CJK.search(WORDS[key][1])) for key in keys) >= len(keys) - 3


def test_words_fill_their_blanks() -> None:
    assert Words("zh")("review.count", n=3) == "3 项改动待审阅"
    assert Words("en")("review.count", n=3) == "3 change(s) to review"
    assert Words("fr")("nav.review") == "Review"  # an unknown language is English


@pytest.mark.parametrize(
    ("asked", "remembered", "accept", "expected"),
    [
        ("zh", "en", "en", "zh"),
        (None, "zh", "en-US", "zh"),
        (None, None, "zh-CN,zh;q=0.9,en;q=0.8", "zh"),
        (None, None, "en-GB,en;q=0.9,zh-CN;q=0.8", "en"),
        (None, None, "fr-FR, zh-TW;q=0.5, en;q=0.4", "zh"),
        (None, None, "en;q=0.2, zh;q=0.9", "zh"),
        (None, None, "zh;q=0", "en"),
        (None, None, "", "en"),
        ("klingon", None, "garbage;;q=x", "en"),
    ],
)
def test_the_language_a_request_gets(asked: str | None, remembered: str | None, accept: str, expected: str) -> None:
    assert choose_language(asked, remembered, accept) == expected

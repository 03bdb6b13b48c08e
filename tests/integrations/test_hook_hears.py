"""The prompt hook hears each prompt as it comes (integrations/hooks.py `_hear`; docs/design.md, "Capture from a
conversation", "Turn by turn"): the statements of the person's own words are noted in the ledger without a
model and without another call to the daemon; a prompt that states nothing notes nothing; a ledger that cannot
be written never costs the prompt its context. Chinese and English."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aimate_memory.capture.ledger import LEDGER_FILE
from aimate_memory.integrations.hook_events import HookKind
from aimate_memory.integrations.hooks import run_hook
from tests.integrations.clients import connect_with

HIT = {
    "id": "0123456789ab",
    "title": "Deploys go through GitHub Actions",
    "path": "long_term/decision/deploys.md",
    "scope": "project",
    "layer": "long_term",
    "score": 0.8,
    "snippet": "Deploys go through GitHub Actions to Fly.io",
}
PROMPTS = {
    "en": ("From now on, always use pnpm instead of npm.", "Why does the deploy fail?\n```\nError: exit 1\n```"),
    "zh": ("以后都用 pnpm，不要再用 npm。", "为什么部署失败了？\n```\nError: exit 1\n```"),
}


def _no_vault(cwd: Path | None):
    raise RuntimeError("the daemon answers: no vault is opened in the hook")


def _prompt(tmp_path: Path, text: str, asked: list[str]) -> str:
    def daemon(op: str, fields: dict, cwd: Path | None) -> dict | None:
        asked.append(op)
        return {"ok": True, "results": [HIT]} if op == "search" else None

    payload = json.dumps({"session_id": "s1", "cwd": "/work/proj", "prompt": text}, ensure_ascii=False)
    return run_hook(HookKind.PROMPT, payload, connect_with(_no_vault, daemon), home=tmp_path)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_statement_is_noted_as_it_is_said_without_a_model_or_another_call(tmp_path: Path, lang: str) -> None:
    statement, question = PROMPTS[lang]
    ledger = tmp_path / "state" / LEDGER_FILE
    asked: list[str] = []
    assert "0123456" in _prompt(tmp_path, question, asked)
    assert not ledger.exists()  # a question and a pasted error state nothing
    assert "0123456" in _prompt(tmp_path, statement, asked)
    assert set(asked) == {"search"}  # hearing asked the daemon nothing
    noted = json.loads(ledger.read_text(encoding="utf-8"))
    assert len(noted) == 1 and all(len(sessions) == 1 for sessions in noted.values())
    assert "pnpm" not in ledger.read_text(encoding="utf-8")  # hashes only


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_ledger_that_cannot_be_written_never_costs_the_prompt_its_context(tmp_path: Path, lang: str) -> None:
    (tmp_path / "state" / LEDGER_FILE).mkdir(parents=True)  # a folder where the file should be
    context = json.loads(_prompt(tmp_path, PROMPTS[lang][0], []))["hookSpecificOutput"]["additionalContext"]
    assert "Deploys go through GitHub Actions [long_term 01234567]" in context
    log = (tmp_path / "state" / "hooks.log").read_text(encoding="utf-8")
    assert "claude prompt failed:" in log and "pnpm" not in log

"""Consent without a chore over MCP (issue 39; docs/agents.md, "Consent"): a capture `memory_remember` leaves
waiting is asked of the person at once through a client that can ask (`elicitation/create`, form mode) — the
SDK's real client over stdio, its elicitation callback standing in for the person at the form. Keep accepts
it, Discard rejects it (never proposed again), dismissing leaves it for review; a client that cannot ask is
never asked, and the capture waits as before. English and Chinese."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from mcp import types

from aimate_memory.config.defaults import DEFAULTS
from aimate_memory.mcp.server import review_args
from aimate_memory.vault.codec import read_document
from tests.conftest import built_seeded_home, seed_models
from tests.mcp.conftest import McpProcess, server_env


def person(action: str, keep: bool | None, asked: list[types.ElicitRequestParams]) -> Any:
    async def answer(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params)
        return types.ElicitResult(action=action, content=None if keep is None else {"keep": keep})  # type: ignore[arg-type]

    return answer


def pending(cli: Any) -> list[dict[str, Any]]:
    return [item for item in cli("mem", "review", "--json").json() if item.get("memory_status") == "pending"]


@pytest.mark.parametrize(
    ("text", "action", "keep", "after", "waiting"),
    [
        ("Always use double quotes for strings", "accept", True, "written", 0),
        ("提交前一定要先运行 ruff", "accept", False, "dropped", 0),
        ("Never push straight to main", "decline", None, "dropped", 0),
        ("函数名一律用 snake_case", "cancel", None, "pending", 1),
    ],
)
def test_a_waiting_capture_is_asked_of_the_person_where_the_client_can(
    home: Path,
    workdir: Path,
    isolated_git: None,
    cli: Any,
    initialized,
    text: str,
    action: str,
    keep: bool | None,
    after: str,
    waiting: int,
) -> None:
    asked: list[types.ElicitRequestParams] = []
    server = McpProcess(["mem", "mcp"], workdir, server_env(home), elicitation=person(action, keep, asked))
    try:
        result = server.ok("memory_remember", text=text, kind="rule")
    finally:
        server.close()
    [question] = asked
    assert text in question.message and "助手想记住" in question.message  # the sentence, in both languages
    assert result["action"] == after
    assert len(pending(cli)) == waiting
    if after == "written":
        listed = cli("mem", "list", "--json").json()
        assert any(item["title"] == text for item in listed)
        assert "the person kept it" in result["reason"]
    if after == "dropped":  # discarded by the person: never proposed again
        assert "the person discarded it" in result["reason"]
        assert (home / "state" / "rejected_captures.json").is_file()


def test_a_client_that_cannot_ask_is_never_asked(spawn: Any, cli: Any, initialized) -> None:
    result = spawn().ok("memory_remember", text="Always use double quotes for strings", kind="rule")
    assert result["action"] == "pending" and len(pending(cli)) == 1


@pytest.mark.parametrize("limit", [None, 2])
def test_never_more_than_a_handful_of_questions_a_session(
    home: Path, workdir: Path, isolated_git: None, cli: Any, initialized, limit: int | None
) -> None:
    """As many questions as a session may propose (`capture.distill_max`): one setting, the person's."""
    asked: list[types.ElicitRequestParams] = []
    env = {**server_env(home), **({"AIMATE_CAPTURE__DISTILL_MAX": str(limit)} if limit else {})}
    server = McpProcess(["mem", "mcp"], workdir, env, elicitation=person("accept", True, asked))
    rules = ["Always use double quotes", "函数名一律用 snake_case", "Never push to main", "日志统一用 JSON 格式"]
    rules.append("提交信息用英文写")
    try:
        actions = [server.ok("memory_remember", text=rule, kind="rule")["action"] for rule in rules]
    finally:
        server.close()
    most = limit or DEFAULTS["capture"]["distill_max"]
    assert len(asked) == most and actions == ["written"] * most + ["pending"] * (len(rules) - most)
    assert len(pending(cli)) == len(rules) - most  # the rest wait for review, as without a client that asks


def choose(pick: str, ids: list[str], asked: list[types.ElicitRequestParams]) -> Any:
    """The person picking one choice of the conflict form; `only:N` is "replacing only" the N-th old memory."""

    async def answer(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params)
        value = f"only:{ids[int(pick[5:])]}" if pick.startswith("only:") else pick
        return types.ElicitResult(action="accept", content={"choice": value})

    return answer


EN_OLDS = ["数据库选用 PostgreSQL", "The orders service stores its data in PostgreSQL"]
ZH_OLDS = ["Use MySQL for the main database", "订单服务的数据存在 MySQL 里"]


def remembered_decisions(olds: list[str]) -> Any:
    """The seed of a conflict case: each old decision through the real CLI's `remember`, as a person said it."""

    def seed(cli: Any) -> None:
        for old in olds:
            written = cli("mem", "remember", old, "--kind", "decision", "--scope", "global", "--json").json()
            assert written["action"] == "written", written

    return seed


def ids_by_title(home: Path) -> dict[str, str]:
    """Each memory's id by its title, read from the global vault's files."""
    documents = (read_document(path, 1 << 20, read_only=True) for path in (home / "memory").rglob("*.md"))
    return {str(document.meta["title"]): str(document.meta["id"]) for document in documents if document.meta}


@pytest.mark.slow
@pytest.mark.parametrize(
    ("olds", "new", "pick", "retired"),
    [
        (EN_OLDS, "We decided to move the main database to MySQL", "only:0", [0]),
        (ZH_OLDS, "主数据库改用 PostgreSQL", "only:1", [1]),
        (ZH_OLDS, "主数据库改用 PostgreSQL", "replace", [0, 1]),
        (EN_OLDS, "We decided to move the main database to MySQL", "keep_both", []),
    ],
)
def test_a_conflict_is_asked_as_one_choice_and_retires_only_what_the_person_picks(
    home: Path,
    workdir: Path,
    isolated_git: None,
    cli: Any,
    model_cache: Path,
    tmp_path_factory: pytest.TempPathFactory,
    olds: list[str],
    new: str,
    pick: str,
    retired: list[int],
) -> None:
    """With several memories a capture may contradict, the form offers keeping it replacing them all, replacing
    only one, keeping the others too, or discarding it; the person's pick is what review does (issue 39). The
    old decisions are remembered once per run for the two cases that share them (`built_seeded_home`)."""
    name = "mcp-olds-en" if olds == EN_OLDS else "mcp-olds-zh"
    shutil.copytree(
        built_seeded_home(tmp_path_factory, name, remembered_decisions(olds)), home, symlinks=True, dirs_exist_ok=True
    )
    seed_models(home, model_cache)
    env = {**server_env(home, vectors=True), "AIMATE_CAPTURE__EMBEDDING": "true"}
    ids = [ids_by_title(home)[old] for old in olds]
    asked: list[types.ElicitRequestParams] = []
    server = McpProcess(["mem", "mcp"], workdir, env, elicitation=choose(pick, ids, asked))
    try:
        result = server.ok("memory_remember", text=new, kind="decision", confidence=0.95)
    finally:
        server.close()
    [question] = asked
    assert isinstance(question, types.ElicitRequestFormParams)
    choices = question.requestedSchema["properties"]["choice"]
    assert choices["enum"] == ["replace", *(f"only:{i}" for i in ids), "keep_both", "discard"]
    assert all(old in " ".join(choices["enumNames"]) for old in olds) and "可能与之矛盾" in question.message
    assert result["action"] == "written" and "the person kept it" in result["reason"]
    listed = {item["id"]: item["title"] for item in cli("mem", "list", "--all", "--json").json()}
    assert new in listed.values()
    assert [old for i, old in enumerate(olds) if ids[i] in listed] == [
        o for i, o in enumerate(olds) if i not in retired
    ]
    assert all(f"supersedes {ids[i][:8]}" in result["reason"] for i in retired)
    assert ("the others are kept too" in result["reason"]) == (not retired)


@pytest.mark.parametrize(
    ("action", "content", "asks"),
    [
        ("accept", {"choice": "discard"}, {"reject": ["new"]}),
        ("decline", None, {"reject": ["new"]}),
        ("cancel", None, None),
        ("accept", {"choice": "only:nobody"}, None),  # not offered: it waits for review
        ("accept", {"keep": True}, None),  # the boolean form's answer to the choice form
        ("accept", {"choice": "only:b"}, {"accept": ["new"], "replace": ["b"]}),
    ],
)
def test_what_each_answer_to_the_conflict_form_asks_of_review(
    action: str, content: dict[str, Any] | None, asks: dict[str, Any] | None
) -> None:
    conflicts = [{"id": "a", "title": "Use MySQL"}, {"id": "b", "title": "订单服务用 MySQL"}]
    reply = types.ElicitResult(action=action, content=content)  # type: ignore[arg-type]  # a test's literal
    decided = review_args("new", reply, conflicts)
    if asks is None:
        assert decided is None
    else:
        assert decided is not None and {key: value for key, value in decided.items() if value} == asks

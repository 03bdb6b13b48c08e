"""`remember`, `session`, `context`, `perf` through the real CLI (temp AIMATE_HOME), Chinese and English."""

from __future__ import annotations

import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from aimate_memory.vault.filters import MemoryFilter
from tests.conftest import in_process, seed_models
from tests.integrations.conftest import init_project

if TYPE_CHECKING:
    from aimate_memory.embedding.lazy import LazyEmbedder
    from aimate_memory.system import MemorySystem


def _project(tmp_path: Path, home: Path) -> Path:
    """A git project with a file, its vault made as `aimate mem init` in it makes it (in the test process:
    `init_project`; `init` is tested in test_cli_memory.py), beside the global vault the caller has
    (`initialized`)."""
    project = tmp_path / "proj"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (project / "src").mkdir()
    (project / "src" / "app.py").write_text("print()\n")
    return init_project(home, project)


def _project_in_process(root: Path, models: LazyEmbedder | None = None, **settings: str) -> MemorySystem:
    """What `_project` makes, in the test process (`in_process`): a home and a git project under `root`."""
    project = root / "proj"
    (project / "src").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (project / "src" / "app.py").write_text("print()\n")
    return in_process(root / "aimate-home", project, models, **settings)


ROUTES = [
    ("我习惯用 Tab 缩进", ("core", "preference", "global")),
    ("I prefer spaces over tabs in YAML", ("core", "preference", "global")),
    ("我们决定用 Redis 做缓存", ("long_term", "decision", "project")),
    ("We decided to ship on Fridays only", ("long_term", "decision", "project")),
    ("明天修复登录页面", ("short_term", "task", "project")),
    ("TODO: update the changelog", ("short_term", "task", "project")),
    ("缓存命中率大约 80%", ("long_term", "knowledge", "project")),
    ("The staging box has 16 GB of RAM", ("long_term", "knowledge", "project")),
    ("今天 CI 一直红，还在查原因", ("short_term", "note", "project")),
    ("Always run the linter before you push", ("core", "rule", "global")),
]


@pytest.mark.parametrize(("text", "where"), ROUTES)
@pytest.mark.slow
def test_remember_routes(
    loaded_models: LazyEmbedder, tmp_path: Path, isolated_git: None, text: str, where: tuple[str, str, str]
) -> None:
    """What a person gets by default: the kind model reads the sentence's embedding. In a fresh pair of vaults,
    in process with the models loaded once per module (the CLI face: the test below)."""
    with _project_in_process(tmp_path, loaded_models, AIMATE_CAPTURE__EMBEDDING="true") as system:
        data = system.remember(text).to_dict()
        assert data["action"] == "written" and data["supersedes"] is None
        memory = data["memory"]
        assert data["reason"].startswith(f"{where[0]}/{where[1]}: ") and "(embedding, " in data["reason"]
        assert (memory["layer"], memory["category"], memory["scope"]) == where
        again = system.remember(text)
        assert again.action == "exists" and again.memory.id == memory["id"]


@pytest.mark.slow
def test_remember_routes_through_the_cli(cli_vectors, initialized, tmp_path: Path) -> None:
    """The same through `aimate mem remember`: its JSON, and the line a person reads the second time."""
    cli = cli_vectors
    project = _project(tmp_path, initialized)
    text, where = ROUTES[2]
    done = cli("mem", "remember", text, "--json", cwd=project)
    assert done.code == 0, done.err
    data = done.json()
    assert data["action"] == "written" and data["supersedes"] is None
    memory = data["memory"]
    assert data["reason"].startswith(f"{where[0]}/{where[1]}: ") and "(embedding, " in data["reason"]
    assert (memory["layer"], memory["category"], memory["scope"]) == where
    line = cli("mem", "remember", text, cwd=project).out.strip()
    assert line.startswith("already remembered") and memory["id"][:8] in line


def test_remember_human_line_and_confidence(cli, initialized) -> None:
    first, why = cli("mem", "remember", "我习惯用 Tab 缩进").out.strip().splitlines()
    assert first.startswith("remembered ") and first.endswith("as core/preference (global): 我习惯用 Tab 缩进")
    assert why.startswith("  why: core/preference: a personal taste or habit")
    pending = cli("mem", "remember", "I like short commit messages", "--confidence", "0.7", "--json").json()
    assert pending["action"] == "pending" and pending["memory"]["status"] == "pending"
    dropped = cli("mem", "remember", "也许以后用 Rust 重写", "--confidence", "0.3", "--json")
    assert dropped.code == 0 and dropped.json() == {**dropped.json(), "action": "dropped", "memory": None}
    assert "dropped" in cli("mem", "remember", "maybe rewrite it in Rust", "--confidence", "0.2").out
    listed = cli("mem", "list", "--status", "all", "--json").json()
    assert not any("Rust" in memory["title"] for memory in listed)
    # A pending capture is left uncommitted, so review lists it.
    review = cli("mem", "review", "--json")
    assert review.code == 0 and "short commit messages" in review.out


CHATTER = [("thanks, that worked!", "thanks"), ("谢谢，搞定了！", "thanks"), ("How do I rebase onto main?", "question")]


@pytest.mark.parametrize(("chatter", "name"), CHATTER)
def test_remember_drops_chatter_unless_forced_or_kind_given(
    tmp_path: Path, isolated_git: None, chatter: str, name: str
) -> None:
    """In a fresh vault, in process, keyword-only as `cli` runs (the CLI face: the test below)."""
    with in_process(tmp_path / "aimate-home") as system:
        data = system.remember(chatter).to_dict()
        assert (data["action"], data["memory"]) == ("dropped", None) and data["reason"].startswith("dropped: ")
        assert name in data["reason"] or name == "question"
        assert all(memory.title != chatter for memory in system.list(MemoryFilter(statuses=())))
        forced = system.remember(chatter, force=True).to_dict()
        assert forced["action"] == "written" and forced["memory"]["title"]
        assert "kept by force although it looks like" in forced["reason"]
        given = system.remember(chatter + " (kind)", kind="note").to_dict()
        assert given["action"] == "written" and (given["memory"]["layer"], given["memory"]["category"]) == (
            "short_term",
            "note",
        )
        assert "given as kind note" in given["reason"]


def test_remember_drops_chatter_on_the_command_line(cli, initialized) -> None:
    """The same through `aimate mem remember`: its JSON, the one line a person reads, --force and --kind."""
    chatter, name = CHATTER[1]
    dropped = cli("mem", "remember", chatter, "--json")
    assert dropped.code == 0, dropped.err
    data = dropped.json()
    assert (data["action"], data["memory"]) == ("dropped", None) and data["reason"].startswith("dropped: ")
    assert name in data["reason"]
    human = cli("mem", "remember", chatter).out.strip()
    assert human.startswith("not remembered: dropped: ") and "\n" not in human
    assert all(memory["title"] != chatter for memory in cli("mem", "list", "--status", "all", "--json").json())
    forced = cli("mem", "remember", chatter, "--force", "--json").json()
    assert forced["action"] == "written" and forced["memory"]["title"]
    assert "kept by force although it looks like" in forced["reason"]
    given = cli("mem", "remember", chatter + " (kind)", "--kind", "note", "--json").json()
    assert given["action"] == "written" and (given["memory"]["layer"], given["memory"]["category"]) == (
        "short_term",
        "note",
    )
    assert "given as kind note" in given["reason"]


KINDS = [
    ("rule", "每周五下午不发布", ("core", "rule", "global")),
    ("preference", "Dark terminal themes", ("core", "preference", "global")),
    ("decision", "用 SQLite 存索引", ("long_term", "decision", "project")),
    ("knowledge", "Always-on replicas live in us-east-1", ("long_term", "knowledge", "project")),
    ("project", "一个记账小程序", ("long_term", "project", "project")),
    ("task", "We prefer to update the docs", ("short_term", "task", "project")),
    ("note", "never mind the red build", ("short_term", "note", "project")),
]


@pytest.mark.parametrize(("kind", "text", "where"), KINDS)
def test_remember_kind_sets_layer_and_category(
    tmp_path: Path, isolated_git: None, kind: str, text: str, where: tuple[str, str, str]
) -> None:
    """In a fresh pair of vaults, in process, keyword-only as `cli` runs (the CLI face: the test below)."""
    with _project_in_process(tmp_path) as system:
        memory = system.remember(text, kind=kind).to_dict()["memory"]
        assert (memory["layer"], memory["category"], memory["scope"]) == where
        # Scope is still the caller's to give.
        other = system.remember(text + "!", kind=kind, scope="project").to_dict()
        assert other["memory"]["scope"] == "project"


def test_remember_kind_and_scope_on_the_command_line(cli, initialized, tmp_path: Path) -> None:
    project = _project(tmp_path, initialized)
    kind, text, where = KINDS[0]
    done = cli("mem", "remember", text, "--kind", kind, "--json", cwd=project)
    assert done.code == 0, done.err
    memory = done.json()["memory"]
    assert (memory["layer"], memory["category"], memory["scope"]) == where
    other = cli("mem", "remember", text + "!", "--kind", kind, "--scope", "project", "--json", cwd=project).json()
    assert other["memory"]["scope"] == "project"


@pytest.mark.slow
def test_capture_reads_the_sentence_even_with_vector_search_off(
    cli, initialized, home: Path, model_cache: Path
) -> None:
    """`embedding.enabled: false` turns vector search off; capture still files with the model (capture.embedding).
    The vault is the copied `initialized` one (`init` is tested in test_cli_memory.py)."""
    seed_models(home, model_cache)
    on = {"AIMATE_CAPTURE__EMBEDDING": "true"}
    for text, where in (("Prefer early returns over nested ifs", "core/"), ("支付服务的超时时间是 5 秒", "long_term/")):
        done = cli("mem", "remember", text, "--json", env=on)
        assert done.code == 0, done.err
        assert done.json()["reason"].startswith(where) and "(embedding, " in done.json()["reason"]
    off = cli("mem", "remember", "TODO: rotate the keys", "--json", env={"AIMATE_CAPTURE__EMBEDDING": "false"})
    assert "(cue features, " in off.json()["reason"]


def test_remember_unknown_kind_is_a_one_line_error(cli, initialized) -> None:
    done = cli("mem", "remember", "something", "--kind", "fact")
    assert done.code != 0 and "unknown kind 'fact'" in done.err and "Traceback" not in done.err
    assert "rule, preference, decision, knowledge, project, task, note" in done.err


def _memory_files(home: Path) -> dict[str, bytes]:
    """Every memory file of the global vault and its bytes (the files are the truth; `list` reads them)."""
    vault = home / "memory"
    return {path.relative_to(vault).as_posix(): path.read_bytes() for path in sorted(vault.rglob("*.md"))}


@pytest.mark.parametrize("sentence", ["Never push on Fridays. ", "周五不要发布新版本。"])
def test_a_rule_is_a_sentence_not_a_pasted_document(cli, initialized, home: Path, sentence: str) -> None:
    """A capture over capture.max_chars (2,000 characters, a CJK character counting one) is refused with the
    hint for a long note; nothing is written. At the limit it is kept (issue 38)."""
    before = _memory_files(home)
    pasted = (sentence * (2001 // len(sentence) + 1))[:2000] + "!"  # 2,001 characters, none of them blank
    done = cli("mem", "remember", pasted, "--kind", "rule")
    assert done.code != 0 and "Traceback" not in done.err
    assert "2,001 characters, over capture.max_chars (2,000)" in done.err and "--file" in done.err
    assert _memory_files(home) == before  # nothing written
    kept = cli("mem", "remember", pasted[:1999] + "!", "--kind", "note", "--json")
    assert kept.code == 0, kept.err
    assert kept.json()["action"] == "written"


CORE_CAPTURES = [
    ("Never push directly to main", "Never push directly to a release branch"),
    ("回复一律使用简体中文", "注释一律使用简体中文"),
]


def _agent_then_person(agent: dict, person: dict) -> None:
    """Consent: a person typing `remember` writes core active; an agent (a confidence, or another source)
    gets pending, however sure it is."""
    assert agent["action"] == "pending" and agent["memory"]["layer"] == "core"
    assert agent["memory"]["status"] == "pending" and "review" in agent["reason"]
    assert person["action"] == "written" and person["memory"]["status"] == "active"
    assert person["memory"]["layer"] == "core"


@pytest.mark.parametrize(("text", "typed"), CORE_CAPTURES)
def test_an_agents_capture_into_core_waits_for_review(
    tmp_path: Path, isolated_git: None, text: str, typed: str
) -> None:
    """In a fresh vault, in process, keyword-only as `cli` runs (the CLI face: the test below)."""
    with in_process(tmp_path / "aimate-home") as system:
        agent = system.remember(text, confidence=0.99, source="claude").to_dict()
        _agent_then_person(agent, system.remember(typed).to_dict())


def test_an_agents_capture_into_core_waits_for_review_on_the_command_line(cli, initialized) -> None:
    """The same through `aimate mem remember --confidence --source` and a person's plain `remember`."""
    text, typed = CORE_CAPTURES[1]
    agent = cli("mem", "remember", text, "--confidence", "0.99", "--source", "claude", "--json").json()
    _agent_then_person(agent, cli("mem", "remember", typed, "--json").json())


@pytest.mark.parametrize(
    ("accepted", "rejected"),
    [("I like short commit messages", "I like long commit messages"), ("我喜欢简短的提交信息", "我喜欢冗长的提交信息")],
)
def test_review_accept_activates_a_pending_capture(
    cli, initialized, home: Path, isolated_git: None, accepted: str, rejected: str
) -> None:
    # The two pending captures, written in process as `remember --confidence 0.7` writes them (its CLI face:
    # test_remember_human_line_and_confidence); the review is the CLI's.
    with in_process(home) as system:
        kept, dropped = (system.remember(text, confidence=0.7).to_dict()["memory"] for text in (accepted, rejected))
    assert kept["status"] == dropped["status"] == "pending"
    done = cli("mem", "review", "--accept", kept["path"], "--reject", dropped["path"], "--json")
    assert done.code == 0, done.err
    assert {(o["path"], o["action"]) for o in done.json()} == {(kept["path"], "accept"), (dropped["path"], "reject")}
    # The accepted commit holds the file as active: the flip is part of it, nothing is left uncommitted.
    committed = subprocess.run(
        ["git", "-C", str(home / "memory"), "show", f"HEAD:{kept['path']}"], capture_output=True, text=True, check=True
    ).stdout
    assert "status: active" in committed and "status: pending" not in committed
    assert cli("mem", "review", "--json").json() == []
    assert cli("mem", "show", kept["id"], "--json").json()["status"] == "active"
    assert not (home / "memory" / dropped["path"]).exists()


def test_supersede_chain_is_one_commit(cli, initialized, home: Path) -> None:
    old = cli("mem", "remember", "I prefer tabs for indentation in Python code", "--json").json()["memory"]
    new = cli("mem", "remember", "I prefer tabs for indentation in all Python code", "--json").json()
    assert new["action"] == "written" and new["supersedes"] == old["id"]
    log = subprocess.run(
        ["git", "-C", str(home / "memory"), "log", "-1", "--name-only", "--format=%s"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert log.count(".md") == 2 and "remember" in log
    shown = cli("mem", "show", old["id"]).out
    assert f"superseded by {new['memory']['id']}" in shown and "status: superseded" in shown
    assert f"supersedes {old['id']}" in cli("mem", "show", new["memory"]["id"]).out
    ids = [hit["id"] for hit in cli("mem", "search", "tabs indentation", "--json").json()]
    assert old["id"] not in ids and new["memory"]["id"] in ids


@pytest.mark.parametrize("text", ["记住密码 password=hunter2hunter2", "my key is AKIAIOSFODNN7EXAMPLE"])
def test_remember_refuses_secrets(cli, initialized, home: Path, text: str) -> None:
    refused = cli("mem", "remember", text)
    assert refused.code == 1 and "nothing written" in refused.err
    listed = cli("mem", "list", "--status", "all", "--json").json()
    assert listed == [m for m in listed if m["layer"] == "core"]


def test_session_start_append_trim_show_end_list(cli, initialized, home: Path, isolated_git: None) -> None:
    env = {"AIMATE_SESSION__MAX_TOKENS": "200", "AIMATE_SESSION__PROTECTED_ROUNDS": "1"}
    started = cli("mem", "session", "start", "--title", "登录修复", "--json", env=env).json()
    assert started["status"] == "active" and started["turns"] == []
    assert cli("mem", "session", "start").code == 1  # one active session at a time
    turns = [(role, f"第 {n} 轮：我们决定改用 src/auth.py。" if role == "user" else f"Round {n}: done, tests pass.")
             for n in range(6) for role in ("user", "assistant")]  # fmt: skip
    # The first round through `session append`; the other five in process, through the same writer (a CLI
    # process per turn was ~0.5 s of CPU each), and the CLI reads what they left.
    results = [cli("mem", "session", "append", "--role", role, text, "--tokens", "30", "--json", env=env).json()
               for role, text in turns[:2]]  # fmt: skip
    with in_process(home, **env) as system:
        results += [system.sessions.append(role, text, tokens=30).to_dict() for role, text in turns[2:]]
    assert set(results[0]) == {"turns", "window_tokens", "usage", "trimmed", "summary_id", "warnings"}
    assert [result["turns"] for result in results] == list(range(1, 13))
    trimmed = [result for result in results if result["trimmed"]]
    assert trimmed and all(result["summary_id"] for result in trimmed)
    summary = cli("mem", "show", trimmed[0]["summary_id"], "--json").json()
    assert summary["path"].startswith("short_term/contexts/") and summary["frontmatter"]["source_session"]
    shown = cli("mem", "session", "show", "--json", env=env).json()
    assert len(shown["turns"]) == 12 and shown["window"][0] > 0  # every turn kept; the window moved
    assert {"id", "title", "status", "turns", "window", "tokens", "usage"} <= set(shown)
    ended = cli("mem", "session", "end", "--json").json()
    assert ended["status"] == "ended" and ended["id"] == started["id"]
    listed = cli("mem", "session", "list", "--json").json()
    assert [item["id"] for item in listed] == [started["id"]] and listed[0]["turns"] == 12


@pytest.mark.parametrize("title", ["修复登录", "login fix"])
def test_session_end_takes_the_active_sessions_id(cli, initialized, home: Path, title: str) -> None:
    first = cli("mem", "session", "start", "--title", title, "--json").json()
    with in_process(home) as system:  # its first turn, as `session append` writes it (that face: tested above)
        system.sessions.append("user", f"{title}: 第一轮 first turn")
    wrong = cli("mem", "session", "end", "0000ffff")
    assert wrong.code != 0 and cli("mem", "session", "show", "--json").json()["status"] == "active"
    ended = cli("mem", "session", "end", first["id"][:8], "--json")
    assert ended.code == 0 and ended.json()["id"] == first["id"] and ended.json()["status"] == "ended"
    second = cli("mem", "session", "start", "--json").json()
    again = cli("mem", "session", "end", first["id"][:8])  # a past session: it has ended already
    assert again.code != 0 and "already ended" in again.err
    assert cli("mem", "session", "show", second["id"], "--json").json()["status"] == "active"
    assert cli("mem", "session", "end", "--json").json()["id"] == second["id"]


def test_two_concurrent_appenders_lose_nothing(cli, initialized) -> None:

    def append(n: int) -> int:
        return cli("mem", "session", "append", "--role", "user", f"turn {n} 并发").code

    with ThreadPoolExecutor(max_workers=2) as pool:
        assert list(pool.map(append, range(8))) == [0] * 8
    texts = sorted(turn["text"] for turn in cli("mem", "session", "show", "--json").json()["turns"])
    assert texts == sorted(f"turn {n} 并发" for n in range(8))


def test_context_order_budget_and_shape(cli, initialized, home: Path, tmp_path: Path, isolated_git: None) -> None:
    project = _project(tmp_path, home)
    # What the context is built from, written in process as `remember` and `session append` write it (the
    # test is about `context`; those faces have their own tests above).
    with in_process(home, project) as system:
        assert system.remember("我习惯用 Tab 缩进").action == "written"
        assert system.remember("本项目不要提交 .env 文件", scope="project").action == "written"
        assert system.remember("We decided to use Redis for the session cache").action == "written"
        assert system.remember("明天检查 Redis 缓存命中率").action == "written"
        assert system.remember("I like short commit messages", confidence=0.7).action == "pending"
        system.sessions.append("user", "缓存该怎么配置？")
    data = cli("mem", "context", "Redis 缓存", "--budget", "2000", "--json", cwd=project).json()
    assert set(data) == {"sections", "total_tokens", "budget", "warnings", "text"}
    order = [(section["layer"], section["scope"]) for section in data["sections"] if section["items"]]
    assert order[:4] == [("core", "global"), ("core", "project"), ("session", "project"), ("short_term", "project")]
    assert ("long_term", "project") in order
    ids = [item["id"] for section in data["sections"] for item in section["items"]]
    assert len(ids) == len(set(ids)) and data["total_tokens"] <= 2000
    # The pending capture counted, and named for the person's one-step review (docs/design.md).
    assert [w["kind"] for w in data["warnings"]] == ["pending_captures", "pending_proposals"]
    assert "short commit messages" in data["warnings"][1]["message"] and "--accept" in data["warnings"][1]["message"]
    text = data["text"]
    assert text.index("Tab 缩进") < text.index(".env") < text.index("缓存该怎么配置") < text.index("Redis")
    tiny = cli("mem", "context", "--budget", "30", "--json", cwd=project).json()
    assert tiny["total_tokens"] <= 30 and any(w["kind"] == "core_over_budget" for w in tiny["warnings"])
    plain = cli("mem", "context", "Redis", "--budget", "2000", cwd=project)
    assert plain.code == 0 and plain.out.startswith("## Core memory · global")


def test_perf_after_operations(cli, initialized) -> None:
    assert cli("mem", "remember", "We chose pytest for tests").code == 0
    assert cli("mem", "search", "pytest").code == 0
    assert cli("mem", "context", "pytest", "--budget", "500").code == 0
    assert cli("mem", "session", "append", "--role", "user", "你好").code == 0
    data = cli("mem", "perf", "--json").json()
    names = {entry["operation"] for entry in data["operations"]}
    assert {"search", "context_build", "capture", "session_append", "sync"} <= names
    for entry in data["operations"]:
        assert entry["count"] >= 1 and 0 <= entry["p50_ms"] <= entry["p95_ms"] <= entry["max_ms"]
    assert "capture" in cli("mem", "perf").out


@pytest.mark.slow
def test_session_end_leaves_the_persons_sentences_for_review(
    cli_vectors, initialized, home: Path, isolated_git: None
) -> None:
    """§4: an ended session proposes what the person said (never the assistant, never pasted code), pending,
    with the session and turn it came from; nothing becomes active without review. The vault is the copied
    `initialized` one and the turns are appended in process, through the writer `session append` calls (that
    face is tested above; a CLI process per turn was ~0.4 s of CPU each): `session end` is what this tests."""
    cli = cli_vectors
    turns = [
        ("user", "以后所有的提交信息都用英文写。\n```\nAlways indent with tabs.\n```"),
        ("assistant", "Never write tests for the parser; they are a waste of time."),
        ("user", "TODO: add a retry to the uploader."),
        ("user", "thanks, that's all"),
    ]
    with in_process(home) as system:
        for role, text in turns:
            system.sessions.append(role, text)
        running = system.sessions.current()
        assert running is not None
        session_id = running.id
    assert cli("mem", "session", "end").code == 0
    pending = [m for m in cli("mem", "list", "--status", "all", "--json").json() if m["status"] == "pending"]
    titles = {m["title"]: m for m in pending}
    assert "以后所有的提交信息都用英文写" in titles and "TODO: add a retry to the uploader" in titles, titles
    assert not any("tabs" in t or "parser" in t or "thanks" in t for t in titles)
    for memory in pending:
        text = (home / "memory" / memory["path"]).read_text(encoding="utf-8")
        assert f"session: {session_id}" in text and "source: session" in text and "turn: " in text
    rule = (home / "memory" / titles["以后所有的提交信息都用英文写"]["path"]).read_text(encoding="utf-8")
    assert "turn: 1" in rule and titles["以后所有的提交信息都用英文写"]["layer"] == "core"
    assert all(m["status"] != "active" or m["source"] != "session" for m in cli("mem", "list", "--json").json())
    review = cli("mem", "review", "--json")
    assert review.code == 0 and "以后所有的提交信息都用英文写" in review.out

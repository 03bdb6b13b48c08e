"""Capture from a conversation, through the real hook commands as subprocesses over a sequence of prompts, in
English and Chinese (docs/design.md, "Capture from a conversation"): a session proposes what the person said
that holds beyond now (a decision — filed as a project decision), not their one-off requests nor what they
pasted; said again later, it is known — no second copy, no conflict; a change of mind is proposed as the
conflict it is and, accepted, supersedes; a rejected proposal never comes back. The prompt hook searches what
the person wrote (not a pasted log) and the session's previous turns (a follow-up)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.conftest import in_process
from tests.integrations.conftest import init_project

if TYPE_CHECKING:
    from aimate_memory.embedding.lazy import LazyEmbedder

pytestmark = pytest.mark.slow

NO_DAEMON = {"AIMATE_NO_DAEMON": "1", "AIMATE_HOOK_DETACH": "0"}  # session-end done when the hook returns


@pytest.fixture(autouse=True)
def git_identity(isolated_git: None) -> None:
    """Git isolated with a fixed identity before the CLI runner copies the environment: accepting commits."""


@pytest.fixture
def project(cli_vectors, home: Path, tmp_path: Path) -> Path:
    """A git project and the home as `aimate mem init` in it leaves them (`init_project`: in the test process),
    the models' cache linked (`cli_vectors`)."""
    path = tmp_path / "proj"
    path.mkdir()
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    return init_project(home, path)


class Conversation:
    """One Claude Code session in `project`: each prompt through `aimate mem hook prompt` (its context kept),
    the transcript written as Claude Code writes it, and `aimate mem hook session-end` at the end."""

    def __init__(self, cli, project: Path, session_id: str, env: dict[str, str] | None = None) -> None:
        self.cli, self.project, self.session_id, self.env = cli, project, session_id, env or NO_DAEMON
        self.transcript = project.parent / ".claude" / "projects" / "-proj" / f"{session_id}.jsonl"
        self.transcript.parent.mkdir(parents=True, exist_ok=True)

    def _hook(self, kind: str, event: str, **fields: object) -> str:
        payload = {
            "session_id": self.session_id,
            "transcript_path": str(self.transcript),
            "cwd": str(self.project),
            "hook_event_name": event,
            **fields,
        }
        result = self.cli(
            "mem", "hook", kind, input=json.dumps(payload, ensure_ascii=False), cwd=self.project, env=self.env
        )
        assert result.code == 0 and "Traceback" not in result.err, result.err
        return result.out

    def say(self, prompt: str) -> str:
        """The prompt hook's context for `prompt`; the turn and a short reply go into the transcript."""
        out = self._hook("prompt", "UserPromptSubmit", prompt=prompt)
        with open(self.transcript, "a", encoding="utf-8") as handle:
            for role, content in (("user", prompt), ("assistant", [{"type": "text", "text": "Done."}])):
                record = {"type": role, "sessionId": self.session_id, "message": {"role": role, "content": content}}
                handle.write(json.dumps(record, ensure_ascii=False) + "\n")
        return json.loads(out)["hookSpecificOutput"].get("additionalContext", "") if out.strip() else ""

    def end(self) -> None:
        self._hook("session-end", "SessionEnd", reason="other")


def proposals(models: LazyEmbedder, home: Path, project: Path) -> list[dict]:
    """The captures waiting for review, as `aimate mem review --json` lists them (`review_view`: each pending
    change's `to_dict()`, its possible conflicts found with the models), read in the test process with the
    module's loaded models (`loaded_models`): a `review --json` process with the models was ~0.5-0.7 s of CPU,
    two or three a test. `review --json` itself is tested in tests/cli (test_cli_agent.py, test_cli_conflicts.py);
    the accepts and rejects here stay the CLI's."""
    with in_process(home, project, models, AIMATE_CAPTURE__EMBEDDING="true") as system:
        items = [item.to_dict() for item in system.git.pending_changes()]
    return [item for item in items if item.get("memory_status") == "pending"]


def review(
    models: LazyEmbedder, home: Path, project: Path, accept: tuple[str, ...] = (), reject: tuple[str, ...] = ()
) -> None:
    """The person's `aimate mem review --accept ID --reject ID` between two sessions, done in the test process
    through what the command calls (`review_view`: the rejects, then the accepts, superseding what an accepted
    capture may contradict) with the module's loaded models: the command went through the typer app with the
    models, ~0.4 s of CPU a call. A refused decision raises, as the command exits non-zero. `review --accept`
    itself is tested in tests/cli (test_cli_agent.py, test_cli_conflicts.py)."""
    with in_process(home, project, models, AIMATE_CAPTURE__EMBEDDING="true") as system:
        outcomes = system.git.reject(list(reject)) + system.git.accept(list(accept))
    actions = sorted(outcome.action for outcome in outcomes)
    assert actions == sorted(["accept"] * len(accept) + ["reject"] * len(reject)), [o.to_dict() for o in outcomes]


ERROR = "```\nTypeError: Cannot read properties of undefined (reading 'id')\n    at load (src/a.js:3:7)\n```"
TURNS = {
    "en": {
        "request": "Please create a commit message for these changes.",
        "decision": "We decided to use Pinia for state management in the frontend.",
        "paste": f"fix this error:\n{ERROR}",
        "again": "From now on we use Pinia for state management.",
        "old": "We use Naive UI as the UI component library.",
        "new": "Switch the UI component library to Element Plus instead of Naive UI.",
        "junk": "We decided to keep the old tab open for now.",
    },
    "zh": {
        "request": "请你帮我写一下这次改动的提交信息。",
        "decision": "我们决定前端的状态管理使用 Pinia。",
        "paste": f"修复这个报错：\n{ERROR}",
        "again": "以后前端的状态管理都使用 Pinia。",
        "old": "使用 Naive UI 作为前端组件库。",
        "new": "前端组件库改用 Element Plus，不再用 Naive UI。",
        "junk": "我们决定先把旧的标签页留着。",
    },
}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_decision_is_proposed_once_and_said_again_is_known(
    cli_vectors, loaded_models: LazyEmbedder, home: Path, project: Path, lang: str
) -> None:
    said = TURNS[lang]
    first = Conversation(cli_vectors, project, f"first-{lang}")
    for prompt in (said["request"], said["decision"], said["paste"]):
        first.say(prompt)
    first.end()
    waiting = proposals(loaded_models, home, project)
    # The decision, filed as a decision of this project; neither the one-off request nor the pasted error.
    assert [item["title"] for item in waiting] == [said["decision"].rstrip(".。")]
    assert waiting[0]["scope"] == "project" and waiting[0]["path"].startswith("long_term/decisions/")
    review(loaded_models, home, project, accept=(waiting[0]["id"],))

    second = Conversation(cli_vectors, project, f"second-{lang}")
    context = second.say(said["again"])
    second.end()
    assert waiting[0]["id"][:8] in context  # the prompt hook brings the memory it restates
    assert proposals(loaded_models, home, project) == []  # said again: no second copy, no conflict to settle


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_change_of_mind_supersedes_and_a_rejection_is_final(
    cli_vectors, loaded_models: LazyEmbedder, home: Path, project: Path, lang: str
) -> None:
    said = TURNS[lang]
    first = Conversation(cli_vectors, project, f"old-{lang}")
    first.say(said["old"])
    first.say(said["junk"])
    first.end()
    waiting = {item["title"]: item for item in proposals(loaded_models, home, project)}
    old, junk = waiting[said["old"].rstrip(".。")], waiting[said["junk"].rstrip(".。")]
    review(loaded_models, home, project, accept=(old["id"],), reject=(junk["id"],))

    second = Conversation(cli_vectors, project, f"new-{lang}")
    second.say(said["new"])
    second.say(said["junk"])  # rejected before: never proposed again
    second.end()
    (new,) = proposals(loaded_models, home, project)
    assert new["title"] == said["new"].rstrip(".。")
    assert [conflict["id"] for conflict in new["conflicts"]] == [old["id"]]
    review(loaded_models, home, project, accept=(new["id"],))  # this one holds: the old one is superseded

    listed = {item["id"]: item for item in cli_vectors("mem", "list", "--status", "all", "--json", cwd=project).json()}
    assert listed[old["id"]]["status"] == "superseded" and listed[new["id"]]["status"] == "active"
    context = Conversation(cli_vectors, project, f"later-{lang}").say(said["old"])
    assert new["id"][:8] in context and old["id"][:8] not in context


EVIDENCE = {
    "en": {
        "standing": "Always run the linter before committing.",
        "again": "We use pnpm as the package manager.",
        "new": "Never push directly to the main branch.",
    },
    "zh": {
        "standing": "以后提交前都先运行 lint。",
        "again": "我们用的是 pnpm 作为包管理器。",
        "new": "不要直接推送到 main 分支。",
    },
}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_each_prompt_is_heard_as_it_comes_and_said_in_two_sessions_is_proposed_first(
    cli_vectors, loaded_models: LazyEmbedder, project: Path, home: Path, lang: str
) -> None:
    said = EVIDENCE[lang]
    one = {**NO_DAEMON, "AIMATE_CAPTURE__DISTILL_MAX": "1"}  # a session proposes one thing: which one is the test
    ledger = home / "state" / "heard_statements.json"
    first = Conversation(cli_vectors, project, f"first-{lang}", env=one)
    first.say(said["standing"])
    assert ledger.is_file()  # heard at the prompt, before the session ended
    first.say(said["again"])
    first.end()
    (kept,) = proposals(loaded_models, home, project)
    assert kept["title"] == said["standing"].rstrip(".。")  # a standing instruction comes first
    review(loaded_models, home, project, accept=(kept["id"],))

    second = Conversation(cli_vectors, project, f"second-{lang}", env=one)
    second.say(said["new"])
    second.say(said["again"])
    second.end()
    # Said in the first session too: evidence it holds, so it is the one proposed, not the new instruction.
    assert [item["title"] for item in proposals(loaded_models, home, project)] == [said["again"].rstrip(".。")]
    stored = ledger.read_text(encoding="utf-8")
    assert "pnpm" not in stored and lang not in stored  # hashes only: no words, no session ids


def test_a_long_paste_and_a_follow_up_still_get_their_context(
    cli_vectors, loaded_models: LazyEmbedder, home: Path, project: Path
) -> None:
    memories = {
        "en": ("decision", "Deploys go out through GitHub Actions to Fly.io."),
        "zh": ("decision", "后端部署：通过 GitHub Actions 发布到 Fly.io。"),
    }
    ids = {}
    # Remembered in process with the module's loaded models, as `remember --kind --keep-both` files them (a CLI
    # process with the models each; that face is tested in tests/cli): the prompt hook's search is the test.
    with in_process(home, project, loaded_models, AIMATE_CAPTURE__EMBEDDING="true") as system:
        for lang, (kind, text) in memories.items():
            # keep_both: the Chinese one translates the English one, which `remember` would otherwise answer
            # `exists` with (said again is not a copy); here both are wanted, one per language.
            result = system.remember(text, kind=kind, keep_both=True).to_dict()
            ids[lang] = result["memory"]["id"][:8]
    log = "\n".join(f"2025-06-13 10:{n:02d}:01 INFO worker: job {n} finished in {n * 7} ms" for n in range(60))
    pasted = {"en": f"How do we deploy the backend? The log:\n{log}", "zh": f"后端部署怎么做？\n{log}"}
    follow_up = {
        "en": ("How do we deploy the backend?", "And the worker process?"),
        "zh": ("后端部署怎么做？", "那后台任务进程呢？"),
    }
    for lang in ("en", "zh"):
        assert len(pasted[lang]) > 2000
        assert ids[lang] in Conversation(cli_vectors, project, f"paste-{lang}").say(pasted[lang])
        talk = Conversation(cli_vectors, project, f"follow-{lang}")
        talk.say(follow_up[lang][0])
        assert ids[lang] in talk.say(follow_up[lang][1])  # searched with the turn it follows
        alone = Conversation(cli_vectors, project, f"alone-{lang}").say(follow_up[lang][1])
        assert ids[lang] not in alone  # the follow-up by itself does not find it: the previous turn did


# A working session's remarks for now (a bug report whose "always"/"never" describe the app, a need lifted, a
# remark on the answer at hand) around the one thing that stands — in English a question proposing one change.
FOR_NOW_AND_A_CHOICE = {
    "en": (
        'The "Save" button is always visible, and the white frame never disappears.',
        "We do not need to keep backward compatibility with the old parameters.",
        "This should consist of a list of imports and functions.",
        "Then rename the master branch to 'main'.",
        "Let's go with your suggestion and update the docs.",
        "Can we put the port into a config file instead of hard-coding it?",
    ),
    "zh": (
        "保存按钮的报错还是没有解决。",
        "为什么测试又失败了？",
        "帮我看一下这个函数。",
        "帮我把日志模块改为异步写入。",
        "然后将配置拆分为独立的模块。",
        "端口统一放在配置文件里，而不是写死在代码里。",
    ),
}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_of_a_working_session_only_the_choice_is_proposed(
    cli_vectors, loaded_models: LazyEmbedder, home: Path, project: Path, lang: str
) -> None:
    *for_now, choice = FOR_NOW_AND_A_CHOICE[lang]
    talk = Conversation(cli_vectors, project, f"work-{lang}")
    for prompt in (*for_now, choice):
        talk.say(prompt)
    talk.end()
    (waiting,) = proposals(loaded_models, home, project)
    assert waiting["title"] == choice.rstrip("?.。")
    assert waiting["scope"] == "project" and waiting["path"].startswith("long_term/decisions/")

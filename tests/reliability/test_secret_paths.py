"""Every way the outside probe of 2026-11-26 got a secret past the guard (issue 25, items 3–5), as a table:
each path is driven through the real CLI, MCP server, hooks or git and must end `refused` (nothing written
or committed) or `masked` (stored or shown with the value hidden). After each probe, no output, log, file
the probe names or git object (reachable or not: `cat-file --batch-all-objects`) holds a secret in clear.
docs/reliability.md "Security" lists the same rows."""

from __future__ import annotations

import json
import logging
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import make_runner
from tests.mcp.conftest import McpProcess, server_env

# Fake credentials in the documented shapes, built by concatenation so this file is not itself a hit.
AWS = "AKIA" + "IOSFODNN7EXAMPLE"
GH = "ghp_" + "x1Y2z3W4" * 4 + "q9R8"
PW = "hunter2" + "hunter2"
# What must never appear: each secret's body (a masked token keeps only its 4-character type marker).
CLEAR = ("IOSFODNN7EXAMPLE", "iosfodnn7example", GH[4:], PW)
TWO = f"keys {AWS} and {GH}"
DEPLOY_NOTES = "Deploy notes"  # the one memory in every probe's vault (`box`)


@dataclass
class Box:
    """One probe's world: a fresh home with an initialized global vault, the CLI, an MCP server on demand."""

    home: Path
    workdir: Path
    cli: Callable[..., Any]
    seen: list[str] = field(default_factory=list)  # every output and file the probe looked at
    _mcp: McpProcess | None = None

    @property
    def vault(self) -> Path:
        return self.home / "memory"

    def run(self, *args: str, input: str | None = None, env: dict[str, str] | None = None) -> Any:
        result = self.cli(*args, input=input, env=env)
        self.seen += [result.out, result.err]
        return result

    def mcp(self, tool: str, **arguments: Any) -> Any:
        if self._mcp is None:
            self._mcp = McpProcess(["mem", "mcp"], self.workdir, server_env(self.home))
        result = self._mcp.call(tool, **arguments)
        self.seen += [block.text for block in result.content if hasattr(block, "text")]
        self.seen.append(json.dumps(result.structuredContent or {}, ensure_ascii=False))
        return result

    def read(self, path: Path) -> str:
        text = path.read_bytes().decode("utf-8", "replace") if path.exists() else ""
        self.seen.append(text)
        return text

    def memory_file(self) -> Path:
        """The committed long-term memory a person then edits by hand: `aimate mem add` wrote it once per run
        (`seeded_home`, `DEPLOY_NOTES`), every probe gets its own copy."""
        return next(
            path
            for path in (self.vault / "long_term").rglob("*.md")
            if f"title: {DEPLOY_NOTES}\n" in path.read_text("utf-8")
        )

    def memory_id(self) -> str:
        """The id of that memory (a long-term one: a model may not edit a core memory at all)."""
        return next(
            line.split(":", 1)[1].strip()
            for line in self.memory_file().read_text(encoding="utf-8").splitlines()
            if line.startswith("id:")
        )

    def titles(self) -> list[str]:
        return sorted(item["title"] for item in self.run("mem", "list", "--json", "--status", "all").json())

    def commit(self) -> Any:
        return self.run("mem", "commit", "-m", "hand edits")

    def git(self, *args: str) -> str:
        done = subprocess.run(["git", *args], cwd=self.vault, capture_output=True, check=False)
        return done.stdout.decode("utf-8", "replace")

    def close(self) -> None:
        if self._mcp is not None:
            self._mcp.close()


def git_objects(vault: Path) -> bytes:
    """Every object in the repository, reachable or not, as git stores it."""
    done = subprocess.run(
        ["git", "cat-file", "--batch-all-objects", "--batch"], cwd=vault, capture_output=True, check=True
    )
    return done.stdout


def leaks(text: str) -> list[str]:
    return [secret for secret in CLEAR if secret in text]


def refused_commit(box: Box, result: Any) -> str:
    assert result.code == 1 and "secret found" in result.err, result.err
    return "refused"


# -- the commit guard reads what git stores (item 3) ------------------------------------------------


def nul_byte_appended(box: Box) -> str:
    path = box.memory_file()
    path.write_bytes(path.read_bytes() + f"deploy key {GH}\n".encode() + b"\x00")
    return refused_commit(box, box.commit())


def utf16_with_bom(box: Box) -> str:
    path = box.memory_file()
    path.write_bytes((path.read_text(encoding="utf-8") + f"aws {AWS}\n").encode("utf-16"))
    return refused_commit(box, box.commit())


def utf16_without_bom(box: Box) -> str:
    path = box.memory_file()
    path.write_bytes((path.read_text(encoding="utf-8") + f"password = {PW}\n").encode("utf-16-le"))
    return refused_commit(box, box.commit())


def gb18030_password_in_words(box: Box) -> str:
    path = box.memory_file()
    path.write_bytes((path.read_text(encoding="utf-8") + f"数据库密码是 {PW}\n").encode("gb18030"))
    return refused_commit(box, box.commit())


def file_named_like_a_token(box: Box) -> str:
    path = box.memory_file()
    path.rename(path.with_name(f"{GH}.md"))
    result = refused_commit(box, box.commit())
    assert "(its name)" in box.seen[-1]
    return result


def gitattributes_no_diff(box: Box) -> str:
    (box.vault / ".gitattributes").write_text("*.md -diff\n", encoding="utf-8")
    assert box.commit().code == 0  # the attribute itself holds no secret
    path = box.memory_file()
    path.write_text(path.read_text(encoding="utf-8") + f"token {GH}\n", encoding="utf-8")
    return refused_commit(box, box.commit())


def refused_commit_leaves_no_blob(box: Box) -> str:
    path = box.memory_file()
    path.write_text(path.read_text(encoding="utf-8") + f"aws {AWS}\n", encoding="utf-8")
    sha = box.git("hash-object", str(path)).strip()
    result = refused_commit(box, box.commit())
    assert subprocess.run(["git", "cat-file", "-e", sha], cwd=box.vault, check=False).returncode != 0
    assert box.git("fsck", "--unreachable", "--no-reflogs").strip() == ""
    assert not list((box.vault / ".git").glob("aimate-quarantine-*"))
    return result


def commit_message(box: Box) -> str:
    path = box.memory_file()
    path.write_text(path.read_text(encoding="utf-8") + "Also on Mondays.\n", encoding="utf-8")
    result = box.run("mem", "commit", "-m", f"rotate {AWS}")
    return refused_commit(box, result)


def review_accept_nul_laden(box: Box) -> str:
    path = box.memory_file()
    path.write_bytes(path.read_bytes() + f"{TWO}\n".encode() + b"\x00\x00")
    rel = path.relative_to(box.vault).as_posix()
    listed = box.run("mem", "review", "--json").json()
    assert listed and listed[0]["secrets"], listed
    accepted = box.run("mem", "review", "--accept", rel)
    assert accepted.code == 1 and "secret found, not committed" in accepted.err, accepted.out + accepted.err
    return "refused"


# -- every finding masked, everywhere (item 4) ------------------------------------------------------


def add_two_secrets_on_one_line(box: Box) -> str:
    result = box.run("mem", "add", "Deploy keys", "--body", TWO)
    assert result.code == 1 and "AKIA…****" in result.err and "ghp_…****" in result.err, result.err
    return "refused"


def mcp_remember_password_in_words(box: Box) -> str:
    result = box.mcp("memory_remember", text=f"the admin password is {PW}")
    assert result.isError and "password stated in words" in result.content[0].text
    return "refused"


def mcp_remember_two_secrets(box: Box) -> str:
    result = box.mcp("memory_remember", text=f"remember the deploy {TWO}")
    assert result.isError
    return "refused"


def diagnose_two_secrets(box: Box) -> str:
    path = box.memory_file()
    path.write_text(path.read_text(encoding="utf-8") + f"{TWO}\n", encoding="utf-8")
    report = box.run("mem", "diagnose", "--json")
    kinds = {problem["kind"] for problem in report.json()}
    text = box.run("mem", "diagnose")
    assert "Secret" in kinds and "AKIA…****" in text.out and "ghp_…****" in text.out, text.out
    return "masked"


def review_two_secrets(box: Box) -> str:
    path = box.memory_file()
    path.write_text(path.read_text(encoding="utf-8") + f"{TWO}\n", encoding="utf-8")
    listed = box.run("mem", "review", "--json").json()
    assert len(listed[0]["secrets"]) == 2, listed
    box.run("mem", "review")
    box.run("mem", "diff")
    return "masked"


def hooks_log_failed_prompt(box: Box) -> str:
    payload = '{"session_id": "s", "prompt": "' + TWO + '"'  # cut off: the hook fails
    result = box.run("mem", "hook", "prompt", input=payload)
    assert (result.code, result.out) == (0, "")
    log = box.read(box.home / "state" / "hooks.log")
    assert "prompt failed: JSONDecodeError" in log or "prompt failed:" in log, log
    assert "keys" not in log and "session_id" not in log  # no input text at all
    return "masked"


def daemon_log(box: Box) -> str:
    from aimate_memory.watch import daemon

    log_path = box.home / "state" / "daemon.log"
    log_path.parent.mkdir(parents=True, exist_ok=True)
    root = logging.getLogger()
    before, level = list(root.handlers), root.level
    daemon._setup_logging(log_path)  # the daemon's own set-up, in this process
    try:
        logging.getLogger("aimate_memory.watch.daemon").warning("maintenance global: held %s", TWO)
    finally:
        for handler in set(root.handlers) - set(before):
            handler.close()
            root.removeHandler(handler)
        root.setLevel(level)
    assert "AKIA…****" in box.read(log_path)
    return "masked"


def mcp_log(box: Box) -> str:
    from aimate_memory.mcp import errors

    errors.logger.handlers.clear()
    errors.configure_logging(box.home / "state")
    try:
        failure = errors.failure_from(RuntimeError(f"boom: {TWO}"), "memory_search")
    finally:
        for handler in list(errors.logger.handlers):
            handler.close()
            errors.logger.removeHandler(handler)
    box.seen.append(failure.text)
    assert "RuntimeError" in box.read(box.home / "state" / "mcp.log")
    return "masked"


def accepted_secret_shown_to_assistants(box: Box) -> str:
    """A person let a secret in (--allow-secret): context, search, the hook and MCP still show it masked."""
    added = box.run("mem", "add", "Staging deploy keys", "--body", TWO, "--allow-secret")
    assert added.code == 0, added.err
    context = box.run("mem", "context", "staging deploy keys")
    assert "AKIA…****" in context.out, context.out
    box.run("mem", "search", "staging deploy keys", "--json")
    box.run("mem", "show", added.out.split()[1], "--json")
    payload = {"session_id": "s", "cwd": str(box.workdir), "prompt": "staging deploy keys"}
    box.run("mem", "hook", "prompt", input=json.dumps(payload), env={"AIMATE_NO_DAEMON": "1"})
    box.mcp("memory_search", query="staging deploy keys")
    got = box.mcp("memory_get", id=added.out.split()[1])
    assert "ghp_…****" in got.structuredContent["body"]
    return "masked"


# -- secrets in plain files outside git (item 5) ----------------------------------------------------


def session_turn_cli(box: Box) -> str:
    result = box.run("mem", "session", "append", "--role", "user", f"my token is {GH}")
    assert result.code == 0 and "masked in the stored turn: GitHub token" in result.out + result.err
    shown = box.run("mem", "session", "show", "--json")
    assert "ghp_…****" in shown.out
    for path in (box.vault / "sessions").rglob("*.md"):
        box.read(path)
    return "masked"


def session_turn_mcp(box: Box) -> str:
    result = box.mcp("memory_session_append", role="user", content=f"数据库密码是 {PW}，别忘了")
    assert not result.isError and any("masked" in w for w in result.structuredContent["warnings"])
    for path in (box.vault / "sessions").rglob("*.md"):
        assert "数据库密码是 ****" in box.read(path)
    return "masked"


def session_end_hook_transcript(box: Box) -> str:
    transcript = box.workdir / "t.jsonl"
    lines = [
        {"type": "user", "message": {"role": "user", "content": f"deploy with {TWO}"}},
        {"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": "Done."}]}},
    ]
    transcript.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    payload = {"session_id": "s9", "transcript_path": str(transcript), "hook_event_name": "SessionEnd"}
    in_process = {"AIMATE_NO_DAEMON": "1", "AIMATE_HOOK_DETACH": "0"}  # the session is read right after
    result = box.run("mem", "hook", "session-end", input=json.dumps(payload), env=in_process)
    assert (result.code, result.out) == (0, "")
    assert not (box.home / "state" / "hooks.log").exists()  # SessionEnd no longer fails
    ended = [box.read(path) for path in (box.vault / "sessions").rglob("*.md")]
    assert any("AKIA…****" in text for text in ended), ended
    return "masked"


def session_title(box: Box) -> str:
    result = box.run("mem", "session", "start", "--title", f"rotate {GH}")
    assert result.code == 1 and "title looks like a GitHub token" in result.err, result.err
    return "refused"


def refused_field(box: Box, result: Any, name: str) -> str:
    assert result.code == 1 and f"refused, nothing written: {name} looks like" in result.err, result.err
    return "refused"


def add_tags(box: Box) -> str:
    before = box.titles()
    result = refused_field(box, box.run("mem", "add", "Deploy", "--body", "ok", "--tags", f"ci,{GH}"), "tags")
    assert box.titles() == before
    return result


def set_tags(box: Box) -> str:
    ref = box.memory_id()
    return refused_field(box, box.run("mem", "set", ref, f"tags=ci,{GH}"), "tags")


def mcp_update_tags(box: Box) -> str:
    ref = box.memory_id()
    result = box.mcp("memory_update", id=ref, tags=["ci", AWS])
    assert result.isError and "tags looks like an AWS access key id" in result.content[0].text
    return "refused"


def mcp_update_body_password(box: Box) -> str:
    ref = box.memory_id()
    result = box.mcp("memory_update", id=ref, body=f"The admin password is {PW}.")
    assert result.isError
    return "refused"


def category_token(box: Box) -> str:
    result = refused_field(box, box.run("mem", "add", "Deploy", "--body", "ok", "--category", AWS), "category")
    assert not any(p.name.lower() == AWS.lower() for p in box.vault.rglob("*"))
    return result


def category_lowercased_token(box: Box) -> str:
    result = box.run("mem", "add", "Deploy", "--body", "ok", "--category", AWS.lower())
    refused_field(box, result, "category")
    assert not (box.vault / "long_term" / AWS.lower()).exists()
    return "refused"


def password_in_words_en(box: Box) -> str:
    result = box.run("mem", "add", f"The admin password is {PW}")
    assert result.code == 1 and "password stated in words" in result.err, result.err
    return "refused"


def password_in_words_zh(box: Box) -> str:
    result = box.run("mem", "add", "数据库", "--body", f"生产库的密码是{PW}，别外传")
    assert result.code == 1 and "password stated in words" in result.err, result.err
    return "refused"


def password_colon_zh(box: Box) -> str:
    result = box.run("mem", "add", "运维", "--body", f"口令：{PW}")
    assert result.code == 1 and "password or key assignment" in result.err, result.err
    return "refused"


def prompt_hook_remember_password(box: Box) -> str:
    payload = {"session_id": "s", "cwd": str(box.workdir), "prompt": f"remember: the admin password is {PW}"}
    before = box.titles()
    result = box.run("mem", "hook", "prompt", input=json.dumps(payload), env={"AIMATE_NO_DAEMON": "1"})
    assert result.code == 0 and box.titles() == before
    box.read(box.home / "state" / "hooks.log")
    return "refused"


def import_record_with_secret_tag(box: Box) -> str:
    path = box.memory_file()
    before = path.read_bytes()
    exported = box.run("mem", "export").out.splitlines()
    record = next(json.loads(line) for line in exported if "Deploy notes" in line)
    record["frontmatter"]["tags"] = ["ci", GH]
    source = box.workdir / "in.jsonl"
    source.write_text(json.dumps(record) + "\n", encoding="utf-8")
    result = box.run("mem", "import", str(source), "--update", "--json")
    assert path.read_bytes() == before and "GitHub token" in result.out, result.out + result.err
    return "refused"


PROBES: list[tuple[Callable[[Box], str], str]] = [
    (nul_byte_appended, "refused"),
    (utf16_with_bom, "refused"),
    (utf16_without_bom, "refused"),
    (gb18030_password_in_words, "refused"),
    (file_named_like_a_token, "refused"),
    (gitattributes_no_diff, "refused"),
    (refused_commit_leaves_no_blob, "refused"),
    (commit_message, "refused"),
    (review_accept_nul_laden, "refused"),
    (add_two_secrets_on_one_line, "refused"),
    (mcp_remember_password_in_words, "refused"),
    (mcp_remember_two_secrets, "refused"),
    (diagnose_two_secrets, "masked"),
    (review_two_secrets, "masked"),
    (hooks_log_failed_prompt, "masked"),
    (daemon_log, "masked"),
    (mcp_log, "masked"),
    (accepted_secret_shown_to_assistants, "masked"),
    (session_turn_cli, "masked"),
    (session_turn_mcp, "masked"),
    (session_end_hook_transcript, "masked"),
    (session_title, "refused"),
    (add_tags, "refused"),
    (set_tags, "refused"),
    (mcp_update_tags, "refused"),
    (mcp_update_body_password, "refused"),
    (category_token, "refused"),
    (category_lowercased_token, "refused"),
    (password_in_words_en, "refused"),
    (password_in_words_zh, "refused"),
    (password_colon_zh, "refused"),
    (prompt_hook_remember_password, "refused"),
    (import_record_with_secret_tag, "refused"),
]


def _deploy_notes(cli: Callable[..., Any]) -> None:
    assert cli("mem", "add", DEPLOY_NOTES, "--body", "Deploys go out on Fridays.").code == 0


@pytest.fixture
def box(home: Path, workdir: Path, isolated_git: None, seeded_home: Callable[..., Path]) -> Iterator[Box]:
    """A home with the global vault and one committed memory (`memory_file`), added through the CLI once per
    run and copied: 19 probes edited one, and adding it and finding its file took each 2-3 `aimate` processes
    (docs/reliability.md, "The suite's cost")."""
    seeded_home("secret-paths", _deploy_notes)
    cli = make_runner(home, workdir, vectors=False)
    made = Box(home, workdir, cli)
    yield made
    made.close()


@pytest.mark.slow
@pytest.mark.parametrize(("probe", "expected"), PROBES, ids=[probe.__name__ for probe, _ in PROBES])
def test_secret_path(box: Box, probe: Callable[[Box], str], expected: str) -> None:
    assert probe(box) == expected
    shown = [text for text in box.seen if leaks(text)]
    assert shown == [], f"a secret in clear in: {shown[0][:300]!r}" if shown else ""
    stored = git_objects(box.vault) if probe is not accepted_secret_shown_to_assistants else b""
    for secret in CLEAR:
        for encoding in ("utf-8", "utf-16-le"):
            assert secret.encode(encoding) not in stored, f"{secret} is in a git object ({encoding})"
    for log in ("hooks.log", "daemon.log", "mcp.log"):
        assert not leaks(box.read(box.home / "state" / log)), log

"""The project as anchors see it (git/anchors.py), on real git repositories: which files a text cites and
defines, and what happened to them since — changed, moved (renames followed, committed or not), deleted,
edited and not committed yet."""

from __future__ import annotations

import time
from datetime import datetime, timezone
from pathlib import Path

import pytest

from aimate_memory.git.anchors import ProjectFiles
from aimate_memory.vault.anchors import Anchor

SESSION_PY = "def refresh_token(session):\n    return session.renew()\n\n\nclass SessionStore:\n    pass\n"


@pytest.fixture
def repo(tmp_path: Path, run_git) -> Path:
    path = tmp_path / "proj"
    (path / "auth").mkdir(parents=True)
    (path / "src" / "api").mkdir(parents=True)
    (path / "auth" / "session.py").write_text(SESSION_PY, encoding="utf-8")
    (path / "src" / "api" / "routes.ts").write_text("export function listUsers() {}\n", encoding="utf-8")
    (path / "README.md").write_text("# proj\n", encoding="utf-8")
    run_git(path, "init", "-q", "-b", "main")
    run_git(path, "add", ".")
    run_git(path, "commit", "-qm", "init")
    return path


def earlier() -> datetime:
    """When the anchors of a test are verified: after the repository's first commit (maybe in its second)."""
    return datetime.now(timezone.utc).replace(microsecond=0)


def commit(run_git, repo: Path, message: str, later_s: int = 0) -> None:
    """A commit `later_s` seconds from now (git keeps whole seconds: a test's commits would share one)."""
    run_git(repo, "add", "-A")
    stamp = f"@{int(time.time()) + later_s} +0000"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GIT_COMMITTER_DATE", stamp)
        patch.setenv("GIT_AUTHOR_DATE", stamp)
        run_git(repo, "commit", "-qm", message)


@pytest.mark.parametrize(
    "text",
    [
        "Token refresh happens in auth/session.py via refresh_token(); sessions live in SessionStore.",
        "令牌刷新在 auth/session.py 的 refresh_token() 里，会话由 SessionStore 管。",
        "令牌刷新在 refresh_token() 里",  # the identifier alone finds its file
    ],
)
def test_a_text_anchors_to_what_it_cites(repo: Path, text: str) -> None:
    files = ProjectFiles(repo)
    anchors = files.anchors_for(text)
    assert [anchor.path for anchor in anchors] == ["auth/session.py"]
    assert anchors[0].blob == files.blob("auth/session.py") and anchors[0].verified_at is not None


def test_folders_file_names_and_other_languages(repo: Path) -> None:
    files = ProjectFiles(repo)
    paths = [a.path for a in files.anchors_for("路由在 src/api/ 下，listUsers() 列出用户；见 session.py 和 nowhere.py")]
    assert paths == ["src/api/", "auth/session.py", "src/api/routes.ts"]
    assert files.anchors_for("We prefer four spaces; 我习惯用 Tab 缩进") == ()


def test_an_identifier_defined_in_many_files_names_none(repo: Path, run_git) -> None:
    for name in ("a", "b", "c", "d"):
        (repo / f"{name}.py").write_text("def setup_logging():\n    pass\n", encoding="utf-8")
    commit(run_git, repo, "four definitions")
    assert ProjectFiles(repo).anchors_for("setup_logging() is called first") == ()


def test_the_memory_vault_itself_is_no_anchor(repo: Path) -> None:
    vault = repo / ".aimate" / "memory" / "long_term"
    vault.mkdir(parents=True)
    (vault / "note.md").write_text("def only_in_memory(): pass\n", encoding="utf-8")
    files = ProjectFiles(repo)
    assert files.anchors_for("see .aimate/memory/long_term/note.md and only_in_memory()") == ()


def test_changed_in_commits(repo: Path, run_git) -> None:
    files = ProjectFiles(repo)
    anchor = Anchor("auth/session.py", files.blob("auth/session.py") or "", earlier())
    assert files.staleness([anchor]) is None
    for round_ in range(3):
        with (repo / "auth" / "session.py").open("a", encoding="utf-8") as handle:
            handle.write(f"# change {round_}\n")
        commit(run_git, repo, f"change {round_}", later_s=2 + round_)
    stale = files.staleness([anchor])
    assert stale is not None and (stale.what, stale.commits) == ("changed", 3)
    assert stale.describe().startswith("auth/session.py changed in 3 commits since ")


def test_an_edit_not_committed_is_a_change_too(repo: Path) -> None:
    files = ProjectFiles(repo)
    anchor = Anchor("auth/session.py", files.blob("auth/session.py") or "", earlier())
    time.sleep(0.01)
    (repo / "auth" / "session.py").write_text("# rewritten\n", encoding="utf-8")
    stale = files.staleness([anchor])
    assert stale is not None and (stale.what, stale.commits) == ("changed", 0)
    assert "not committed yet" in stale.describe()


def test_a_rename_with_edits_is_followed(repo: Path, run_git) -> None:
    files = ProjectFiles(repo)
    anchor = Anchor("auth/session.py", files.blob("auth/session.py") or "", earlier())
    run_git(repo, "mv", "auth/session.py", "auth/sessions.py")
    (repo / "auth" / "sessions.py").write_text(SESSION_PY + "# renamed and touched\n", encoding="utf-8")
    commit(run_git, repo, "rename")
    stale = files.staleness([anchor])
    assert stale is not None and (stale.what, stale.moved_to, stale.commits) == ("moved", "auth/sessions.py", 1)
    verified = files.verify([anchor], datetime.now(timezone.utc))
    assert [a.path for a in verified] == ["auth/sessions.py"] and files.staleness(verified) is None


def test_a_move_not_committed_is_found_by_its_blob(repo: Path, run_git) -> None:
    files = ProjectFiles(repo)
    anchor = Anchor("auth/session.py", files.blob("auth/session.py") or "", earlier())
    run_git(repo, "mv", "auth/session.py", "lib_session.py")
    stale = files.staleness([anchor])
    assert stale is not None and (stale.what, stale.moved_to) == ("moved", "lib_session.py")


def test_deleted_then_verified_drops_the_anchor(repo: Path, run_git) -> None:
    files = ProjectFiles(repo)
    kept = Anchor("README.md", files.blob("README.md") or "", earlier())
    gone = Anchor("auth/session.py", files.blob("auth/session.py") or "", earlier())
    run_git(repo, "rm", "-q", "auth/session.py")
    commit(run_git, repo, "remove session")
    stale = files.staleness([kept, gone])
    assert stale is not None and (stale.what, stale.commits, stale.more) == ("deleted", 1, 0)
    assert stale.deleted_at  # when: the archive proposal counts from it
    assert [a.path for a in files.verify([kept, gone], datetime.now(timezone.utc))] == ["README.md"]


def test_a_folder_anchor_changes_with_its_files(repo: Path, run_git) -> None:
    files = ProjectFiles(repo)
    anchor = files.anchors_for("routes live in src/api/")[0]
    assert anchor.path == "src/api/" and files.staleness([anchor]) is None
    (repo / "src" / "api" / "users.ts").write_text("export const users = 1\n", encoding="utf-8")
    commit(run_git, repo, "users")
    stale = files.staleness([anchor])
    assert stale is not None and stale.what == "changed"


def test_a_hand_written_path_gets_its_blob_and_is_kept(repo: Path) -> None:
    files = ProjectFiles(repo)
    anchors = files.anchors_for("nothing cited here", [Anchor("README.md", "", None)])
    assert anchors[0].path == "README.md" and anchors[0].blob == files.blob("README.md")


def test_outside_git_the_disk_still_answers(tmp_path: Path) -> None:
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "util.py").write_text("x = 1\n", encoding="utf-8")
    files = ProjectFiles(tmp_path)
    anchors = files.anchors_for("helpers in lib/util.py")
    assert [a.path for a in anchors] == ["lib/util.py"]
    (tmp_path / "lib" / "util.py").write_text("x = 2\n", encoding="utf-8")
    stale = files.staleness(anchors)
    assert stale is not None and (stale.what, stale.commits) == ("changed", 0)


def test_a_new_process_reads_the_history_git_gave_the_last_one(
    repo: Path, run_git, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The parsed `git log` is kept in the state folder: after no new commit a new process runs no `git log`;
    after one, it does, and counts the new commit."""
    import aimate_memory.git.anchors as module

    state = tmp_path / "state"
    state.mkdir()
    files = ProjectFiles(repo, cache_dir=state)
    anchor = Anchor("auth/session.py", files.blob("auth/session.py") or "", earlier())
    (repo / "auth" / "session.py").write_text("# one\n", encoding="utf-8")
    commit(run_git, repo, "one", later_s=2)
    first = files.staleness([anchor])
    assert first is not None and first.commits == 1 and (state / module.HISTORY_FILE).exists()

    ran: list[str] = []
    real = ProjectFiles._git
    monkeypatch.setattr(ProjectFiles, "_git", lambda self, *args: ran.append(args[0]) or real(self, *args))
    monkeypatch.setattr(module, "_HISTORIES", {})  # a new process
    assert ProjectFiles(repo, cache_dir=state).staleness([anchor]) == first and "log" not in ran
    (repo / "auth" / "session.py").write_text("# two\n", encoding="utf-8")
    commit(run_git, repo, "two", later_s=3)
    monkeypatch.setattr(module, "_HISTORIES", {})
    again = ProjectFiles(repo, cache_dir=state).staleness([anchor])
    assert again is not None and again.commits == 2 and "log" in ran

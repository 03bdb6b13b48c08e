"""Automatic commits (docs/design.md §8): one commit per tool action in the GLOBAL vault when `git.auto_commit`
is on and the vault is a repository. Project vaults are never auto-committed (the project owner commits).

Hand edits belong to their owner: an automatic action (maintenance, fix, dedupe) never commits a change
a person made and nobody reviewed. The action asks `unreviewed_paths_for` BEFORE it writes, leaves those
files alone (or writes them without committing), and reports them; at commit time a file whose new
lines look like a secret is held out and reported instead of refusing the whole commit, so one such file
never blocks the rest of the run. gitpython is imported only when there is a repository to ask.
An explicit action (`add`, `set`, `edit`) still refuses with an error
that names the secret: the person is there to act on it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from aimate_memory.git.secrets import Finding, mask_text
from aimate_memory.vault.changes import ChangeSet, FileChange

if TYPE_CHECKING:
    from aimate_memory.git.repo import VaultRepo

UNREVIEWED = "unreviewed"
SECRET = "secret"
REVIEW_HINT = "`aimate mem review`"
_SHOWN = 5  # paths named in a warning line


@dataclass(frozen=True)
class HeldPath:
    """A file an automatic action left out of its commit, and why (`unreviewed` | `secret`)."""

    path: PurePosixPath
    reason: str
    detail: str = ""  # for a secret: "line 3: password or key assignment: password = ****"

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path.as_posix(), "reason": self.reason, "detail": self.detail}


@dataclass
class CommitReport:
    """What an automatic commit did: the commit (None: nothing committed) and what it held out."""

    commit: str | None = None
    held: list[HeldPath] = field(default_factory=list)

    @property
    def warnings(self) -> list[str]:
        return held_warnings(self.held)


def held_warnings(held: Sequence[HeldPath]) -> list[str]:
    """One line per reason: `2 files have unreviewed edits — `aimate mem review` (a.md, b.md)`."""
    lines = []
    unreviewed = sorted({h.path.as_posix() for h in held if h.reason == UNREVIEWED})
    if unreviewed:
        verb = "file has" if len(unreviewed) == 1 else "files have"
        lines.append(f"{len(unreviewed)} {verb} unreviewed edits — {REVIEW_HINT} ({_names(unreviewed)})")
    secrets = [h for h in held if h.reason == SECRET]
    if secrets:
        verb = "file holds" if len(secrets) == 1 else "files hold"
        shown = "; ".join(mask_text(f"{h.path.as_posix()} {h.detail}".strip()) for h in secrets[:_SHOWN])
        lines.append(f"{len(secrets)} {verb} a secret, not committed — {REVIEW_HINT} ({shown})")
    return lines


def _names(paths: list[str]) -> str:
    more = f", … {len(paths) - _SHOWN} more" if len(paths) > _SHOWN else ""
    return ", ".join(paths[:_SHOWN]) + more


def is_auto_committed(vault: Any, config: Any) -> bool:
    from aimate_memory.vault.layout import Scope

    return vault.scope is Scope.GLOBAL and bool(config.get("git.auto_commit")) and (Path(vault.root) / ".git").exists()


def unreviewed_paths_for(vault: Any, config: Any) -> set[PurePosixPath]:
    """Paths of `vault` with a person's uncommitted change, when the tool commits there (else none:
    without automatic commits nothing of theirs can end up in a commit)."""
    if not is_auto_committed(vault, config):
        return set()
    from aimate_memory.git.repo import GitError, VaultRepo
    from aimate_memory.git.review import unreviewed_paths

    try:
        with VaultRepo(vault.root, own_repo=True) as repo:
            return unreviewed_paths(repo)
    except GitError:
        return set()


def held_unreviewed(paths: Iterable[PurePosixPath]) -> list[HeldPath]:
    return [HeldPath(path, UNREVIEWED) for path in sorted(set(paths))]


class GitCommitter:
    """Commits one tool action in the global vault. `config` is a Config or a callable returning one
    (read at each call, so `config set` applies)."""

    def __init__(self, config: Any | Callable[[], Any]) -> None:
        self._config = config

    def config(self) -> Any:
        return self._config() if callable(self._config) else self._config

    def __call__(
        self,
        vault: Any,
        changeset: ChangeSet,
        automatic: bool = False,
        hold: Iterable[PurePosixPath] = (),
    ) -> CommitReport | None:
        """`hold`: paths a person had changed before the action wrote them; their changes stay out of
        the commit. `automatic`: hold out secrets too, instead of refusing."""
        config = self.config()
        if not changeset or not is_auto_committed(vault, config):
            return None
        from aimate_memory.git.repo import SecretFoundError, VaultRepo

        keywords = list(config.get("privacy.sensitive_keywords") or ())
        changeset, held = _without(changeset, set(hold))
        with VaultRepo(vault.root, config.get("git.author"), own_repo=True) as repo:
            if automatic:
                report = _commit_holding_secrets(repo, changeset, keywords) if changeset else CommitReport()
                report.held[:0] = held
                return report
            try:
                sha = repo.commit_changeset(changeset, allow_secret=changeset.allow_secret, sensitive_keywords=keywords)
                return CommitReport(sha, held)
            except SecretFoundError as error:
                error.message = error.message.replace("not committed", "saved but not committed")
                error.args = (error.message,)
                error.hint = "remove it, then `aimate mem commit -m MSG`; or pass --allow-secret after a person checked"
                raise


def _without(changeset: ChangeSet, hold: set[PurePosixPath]) -> tuple[ChangeSet, list[HeldPath]]:
    """The changeset without changes touching `hold`, and those held changes."""
    if not hold:
        return changeset, []
    kept = [c for c in changeset.changes if not ({c.path, c.old_path} & hold)]
    held = [HeldPath(c.path, UNREVIEWED) for c in changeset.changes if {c.path, c.old_path} & hold]
    return ChangeSet(changeset.subject, kept, changeset.allow_secret, changeset.scanned_clean), held


def _commit_holding_secrets(repo: VaultRepo, changeset: ChangeSet, keywords: Sequence[str]) -> CommitReport:
    """Commit the changes whose new lines hold no secret; both ends of a move stay together."""
    findings = repo.secret_findings(changeset.paths, keywords, changeset.scanned_clean)
    flagged = {PurePosixPath(f.path): f for f in findings if f.path}
    kept: list[FileChange] = []
    held: list[HeldPath] = []
    for change in changeset.changes:
        finding = next((flagged[p] for p in (change.path, change.old_path) if p in flagged), None)
        if finding is None:
            kept.append(change)
        else:
            held.append(HeldPath(change.path, SECRET, _describe(finding)))
    body = "\n".join(
        [
            ChangeSet(changeset.subject, kept).body(),
            *(f"- held out {mask_text(h.path.as_posix())}: holds a secret" for h in held),
        ]
    )
    commit = None
    if kept:
        paths = ChangeSet("", kept).paths
        commit = repo.commit_paths(
            paths, changeset.subject, body, sensitive_keywords=keywords, scanned_clean=changeset.scanned_clean
        )
    return CommitReport(commit, held)


def _describe(finding: Finding) -> str:
    where = f"line {finding.line}" if finding.line else "its name"
    return f"{where}: {finding.kind}: {finding.excerpt_masked}"

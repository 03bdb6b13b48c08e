"""`ProjectTrust`, reached as `system.trust`: which of the project vault's memories the person trusts, and the
rule that a model's own calls never approve anything (docs/reliability.md, "Trust model: project vaults and
the model's writes").

A project vault comes with the code, written by whoever wrote the repository. Its memories reach a context, a
search or a listing only once the person trusts them as they are (`vault/trust.py`: a ledger of file hashes in
the person's own state). `status` lists what is withheld (new, or changed since trusted), `trust` records it,
`untrust` forgets it. The filter itself is one place: `Store.trusted_only`, which `Retrieval` applies to
every read.

`model_write_refusal` is the other half: what a model may not do through the faces it drives (MCP) — make a
memory active, touch a core memory — only a person's command (the CLI, the page) does that."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from aimate_memory.errors import AimateError, InvalidInputError, NotFoundError
from aimate_memory.system.store import Store
from aimate_memory.vault.filters import MemoryFilter
from aimate_memory.vault.layout import Layer
from aimate_memory.vault.model import Memory


@dataclass(frozen=True)
class TeamMemory:
    """A project memory the person has not trusted as it is: `change` is "new" (never trusted) or
    "changed" (trusted once, its file changed since)."""

    path: str
    change: str
    id: str | None = None
    title: str | None = None
    layer: str | None = None
    status: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "change": self.change,
            "id": self.id,
            "title": self.title,
            "layer": self.layer,
            "status": self.status,
        }


@dataclass
class TrustReport:
    """What `trust` did (or, `dry_run`, would do), or what `status` found: the project memories withheld."""

    project: str | None
    memories: list[TeamMemory] = field(default_factory=list)
    trusted: int = 0  # files trusted now (after the action)
    dry_run: bool = False
    done: bool = False  # the listed memories were trusted by this call

    def to_dict(self) -> dict[str, Any]:
        return {
            "project": self.project,
            "dry_run": self.dry_run,
            "done": self.done,
            "trusted": self.trusted,
            "memories": [memory.to_dict() for memory in self.memories],
        }


class ProjectTrust:
    """The person's trust in the project vault. Offers `status` (what is withheld), `trust` (all, or some
    paths), `untrust` (all, or some paths), `is_team_change` and `trust_paths` (for review)."""

    def __init__(self, store: Store) -> None:
        self._store = store

    def status(self) -> TrustReport:
        """The project memories withheld from every context until the person trusts them."""
        ledger, vault = self._store.trust_ledger, self._store.project_vault
        if ledger is None or vault is None or not vault.exists:
            return TrustReport(None)
        self._store.refresh_vault(vault)  # what a `git pull` just brought is what the person is asked about
        known = ledger.files()
        hidden = self._store.untrusted()
        memories = self._indexed(hidden)
        listed = [
            TeamMemory(
                path,
                "changed" if path in known else "new",
                memory.id if memory else None,
                memory.title if memory else None,
                memory.layer.value if memory else None,
                memory.status if memory else None,
            )
            for path, memory in ((path, memories.get(path)) for path in sorted(hidden))
        ]
        return TrustReport(str(ledger.project_dir), listed, trusted=len(known) - _changed(listed))

    def trust(self, paths: Iterable[str] | None = None, dry_run: bool = False) -> TrustReport:
        """Trust the withheld project memories as they are now (`paths`: only those, vault-relative or from
        the cwd); `dry_run` lists what would be trusted and records nothing."""
        report = self.status()
        ledger = self._store.trust_ledger
        if ledger is None:
            raise InvalidInputError("not inside a project with a vault", "run it in a project that has .aimate/memory")
        if paths is not None:
            wanted = {self._vault_path(path) for path in paths}
            unknown = wanted - {memory.path for memory in report.memories}
            if unknown:
                raise NotFoundError(
                    f"not a project memory waiting for your trust: {', '.join(sorted(unknown))}",
                    "`aimate mem trust --dry-run` lists them",
                )
            report.memories = [memory for memory in report.memories if memory.path in wanted]
        report.dry_run = dry_run
        if not dry_run and report.memories:
            hashes = self._store.untrusted()
            ledger.trust({memory.path: hashes[memory.path] for memory in report.memories if memory.path in hashes})
            report.done = True
        report.trusted = len(ledger.files())
        return report

    def untrust(self, paths: Iterable[str] | None = None) -> int:
        """Stop trusting the project's memories (`paths`: only those) — the person's own too: each is withheld
        again until trusted. How many were trusted."""
        ledger = self._store.trust_ledger
        if ledger is None:
            raise InvalidInputError("not inside a project with a vault", "run it in a project that has .aimate/memory")
        return ledger.forget(None if paths is None else [self._vault_path(path) for path in paths])

    def team_changes(self) -> list[TeamMemory]:
        """The withheld project memories, for review (status without the counts)."""
        return self.status().memories

    def is_team_change(self, path: PurePosixPath) -> bool:
        return path.as_posix() in self._store.untrusted()

    def trust_paths(self, paths: Iterable[PurePosixPath]) -> None:
        """Trust these project files as they are now (a person accepted them in review)."""
        vault, ledger = self._store.project_vault, self._store.trust_ledger
        if vault is None or ledger is None:
            return
        from aimate_memory.vault.trust import file_digest

        found = {}
        for path in paths:
            file = vault.abs_path(path)
            if file.is_file():
                found[path.as_posix()] = file_digest(file.read_bytes())
        ledger.trust(found)

    def _indexed(self, hidden: Mapping[str, str]) -> dict[str, Memory]:
        vault = self._store.project_vault
        if not hidden or vault is None:
            return {}
        every = self._store.index_for(vault).query(MemoryFilter(statuses=()))
        return {memory.rel_path.as_posix(): memory for memory in every if memory.rel_path.as_posix() in hidden}

    def _vault_path(self, ref: str) -> str:
        """A vault-relative path from what a person typed: vault-relative already, or a path from the cwd."""
        vault = self._store.project_vault
        path = Path(ref).expanduser()
        if vault is not None and (path.is_absolute() or path.exists()):
            with suppress(AimateError):
                return vault.rel_path(path.absolute()).as_posix()
        return PurePosixPath(ref).as_posix()


def _changed(memories: list[TeamMemory]) -> int:
    return sum(1 for memory in memories if memory.change == "changed")


# -- what a model may do (docs/reliability.md, "Trust model") -----------------------------------------------

REVIEW_HINT = "ask the person to run `aimate mem review` (or the page's Review) / 请用户运行 `aimate mem review` 审阅"


def model_write_refusal(memory: Memory, changes: Mapping[str, Any]) -> str | None:
    """Why a model may not make these changes to `memory` (None: it may). A model drives MCP; only a person's
    command approves: it may not make a memory active that is not, touch a core memory's text, fields or
    status, or move a memory into core."""
    if memory.layer is Layer.CORE and any(value is not None for value in changes.values()):
        return (
            f"{memory.id[:8]} is a core memory: only the person edits, re-layers or archives core memories "
            f"/ {memory.id[:8]} 是核心记忆：只有用户本人可以修改、调整层级或归档核心记忆"
        )
    if changes.get("layer") is not None and str(changes["layer"]) == Layer.CORE.value:
        return (
            f"moving {memory.id[:8]} into core is the person's decision / 把 {memory.id[:8]} 移入核心记忆须由用户决定"
        )
    status = changes.get("status")
    if status == "active" and memory.status != "active":
        return (
            f"{memory.id[:8]} is {memory.status}: only the person makes it active, in review "
            f"/ {memory.id[:8]} 的状态是 {memory.status}：只有用户本人在审阅中才能启用它"
        )
    return None

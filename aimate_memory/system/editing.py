"""`update`: change a memory's fields and/or body in one action (one commit), for agents and the MCP server."""

from __future__ import annotations

from aimate_memory.errors import InvalidInputError
from aimate_memory.system.memories import MemoryActions
from aimate_memory.vault.changes import ChangeSet, FileChange
from aimate_memory.vault.fields import coerce_field
from aimate_memory.vault.model import Memory
from aimate_memory.vault.validate import check_writable_text

UPDATABLE = ("title", "body", "tags", "importance", "status")


class EditActions(MemoryActions):
    def update(
        self,
        ref: str,
        *,
        title: str | None = None,
        body: str | None = None,
        tags: list[str] | str | None = None,
        importance: int | None = None,
        status: str | None = None,
    ) -> Memory:
        """Edit fields and/or the body of one memory (id, prefix, path or title); one commit. The new text
        is checked for secrets and control characters before anything is written; `status: archived`
        moves it to archive/ like `remove`."""
        given = {"title": title, "tags": tags, "importance": importance, "status": status}
        self.guard_secrets({**given, "body": body})
        fields = {key: coerce_field(key, value) for key, value in given.items() if value is not None}
        if not fields and body is None:
            raise InvalidInputError("nothing to update", f"pass at least one of: {', '.join(UPDATABLE)}")
        check_writable_text({"title": fields.get("title"), "body": body})
        memory = self.get(ref)
        vault = self.vault_for(memory.scope)
        archive = fields.get("status") == "archived" and not memory.archived
        if archive:
            fields.pop("status")
        updated = vault.update(memory, fields, body=body) if fields or body is not None else memory
        what = ", ".join([*fields, *(["body"] if body is not None else [])])
        changes = [FileChange("update", updated.rel_path, f"updated {what}")] if updated is not memory else []
        if archive:
            updated, _ = vault.archive(updated, "archived", "archived by update")
            changes = [FileChange("move", updated.rel_path, f"updated {what}; archived", old_path=memory.rel_path)]
        if changes:
            self._record(vault, ChangeSet(f'memory: update "{updated.title}"', changes))
        return updated

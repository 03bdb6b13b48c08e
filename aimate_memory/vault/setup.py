"""Creating a vault: the folder skeleton and the editable starter files from `vault_template/`."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from aimate_memory.clock import Clock
from aimate_memory.vault.atomic import atomic_write_text
from aimate_memory.vault.changes import FileChange
from aimate_memory.vault.codec import content_hash, read_document
from aimate_memory.vault.layout import ARCHIVE_FOLDER, LAYER_SUBFOLDERS, Layer
from aimate_memory.vault.model import new_id
from aimate_memory.vault.roots import STATE_DIR
from aimate_memory.vault.store import Vault

# `{project}/.aimate/.gitignore`: memory/ is the team's, committed with the code and reviewed like it; the
# index and state are derived and per machine, and sessions are one person's conversations (docs/file-format.md,
# "A project vault in git").
PROJECT_GITIGNORE_LINES = (
    "# AIMate: memory/ is committed with the code; the index, state and conversations never are",
    "index.db*",
    f"{STATE_DIR}/",
    "memory/sessions/",
)


def ensure_lines(path: Path, lines: tuple[str, ...] | list[str]) -> bool:
    """Append the lines a file lacks (a person's own lines are kept). Returns True when it changed."""
    existing = path.read_text(encoding="utf-8") if path.exists() else ""
    present = {line.strip() for line in existing.splitlines()}
    missing = [line for line in lines if line.strip() not in present]
    if not missing:
        return False
    prefix = existing if not existing or existing.endswith("\n") else existing + "\n"
    path.write_text(prefix + "\n".join(missing) + "\n", encoding="utf-8")
    return True


def template_dir() -> Path:
    """`vault_template/` (top level, docs/design.md §14), reached through the `template` symlink beside this
    module so that a wheel, which copies the link's target, carries it too."""
    return Path(__file__).parent / "template"


def create_skeleton(vault: Vault, clock: Clock, with_core_templates: bool) -> list[FileChange]:
    """Make the layer folders; copy the README and (global vault) the core starter files.

    Existing files are never overwritten: `init` on an existing vault only fills what is missing.
    """
    changes: list[FileChange] = []
    for layer, subfolders in LAYER_SUBFOLDERS.items():
        (vault.root / layer.folder).mkdir(parents=True, exist_ok=True)
        for sub in subfolders:
            (vault.root / layer.folder / sub).mkdir(exist_ok=True)
    (vault.root / ARCHIVE_FOLDER).mkdir(exist_ok=True)
    template = template_dir()
    readme = vault.root / "README.md"
    if not readme.exists():
        import shutil  # only when a vault is made

        shutil.copyfile(template / "README.md", readme)
        changes.append(FileChange("add", PurePosixPath("README.md"), "vault guide"))
    if with_core_templates:
        for source in sorted((template / Layer.CORE.folder).glob("*.md")):
            rel = PurePosixPath(Layer.CORE.folder, source.name)
            target = vault.abs_path(rel)
            if target.exists():
                continue
            _install_starter(source, target, vault, clock)
            changes.append(FileChange("add", rel, "starter file"))
    return changes


def _install_starter(source: Path, target: Path, vault: Vault, clock: Clock) -> None:
    """A template gets the identity fields a memory needs, keeping its comments and layout."""
    doc = read_document(source, vault.max_file_bytes)
    now = clock.now()
    doc.meta.insert(0, "id", new_id(now))
    doc.set("scope", vault.scope.value)
    doc.set("status", "active")
    doc.set("created_at", now)
    doc.set("updated_at", now)
    doc.set("content_hash", content_hash(doc.body))
    doc.set("source", "manual")
    atomic_write_text(target, doc.render())

"""The managed block of core memories in a project's AGENTS.md or CLAUDE.md.

Everything outside `<!-- aimate:begin -->` … `<!-- aimate:end -->` is the user's and stays byte for byte;
a file without the block gets it appended after one blank line."""

from __future__ import annotations

from typing import TYPE_CHECKING

from aimate_memory.integrations.edits import ConfigSyntaxError
from aimate_memory.vault.markdown import strip_comments

if TYPE_CHECKING:
    from pathlib import Path

    from aimate_memory.integrations.apply import Outcome
    from aimate_memory.system import MemorySystem

BEGIN = "<!-- aimate:begin -->"
END = "<!-- aimate:end -->"
NOTICE = "<!-- Written by `aimate mem agents-md --write` from the core memories; edit them, not this block. -->"
HEADING = "## Memory (AIMate)"
EMPTY = "_No core memories yet: `aimate mem add TITLE --layer core`._"


def render_block(core_markdown: str) -> str:
    """The block, without a final newline (so replacing it keeps whatever followed the old one)."""
    body = core_markdown.strip() or EMPTY
    return f"{BEGIN}\n{NOTICE}\n{HEADING}\n\n{body}\n{END}"


def _span(text: str) -> tuple[int, int] | None:
    start = text.find(BEGIN)
    end = text.find(END, start + len(BEGIN)) if start >= 0 else text.find(END)
    if start < 0 and end < 0:
        return None
    if start < 0 or end < 0:
        missing = END if end < 0 else BEGIN
        raise ConfigSyntaxError(f"the aimate block is cut: `{missing}` is missing (restore it or delete the block)")
    return start, end + len(END)


def replace_block(text: str | None, block: str) -> str:
    if not text:
        return block + "\n"
    span = _span(text)
    if span is not None:
        return text[: span[0]] + block + text[span[1] :]
    return text + ("" if text.endswith("\n") else "\n") + "\n" + block + "\n"


def remove_block(text: str | None) -> str | None:
    """The text without the block (and the blank line it was appended after); None when nothing is left."""
    if text is None:
        return None
    span = _span(text)
    if span is None:
        return text
    before, after = text[: span[0]], text[span[1] :]
    if after in ("", "\n") and before.endswith("\n\n"):
        before, after = before[:-1], ""  # undo the append: the blank line and the final newline were ours
    remaining = before + after
    return remaining if remaining.strip() else None


def is_fresh(text: str | None, block: str) -> bool:
    return text is not None and replace_block(text, block) == text


def current_block(system: MemorySystem) -> str:
    return render_block(vault_core_markdown(system))


def write_agents_md(system: MemorySystem, path: Path) -> Outcome:
    """Rewrite the block in `path` when it is stale (`agents-md --write`; the daemon's job with
    `agents_md.auto`). No backup: the file is the project's, in git, and only the block changes."""
    from aimate_memory.integrations.apply import apply_edits
    from aimate_memory.integrations.edits import Change, plan_edits

    block = current_block(system)
    return apply_edits(plan_edits([Change(path, lambda text: replace_block(text, block), backup=False)]))[0]


def vault_core_markdown(system: MemorySystem) -> str:
    """The facade's `core_markdown()`; until that lands on main, `_core_markdown_fallback` stands in."""
    system.sync()  # the facade reads the index as it is
    core_markdown = getattr(system, "core_markdown", None)
    return core_markdown() if core_markdown is not None else _core_markdown_fallback(system)


def _core_markdown_fallback(system: MemorySystem) -> str:
    # TEMPORARY: remove once MemorySystem.core_markdown() (the agent facade) is on main.
    from aimate_memory.vault.filters import MemoryFilter
    from aimate_memory.vault.layout import Layer, Scope

    sections = []
    for scope in (Scope.GLOBAL, Scope.PROJECT):
        for listed in system.query(MemoryFilter(layers=(Layer.CORE,), scopes=(scope,))):
            memory = system.get(listed.id)
            # The vault's template files are a heading and an HTML comment of examples: nothing to compile.
            lines = strip_comments(memory.body).strip().splitlines()
            if lines and lines[0].lstrip("#").strip() == memory.title:
                lines = lines[1:]
            body = "\n".join(lines).strip()
            if body:
                sections.append(f"### {memory.title}\n\n{body}")
    return "\n\n".join(sections)

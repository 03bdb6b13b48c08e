"""The managed block of core memories in AGENTS.md or CLAUDE.md.

A project's file is shared with the team, so its block holds only the project vault's core; the person's
global core goes to the assistant's user-level file (`$CODEX_HOME/AGENTS.md`) or reaches it through the
session-start hook (docs/agents.md, "What goes where"). Everything outside `<!-- aimate:begin -->` …
`<!-- aimate:end -->` is the user's and stays byte for byte; a file without the block gets it appended after
one blank line, in the line ending the file mostly uses (a CRLF file stays CRLF)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from aimate_memory.integrations.edits import ConfigSyntaxError
from aimate_memory.vault.layout import Scope

if TYPE_CHECKING:
    from pathlib import Path

    from aimate_memory.integrations.apply import EditOutcome
    from aimate_memory.system import MemorySystem

BEGIN = "<!-- aimate:begin -->"
END = "<!-- aimate:end -->"
NOTICE = "<!-- Written by `aimate mem agents-md --write` from the core memories; edit them, not this block. -->"
# The block sits in someone's document: one `##` section, each memory a `###` under it.
HEADINGS = {Scope.PROJECT: "## Project memory (AIMate)", Scope.GLOBAL: "## Personal memory (AIMate)"}
EMPTY = {
    Scope.PROJECT: "_No project core memories yet: `aimate mem add TITLE --layer core --scope project`._",
    Scope.GLOBAL: "_No personal core memories yet: `aimate mem add TITLE --layer core --scope global`._",
}


def render_block(core_markdown: str, scope: Scope = Scope.PROJECT) -> str:
    """The block, without a final newline (so replacing it keeps whatever followed the old one)."""
    body = core_markdown.strip() or EMPTY[scope]
    return f"{BEGIN}\n{NOTICE}\n{HEADINGS[scope]}\n\n{body}\n{END}"


def _span(text: str) -> tuple[int, int] | None:
    start = text.find(BEGIN)
    end = text.find(END, start + len(BEGIN)) if start >= 0 else text.find(END)
    if start < 0 and end < 0:
        return None
    if start < 0 or end < 0:
        missing = END if end < 0 else BEGIN
        raise ConfigSyntaxError(f"the aimate block is cut: `{missing}` is missing (restore it or delete the block)")
    return start, end + len(END)


def line_ending(text: str | None) -> str:
    """The line ending `text` mostly uses: CRLF when more of its lines end so, else LF."""
    if not text:
        return "\n"
    crlf = text.count("\r\n")
    return "\r\n" if crlf > text.count("\n") - crlf else "\n"


def replace_block(text: str | None, block: str) -> str:
    if not text:
        return block + "\n"
    eol = line_ending(text)
    block = block.replace("\n", eol)
    span = _span(text)
    if span is not None:
        return text[: span[0]] + block + text[span[1] :]
    return text + ("" if text.endswith("\n") else eol) + eol + block + eol


def remove_block(text: str | None) -> str | None:
    """The text without the block (and the blank line it was appended after); None when nothing is left."""
    if text is None:
        return None
    span = _span(text)
    if span is None:
        return text
    before, after = text[: span[0]], text[span[1] :]
    eol = line_ending(text)
    if after in ("", eol) and before.endswith(eol * 2):
        before, after = before[: -len(eol)], ""  # undo the append: the blank line and the final newline were ours
    remaining = before + after
    return remaining if remaining.strip() else None


def is_fresh(text: str | None, block: str) -> bool:
    return text is not None and replace_block(text, block) == text


def current_block(system: MemorySystem, scope: Scope = Scope.PROJECT) -> str:
    """The block of one vault's core: the project's for a project file, the global one for a user-level file.
    Outside a project the project block says there is nothing yet, rather than fall back to the person's."""
    system.refresh()  # the facade reads the index as it is
    return render_block(system.core_markdown(scope), scope)


def write_agents_md(system: MemorySystem, path: Path, scope: Scope = Scope.PROJECT) -> EditOutcome:
    """Rewrite the block in `path` when it is stale (`agents-md --write`; the daemon's job with
    `agents_md.auto`). No backup: the file is the project's, in git, and only the block changes."""
    from aimate_memory.integrations.apply import apply_edits
    from aimate_memory.integrations.edits import Change, plan_edits

    block = current_block(system, scope)
    return apply_edits(plan_edits([Change(path, lambda text: replace_block(text, block), backup=False)]))[0]

"""Text checked before it is written, so a refused memory leaves nothing on disk (docs/design.md §13)."""

from __future__ import annotations

import re
from collections.abc import Mapping

from aimate_memory.errors import InvalidInputError

# Control characters other than tab, newline and carriage return: a NUL makes the file unreadable as text
# (the codec treats it as binary) and the others never belong in Markdown a person reads.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def thread_name(thread: str) -> str:
    """A memory's `thread` as stored (`add` and `remember`): one line of writable text, trimmed."""
    name = thread.strip()
    if not name or "\n" in name or "\r" in name:
        raise InvalidInputError(f"a thread is one line of text, got {thread!r}", "e.g. --thread claude:session-42")
    check_writable_text({"thread": name})
    return name


def check_writable_text(fields: Mapping[str, str | None]) -> None:
    """Raise `InvalidInputError` naming the field when a value cannot be stored as UTF-8 Markdown."""
    for name, value in fields.items():
        if not value:
            continue
        found = _CONTROL.search(value)
        if found:
            raise InvalidInputError(
                f"the {name} holds a control character ({found.group()!r} at character {found.start() + 1}); "
                "nothing was written",
                "remove it (a NUL byte often means a binary file was passed as text)",
            )
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise InvalidInputError(
                f"the {name} is not valid Unicode text (character {exc.start + 1}); nothing was written",
                "pass UTF-8 text",
            ) from None

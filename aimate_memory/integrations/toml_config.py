"""TOML config files edited with tomlkit, which keeps the user's comments, order and formatting."""

from __future__ import annotations

from typing import Any

import tomlkit
from tomlkit.exceptions import ParseError
from tomlkit.items import Table
from tomlkit.toml_document import TOMLDocument

from aimate_memory.integrations.edits import ConfigSyntaxError


def parse(text: str | None) -> TOMLDocument:
    try:
        return tomlkit.parse(text or "")
    except ParseError as exc:
        raise ConfigSyntaxError(f"invalid TOML: {exc}") from exc


def table(values: dict[str, Any], blank_line_after: bool = True) -> Table:
    """A table, by default ending in a blank line so that a table after it is not glued to it (tomlkit
    separates the entries of an array of tables it creates itself, not those appended to the user's)."""
    item = tomlkit.table()
    for key, value in values.items():
        item.add(key, value)
    if blank_line_after:
        item.add(tomlkit.nl())
    return item


def dumps(doc: TOMLDocument) -> str | None:
    """The document with one newline at the end (a table we add or remove last leaves a blank line there);
    None (delete the file) when nothing is left."""
    text = doc.as_string().rstrip("\n")
    return text + "\n" if text.strip() else None

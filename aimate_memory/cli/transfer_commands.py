"""`aimate mem export | import`: JSON Lines out and in, and the importers for what people already have
(printing over the facade's `system/transfer.py`)."""

from __future__ import annotations

import json
import sys
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

import typer
from rich.markup import escape

from aimate_memory.cli.common import JSON, open_system
from aimate_memory.cli.render import console, print_json
from aimate_memory.errors import InvalidInputError
from aimate_memory.vault.assistant_memories import LEARNED_IMPORTERS, default_learned_folder
from aimate_memory.wording import plural

if TYPE_CHECKING:
    from aimate_memory.system import MemorySystem
    from aimate_memory.system.transfer import ImportReport

commands = typer.Typer()
FORMATS = ("jsonl", "json")


@commands.command()
def export(
    fmt: str = typer.Option(
        "jsonl", "--format", help="Output format: jsonl (one memory per line) | json (one array of the same records)."
    ),
    layer: list[str] = typer.Option(None, "--layer", help="Only this layer; repeatable."),
    status: list[str] = typer.Option(None, "--status", help="Only this status; repeatable."),
    output: Path = typer.Option(None, "-o", "--output", help="Write to FILE (default: stdout)."),
) -> None:
    """Export memories as JSON Lines (or one JSON array): every frontmatter field (unknown keys too) and the
    body. `import` reads both."""
    if fmt not in FORMATS:
        raise InvalidInputError(f"unknown format {fmt}", f"use one of: {', '.join(FORMATS)}")
    lines = open_system().transfer.export_lines(layer or (), status or ())
    if output is None:
        count = _write_records(sys.stdout, lines, fmt)
        return
    with output.open("w", encoding="utf-8", newline="\n") as handle:
        count = _write_records(handle, lines, fmt)
    console.print(f"exported {plural(count, 'memory', 'memories')} to {escape(str(output))}")


def _write_records(handle: TextIO, lines: Iterable[str], fmt: str) -> int:
    """The records as lines (jsonl) or as the items of one array (json), streamed; how many."""
    count = 0
    for line in lines:
        if fmt == "json":
            handle.write(("[\n  " if count == 0 else ",\n  ") + line)
        else:
            handle.write(line + "\n")
        count += 1
    if fmt == "json":
        handle.write("\n]\n" if count else "[]\n")
    return count


def records_as_lines(text: str) -> list[str]:
    """An export as the lines `import_lines` reads: JSON Lines as they are; a JSON array (`--format json`)
    one item a line. A line that is not a record is still reported by its number."""
    if not text.lstrip().startswith("["):
        return text.splitlines()
    try:
        items = json.loads(text)
    except ValueError as error:
        hint = "give a file written by `export --format json`"
        raise InvalidInputError(f"not a JSON array: {error}", hint) from error
    return [json.dumps(item, ensure_ascii=False) for item in items]


@commands.command("import")
def import_command(
    file: Path = typer.Argument(
        None,
        help="A JSON Lines export (`-` for stdin); with --from, the other tool's file or folder (optional for "
        "claude-auto-memory and codex-memories: the client's own folder).",
    ),
    dry_run: bool = typer.Option(False, "--dry-run", help="Print each file it would write; write nothing."),
    update: bool = typer.Option(False, "--update", help="Replace memories whose id exists with other content."),
    source: str = typer.Option(
        None,
        "--from",
        help="Read what another tool keeps: claude (CLAUDE.md, MEMORY.md) | basic-memory (a folder of notes) | "
        "mcp-memory-json (the MCP memory server's file) | cline (a memory-bank folder) | claude-auto-memory "
        "(Claude Code's own memory of this project) | codex-memories (Codex's) — these two as pending captures "
        "for `aimate mem review`.",
    ),
    as_json: bool = JSON,
) -> None:
    """Import memories (ids kept; the same input twice changes nothing); bad lines or files are reported by
    where they are, the rest is imported."""
    system = open_system()
    if source in LEARNED_IMPORTERS:
        _import_learned(system, source, file, dry_run, as_json)
        return
    if file is None:
        raise InvalidInputError("give the file or folder to import", "e.g. `aimate mem import memories.jsonl`")
    if source is not None:
        report = system.transfer.import_from(source, file, dry_run=dry_run, update=update)
        _finish(system, report, dry_run, as_json)
        return
    if str(file) == "-":
        lines = records_as_lines(sys.stdin.read())
    else:
        try:
            lines = records_as_lines(file.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as error:
            raise InvalidInputError(f"cannot read {file}: {error}", "give a UTF-8 JSON Lines file") from error
    report = system.transfer.import_lines(lines, dry_run=dry_run, update=update, source=file.name)
    _finish(system, report, dry_run, as_json)


def _import_learned(system: MemorySystem, kind: str, folder: Path | None, dry_run: bool, as_json: bool) -> None:
    """The assistant's own notes as pending captures (`Transfer.import_learned`), printed."""
    path = folder if folder is not None else default_learned_folder(kind, Path.home(), Path.cwd())
    outcomes = system.transfer.import_learned(kind, path, dry_run=dry_run)
    if not dry_run:
        system.refresh()
    if as_json:
        print_json({"from": str(path), "entries": outcomes})
        return
    for outcome in outcomes:
        where = escape(outcome["from"])
        console.print(f"[bold]{outcome['action']}[/] {escape(outcome['text'][:100])} [dim]({where})[/]")
    counts = Counter(outcome["action"] for outcome in outcomes)
    done = ", ".join(f"{count} {action}" for action, count in counts.items()) or "nothing found"
    console.print(f"import from {escape(str(path))}: {done}")
    if counts.get("pending"):
        console.print(
            "They wait for you: `aimate mem review` accepts or rejects each. The client's own memory is untouched."
        )


def _finish(system: MemorySystem, report: ImportReport, dry_run: bool, as_json: bool) -> None:
    if not dry_run:
        system.refresh()
    if as_json:
        print_json(report.to_dict())
    else:
        for outcome in report.outcomes:
            if outcome.text:  # a dry run shows each file it would write
                console.print(f"[bold]would be {outcome.action}:[/] {escape(outcome.path)}")
                sys.stdout.flush()
                sys.stdout.write(outcome.text if outcome.text.endswith("\n") else outcome.text + "\n")
            if outcome.action in ("error", "skipped"):
                colour = "red" if outcome.action == "error" else "yellow"
                what = f"{outcome.where()}: " + " ".join(part for part in (outcome.id, outcome.detail) if part)
                console.print(f"[{colour}]{outcome.action}[/] {escape(what)}")
        console.print(f"import: {escape(report.summary())}")
    if report.count("error"):  # with --json too: a script sees that something was not imported
        raise typer.Exit(1)

"""Commands over the index: index, reindex, search (recall), eval, stats."""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.markup import escape

from aimate_memory.cli.answers import print_search
from aimate_memory.cli.common import JSON, NO_REFRESH, connect, open_system, when
from aimate_memory.cli.progress import LazyProgress, refreshed
from aimate_memory.cli.render import console, print_json, print_warning
from aimate_memory.errors import InvalidInputError
from aimate_memory.vault.filters import MemoryFilter, parse_layer, parse_scope, parse_statuses
from aimate_memory.vault.lists import split_list

if TYPE_CHECKING:
    from aimate_memory.system import MemorySystem

commands = typer.Typer()


@commands.command("index")
def index_(as_json: bool = JSON) -> None:
    """Sync the index with the files: only what changed is read, re-chunked and re-embedded."""
    system = open_system()
    with LazyProgress() as progress:
        reports = system.refresh(progress)
    _print_reports(reports, as_json)
    _store_what_first_questions_read(system, reports, as_json)


@commands.command()
def reindex(as_json: bool = JSON) -> None:
    """Rebuild the index from the files (into a temp file, swapped in when done)."""
    system = open_system()
    with LazyProgress() as progress:
        reports = system.store.reindex(progress)
    _print_reports(reports, as_json)
    _store_what_first_questions_read(system, reports, as_json)


def _store_what_first_questions_read(system: MemorySystem, reports: Mapping[str, Any], as_json: bool) -> None:
    """After an index that embedded chunks (its models loaded), embed and store what a search reads of the
    newest memories when a question comes in the other script (`said_to_warm`, as the daemon warms at its
    start): otherwise the first cold searches and remembers after an index each embedded part of it — eight cold
    remembers in a row right after a 300-memory index took 2.05, 2.24, 1.43, 1.63, 1.26 … 0.97 s, and with these
    stored 1.02–1.21 s (2026-11-29, docs/design.md, "What an index stores for the first questions"). The same
    texts and model as the search would use: answers do not change."""
    if not any(report.embedded_chunks for report in reports.values()):
        return
    started = time.monotonic()
    texts = system.said_to_warm()
    system.warm_said(texts)
    if texts and not as_json:
        console.print(
            f"stored what a first question in the other language reads: {len(texts)} texts "
            f"({time.monotonic() - started:.1f} s)"
        )


def _print_reports(reports: Mapping[str, Any], as_json: bool) -> None:  # RefreshReports: faces may not import index
    if as_json:
        print_json({scope: report.as_dict() for scope, report in reports.items()})
        return
    for scope, r in reports.items():
        console.print(
            f"{scope}: {r.scanned} files, {r.added} added, {r.updated} updated, {r.moved} moved, "
            f"{r.deleted} removed, {r.errors} errors, {r.embedded_chunks} chunks embedded "
            f"({r.seconds * 1000:.0f} ms{', rebuilt' if r.rebuilt else ''})"
        )
        for warning in r.warnings:
            print_warning(warning)


@commands.command()
def search(
    query: list[str] = typer.Argument(..., help="What to look for (any language)."),
    limit: int = typer.Option(10, "--limit", "-n", min=1, help="How many results."),
    layer: list[str] = typer.Option([], "--layer", "-l", help="core, session, short_term, long_term (repeatable)."),
    scope: str = typer.Option(None, "--scope", "-s", help="global or project."),
    category: list[str] = typer.Option([], "--category", "-c"),
    tag: list[str] = typer.Option([], "--tag", "-t", help="Only memories with this tag (repeatable; a,b gives two)."),
    status: str = typer.Option(None, "--status", help="Default: active and pending; 'all' for any."),
    since: str = typer.Option(None, "--since", help="Updated on or after this date."),
    until: str = typer.Option(None, "--until", help="Updated before this date."),
    created_after: str = typer.Option(None, "--created-after"),
    created_before: str = typer.Option(None, "--created-before"),
    path: str = typer.Option(None, "--path", help="Only paths matching this glob (e.g. 'long_term/*')."),
    explain: bool = typer.Option(False, "--explain", help="Show every factor of each score."),
    no_refresh: bool = NO_REFRESH,
    as_json: bool = JSON,
) -> None:
    """Search memories by meaning and keywords, in Chinese and English."""
    where = MemoryFilter(
        layers=tuple(parse_layer(value) for value in layer),
        scopes=(parse_scope(scope),) if scope else (),
        categories=tuple(category),
        tags=tuple(split_list(tag)),
        statuses=parse_statuses(status),
        created_after=when(created_after, "--created-after"),
        created_before=when(created_before, "--created-before"),
        updated_after=when(since, "--since"),
        updated_before=when(until, "--until"),
        path_glob=path,
    )
    text = " ".join(query)
    started = time.monotonic()  # the time said is the whole wait: a model loading or a cache built included
    client = connect(search_for=text)
    client.require_vault()  # "no vault yet" whether the daemon or this process would answer
    # A running daemon answers warm (model loaded, index kept fresh by its watcher); else search here.
    found = client.search(text, limit, where, no_refresh=no_refresh)
    print_search(found, as_json, explain, started)


commands.command("recall", help="Alias of `search`.")(search)


@commands.command("eval")
def eval_(
    queries_file: Path = typer.Argument(
        ..., help='JSONL: one {"query": ..., "expected": [ids or id prefixes]} a line.'
    ),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="List each query that missed, with what came back."),
    no_refresh: bool = NO_REFRESH,
    as_json: bool = JSON,
) -> None:
    """Measure search on your own questions: recall@1/5/10 and MRR over your vaults."""
    try:
        text = queries_file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInputError(f"cannot read {queries_file}: {exc}", "give a UTF-8 JSONL file") from exc
    report = refreshed(open_system(), no_refresh).retrieval.evaluate(text, str(queries_file))
    if as_json:
        print_json(report.as_dict(verbose))
        return
    recall = "  ".join(f"R@{k} {value:.3f}" for k, value in report.recall.items())
    console.print(f"{len(report.scores)} queries  {recall}  MRR {report.mrr:.3f}")
    if not verbose:
        return
    for score in report.scores:
        if not score.missing:
            continue
        got = " ".join(memory_id[:8] for memory_id in score.ranked) or "nothing"
        console.print(
            f"[bold]line {score.query.line}[/]: {escape(score.query.query)}\n"
            f"   missing {' '.join(score.missing)}  [dim]got {got}[/]"
        )


@commands.command()
def stats(no_refresh: bool = NO_REFRESH, as_json: bool = JSON) -> None:
    """Counts by layer and status, vectors, index size, last refresh, index identity."""
    system = refreshed(open_system(), no_refresh)
    data = system.retrieval.stats()
    if as_json:
        print_json(data)
        return
    for scope, s in data.items():
        identity = s["identity"]
        rows = {
            "memories": str(s["memories"]),
            "by layer": ", ".join(f"{k} {v}" for k, v in sorted(s["by_layer"].items())),
            "by status": ", ".join(f"{k} {v}" for k, v in sorted(s["by_status"].items())),
            "chunks / vectors": f"{s['chunks']} / {s['vectors']}",
            "errors / excluded": f"{s['errors']} / {s['excluded']}",
            "index": f"{s['index']} ({s['index_bytes'] / 1e6:.1f} MB)",
            "last refresh": str(s["last_refresh"]),
            "embedder": f"{identity['embedder'] or 'none (keyword only)'} ({identity['dimension']}-d)",
            "schema / tokenizer": f"{identity['schema']} / {identity['tokenizer']}",
        }
        # Aligned lines rather than a rich Table: a table pads every row to its widest cell (the embedder's
        # identity), which left each line ending in ~60 spaces in a terminal or a pasted bug report.
        width = max(map(len, rows))
        console.print(f"[bold]{escape(scope)} vault — {escape(str(s['vault']))}[/bold]")
        for key, value in rows.items():
            console.print(f" {key:<{width}}  {escape(value)}")

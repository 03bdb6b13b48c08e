"""Commands over the index: index, reindex, search (recall), eval, stats."""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import typer
from rich.markup import escape

from aimate_memory.cli.common import JSON, NO_REFRESH, connect, open_system, when
from aimate_memory.cli.progress import LazyProgress, refreshed
from aimate_memory.cli.render import console, print_json, print_warning
from aimate_memory.errors import InvalidInputError
from aimate_memory.system.records import SCORE_PARTS
from aimate_memory.vault.filters import MemoryFilter, parse_layer, parse_scope, parse_statuses
from aimate_memory.vault.lists import split_list
from aimate_memory.wording import plural

commands = typer.Typer()


@commands.command("index")
def index_(as_json: bool = JSON) -> None:
    """Sync the index with the files: only what changed is read, re-chunked and re-embedded."""
    system = open_system()
    with LazyProgress() as progress:
        reports = system.refresh(progress)
    _print_reports(reports, as_json)


@commands.command()
def reindex(as_json: bool = JSON) -> None:
    """Rebuild the index from the files (into a temp file, swapped in when done)."""
    system = open_system()
    with LazyProgress() as progress:
        reports = system.store.reindex(progress)
    _print_reports(reports, as_json)


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
    for warning in found.warnings:
        print_warning(warning)
    if as_json:
        print_json([hit.to_dict(explain) for hit in found.hits])
        return
    if not found.hits:
        # why: below the relevance floor nothing is an answer (retrieval/relevance.py); exit 0
        console.print("no memory about that")
        return
    for rank, hit in enumerate(found.hits, 1):
        console.print(
            f"[bold]{rank}. {escape(hit.title)}[/]  [dim]{hit.id[:8]} {escape(hit.location)}  {hit.layer}"
            f"  score {hit.score:.3f}[/]" + ("" if hit.reviewed else f"  [yellow]{PENDING_MARK}[/]")
        )
        if hit.snippet:
            console.print("   " + _highlight(hit.snippet, list(hit.highlights)))
        if hit.stale is not None:
            console.print(f"   [yellow]possibly stale: {escape(hit.stale.describe())}[/]")
        if hit.context_of:
            console.print(f"   [dim]next to {hit.context_of[:8]} in their conversation[/]")
        if explain and not hit.context_of:  # a neighbour shown as context: the score of the result it follows
            console.print(f"   [dim]{_explanation(dict(hit.factors))}[/]")
    console.print(f"[dim]{plural(len(found.hits), 'result')}, {found.mode}, {_took(started, found.elapsed_ms)}[/]")


def _took(started: float, search_ms: float) -> str:
    """The command's whole wait, and the search's own part of it when the rest was most of it (a model
    loaded, the index refreshed): never the search's milliseconds alone after seconds of loading (issue 38)."""
    waited_ms = (time.monotonic() - started) * 1000
    if waited_ms > 2 * search_ms + 200:
        return f"{waited_ms:.0f} ms in all (the search itself {search_ms:.0f} ms)"
    return f"{waited_ms:.0f} ms"


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


# How `--explain` names the factors: the evidence, the relevance made of it, then the weights that multiply it.
# A capture waiting for review is shown only marked as such (docs/design.md "Pending is not memory").
PENDING_MARK = "pending review, not yet a memory"
_EVIDENCE = (("similarity", "cosine"), ("vector", "vector"), ("keyword", "keyword"))
_WEIGHTS = (("recency", "recency"), ("importance", "importance"), ("access", "use"))


def _explanation(factors: dict[str, float]) -> str:
    """The evidence and the relevance the floor reads, then the parts that add up to the shown score."""
    evidence = "  ".join(f"{label} {factors[key]:.3f}" for key, label in _EVIDENCE if key in factors)
    weights = " × ".join(f"{label} {factors[key]:.3f}" for key, label in _WEIGHTS if key in factors)
    relevance = f"relevance {factors.get('relevance', 0.0):.3f}"
    parts = " + ".join(f"{label} {factors[key]:.3f}" for key, label in SCORE_PARTS if key in factors)
    age = f"{factors.get('days', 0.0):.0f} days old"
    return f"{evidence}  →  {relevance};  score {parts} = {factors.get('final', 0.0):.3f}  (each × {weights}; {age})"


def _highlight(text: str, spans: list[tuple[int, int]]) -> str:
    out, last = [], 0
    for start, end in spans:
        out.append(escape(text[last:start]))
        out.append(f"[bold yellow]{escape(text[start:end])}[/]")
        last = end
    out.append(escape(text[last:]))
    return "".join(out)


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

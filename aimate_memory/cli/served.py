"""The commands a running daemon answers — list, show, stale, context, review, timeline, remember, search — served
without typer, rich or the command modules (docs/agents.md, "Commands the daemon answers"): their import was
two thirds of such a command's CPU. `cli.fast` hands a command line here only when it has one of the simple
shapes in `SHAPES`; `run_served` asks the daemon through the one client and prints with the typer command's
own renderer (`cli.answers`). With no daemon (none runs, or `AIMATE_NO_DAEMON=1`) the same client answers in
this process, refreshed as the typer command refreshes (`cli.progress.refreshed`): a cold `remember` or `list`
pays for the facade, not for typer and rich too (issue 38). Whatever it cannot answer with certainty — a
daemon that runs but is unreachable or failing, any other option, a usage error — returns None before printing
anything, and the typer app runs the command as it always did. `AIMATE_NO_FASTPATH=1` sends every command
line to the typer app. `add`, which no daemon answers (it writes in the command's own process), is served here
too, in process (`HERE`): it is the command scripts and tests start most, and typer and rich were 40% of its
CPU (issue 38) — as are `init` and the `session` commands (`session start`: two words, `served_name`).

Only the standard library at import time; the client and the renderer are imported when a command runs."""

from __future__ import annotations

import math
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from aimate_memory.system import MemorySystem
    from aimate_memory.system.client import Freshness, MemoryClient, RoutedClient
    from aimate_memory.system.records import ConflictRecord
    from aimate_memory.vault.model import Memory
    from aimate_memory.vault.roots import Roots

NO_FASTPATH_ENV = "AIMATE_NO_FASTPATH"
EMBEDS = ("remember", "context", "search", "recall")  # their typer commands' `search_for`: the models load ahead


def positive_int(text: str) -> int | None:
    return int(text) if text.isascii() and text.isdigit() and int(text) >= 1 else None


def any_int(text: str) -> int | None:
    return int(text) if text.isascii() and text.isdigit() else None


def confidence(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) and 0.0 <= value <= 1.0 else None


def a_word(text: str) -> str | None:
    return text


def importance(text: str) -> int | None:
    return int(text) if text in ("1", "2", "3", "4", "5") else None


def days(text: str) -> float | None:
    """A plain decimal number (`--ttl 7`, `0.5`); anything else (`1e3`, `inf`) is the typer app's to parse."""
    whole, _, fraction = text.partition(".")
    plain = whole.isascii() and whole.isdigit() and (not fraction or (fraction.isascii() and fraction.isdigit()))
    return float(text) if plain else None


def day_or_session(text: str) -> str | None:
    return text if text in ("day", "session") else None


class Shape(NamedTuple):
    """A command line the fast path parses with certainty: `argument` — "" none, "?" optional, "1" required,
    "+" one or more words joined by spaces (a search's query); never a word starting with "-". `flags`: option
    → field set True; `valued`: option → (field, parser), the parser's None refusing the value. Defaults are
    the typer command's (cli/*_commands.py)."""

    argument: str
    flags: dict[str, str]
    valued: dict[str, tuple[str, Callable[[str], Any]]]
    defaults: dict[str, Any]
    required: tuple[str, ...] = ()  # valued fields the command line must give (`session append --role`)


JSON_FLAG = {"--json": "as_json"}
NO_REFRESH_FLAGS = {"--no-refresh": "no_refresh", "--no-sync": "no_refresh"}
LIMIT = ("limit", positive_int)
# `search QUERY…` with no filter: a filter option (--layer, --since, …) is the typer app's to parse.
SEARCH = Shape(
    "+",
    JSON_FLAG | NO_REFRESH_FLAGS | {"--explain": "explain"},
    {"--limit": LIMIT, "-n": LIMIT},
    {"limit": 10},
)
SHAPES: dict[str, Shape] = {
    "list": Shape(
        "", JSON_FLAG | NO_REFRESH_FLAGS | {"--all": "all"}, {"--limit": LIMIT, "-n": LIMIT}, {"limit": None}
    ),
    "show": Shape("1", JSON_FLAG | NO_REFRESH_FLAGS | {"--details": "details", "-d": "details"}, {}, {}),
    "stale": Shape("", JSON_FLAG | NO_REFRESH_FLAGS, {}, {}),
    "context": Shape("?", JSON_FLAG, {"--budget": ("budget", positive_int)}, {"budget": None}),
    "review": Shape("", JSON_FLAG, {}, {}),
    "timeline": Shape(
        "",
        JSON_FLAG,
        {
            "--since": ("since", a_word),
            "--by": ("by", day_or_session),
            "--limit": ("limit", any_int),
            "-n": ("limit", any_int),
            "--scope": ("scope", a_word),
            "-s": ("scope", a_word),
        },
        {"since": None, "by": "day", "limit": 100, "scope": None},
    ),
    "remember": Shape(
        "1",
        JSON_FLAG | {"--force": "force", "-f": "force", "--keep-both": "keep_both"},
        {
            "--kind": ("kind", a_word),
            "-k": ("kind", a_word),
            "--confidence": ("confidence", confidence),
            "--scope": ("scope", a_word),
            "-s": ("scope", a_word),
            "--source": ("source", a_word),
            "--thread": ("thread", a_word),
            "--replace": ("replaces", a_word),
        },
        {"kind": None, "confidence": None, "scope": None, "source": "cli", "thread": None, "replaces": None},
    ),
    "search": SEARCH,
    "recall": SEARCH,
    # `session …`: a command of two words (`served_name`), answered in this process as the typer command is.
    "session start": Shape(
        "",
        JSON_FLAG | {"--replace": "replace"},
        {"--title": ("title", a_word), "-t": ("title", a_word)},
        {"title": None},
    ),
    "session append": Shape(
        "?",
        JSON_FLAG,
        {"--role": ("role", a_word), "-r": ("role", a_word), "--tokens": ("tokens", any_int)},
        {"tokens": None},
        required=("role",),
    ),
    "session show": Shape("?", JSON_FLAG, {}, {}),
    "session end": Shape("?", JSON_FLAG, {}, {}),
    "session list": Shape("", JSON_FLAG, {}, {}),
    "init": Shape("", {"--local": "local"}, {}, {}),
    "add": Shape(
        "1",
        JSON_FLAG | {"--allow-secret": "allow_secret"},
        {
            "--body": ("body", a_word),
            "-b": ("body", a_word),
            "--file": ("file", a_word),
            "-f": ("file", a_word),
            "--layer": ("layer", a_word),
            "-l": ("layer", a_word),
            "--category": ("category", a_word),
            "-c": ("category", a_word),
            "--tags": ("tags", a_word),
            "-t": ("tags", a_word),
            "--importance": ("importance", importance),
            "-i": ("importance", importance),
            "--ttl": ("ttl", days),
            "--scope": ("scope", a_word),
            "-s": ("scope", a_word),
            "--thread": ("thread", a_word),
        },
        {
            "body": None,
            "file": None,
            "layer": "long_term",
            "category": None,
            "tags": "",
            "importance": 3,
            "ttl": None,
            "scope": None,
            "thread": None,
        },
    ),
}


def served_name(words: list[str]) -> str:
    """The command's name in `words` (the words after `mem` and its options): one word, or two for a group's
    command (`session start`); a key of `SHAPES` when the fast path serves it."""
    pair = " ".join(words[:2])
    return pair if pair in SHAPES else words[0]


def parse_served(command: str, words: list[str]) -> dict[str, Any] | None:
    """The fields of `command`'s own words (after the command name) when they have its `SHAPES` shape, else
    None. A word is never guessed at: `--`, an unknown option, a repeated option or a second argument refuse."""
    shape = SHAPES.get(command)
    if shape is None:
        return None
    fields: dict[str, Any] = {**shape.defaults, **dict.fromkeys(shape.flags.values(), False)}
    seen: set[str] = set()
    argument: str | None = None
    words = list(words)
    while words:
        word = words.pop(0)
        if not word.startswith("-") or word == "-":
            if shape.argument == "" or (argument is not None and shape.argument != "+"):
                return None
            argument = word if argument is None else f"{argument} {word}"
            continue
        name, has_value, value = word.partition("=")
        if name in shape.flags and not has_value and name not in seen:
            fields[shape.flags[name]] = True
        elif name in shape.valued and name not in seen:
            if not has_value:
                if not words or words[0].startswith("-"):
                    return None
                value = words.pop(0)
            field, parser = shape.valued[name]
            parsed = parser(value)
            if parsed is None or field in seen:
                return None
            fields[field] = parsed
            seen.add(field)
        else:
            return None
        seen.add(name)
    if (shape.argument in ("1", "+") and argument is None) or any(field not in fields for field in shape.required):
        return None
    if shape.argument:
        fields["argument"] = argument
    return fields


def run_served(command: str, fields: dict[str, Any], project: Path | None, global_only: bool) -> int | None:
    """Answer `command` through the running daemon and print it as the typer command does: exit code 0, or
    None — nothing printed — when the typer app must run it (no daemon, none answered, a shape it refuses)."""
    from aimate_memory.errors import AimateError
    from aimate_memory.vault.roots import aimate_home
    from aimate_memory.watch.private_socket import socket_path
    from aimate_memory.watch.transport import NO_DAEMON_ENV

    fields = {**fields, "started": time.monotonic()}  # a search says how long the whole command waited
    if command == "review" and not fields["as_json"] and sys.stdin.isatty():
        return None  # walked one by one at a terminal: in process
    if command == "remember" and fields["keep_both"] and fields["replaces"]:
        return None  # a usage error, the typer app's to say
    if command in HERE:
        return run_here(command, fields, project, global_only)
    if os.environ.get(NO_DAEMON_ENV) == "1" or not socket_path(aimate_home()).exists():
        return run_here(command, fields, project, global_only)
    try:
        client = vault_client(project, global_only, meanwhile=import_printers)
        if client.remote is None:
            return None
        answer = ASK[command](client.remote, fields)
    except AimateError:
        raise  # "no vault yet", an unknown id: the answer, which the typer app would print the same way
    except Exception:  # Unavailable, or anything unexpected before a byte is printed: the typer app runs it
        return None
    answer()
    return 0


def run_here(command: str, fields: dict[str, Any], project: Path | None, global_only: bool) -> int:
    """`command` answered by the facade in this process, as the typer command answers it without a daemon:
    the same client (which autostarts a daemon where `daemon.autostart` says so), the index refreshed with
    the same progress and warnings, the models loading ahead for the sentence or query it will embed."""
    from aimate_memory.cli.progress import ShownRefresh

    search_for = fields.get("argument") if command in EMBEDS else None
    client = vault_client(project, global_only, search_for, ShownRefresh(), needs_vault=command not in NO_VAULT)
    (HERE[command](client, fields) if command in HERE else ASK[command](client, fields))()
    return 0


def vault_client(
    project: Path | None,
    global_only: bool,
    search_for: str | None = None,
    freshness: Freshness | None = None,
    needs_vault: bool = True,
    meanwhile: Callable[[], object] | None = None,
) -> RoutedClient:
    """`cli.common.vault_client` without typer: the one client, the project's refused config keys said, a vault
    required unless the command makes it (`init`). `search_for`: the text the command will embed (its model
    starts loading at once); `meanwhile`: what this process does while the daemon works on the request."""
    from aimate_memory.watch.client import connect

    def opened() -> MemorySystem:
        from aimate_memory.cli.progress import opener  # its printing imports: only for a facade opened here

        return opener(project, global_only, search_for)()

    client = connect(
        None, project, global_only, open_system=opened, search_for=search_for, freshness=freshness, meanwhile=meanwhile
    )
    say_refused_config(client.roots)
    if needs_vault:
        client.require_vault()
    return client


def say_refused_config(roots: Roots) -> None:
    """The keys the project's config may not set (ignored), named once per shell session on stderr
    (config/guest.py). Outside a project there is none, and the config package (YAML, ~30 ms) is not imported:
    a command the daemon answers reads no config here."""
    if roots.project is None:
        return
    from aimate_memory.cli.plain import print_warning
    from aimate_memory.config.guest import warning_once

    line = warning_once(roots.home, roots.project, f"cli:{os.getppid()}")
    if line:
        print_warning(line)


def import_printers() -> None:
    """What prints an answer (the renderers, the masking of secrets: ~30 ms of a command's imports), imported
    while the daemon works on the request rather than before it is sent (docs/design.md §12, "What a remember
    leaves for after its answer"): the command's own CPU then runs beside the daemon's, not ahead of it."""
    import aimate_memory.cli.answers  # noqa: F401  (imported for its modules, kept by sys.modules)


# -- each command: ask the daemon (raising Unavailable), then a printer of its answer ------------------
# Each imports its printer after asking: `import_printers` has imported it while the daemon worked.

Printer = Callable[[], None]


def _list(remote: MemoryClient, fields: dict[str, Any]) -> Printer:
    from aimate_memory.cli.answers import list_paged, print_list

    # `where` {}: the default filter, what the typer command sends without a filter option (MemoryFilter()).
    page = list_paged(fields["limit"], fields["all"], fields["as_json"])
    listed = remote.view(
        "list", {"where": {}, "limit": fields["limit"], "page": page, "no_refresh": fields["no_refresh"]}
    )
    return lambda: print_list(listed, fields["as_json"])


def _show(remote: MemoryClient, fields: dict[str, Any]) -> Printer:
    args = {"ref": fields["argument"], "details": fields["details"], "no_refresh": fields["no_refresh"]}
    shown = remote.view("show", args)
    from aimate_memory.cli.answers import print_show  # after the request: imported while the daemon works

    return lambda: print_show(shown, fields["as_json"], fields["details"])


def _stale(remote: MemoryClient, fields: dict[str, Any]) -> Printer:
    answer = remote.view("stale", {"no_refresh": fields["no_refresh"]})
    from aimate_memory.cli.answers import print_stale_view

    return lambda: print_stale_view(answer, fields["as_json"])


def _context(remote: MemoryClient, fields: dict[str, Any]) -> Printer:
    built = remote.build_context(fields["argument"], fields["budget"])
    from aimate_memory.cli.answers import print_context

    return lambda: print_context(built, fields["as_json"])


def _review(remote: MemoryClient, fields: dict[str, Any]) -> Printer:
    listed = remote.view("review", {"stale": not fields["as_json"]})
    from aimate_memory.cli.answers import print_review_list

    return lambda: print_review_list(listed, fields["as_json"])


def _timeline(remote: MemoryClient, fields: dict[str, Any]) -> Printer:
    args = {"since": fields["since"], "limit": fields["limit"], "scope": fields["scope"]}
    viewed = remote.view("timeline", args)
    from aimate_memory.cli.answers import print_timeline
    from aimate_memory.system.records import TimelineRecord

    record = TimelineRecord.from_dict(viewed)
    return lambda: print_timeline(record, fields["by"], fields["since"], fields["limit"], fields["as_json"])


def _remember(remote: MemoryClient, fields: dict[str, Any]) -> Printer:
    chosen = ("confidence", "scope", "source", "thread", "kind", "force", "keep_both", "replaces")
    result = remote.remember(fields["argument"], **{key: fields[key] for key in chosen})
    from aimate_memory.cli.answers import print_capture  # after the request: imported while the daemon works

    return lambda: print_capture(result, fields["as_json"])


def _search(remote: MemoryClient, fields: dict[str, Any]) -> Printer:
    # `where` None: the default filter, what the typer command builds without a filter option.
    found = remote.search(fields["argument"], fields["limit"], None, no_refresh=fields["no_refresh"])
    from aimate_memory.cli.answers import print_search

    return lambda: print_search(found, fields["as_json"], fields["explain"], fields["started"])


ASK: dict[str, Callable[[MemoryClient, dict[str, Any]], Printer]] = {
    "list": _list,
    "show": _show,
    "stale": _stale,
    "context": _context,
    "review": _review,
    "timeline": _timeline,
    "remember": _remember,
    "search": _search,
    "recall": _search,
}


# -- answered in this process only -------------------------------------------------------------------


def body_from(body: str | None, file: str | Path | None) -> str:
    """`add`'s body: from --body, from --file, else from standard input when it is not a terminal."""
    from aimate_memory.errors import InvalidInputError

    if body is not None and file is not None:
        raise InvalidInputError("give either --body or --file, not both", "pick one")
    if body is not None:
        return body
    if file is not None:
        path = Path(file)  # as typer gives it: the message names the path the same way
        try:
            return path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise InvalidInputError(f"cannot read {path}: {exc}", "give a UTF-8 text file") from exc
    if not sys.stdin.isatty():
        return sys.stdin.read()
    return ""


def written_conflicts(system: MemorySystem, memory: Memory) -> list[ConflictRecord]:
    """The active memories a just-written one may contradict. Only a core memory or decision is checked: any
    other is written without loading the check (numpy, the kind model: 0.2 s of a cold `add`; issue 38)."""
    from aimate_memory.vault.layout import takes_sides

    return system.conflicts.of(memory) if takes_sides(memory.layer, memory.category) else []


def _add(client: RoutedClient, fields: dict[str, Any]) -> Printer:
    from aimate_memory.cli.answers import print_added

    text = body_from(fields["body"], fields["file"])
    system = client.local.system
    chosen = ("layer", "category", "tags", "importance", "scope", "allow_secret", "thread")
    memory = system.add(fields["argument"], text, ttl_days=fields["ttl"], **{key: fields[key] for key in chosen})
    conflicts = written_conflicts(system, memory)
    return lambda: print_added(memory, conflicts, fields["as_json"])


def _init(client: RoutedClient, fields: dict[str, Any]) -> Printer:
    """`init`: the vaults made (or found), their files private, the models' cache built ahead, a project
    registered for the daemon. It prints as it goes (the models' lines come between), so its printer is empty.
    Served here, not by the typer app: the suite starts it more than any other command, and typer and rich
    were a third of its CPU (issue 38)."""
    from aimate_memory.cli.plain import say, style
    from aimate_memory.cli.progress import prepare_models_ahead

    system = client.local.system
    for vault, changes in system.init(local=fields["local"]):
        created = ", ".join(change.path.as_posix() for change in changes) or "nothing new"
        say(f"{style('bold', vault.scope.value)} vault: {vault.root}  ({created})")
    say_made_private(system.store.make_private())
    prepare_models_ahead(system)
    if system.project_vault is not None:
        where = system.project_vault.root.parent
        if fields["local"]:
            say(style("dim", f"{where} stays on this machine: excluded in .git/info/exclude"))
        else:
            say(
                style(
                    "dim",
                    f"commit {where} with the code: memory/ is the team's memory, and its .gitignore keeps the "
                    "index, state and sessions out; `aimate mem init --local` keeps it on this machine instead",
                )
            )
        from aimate_memory.watch.registry import register_project

        register_project(system.roots.home, system.project_vault.root.parent)
    return lambda: None


def say_made_private(count: int) -> None:
    from aimate_memory.cli.plain import say

    if count:
        say(f"made {count} file(s) and folder(s) readable by you only (0600/0700); they were open to others")


def _session_start(client: RoutedClient, fields: dict[str, Any]) -> Printer:
    from aimate_memory.cli.answers import print_session_started

    info = client.local.system.start_session(fields["title"], replace=fields["replace"])
    return lambda: print_session_started(info, fields["as_json"])


def _session_append(client: RoutedClient, fields: dict[str, Any]) -> Printer:
    from aimate_memory.cli.answers import print_appended

    text = fields["argument"]
    if text is None:
        text = sys.stdin.read() if not sys.stdin.isatty() else ""
    result = client.local.system.add_conversation(fields["role"], text, fields["tokens"])
    return lambda: print_appended(result, fields["as_json"])


def _session_show(client: RoutedClient, fields: dict[str, Any]) -> Printer:
    from aimate_memory.cli.answers import print_sessions_shown

    sessions = client.local.system.sessions
    ref = fields["argument"]
    shown = [sessions.get(ref)] if ref is not None else sessions.running()
    if not shown:
        sessions.get()  # raises "no active session"
    return lambda: print_sessions_shown(shown, fields["as_json"])


def _session_end(client: RoutedClient, fields: dict[str, Any]) -> Printer:
    from aimate_memory.cli.answers import print_session_ended

    info = client.local.system.end_session(fields["argument"])
    return lambda: print_session_ended(info, fields["as_json"])


def _session_list(client: RoutedClient, fields: dict[str, Any]) -> Printer:
    from aimate_memory.cli.answers import print_session_list

    sessions = client.local.system.sessions.list()
    return lambda: print_session_list(sessions, fields["as_json"])


# Answered in this process, never by a daemon: `add` and `init` write here; the session commands read and write the
# session's files through the facade, as their typer commands did (typer and rich were 40% of their CPU, issue 38).
HERE: dict[str, Callable[[RoutedClient, dict[str, Any]], Printer]] = {
    "add": _add,
    "init": _init,
    "session start": _session_start,
    "session append": _session_append,
    "session show": _session_show,
    "session end": _session_end,
    "session list": _session_list,
}
NO_VAULT = {"init"}  # the commands that work before there is a vault

"""Running the page: a socket on a loopback address of its own (127.x.y.z, never another interface), uvicorn
serving `app.create_app` on it until Ctrl+C, the address printed with its token, and the browser opened on it.

The address is picked at random for each run so the page's cookie belongs to that host alone: cookies are not
port-scoped, and one set by 127.0.0.1 would go to every other local server the browser visits (issue 35,
point 7). Linux routes all of 127.0.0.0/8 to the loopback; where only 127.0.0.1 can be bound (macOS by
default) the page says so and uses it.

The browser is not handed the address on its command line (any local user can read a process's arguments in
/proc): it opens a small file in `$AIMATE_HOME/state/ui/` (0600, in a 0700 folder) that forwards to the
address, as Jupyter does; the file is removed when the server stops."""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import socket
import webbrowser
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from aimate_memory.ui.guard import Guard, new_token
from aimate_memory.vault.roots import Roots

if TYPE_CHECKING:
    from aimate_memory.system.client import RoutedClient

HOST = "127.0.0.1"
SHARED_ADDRESS_NOTE = (
    "only 127.0.0.1 could be used here: its cookie also goes to other local servers the browser visits"
    " / 此处只能使用 127.0.0.1：它的 cookie 也会发给浏览器访问的其他本地服务"
)


def private_address() -> str:
    """A loopback address for this run, 127.x.y.z other than 127.0.0.1 (and no network or broadcast z)."""
    return f"127.{secrets.randbelow(256)}.{secrets.randbelow(256)}.{2 + secrets.randbelow(253)}"


def bind(port: int, address: str | None = None) -> socket.socket:
    """A listening socket on `address`:`port` (0: a free port; no address: one of its own, else 127.0.0.1).
    Another program on the port is one line."""
    from aimate_memory.errors import InvalidInputError

    host = address or private_address()
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        if address is None and exc.errno == errno.EADDRNOTAVAIL:
            return bind(port, HOST)
        raise InvalidInputError(f"cannot listen on {host}:{port}: {exc.strerror}", "pick another --port, or 0") from exc
    sock.listen(64)
    return sock


def opener_file(home: Path, port: int, url: str) -> Path:
    """The file the browser opens: it forwards to `url` (token included), readable by this person only."""
    folder = Roots.state_dir(home) / "ui"
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(folder, 0o700)
    path = folder / f"open-{port}.html"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(
            '<!doctype html><meta charset="utf-8"><meta http-equiv="refresh" content="0;url='
            f'{url}"><title>AIMate memory</title><p><a href="{url}">AIMate memory</a></p>\n'
        )
    os.chmod(path, 0o600)
    return path


def serve(
    client: RoutedClient,
    port: int = 0,
    open_browser: bool = True,
    say: Callable[[str], None] = print,
) -> None:
    """Serve the page for `client` on 127.0.0.1:`port` until interrupted."""
    import uvicorn

    from aimate_memory.ui.app import create_app

    sock = bind(port)
    address, bound_port = sock.getsockname()[:2]
    guard = Guard(new_token(), bound_port, address)
    app = create_app(client, guard)
    url = guard.url("/")
    say(f"AIMate memory page: {url}")
    say("only this address opens it (the token is its key); Ctrl+C stops it")
    if address == HOST:
        say(SHARED_ADDRESS_NOTE)
    opener: Path | None = None
    if open_browser:
        opener = opener_file(client.roots.home, guard.port, url)
        with contextlib.suppress(Exception):  # no browser here: the printed address is enough
            webbrowser.open(opener.as_uri())
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off"))
    try:
        server.run(sockets=[sock])
    finally:
        app.state.pages.worker.submit(client.close).result()
        app.state.pages.worker.shutdown()
        sock.close()
        if opener is not None:
            opener.unlink(missing_ok=True)

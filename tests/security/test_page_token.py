"""The page's secret is not a cookie any local server gets (issue 35, point 7; ui/serve.py, docs/ui.md): the
page runs on a loopback address of its own, so after the page was opened a second local HTTP server on
another 127.0.0.1 port receives no cookie from the browser, and what it does receive opens nothing: replayed
at the page, it can neither read nor accept. With Python's cookie jar (RFC 6265 host matching) always; with
Chromium when it is installed (tests/ui/conftest.py)."""

from __future__ import annotations

import urllib.error
import urllib.request
from http.cookiejar import CookieJar
from typing import Any

from tests.security.conftest import Recorder
from tests.ui.conftest import Seeded, Server
from tests.ui.test_browser import pending_titles


def _status(url: str, headers: dict[str, str], data: bytes | None = None) -> int:
    request = urllib.request.Request(url, headers=headers, data=data)
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as error:
        return int(error.code)


def _replayed(server: Server, recorder: Recorder, seeded: Seeded) -> None:
    """Whatever the other server received, sent to the page as it would: nothing opens, nothing is accepted."""
    assert recorder.requests
    for _, _, headers, _ in recorder.requests:
        assert server.token not in " ".join(f"{k}: {v}" for k, v in headers.items())
        host = server.base.removeprefix("http://")
        replay = {k: v for k, v in headers.items() if k.lower() not in ("host", "content-length")}
        replay.update({"Host": host, "Origin": server.base})
        assert _status(f"{server.base}/review", replay) == 403
        form = f"scope=global&path={seeded.ids['capture']}".encode()
        assert _status(f"{server.base}/review/accept", replay, form) == 403
    assert seeded.titles["capture"] in pending_titles(seeded)


def test_another_local_server_gets_no_cookie_from_a_cookie_jar(
    server: Server, recorder: Recorder, seeded: Seeded
) -> None:
    jar = CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    with opener.open(server.url, timeout=10) as answer:
        assert answer.status == 200  # the page is open: the jar holds its cookie
    assert [cookie.value for cookie in jar] == [server.token]
    with opener.open(recorder.url + "/", timeout=10) as answer:
        assert answer.status == 200
    assert all("cookie" not in {k.lower() for k in headers} for _, _, headers, _ in recorder.requests)
    _replayed(server, recorder, seeded)


def test_another_local_server_gets_nothing_usable_from_chromium(
    browser: Any, server: Server, recorder: Recorder, seeded: Seeded
) -> None:
    context = browser.new_context()
    tab = context.new_page()
    assert tab.goto(server.url).status == 200
    assert any(cookie["value"] == server.token for cookie in context.cookies())
    for path in ("/", "/review", "/api?x=1"):
        tab.goto(recorder.url + path)
    context.close()
    assert all("cookie" not in {k.lower() for k in headers} for _, _, headers, _ in recorder.requests)
    _replayed(server, recorder, seeded)

"""The page's locks (aimate_memory/ui/guard.py, docs/ui.md "Security"): the rules alone, then through the
whole app (Starlette's test client, no browser): no token → 403, a foreign Host → 403, a cross-origin or
token-less POST → 403 and nothing changed, the headers on every answer."""

from __future__ import annotations

import pytest
from starlette.datastructures import Headers
from starlette.testclient import TestClient

from aimate_memory.ui.guard import Guard
from tests.ui.conftest import GUARD, HOST, PORT


def headers(**values: str) -> Headers:
    return Headers({key.replace("_", "-"): value for key, value in values.items()})


@pytest.mark.parametrize(
    ("method", "given", "query_token", "refused"),
    [
        ("GET", headers(host=HOST), GUARD.token, None),
        ("GET", headers(host=f"localhost:{PORT}"), GUARD.token, None),
        ("GET", headers(host=HOST, cookie=f"{GUARD.cookie_name}={GUARD.token}"), None, None),
        ("GET", headers(host=HOST), None, "no token"),
        ("GET", headers(host=HOST), "guessed", "wrong token"),
        ("GET", headers(host=HOST, cookie=f"aimate_ui_1={GUARD.token}"), None, "no token"),  # another port's cookie
        ("GET", headers(host=f"evil.example:{PORT}"), GUARD.token, "wrong Host header"),  # DNS rebinding
        ("GET", headers(host="127.0.0.1:1"), GUARD.token, "wrong Host header"),
        ("GET", headers(), GUARD.token, "wrong Host header"),
        ("POST", headers(host=HOST, origin=f"http://{HOST}"), GUARD.token, None),
        ("POST", headers(host=HOST, referer=f"http://localhost:{PORT}/review"), GUARD.token, None),
        ("POST", headers(host=HOST, origin="http://evil.example"), GUARD.token, "cross-origin request"),
        ("POST", headers(host=HOST, origin="null"), GUARD.token, "cross-origin request"),
        ("POST", headers(host=HOST, referer=f"http://127.0.0.1:{PORT + 1}/"), GUARD.token, "cross-origin request"),
        ("POST", headers(host=HOST), GUARD.token, "cross-origin request"),  # neither Origin nor Referer
    ],
)
def test_the_rules(method: str, given: Headers, query_token: str | None, refused: str | None) -> None:
    verdict = GUARD.check(method, given, query_token)
    assert (verdict.reason if verdict else None) == refused


def test_tokens_and_form_tokens_are_unguessable_and_distinct() -> None:
    from aimate_memory.ui.guard import new_token

    tokens = {new_token() for _ in range(50)}
    assert len(tokens) == 50 and min(len(token) for token in tokens) >= 43  # 32 random bytes
    assert Guard("a", PORT).form_token != Guard("b", PORT).form_token
    assert GUARD.form_ok(GUARD.form_token) and not GUARD.form_ok("") and not GUARD.form_ok(None)


def pending(client: TestClient) -> str:
    client.cookies.set(GUARD.cookie_name, GUARD.token)
    return client.get("/review").text


def test_the_token_becomes_an_httponly_strict_cookie_and_leaves_the_address(page_client: TestClient) -> None:
    assert page_client.get("/review").status_code == 403
    answer = page_client.get(f"/review?lang=zh&token={GUARD.token}")
    assert answer.status_code == 303 and answer.headers["location"] == "/review?lang=zh"
    cookie = answer.headers["set-cookie"]
    assert f"{GUARD.cookie_name}={GUARD.token}" in cookie and "HttpOnly" in cookie and "SameSite=strict" in cookie
    elsewhere = page_client.get(f"http://{HOST}//evil.example/x?token={GUARD.token}")
    assert elsewhere.status_code == 303 and elsewhere.headers["location"] == "/evil.example/x"
    page = page_client.get("/review?lang=zh")
    assert page.status_code == 200 and "待确认的捕获" in page.text
    assert "deploy on Fridays" in page.text


PATHS = ["/review", "/context", "/search?q=freeze", "/static/app.css", "/memory/x", "/nowhere"]


@pytest.mark.parametrize("path", PATHS)
def test_every_path_wants_the_token_and_every_answer_has_the_headers(page_client: TestClient, path: str) -> None:
    refused = page_client.get(path)
    assert refused.status_code == 403 and "403" in refused.text
    page_client.cookies.set(GUARD.cookie_name, GUARD.token)
    answer = page_client.get(path)
    assert answer.status_code in (200, 404)
    policy = answer.headers["content-security-policy"]
    assert "default-src 'none'" in policy and "script-src 'self'" in policy and "frame-ancestors 'none'" in policy
    assert answer.headers["cache-control"] == "no-store" and answer.headers["referrer-policy"] == "same-origin"


def test_a_foreign_host_is_refused_even_with_the_cookie(page_client: TestClient) -> None:
    page_client.cookies.set(GUARD.cookie_name, GUARD.token)
    assert page_client.get("/review", headers={"host": f"rebound.example:{PORT}"}).status_code == 403


def test_posts_need_this_origin_and_the_form_token(page_client: TestClient) -> None:
    text = pending(page_client)
    path = text.split('name="path" value="', 1)[1].split('"', 1)[0]
    form = {"scope": "global", "path": path, "form_token": GUARD.form_token}
    assert page_client.post("/review/accept", data=form, headers={"origin": "http://evil.example"}).status_code == 403
    assert page_client.post("/review/accept", data=form).status_code == 403  # no Origin, no Referer
    no_token = {**form, "form_token": "x"}
    assert page_client.post("/review/accept", data=no_token, headers={"origin": f"http://{HOST}"}).status_code == 403
    assert "deploy on Fridays" in pending(page_client)  # nothing was accepted
    done = page_client.post("/review/accept", data=form, headers={"origin": f"http://{HOST}"})
    assert done.status_code == 303 and done.headers["location"].startswith("/review?done=accept")
    assert "deploy on Fridays" not in pending(page_client)


def test_an_error_is_one_line_and_a_hint_in_the_page(page_client: TestClient) -> None:
    page_client.cookies.set(GUARD.cookie_name, GUARD.token)
    missing = page_client.get("/memory/ffffffff")
    assert missing.status_code == 404 and "Traceback" not in missing.text and 'class="problem"' in missing.text
    bad = page_client.get("/search?q=x&since=whenever&lang=zh")
    assert bad.status_code == 400 and "since" in bad.text and "未完成" in bad.text
    assert page_client.get("/context?budget=-5").status_code == 400

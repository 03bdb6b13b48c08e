"""The page's locks (docs/ui.md, "Security"): who may talk to the server on 127.0.0.1, checked on every request
before any route runs.

- **A token.** `aimate mem ui` makes a random one (256 bits) and prints the address with it; the first request
  carrying it (`?token=…`) gets it back as an HttpOnly, SameSite=Strict cookie and is redirected to the same
  address without it (so it stays out of the history and the Referer). Every later request needs the cookie:
  another local user, or a page in the browser from another site, has neither and gets 403.
- **An address of its own.** Cookies are scoped to a host, not a port: a cookie set by 127.0.0.1:PORT goes to
  every other server on 127.0.0.1 the browser visits, which could then use it here. So the page is served on a
  loopback address picked at random for this run (127.x.y.z; serve.py), and the cookie belongs to that host
  alone: another local server never receives it (docs/ui.md, "Security").
- **The Host header** must be this server's own (`ADDRESS:PORT`; `localhost:PORT` too when the address is
  127.0.0.1, where no other loopback address could be had): a site whose name
  was made to resolve to 127.0.0.1 (DNS rebinding) sends its own name and is refused.
- **POSTs** must come from this origin (`Origin`, else `Referer`) and carry the form token derived from the
  token (`form_token`), checked by the route that reads the form: a cross-site form cannot forge either.
- **Headers** on every answer: a Content-Security-Policy that allows only this origin (no CDN, no inline
  script), no caching, no referrer, no framing.

`Guard.check` is pure (headers in, a refusal or None out); `GuardMiddleware` applies it as ASGI middleware."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from http.cookies import SimpleCookie
from urllib.parse import parse_qsl, urlencode, urlsplit

from starlette.datastructures import Headers
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

TOKEN_BYTES = 32
SECURITY_HEADERS = {
    "content-security-policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    ),
    "x-content-type-options": "nosniff",
    # same-origin, not no-referrer: under no-referrer Chromium sends `Origin: null` with the page's own
    # POSTs, which the origin check refuses. Nothing leaves for another site either way (and the token left
    # the address at the first request).
    "referrer-policy": "same-origin",
    "cache-control": "no-store",
    "x-frame-options": "DENY",
}
REFUSED = (
    "403 Forbidden: open the address `aimate mem ui` printed, with its token.\n"
    "403 禁止访问：请打开 `aimate mem ui` 打印的地址（带令牌）。\n"
)


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


@dataclass(frozen=True)
class Refusal:
    """Why a request is refused, and with which status."""

    status: int
    reason: str


@dataclass(frozen=True)
class Guard:
    """The rules for the server on `address`:`port` opened with `token`."""

    token: str
    port: int
    address: str = "127.0.0.1"

    @property
    def cookie_name(self) -> str:
        # Cookies are per host, not per port: two pages open at once must not overwrite each other's.
        return f"aimate_ui_{self.port}"

    @property
    def hosts(self) -> frozenset[str]:
        names = [self.address] + (["localhost"] if self.address == "127.0.0.1" else [])
        return frozenset(f"{name}:{self.port}" for name in names)

    @property
    def origins(self) -> frozenset[str]:
        return frozenset(f"http://{host}" for host in self.hosts)

    @property
    def form_token(self) -> str:
        """What every form of the page carries (`<input name=form_token>`): derived from the token, so a
        page that does not hold the token cannot make it."""
        return hmac.new(self.token.encode(), b"aimate-ui-form", hashlib.sha256).hexdigest()

    def url(self, path: str = "/") -> str:
        """The address to open: the token in the query."""
        return f"http://{self.address}:{self.port}{path}?{urlencode({'token': self.token})}"

    def form_ok(self, value: object) -> bool:
        return isinstance(value, str) and hmac.compare_digest(value.encode(), self.form_token.encode())

    def check(self, method: str, headers: Headers, query_token: str | None) -> Refusal | None:
        """None when the request may go on; else why not. `query_token`: the `token` query parameter."""
        if headers.get("host", "") not in self.hosts:
            return Refusal(403, "wrong Host header")
        if query_token is not None:
            if not _same(query_token, self.token):
                return Refusal(403, "wrong token")
        elif not _same(_cookie(headers, self.cookie_name), self.token):
            return Refusal(403, "no token")
        if method not in ("GET", "HEAD") and not self._same_origin(headers):
            return Refusal(403, "cross-origin request")
        return None

    def _same_origin(self, headers: Headers) -> bool:
        origin = headers.get("origin")
        if origin is not None:
            return origin in self.origins
        referer = urlsplit(headers.get("referer", ""))
        return f"{referer.scheme}://{referer.netloc}" in self.origins


def _same(given: str | None, token: str) -> bool:
    return given is not None and hmac.compare_digest(given.encode(), token.encode())


def _cookie(headers: Headers, name: str) -> str | None:
    jar: SimpleCookie = SimpleCookie()
    try:
        jar.load(headers.get("cookie", ""))
    except Exception:  # a malformed Cookie header is no cookie
        return None
    morsel = jar.get(name)
    return morsel.value if morsel is not None else None


class GuardMiddleware:
    """`Guard.check` before every route; the token in a query becomes the cookie (and leaves the address);
    the security headers on every answer."""

    def __init__(self, app: ASGIApp, guard: Guard) -> None:
        self.app = app
        self.guard = guard

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        query = parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)
        query_token = next((value for key, value in query if key == "token"), None)
        refusal = self.guard.check(scope["method"], headers, query_token)
        response: Response | None = None
        if refusal is not None:
            response = PlainTextResponse(REFUSED, status_code=refusal.status, headers={"x-refused": refusal.reason})
        elif query_token is not None:
            rest = urlencode([(key, value) for key, value in query if key != "token"])
            # "//host/…" would send the browser to another site: the address stays on this one.
            path = "/" + str(scope["path"]).lstrip("/")
            response = RedirectResponse(path + (f"?{rest}" if rest else ""), status_code=303)
            response.set_cookie(self.guard.cookie_name, self.guard.token, httponly=True, samesite="strict", path="/")
        if response is not None:
            await response(scope, receive, _with_headers(send))
            return
        await self.app(scope, receive, _with_headers(send))


def _with_headers(send: Send) -> Send:
    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            names = {name.lower() for name, _ in message.get("headers", [])}
            extra = [(k.encode(), v.encode()) for k, v in SECURITY_HEADERS.items() if k.encode() not in names]
            message = {**message, "headers": [*message.get("headers", []), *extra]}
        await send(message)

    return sending

"""The page's routes (Starlette): `/review`, `/context`, `/search`, `/memory/{id}` (and its edit form),
`/timeline`, and the static CSS and JS, behind `guard.GuardMiddleware`. Each route gathers its data with
`views` on one worker thread, renders a Jinja2 template in the request's language, and shows an
`AimateError` as its one line and hint (400; 404 for something not found) — never a traceback."""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urlencode

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from aimate_memory.errors import AimateError, NotFoundError
from aimate_memory.ui import views
from aimate_memory.ui.guard import Guard, GuardMiddleware
from aimate_memory.ui.markdown import to_html
from aimate_memory.ui.wording import LANG_COOKIE, LANGUAGES, Words, choose_language
from aimate_memory.vault.layout import Scope

if TYPE_CHECKING:
    from aimate_memory.system import MemorySystem
    from aimate_memory.system.client import RoutedClient

log = logging.getLogger(__name__)
T = TypeVar("T")
Handler = Callable[[Request], Awaitable[Response]]


class Pages:
    """The routes over one client: the facade work runs on `worker`, one thread (SQLite connections belong
    to the thread that opened them), in the order requests come."""

    def __init__(self, client: RoutedClient, guard: Guard) -> None:
        self.client = client
        self.guard = guard
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="aimate-ui")
        self.templates = Environment(
            loader=PackageLoader("aimate_memory.ui", "templates"),
            autoescape=select_autoescape(default=True, default_for_string=True),
            undefined=StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
        )
        self.templates.filters["markdown"] = to_html
        self.templates.filters["short_time"] = views.short_time

    # -- plumbing ---------------------------------------------------------------------------------

    async def run(self, work: Callable[..., T], *args: Any) -> T:
        return await asyncio.get_running_loop().run_in_executor(self.worker, functools.partial(work, *args))

    def system(self) -> MemorySystem:
        """The facade as it is (for git and writes, which read files, not the index)."""
        self.client.require_vault()
        return self.client.local.system

    def fresh(self) -> MemorySystem:
        """The facade with its index in step with the files (for reads through the index)."""
        self.client.require_vault()
        return self.client.local.fresh()

    def render(self, request: Request, template: str, status: int = 200, **values: Any) -> HTMLResponse:
        asked = request.query_params.get("lang")
        lang = choose_language(asked, request.cookies.get(LANG_COOKIE), request.headers.get("accept-language"))
        other = next(code for code in LANGUAGES if code != lang)
        params = [(key, value) for key, value in request.query_params.multi_items() if key != "lang"]
        html = self.templates.get_template(template).render(
            t=Words(lang),
            lang=lang,
            form_token=self.guard.form_token,
            here=request.url.path,
            switch_url=request.url.path + "?" + urlencode([*params, ("lang", other)]),
            **values,
        )
        response = HTMLResponse(html, status_code=status)
        if asked in LANGUAGES:
            response.set_cookie(LANG_COOKIE, lang, httponly=True, samesite="strict", path="/")
        return response

    def error(self, request: Request, error: AimateError) -> HTMLResponse:
        status = 404 if isinstance(error, NotFoundError) else 400
        return self.render(request, "error.html", status, error=error)

    async def form(self, request: Request) -> dict[str, str]:
        """A POST's fields; a form without the page's form token is refused like a foreign request."""
        data = await request.form()
        fields = {key: value for key, value in data.items() if isinstance(value, str)}
        if not self.guard.form_ok(fields.get("form_token")):
            raise PermissionError("form token")
        return fields

    # -- review -----------------------------------------------------------------------------------

    async def review(self, request: Request) -> Response:
        try:
            cards = await self.run(lambda: views.review_cards(self.system()))
            note = None
        except NotFoundError as error:
            cards, note = [], error
        # Files every read leaves out, named here where the person looks (docs/design.md "A broken memory
        # is never silent"); a committed broken file is in no review card.
        broken = await self.run(lambda: self.fresh().broken_files())
        done = {key: request.query_params.get(key, "") for key in ("done", "what", "commit")}
        return self.render(request, "review.html", cards=cards, not_git=note, done=done, broken=broken)

    async def review_action(self, request: Request) -> Response:
        action = request.path_params["action"]
        if action not in ("accept", "reject", "accept-all"):
            return Response("404 Not Found\n", status_code=404, media_type="text/plain")
        fields = await self.form(request)
        scope = Scope(fields["scope"]) if fields.get("scope") in ("global", "project") else None
        paths = [fields.get("path", "")]

        def act() -> list[Any]:
            git = self.system().git
            if action == "accept":
                only = [fields["replace"]] if fields.get("replace") else []
                return git.accept(paths, scope=scope, keep_both=fields.get("keep_both") == "1", replace=only)
            if action == "reject":
                return git.reject(paths, scope=scope)
            return git.accept_all()

        try:
            outcomes = await self.run(act)
        except AimateError as error:
            return self.error(request, error)
        first = outcomes[0] if outcomes else None
        query = {"done": first.action if first else "none", "what": "; ".join(o.detail for o in outcomes)}
        if first is not None and first.commit:
            query["commit"] = first.commit[:8]
        return RedirectResponse("/review?" + urlencode(query), status_code=303)

    # -- context ----------------------------------------------------------------------------------

    async def context(self, request: Request) -> Response:
        query, budget = request.query_params.get("q"), request.query_params.get("budget")
        try:
            view = await self.run(lambda: views.context_view(self.fresh(), query, budget))
        except AimateError as error:
            return self.error(request, error)
        return self.render(request, "context.html", view=view, budget=budget or "")

    # -- search -----------------------------------------------------------------------------------

    async def search(self, request: Request) -> Response:
        filters = views.Filters.of(request.query_params)
        try:
            view = await self.run(lambda: views.search_view(self.client, filters))
        except AimateError as error:
            return self.render(request, "search.html", 400, view=views.SearchView(filters), problem=error)
        return self.render(request, "search.html", view=view, problem=None, explain=views.explanation)

    # -- one memory -------------------------------------------------------------------------------

    async def memory(self, request: Request) -> Response:
        ref = request.path_params["ref"]
        try:
            view = await self.run(lambda: views.memory_view(self.fresh(), ref))
        except AimateError as error:
            return self.error(request, error)
        return self.render(request, "memory.html", view=view, saved=request.query_params.get("saved") == "1")

    async def edit(self, request: Request) -> Response:
        ref = request.path_params["ref"]
        try:
            memory = await self.run(lambda: self.fresh().get(ref))
        except AimateError as error:
            return self.error(request, error)
        return self.render(request, "edit.html", memory=memory, values=views.edit_values(memory), problem=None)

    async def save(self, request: Request) -> Response:
        ref = request.path_params["ref"]
        fields = await self.form(request)
        try:
            saved = await self.run(lambda: views.save_edit(self.fresh(), ref, fields))
        except AimateError as error:
            # Nothing was written: the form comes back with what the person typed, and why.
            try:
                memory = await self.run(lambda: self.fresh().get(ref))
            except AimateError:
                return self.error(request, error)
            values = {**views.edit_values(memory), **{k: v for k, v in fields.items() if k != "form_token"}}
            return self.render(request, "edit.html", 400, memory=memory, values=values, problem=error)
        return RedirectResponse(f"/memory/{saved.id}?saved=1", status_code=303)

    # -- timeline ---------------------------------------------------------------------------------

    async def timeline(self, request: Request) -> Response:
        params = request.query_params
        try:
            view = await self.run(
                lambda: views.timeline_view(self.system(), params.get("since"), params.get("scope"), params.get("by"))
            )
        except AimateError as error:
            return self.error(request, error)
        return self.render(request, "timeline.html", view=view)


def create_app(client: RoutedClient, guard: Guard) -> Starlette:
    """The page over `client`, locked by `guard`."""
    pages = Pages(client, guard)

    async def home(request: Request) -> Response:
        return RedirectResponse("/review", status_code=303)

    async def refused(request: Request, exc: Exception) -> Response:
        return Response("403 Forbidden: the form is not this page's\n", status_code=403, media_type="text/plain")

    async def failed(request: Request, exc: Exception) -> Response:
        log.exception("the page failed on %s", request.url.path)
        return Response(f"500: {type(exc).__name__}; see the terminal\n", status_code=500, media_type="text/plain")

    app = Starlette(
        routes=[
            Route("/", home),
            Route("/review", pages.review),
            Route("/review/{action:str}", pages.review_action, methods=["POST"]),
            Route("/context", pages.context),
            Route("/search", pages.search),
            Route("/memory/{ref:str}", pages.memory),
            Route("/memory/{ref:str}/edit", pages.edit),
            Route("/memory/{ref:str}/edit", pages.save, methods=["POST"]),
            Route("/timeline", pages.timeline),
            Mount("/static", StaticFiles(packages=[("aimate_memory.ui", "static")]), name="static"),
        ],
        exception_handlers={PermissionError: refused, Exception: failed},
    )
    app.add_middleware(GuardMiddleware, guard=guard)
    app.state.pages = pages
    return app

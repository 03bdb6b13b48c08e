"""The page (`aimate mem ui`, docs/ui.md): a local web app over the same facade and client as the CLI and the MCP
server — review, the context an assistant is given, search and browse, a memory's page, the timeline — bound
to a loopback address of its own (127.x.y.z) and opened with a one-time token.

Imported only by `aimate mem ui` (Starlette, uvicorn and Jinja2 cost a cold start the other commands do not
pay). `guard` holds the security rules (token, Host, Origin), `wording` the page's words in English and
Chinese, `views` what each page shows (gathered through the facade), `app` the routes, `serve` the server."""

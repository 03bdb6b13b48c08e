"""A scripted model on 127.0.0.1 for the real assistants: just enough of Anthropic's Messages API (Claude Code,
`ANTHROPIC_BASE_URL`) and OpenAI's Responses API (Codex, a `model_providers` entry with `wire_api =
"responses"`) to run one tool call, and a record of every request the client sent.

The script, per request:
- tools offered, one of them ending in `memory_search`, and no tool result in the conversation yet → call it
  with `SEARCH_QUERY` (turn 1);
- otherwise → `FINAL_TEXT` (turn 2, and the client's side requests: titles, summaries).

Streaming is answered as server-sent events when the request asks for it (both clients do), plain JSON
otherwise. Any other path gets a JSON 404, recorded too, so a test sees what a client tried to reach."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

SEARCH_QUERY = "会话缓存 Redis"
FINAL_TEXT = "We chose Redis for the session cache (选用 Redis 做会话缓存)."
Json = dict[str, Any]


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    body: Json

    @property
    def text(self) -> str:
        """The whole body as JSON, non-ASCII kept: what a test searches for a string."""
        return json.dumps(self.body, ensure_ascii=False)


@dataclass
class FakeModel:
    """`with FakeModel() as model:` serves on `model.url` until the block ends. `call_tools=False`: final text
    at once (a session whose cost is the client's and ours alone: scripts/bench_clients.py)."""

    requests: list[Recorded] = field(default_factory=list)
    call_tools: bool = True

    def __post_init__(self) -> None:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._thread = threading.Thread(target=self._server.serve_forever, name="fake-model", daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> FakeModel:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def model_requests(self) -> list[Recorded]:
        """The Messages / Responses requests (not token counts, model lists or 404s)."""
        return [r for r in self.requests if r.method == "POST" and r.path.split("?")[0].endswith(MODEL_PATHS)]


MODEL_PATHS = ("/v1/messages", "/responses")


def search_tool(tools: list[Json]) -> tuple[str, str | None] | None:
    """How the client offers our `memory_search`: its name, and the namespace it is in (Codex 0.169 groups
    an MCP server's tools as `{"type": "namespace", "name": "mcp__aimate", "tools": [...]}`), or None."""
    for tool in tools:
        name = str(tool.get("name", ""))
        if tool.get("type") == "namespace":
            inner = search_tool(tool.get("tools") or [])
            if inner is not None:
                return inner[0], name
        elif name.endswith("memory_search"):
            return name, None
    return None


def has_tool_result(body: Json) -> bool:
    text = json.dumps(body.get("messages", body.get("input", [])))
    return '"tool_result"' in text or '"function_call_output"' in text


def _handler(model: FakeModel) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # quiet: the record is what matters
            pass

        def do_GET(self) -> None:
            self._record({})
            if self.path.split("?")[0].endswith("/models"):
                self._json(200, {"object": "list", "data": [], "models": []})
            else:
                self._json(404, {"error": {"type": "not_found", "message": self.path}})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw) if raw else {}
            except ValueError:
                body = {"unparsed": raw.decode("utf-8", "replace")}
            self._record(body)
            path = self.path.split("?")[0]
            if path.endswith("/v1/messages/count_tokens"):
                self._json(200, {"input_tokens": 100})
            elif path.endswith("/v1/messages"):
                self._anthropic(body)
            elif path.endswith("/responses"):
                self._openai(body)
            else:
                self._json(404, {"error": {"type": "not_found", "message": self.path}})

        def _record(self, body: Json) -> None:
            model.requests.append(Recorded(self.command, self.path, dict(self.headers), body))

        # -- Anthropic Messages -------------------------------------------------------------------------

        def _anthropic(self, body: Json) -> None:
            tool = search_tool(body.get("tools") or []) if model.call_tools else None
            call = tool is not None and not has_tool_result(body)
            block: Json = (
                {"type": "tool_use", "id": "toolu_aimate_1", "name": tool[0], "input": {"query": SEARCH_QUERY}}
                if tool is not None and call
                else {"type": "text", "text": FINAL_TEXT}
            )
            stop = "tool_use" if call else "end_turn"
            message = {
                "id": f"msg_fake_{len(model.requests)}",
                "type": "message",
                "role": "assistant",
                "model": body.get("model", "fake"),
                "content": [block],
                "stop_reason": stop,
                "stop_sequence": None,
                "usage": {"input_tokens": 100, "output_tokens": 20},
            }
            if not body.get("stream"):
                self._json(200, message)
                return
            start = {**block, "input": {}} if call else {"type": "text", "text": ""}
            delta = (
                {"type": "input_json_delta", "partial_json": json.dumps(block["input"], ensure_ascii=False)}
                if call
                else {"type": "text_delta", "text": FINAL_TEXT}
            )
            self._events(
                [
                    ("message_start", {"type": "message_start", "message": {**message, "content": []}}),
                    ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": start}),
                    ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
                    ("content_block_stop", {"type": "content_block_stop", "index": 0}),
                    (
                        "message_delta",
                        {
                            "type": "message_delta",
                            "delta": {"stop_reason": stop, "stop_sequence": None},
                            "usage": {"output_tokens": 20},
                        },
                    ),
                    ("message_stop", {"type": "message_stop"}),
                ]
            )

        # -- OpenAI Responses ---------------------------------------------------------------------------

        def _openai(self, body: Json) -> None:
            tool = search_tool(body.get("tools") or []) if model.call_tools else None
            number = len(model.requests)
            item: Json
            if tool is not None and not has_tool_result(body):
                name, namespace = tool
                item = {
                    "type": "function_call",
                    "id": f"fc_{number}",
                    "call_id": f"call_{number}",
                    "name": name,
                    **({"namespace": namespace} if namespace else {}),
                    "arguments": json.dumps({"query": SEARCH_QUERY}, ensure_ascii=False),
                    "status": "completed",
                }
            else:
                item = {
                    "type": "message",
                    "id": f"msg_{number}",
                    "role": "assistant",
                    "status": "completed",
                    "content": [{"type": "output_text", "text": FINAL_TEXT, "annotations": []}],
                }
            response = {
                "id": f"resp_{number}",
                "object": "response",
                "status": "completed",
                "model": body.get("model", "fake"),
                "output": [item],
                "usage": {
                    "input_tokens": 100,
                    "input_tokens_details": {"cached_tokens": 0},
                    "output_tokens": 20,
                    "output_tokens_details": {"reasoning_tokens": 0},
                    "total_tokens": 120,
                },
            }
            if not body.get("stream"):
                self._json(200, response)
                return
            in_progress = {**response, "status": "in_progress", "output": []}
            self._events(
                [
                    ("response.created", {"type": "response.created", "response": in_progress}),
                    (
                        "response.output_item.added",
                        {"type": "response.output_item.added", "output_index": 0, "item": item},
                    ),
                    (
                        "response.output_item.done",
                        {"type": "response.output_item.done", "output_index": 0, "item": item},
                    ),
                    ("response.completed", {"type": "response.completed", "response": response}),
                ]
            )

        # -- the wire -----------------------------------------------------------------------------------

        def _json(self, status: int, payload: Json) -> None:
            data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _events(self, events: list[tuple[str, Json]]) -> None:
            data = "".join(
                f"event: {name}\ndata: {json.dumps(payload, ensure_ascii=False)}\n\n" for name, payload in events
            ).encode("utf-8")
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler

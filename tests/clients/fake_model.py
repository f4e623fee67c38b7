"""A fake Anthropic Messages API on 127.0.0.1, so that Claude Code (`claude -p`) runs offline.

Point Claude Code at it with `ANTHROPIC_BASE_URL=<origin>` and any `ANTHROPIC_API_KEY`. It answers
`POST /v1/messages` (streamed as server-sent events or as one JSON body, as the request asks) and
`POST /v1/messages/count_tokens`; anything else is a 404 with an Anthropic-shaped error body.
Every request body is recorded (`requests`), so a test reads which tools Claude Code sent to the
model: the proof that an MCP server's tools arrived.

What the model says: when a request offers the tool named by `call` (an MCP tool is offered as
`mcp__<server>__<tool>`) and no `tool_result` answers it yet, a `tool_use` of it with
`call_input`; otherwise the text `reply`. Requests without tools (Claude Code's side requests,
such as a session title) get the text too.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from ..local_http import Handler, Recorded, RecordingServer

MODEL = "claude-fake-1"


@dataclass(frozen=True)
class Answer:
    """One assistant message: its content blocks and why it stopped."""

    content: tuple[dict[str, Any], ...]
    stop_reason: str


def tool_names(body: dict[str, Any]) -> list[str]:
    """The names of the tools a Messages request offers the model."""
    return [tool.get("name", "") for tool in body.get("tools") or []]


def tool_results(body: dict[str, Any]) -> list[dict[str, Any]]:
    """Every `tool_result` block in a request's messages, oldest first."""
    found = []
    for message in body.get("messages") or []:
        content = message.get("content")
        if isinstance(content, list):
            found += [block for block in content if isinstance(block, dict) and block.get("type") == "tool_result"]
    return found


class FakeModel(RecordingServer[Recorded]):
    """The fake API; `messages` are the recorded `/v1/messages` bodies, parsed."""

    name = "fake-model"

    def __init__(self, *, reply: str = "done", call: str | None = None,
                 call_input: dict[str, Any] | None = None) -> None:
        super().__init__()
        self.reply, self.call, self.call_input = reply, call, call_input or {}
        self._ids = 0
        self.arrivals: list[tuple[float, dict[str, Any]]] = []  # (time.time(), body) of each /v1/messages

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The `/v1/messages` request bodies, oldest first."""
        with self._lock:
            return [body for _, body in self.arrivals]

    def reset(self) -> None:
        """Forget every request (between runs of one fake)."""
        with self._lock:
            self.requests.clear()
            self.arrivals.clear()

    def answer(self, body: dict[str, Any]) -> Answer:
        offered = tool_names(body)
        if self.call is not None and self.call in offered and not tool_results(body):
            with self._lock:
                self._ids += 1
                tool_id = f"toolu_fake{self._ids:04d}"
            block = {"type": "tool_use", "id": tool_id, "name": self.call, "input": self.call_input}
            return Answer((block,), "tool_use")
        return Answer(({"type": "text", "text": self.reply},), "end_turn")

    def respond(self, handler: Handler, request: Recorded) -> None:
        arrived = time.time()
        self._record(request)
        if request.method != "POST" or request.path not in ("/v1/messages", "/v1/messages/count_tokens"):
            _json(handler, 404, {"type": "error", "error": {"type": "not_found_error", "message": request.path}})
            return
        body = request.json()
        if request.path.endswith("/count_tokens"):
            _json(handler, 200, {"input_tokens": len(request.body) // 4})
            return
        with self._lock:
            self.arrivals.append((arrived, body))
        answer = self.answer(body)
        with self._lock:
            self._ids += 1
            message_id = f"msg_fake{self._ids:04d}"
        usage = {"input_tokens": len(request.body) // 4, "output_tokens": 5}
        message = {"id": message_id, "type": "message", "role": "assistant", "model": body.get("model", MODEL),
                   "stop_sequence": None, "usage": usage}
        if not body.get("stream"):
            _json(handler, 200, {**message, "content": list(answer.content), "stop_reason": answer.stop_reason})
            return
        handler.send(200, {"Content-Type": "text/event-stream", "Cache-Control": "no-cache",
                           "Content-Length": str(len(stream := _events(message, answer)))}, stream)


def _json(handler: Handler, status: int, value: Any) -> None:
    data = json.dumps(value).encode()
    handler.send(status, {"Content-Type": "application/json", "Content-Length": str(len(data))}, data)


def _events(message: dict[str, Any], answer: Answer) -> bytes:
    """The server-sent events of a streamed Messages answer, as the API sends them."""
    events: list[dict[str, Any]] = [{"type": "message_start", "message": {
        **message, "content": [], "stop_reason": None, "usage": {**message["usage"], "output_tokens": 1}}}]
    for index, block in enumerate(answer.content):
        if block["type"] == "tool_use":
            start = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        else:
            start, delta = {"type": "text", "text": ""}, {"type": "text_delta", "text": block["text"]}
        events += [{"type": "content_block_start", "index": index, "content_block": start},
                   {"type": "content_block_delta", "index": index, "delta": delta},
                   {"type": "content_block_stop", "index": index}]
    events += [{"type": "message_delta", "delta": {"stop_reason": answer.stop_reason, "stop_sequence": None},
                "usage": {"output_tokens": message["usage"]["output_tokens"]}},
               {"type": "message_stop"}]
    return b"".join(f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode() for event in events)

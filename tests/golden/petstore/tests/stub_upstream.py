"""A stub of the upstream API on 127.0.0.1: it answers every request with the answer the
test chose (`answer_with`) and records what it received."""

from __future__ import annotations

import base64
import json
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Received:
    method: str
    path: str  # still percent-encoded, without the query
    query: str


class StubUpstream:
    def __init__(self) -> None:
        self.requests: list[Received] = []
        self._answer: tuple[int, str, bytes] = (500, "text/plain", b"no answer chosen")
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def answer_with(self, response: dict[str, Any]) -> None:
        """`{"status", "contentType", "json" | "base64"}`, as in tool_cases.json."""
        if "json" in response:
            body = json.dumps(response["json"]).encode()
        else:
            body = base64.b64decode(response["base64"])
        self._answer = (int(response["status"]), str(response["contentType"]), body)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                if length:
                    self.rfile.read(length)
                path, _, query = self.path.partition("?")
                with stub._lock:
                    stub.requests.append(Received(self.command, path, query))
                status, content_type, body = stub._answer
                self.send_response(status)
                if content_type:
                    self.send_header("Content-Type", content_type)
                if status not in (204, 304):
                    self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if status not in (204, 304) and self.command != "HEAD":
                    self.wfile.write(body)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = _handle

        return Handler

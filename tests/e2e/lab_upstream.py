"""A real HTTP upstream on 127.0.0.1 for `runtime_lab.yaml`, with an OAuth2 token endpoint.

Every request is recorded raw (method, path, query, headers, body) before it is answered.
The API lives under `/v1`; `/oauth/token` issues `tok-1`, `tok-2`, ... for the configured
client id and secret (HTTP basic client authentication); `/v1/auth/oauth` answers 401
unless it gets a live token (or `PRE_OBTAINED_TOKEN`). Canned answers for other paths are set per test with `canned`.
"""

from __future__ import annotations

import base64
import json
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs

from .upstream import Recorded

PREFIX = "/v1"
CLIENT_ID, CLIENT_SECRET = "lab-client", "s3cr:et/+"
PRE_OBTAINED_TOKEN = "pre-obtained"  # a token the API accepts without the token endpoint

Answer = tuple[int, str, bytes]


def json_answer(value: Any, status: int = 200) -> Answer:
    return status, "application/json", json.dumps(value).encode()


@dataclass
class TokenPolicy:
    expires_in: int | None = 3600
    issued: int = 0


class LabUpstream:
    def __init__(self) -> None:
        self.requests: list[Recorded] = []
        self.canned: dict[str, Answer] = {}  # relative path -> answer
        self.tokens = TokenPolicy()
        self.revoked: set[str] = set()
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="lab-upstream", daemon=True)
        self.port = int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}{PREFIX}"

    def start(self) -> LabUpstream:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def reset(self) -> None:
        with self._lock:
            self.requests.clear()
            self.canned.clear()
            self.revoked.clear()
            self.tokens = TokenPolicy(issued=self.tokens.issued)

    def take(self) -> list[Recorded]:
        with self._lock:
            taken, self.requests[:] = list(self.requests), []
        return taken

    def api_requests(self) -> list[Recorded]:
        return [r for r in self.take() if r.path.startswith(PREFIX + "/")]

    def answer(self, request: Recorded) -> Answer:
        if request.path == "/oauth/token":
            return self._token(request)
        relative = request.path[len(PREFIX) :] if request.path.startswith(PREFIX + "/") else None
        if relative is None:
            return json_answer({"message": "outside the API"}, 404)
        if relative == "/auth/oauth":
            token = request.headers.get("authorization", "").removeprefix("Bearer ")
            issued = token.startswith("tok-") and int(token[4:]) <= self.tokens.issued
            live = (issued or token == PRE_OBTAINED_TOKEN) and token not in self.revoked
            if not live:
                return json_answer({"message": "invalid token"}, 401)
        return self.canned.get(relative, json_answer({"ok": True}))

    def _token(self, request: Recorded) -> Answer:
        expected = base64.b64encode(b"lab-client:s3cr%3Aet%2F%2B").decode()
        form = parse_qs(request.body.decode())
        if request.headers.get("authorization") != f"Basic {expected}" or form.get("grant_type") != ["client_credentials"]:
            return json_answer({"error": "invalid_client"}, 401)
        with self._lock:
            self.tokens.issued += 1
            answer: dict[str, Any] = {"access_token": f"tok-{self.tokens.issued}", "token_type": "Bearer"}
        if self.tokens.expires_in is not None:
            answer["expires_in"] = self.tokens.expires_in
        return json_answer(answer)

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        upstream = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                path, _, query = self.path.partition("?")
                headers = {name.lower(): value for name, value in self.headers.items()}
                recorded = Recorded(self.command, path, query, headers, body)
                with upstream._lock:
                    upstream.requests.append(recorded)
                status, content_type, data = upstream.answer(recorded)
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _handle

        return Handler

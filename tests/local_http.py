"""The threaded HTTP server on 127.0.0.1 that the tests' fake upstreams share.

A subclass of `LocalServer` only says how it answers: `respond(handler, request)` gets the
request already read and writes its answer with `handler.send(...)`. Recording, canned
answers and fault injection stay in the upstreams themselves (tests/e2e/upstream.py,
lab_upstream.py, faults.py, tests/clients/messy_upstream.py).
"""

from __future__ import annotations

import contextlib
import json
import ssl
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:  # Self is in typing from 3.11 only; the tests run on 3.10 too
    from typing_extensions import Self


@dataclass(frozen=True)
class Recorded:
    method: str
    path: str  # raw, still percent-encoded, without the query
    query: str  # raw query string ("" when none)
    headers: dict[str, str]  # lower-cased names
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


class Handler(BaseHTTPRequestHandler):
    """Reads one request into a `Recorded` and hands it to the owning `LocalServer`."""

    protocol_version = "HTTP/1.1"  # keep-alive, like real APIs (the clients pool connections)
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass  # one line per request would drown the test output

    def _handle(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        path, _, query = self.path.partition("?")
        headers = {name.lower(): value for name, value in self.headers.items()}
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the client gave up (timeout tests)
            self.server.owner.respond(self, Recorded(self.command, path, query, headers, body))

    def send(self, status: int, headers: Mapping[str, str], body: bytes = b"") -> None:
        """The status line, `headers` in their order, then `body` (none for HEAD)."""
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        if body and self.command != "HEAD":
            self.wfile.write(body)

    # No HEAD here: upstreams without it answer 501, as BaseHTTPRequestHandler does.
    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _handle


class HeadHandler(Handler):
    do_HEAD = Handler._handle


class _Server(ThreadingHTTPServer):
    daemon_threads = True  # a hung request never blocks interpreter exit
    owner: LocalServer


class LocalServer:
    """A threaded HTTP server on a free port of 127.0.0.1, served from a daemon thread."""

    handler: type[Handler] = Handler
    name = "local-http"  # the serving thread's name, for stack dumps of hung tests

    def __init__(self, *, tls: ssl.SSLContext | None = None) -> None:
        self._lock = threading.Lock()
        self._server = _Server(("127.0.0.1", 0), self.handler)
        self._server.owner = self
        if tls is not None:  # HTTPS: the handshake runs in accept(); fine for tests
            self._server.socket = tls.wrap_socket(self._server.socket, server_side=True)
        self._thread = threading.Thread(target=self._server.serve_forever, name=self.name, daemon=True)
        self.port = int(self._server.server_address[1])
        self.origin = f"{'https' if tls else 'http'}://127.0.0.1:{self.port}"

    def start(self) -> Self:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def respond(self, handler: Handler, request: Recorded) -> None:
        raise NotImplementedError


R = TypeVar("R")


class RecordingServer(LocalServer, Generic[R]):
    """A `LocalServer` whose `requests` list what it received, oldest first."""

    def __init__(self, *, tls: ssl.SSLContext | None = None) -> None:
        super().__init__(tls=tls)
        self.requests: list[R] = []

    def _record(self, request: R) -> None:
        with self._lock:
            self.requests.append(request)

    def clear(self) -> None:
        with self._lock:
            self.requests.clear()

    def take(self) -> list[R]:
        """The requests received since the last clear/take."""
        with self._lock:
            taken, self.requests[:] = list(self.requests), []
        return taken

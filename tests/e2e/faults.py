"""An upstream on 127.0.0.1 that misbehaves on demand, for the petstore server.

Every path under `/api/v3` answers like the petstore API ("ok") unless a test programs it:
`upstream.program("/pet/5", "reset", "ok")` makes the next request to that path reset the
connection and the one after answer normally (the last behaviour sticks). Behaviours:

ok, slow (wait `slow_seconds`, released at stop), reset (TCP RST, no response), garbage
(invalid JSON), schema (JSON that breaks the Pet schema), huge (a 10 MB valid Pet),
redirect_loop (302 to itself), 429:N (Retry-After N), 502, 503, 504, echo (401 reflecting
the request's headers and query, as some APIs do), control (strings with control
characters), random (`fault_rate` of requests fail with 500 or 400, 5% more are slow: the load check).

Behaviours can also be chosen per request by the `petId` path value, e.g. GET /pet/503.
"""

from __future__ import annotations

import collections
import json
import random
import socket
import ssl
import struct
import threading
from collections import deque
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

PREFIX = "/api/v3"
PET = {"id": 1, "name": "Rex", "photoUrls": [], "status": "available"}
CONTROL_TEXT = "Rex\x1b[31m red\x07 bell\x00 nul\u202e evil\r\nline two\tcol"
HUGE_BYTES = 10 * 1024 * 1024


@dataclass(frozen=True)
class Seen:
    method: str
    path: str
    headers: dict[str, str]


class FaultyUpstream:
    def __init__(
        self, *, slow_seconds: float = 30.0, fault_rate: float = 0.2, seed: int = 7, tls: ssl.SSLContext | None = None
    ) -> None:
        self.slow_seconds = slow_seconds
        self.fault_rate = fault_rate
        self.requests: list[Seen] = []
        self.default = "ok"  # the behaviour of paths no test programmed ("random" for the load check)
        self.answered: collections.Counter[int] = collections.Counter()  # status -> responses sent
        self._programs: dict[str, deque[str]] = {}
        self._lock = threading.Lock()
        self._random = random.Random(seed)
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._server.handle_error = lambda request, address: None  # resets are on purpose
        self._release = threading.Event()
        self._thread = threading.Thread(target=self._server.serve_forever, name="faulty-upstream", daemon=True)
        if tls is not None:  # HTTPS: the handshake runs in accept(); fine for tests
            self._server.socket = tls.wrap_socket(self._server.socket, server_side=True)
        self.port = int(self._server.server_address[1])
        self.base_url = f"{'https' if tls else 'http'}://127.0.0.1:{self.port}{PREFIX}"

    def start(self) -> FaultyUpstream:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._release.set()
        self._server.shutdown()
        self._server.server_close()

    def release(self) -> None:
        """Let every waiting `slow` request answer now (and later ones at once, until `hold`)."""
        self._release.set()

    def hold(self) -> None:
        self._release.clear()

    def program(self, path: str, *behaviours: str) -> None:
        with self._lock:
            self._programs[PREFIX + path] = deque(behaviours)

    def clear(self) -> None:
        """Forget requests and programs; hold `slow` requests again."""
        with self._lock:
            self.requests.clear()
            self._programs.clear()
        self._release.clear()

    def take(self) -> list[Seen]:
        with self._lock:
            taken, self.requests[:] = list(self.requests), []
            return taken

    def _behaviour(self, path: str) -> str:
        with self._lock:
            queue = self._programs.get(path)
            if queue:
                return queue.popleft() if len(queue) > 1 else queue[0]
        last = path.rstrip("/").rsplit("/", 1)[-1]
        named = {"503": "503", "502": "502", "504": "504", "4290": "429:0", "1001": "slow", "1002": "reset"}
        return named.get(last, self.default)

    def _random_behaviour(self) -> str:
        with self._lock:
            roll = self._random.random()
        if roll < self.fault_rate / 2:
            return "500"
        if roll < self.fault_rate:
            return "400"
        if roll < self.fault_rate + 0.05:
            return "slow"
        return "ok"

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        upstream = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def setup(self) -> None:
                super().setup()
                # Headers and body leave in two writes: without NODELAY, Nagle plus delayed
                # ACK add ~40 ms to every keep-alive response, the upstream's cost, not ours.
                self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def _send(self, status: int, body: bytes, content_type: str = "application/json", **headers: str) -> None:
                with upstream._lock:
                    upstream.answered[status] += 1
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                for name, value in headers.items():
                    self.send_header(name.replace("_", "-"), value)
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(body)

            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                path, _, query = self.path.partition("?")
                headers = {k.lower(): v for k, v in self.headers.items()}
                with upstream._lock:
                    upstream.requests.append(Seen(self.command, path, headers))
                behaviour = upstream._behaviour(path)
                if behaviour == "random":
                    behaviour = upstream._random_behaviour()
                try:
                    self._answer(behaviour, path, query, headers, body)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def _answer(self, behaviour: str, path: str, query: str, headers: dict[str, str], body: bytes) -> None:
                if behaviour == "slow":
                    upstream._release.wait(upstream.slow_seconds)
                    behaviour = "ok"
                if behaviour == "reset":
                    # SO_LINGER 0: close() sends RST instead of FIN; the client sees a reset.
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    self.close_connection = True
                    self.connection.close()
                    return
                if behaviour == "garbage":
                    return self._send(200, b'{"id": 1, "name": "Rex", ')
                if behaviour == "schema":
                    return self._send(200, json.dumps({"id": "one", "name": ["not", "a", "string"]}).encode())
                if behaviour == "huge":
                    pad = "x" * (HUGE_BYTES - 100)
                    return self._send(200, json.dumps({**PET, "name": pad}).encode())
                if behaviour == "redirect_loop":
                    return self._send(302, b"", Location=path)
                if behaviour.startswith("429:"):
                    return self._send(429, b'{"message": "slow down"}', Retry_After=behaviour[4:])
                if behaviour.isdigit():
                    status = int(behaviour)
                    return self._send(status, json.dumps({"message": f"injected {status}"}).encode())
                if behaviour == "echo":
                    reflected = {"message": "invalid credentials", "headers": headers, "query": query}
                    return self._send(401, json.dumps(reflected).encode())
                if behaviour == "control":
                    if path.endswith("/photo"):
                        return self._send(200, CONTROL_TEXT.encode(), "text/plain; charset=utf-8")
                    return self._send(200, json.dumps({**PET, "name": CONTROL_TEXT}).encode())
                self._ok(path, body)

            def _ok(self, path: str, body: bytes) -> None:
                relative = path.removeprefix(PREFIX)
                parts = relative.strip("/").split("/")
                if self.command == "POST" and parts == ["pet"]:
                    return self._send(200, json.dumps({**json.loads(body or b"{}"), "id": 10}).encode())
                if parts[:1] == ["store"] and parts[1:2] == ["inventory"]:
                    return self._send(200, json.dumps({"available": 3}).encode())
                if parts[:1] == ["categories"]:
                    return self._send(200, json.dumps({"id": parts[-1], "name": "Cat", "subcategories": []}).encode())
                if self.command == "DELETE":
                    return self._send(204, b"")
                if parts[-1] == "photo":
                    return self._send(200, b"a photo, in words", "text/plain")
                self._send(200, json.dumps(PET).encode())

            do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = _handle

        return Handler

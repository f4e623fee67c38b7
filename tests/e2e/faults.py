"""An upstream on 127.0.0.1 that misbehaves on demand, for the petstore server.

Every path under `/api/v3` answers like the petstore API ("ok") unless a test programs it:
`upstream.program("/pet/5", "reset", "ok")` makes the next request to that path reset the
connection and the one after answer normally (the last behaviour sticks). Behaviours:

ok, slow (wait `slow_seconds`, released at stop), reset (TCP RST, no response), garbage
(invalid JSON), schema (JSON that breaks the Pet schema), huge (a 10 MB valid Pet),
redirect_loop (302 to itself), 429:N (Retry-After N), 502, 503, 504, echo (401 reflecting
the request's headers and query, as some APIs do), control (strings with control
characters), endless (a chunked JSON body that never ends), gzip_bomb (1 MB of gzip that
inflates to 1 GB), drip (a byte every half second), random (`fault_rate` of requests fail
with 500 or 400, 5% more are slow: the load check).

Behaviours can also be chosen per request by the `petId` path value, e.g. GET /pet/503.
"""

from __future__ import annotations

import collections
import functools
import json
import random
import socket
import ssl
import struct
import threading
import time
import zlib
from collections import deque
from dataclasses import dataclass

from ..local_http import Handler, HeadHandler, Recorded, RecordingServer

PREFIX = "/api/v3"
PET = {"id": 1, "name": "Rex", "photoUrls": [], "status": "available"}
CONTROL_TEXT = "Rex\x1b[31m red\x07 bell\x00 nul\u202e evil\r\nline two\tcol"
HUGE_BYTES = 10 * 1024 * 1024
BOMB_BYTES = 2**30  # what gzip_bomb inflates to
ENDLESS_CAP = 2**31  # the most an endless body sends, should a client read it all


@functools.cache
def gzip_bomb() -> bytes:
    """A gzip member of BOMB_BYTES zeros (about 1 MB), built once, in pieces."""
    packer = zlib.compressobj(6, zlib.DEFLATED, 31)
    zeros = bytes(2**20)
    return b"".join(packer.compress(zeros) for _ in range(BOMB_BYTES // 2**20)) + packer.flush()


@dataclass(frozen=True)
class Seen:
    method: str
    path: str
    headers: dict[str, str]


class FaultyHandler(HeadHandler):
    def setup(self) -> None:
        super().setup()
        # Headers and body leave in two writes: without NODELAY, Nagle plus delayed
        # ACK add ~40 ms to every keep-alive response, the upstream's cost, not ours.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class FaultyUpstream(RecordingServer[Seen]):
    handler = FaultyHandler
    name = "faulty-upstream"

    def __init__(
        self, *, slow_seconds: float = 30.0, fault_rate: float = 0.2, seed: int = 7, tls: ssl.SSLContext | None = None
    ) -> None:
        super().__init__(tls=tls)
        self.slow_seconds = slow_seconds
        self.fault_rate = fault_rate
        self.default = "ok"  # the behaviour of paths no test programmed ("random" for the load check)
        self.answered: collections.Counter[int] = collections.Counter()  # status -> responses sent
        self._programs: dict[str, deque[str]] = {}
        self._random = random.Random(seed)
        self._server.handle_error = lambda request, client_address: None  # type: ignore[method-assign]  # resets on purpose
        self._release = threading.Event()
        self._stopping = threading.Event()
        self.streamed = 0  # body bytes sent by `endless` answers
        self.base_url = self.origin + PREFIX

    def stop(self) -> None:
        self._stopping.set()
        self._release.set()
        super().stop()

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
        super().clear()
        with self._lock:
            self._programs.clear()
        self._release.clear()

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

    def respond(self, handler: Handler, request: Recorded) -> None:
        self._record(Seen(request.method, request.path, request.headers))
        behaviour = self._behaviour(request.path)
        if behaviour == "random":
            behaviour = self._random_behaviour()
        self._answer(handler, behaviour, request)

    def _send(
        self, handler: Handler, status: int, body: bytes, content_type: str = "application/json", **headers: str
    ) -> None:
        with self._lock:
            self.answered[status] += 1
        sent = {"Content-Type": content_type, "Content-Length": str(len(body))}
        handler.send(status, sent | {name.replace("_", "-"): value for name, value in headers.items()}, body)

    def _answer(self, handler: Handler, behaviour: str, request: Recorded) -> None:
        path = request.path
        if behaviour == "slow":
            self._release.wait(self.slow_seconds)
            behaviour = "ok"
        if behaviour == "reset":
            # SO_LINGER 0: close() sends RST instead of FIN; the client sees a reset.
            handler.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            handler.close_connection = True
            handler.connection.close()
            return None
        if behaviour == "garbage":
            return self._send(handler, 200, b'{"id": 1, "name": "Rex", ')
        if behaviour == "schema":
            return self._send(handler, 200, json.dumps({"id": "one", "name": ["not", "a", "string"]}).encode())
        if behaviour == "huge":
            pad = "x" * (HUGE_BYTES - 100)
            return self._send(handler, 200, json.dumps({**PET, "name": pad}).encode())
        if behaviour == "redirect_loop":
            return self._send(handler, 302, b"", Location=path)
        if behaviour.startswith("429:"):
            return self._send(handler, 429, b'{"message": "slow down"}', Retry_After=behaviour[4:])
        if behaviour.isdigit():
            status = int(behaviour)
            return self._send(handler, status, json.dumps({"message": f"injected {status}"}).encode())
        if behaviour == "echo":
            reflected = {"message": "invalid credentials", "headers": request.headers, "query": request.query}
            return self._send(handler, 401, json.dumps(reflected).encode())
        if behaviour == "endless":
            return self._endless(handler)
        if behaviour == "gzip_bomb":
            body = gzip_bomb()
            return self._send(handler, 200, body, Content_Encoding="gzip")
        if behaviour == "drip":
            handler.send(200, {"Content-Type": "application/json", "Content-Length": "1000"})
            handler.close_connection = True
            while not self._stopping.wait(0.5):  # until the client hangs up (a write fails) or stop
                handler.wfile.write(b" ")
                handler.wfile.flush()
            return None
        if behaviour == "control":
            if path.endswith("/photo"):
                return self._send(handler, 200, CONTROL_TEXT.encode(), "text/plain; charset=utf-8")
            return self._send(handler, 200, json.dumps({**PET, "name": CONTROL_TEXT}).encode())
        return self._ok(handler, request)

    def _endless(self, handler: Handler) -> None:
        handler.send(200, {"Content-Type": "application/json", "Transfer-Encoding": "chunked"})
        handler.close_connection = True
        chunk = b'{"id": 1, "name": "' + b"x" * (2**16 - 19)
        frame = b"%x\r\n%s\r\n" % (len(chunk), chunk)
        started = time.monotonic()
        while self.streamed < ENDLESS_CAP and not self._stopping.is_set() and time.monotonic() - started < 60:
            handler.wfile.write(frame)  # a client that hung up makes this raise, ending the answer
            with self._lock:
                self.streamed += len(chunk)

    def _ok(self, handler: Handler, request: Recorded) -> None:
        parts = request.path.removeprefix(PREFIX).strip("/").split("/")
        if request.method == "POST" and parts == ["pet"]:
            return self._send(handler, 200, json.dumps({**json.loads(request.body or b"{}"), "id": 10}).encode())
        if parts[:1] == ["store"] and parts[1:2] == ["inventory"]:
            return self._send(handler, 200, json.dumps({"available": 3}).encode())
        if parts[:1] == ["categories"]:
            return self._send(handler, 200, json.dumps({"id": parts[-1], "name": "Cat", "subcategories": []}).encode())
        if request.method == "DELETE":
            return self._send(handler, 204, b"")
        if parts[-1] == "photo":
            return self._send(handler, 200, b"a photo, in words", "text/plain")
        return self._send(handler, 200, json.dumps(PET).encode())

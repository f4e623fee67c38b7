"""A real HTTP upstream on 127.0.0.1 for the OpenAPI 3.2 feeds spec (specs/feeds_32.yaml):
streamed responses written item by item (JSON Lines, server-sent events, JSON Seq), QUERY,
the custom LINK method and a whole query string, each request recorded."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterable
from urllib.parse import parse_qs

from ..local_http import Handler, Recorded, RecordingServer

PREFIX = "/v1"
ITEM_GAP = 0.02  # seconds between items: each is its own write (TS 1.x drops progress tying the result)
ENDLESS_CAP = 100_000  # `endless=true` stops here, far past any bound the tests set


class _Handler(Handler):
    do_QUERY = do_LINK = Handler._handle


class FeedsUpstream(RecordingServer[Recorded]):
    handler = _Handler
    name = "feeds-upstream"

    def __init__(self) -> None:
        super().__init__()
        self.written = 0  # items written to endless streams
        self._lock = threading.Lock()

    @property
    def base_url(self) -> str:
        return self.origin + PREFIX

    def respond(self, handler: Handler, request: Recorded) -> None:
        self._record(request)
        path = request.path.removeprefix(PREFIX)
        query = {k: v[-1] for k, v in parse_qs(request.query).items()}
        limit = int(query.get("limit", "3"))
        if request.method == "GET" and path == "/events":
            self._stream(handler, "application/jsonl", [json.dumps({"seq": i, "kind": "tick"}).encode() + b"\n"
                                                        for i in range(limit)])
        elif request.method == "GET" and path == "/live":
            count = ENDLESS_CAP if query.get("endless") == "true" else limit
            events = (f"id: {i}\nevent: tick\ndata: {json.dumps({'seq': i})}\n\n".encode() for i in range(count))
            self._stream(handler, "text/event-stream", events)
        elif request.method == "GET" and path == "/records":
            self._stream(handler, "application/json-seq", [b"\x1e" + json.dumps({"seq": i, "kind": "rec"}).encode()
                                                           + b"\n" for i in range(limit)])
        elif request.method == "QUERY" and path == "/search":
            self._json(handler, {"method": "QUERY", "kind": json.loads(request.body)["kind"]})
        elif request.method == "GET" and path == "/find":
            self._json(handler, {"query": request.query})
        elif request.method == "LINK" and path.startswith("/events/"):
            handler.send(204, {})
        else:
            self._json(handler, {"message": f"no route for {request.method} {request.path}"}, 404)

    def _json(self, handler: Handler, value: object, status: int = 200) -> None:
        body = json.dumps(value).encode()
        handler.send(status, {"Content-Type": "application/json", "Content-Length": str(len(body))}, body)

    def _stream(self, handler: Handler, media: str, items: Iterable[bytes]) -> None:
        handler.send(200, {"Content-Type": media, "Transfer-Encoding": "chunked"})
        handler.close_connection = True
        try:
            for data in items:
                handler.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                handler.wfile.flush()
                with self._lock:
                    self.written += 1
                time.sleep(ITEM_GAP)
            handler.wfile.write(b"0\r\n\r\n")
        except OSError:  # the server hung up: a bounded read
            pass

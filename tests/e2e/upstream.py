"""A real HTTP upstream on 127.0.0.1 for the generated petstore server.

It records every request it receives (method, raw path, raw query, headers, body) before
answering, so a test can assert on exactly what the generated code sent. Answers are canned
and chosen by path; the API lives under `/api/v3` like the spec's server URL, and anything
outside that prefix is answered 404 (and still recorded).
"""

from __future__ import annotations

import base64
import json
import threading
from typing import Any
from urllib.parse import unquote

from ..local_http import Handler, HeadHandler, Recorded, RecordingServer

__all__ = ["Recorded", "Upstream"]  # Recorded: the tests import it from here

PREFIX = "/api/v3"

# A valid 1x1 transparent PNG, a minimal WAV header and a minimal PDF.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)
WAV = b"RIFF$\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00@\x1f\x00\x00@\x1f\x00\x00\x01\x00\x08\x00data\x00\x00\x00\x00"
PDF = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"

PET_1 = {
    "id": 1,
    "name": "Rex",
    "photoUrls": ["https://img.example/rex.png"],
    "status": "available",
    "tags": [{"id": 1, "name": "good"}],
    "category": {"id": "dogs", "name": "Dogs", "subcategories": []},
    "birthday": None,
}
PET_2 = {"id": 2, "name": "Tom", "photoUrls": [], "status": "sold"}
INVENTORY = {"available": 2, "sold": 1}
LONG_ERROR = "boom " * 2000  # 10 000 characters; the server shows at most 2 000
SLOW_SECONDS = 8.0  # the slow endpoint's delay; tests set a much smaller client timeout


Answer = tuple[int, str, bytes]  # status, content type, body; a redirect's Location as body


def _json(status: int, value: Any) -> Answer:
    return status, "application/json", json.dumps(value).encode()


def answer(method: str, path: str, body: bytes, port: int, stopping: threading.Event) -> Answer:
    """The canned response for one request (path relative to PREFIX, still encoded)."""
    parts = path.strip("/").split("/")
    match method, parts:
        case "POST", ["pet"]:
            return _json(201, {**json.loads(body), "id": 10})
        case "PUT", ["pet"]:
            return _json(200, {**json.loads(body), "id": 10})
        case "GET", ["pet", "findByStatus"]:
            return _json(200, [PET_1, PET_2])
        case "GET", ["pet", "findByTags"]:
            return _json(200, [PET_1])
        case "GET", ["pet", "1"]:
            return _json(200, PET_1)
        case "GET", ["pet", "7"]:  # answers 200 with a body that breaks the outputSchema
            return _json(200, {"id": "seven"})
        case "GET", ["pet", "500"]:
            return 500, "text/plain", LONG_ERROR.encode()
        case "GET", ["pet", "301"]:  # same origin: followed
            return 302, "", f"{PREFIX}/pet/1".encode()
        case "GET", ["pet", "302"]:  # another origin (localhost is not 127.0.0.1): not followed
            return 302, "", f"http://localhost:{port}{PREFIX}/pet/1".encode()
        case "GET", ["pet", "999"]:
            stopping.wait(SLOW_SECONDS)
            return _json(200, PET_1)
        case "DELETE", ["pet", "1"]:
            return 204, "", b""
        case "GET", ["pet", "1", "photo"]:
            return 200, "image/png", PNG
        case "GET", ["pet", "2", "photo"]:
            return 200, "audio/wav", WAV
        case "GET", ["pet", "3", "photo"]:
            return 200, "application/pdf", PDF
        case "GET", ["pet", "4", "photo"]:
            return 200, "text/plain; charset=utf-8", b"no photo yet, only words"
        case "POST", ["pet", _, "notes"]:
            return 200, "text/plain; charset=utf-8", b"note stored: " + body
        case "GET", ["store", "inventory"]:
            return _json(200, INVENTORY)
        case "POST", ["store", "order"]:
            return _json(200, {**json.loads(body), "id": 42, "status": "placed"})
        case "GET", ["store", "order", "13"]:
            return 200, "application/json", b"{not json"
        case "GET", ["store", "order", "14"]:
            return 204, "", b""
        case "GET", ["store", "order", "15"]:
            return 200, "text/html", b"<html>maintenance</html>"
        case "GET", ["store", "order", order_id]:
            return _json(200, {"id": int(order_id), "petId": 1, "quantity": 2, "status": "approved", "complete": False})
        case "GET", ["categories", category_id]:
            return _json(
                200, {"id": unquote(category_id), "name": "Cat", "subcategories": [{"id": "sub", "name": "Sub"}]}
            )
        case "POST", ["admin", "reset"]:
            return 204, "", b""
    return _json(404, {"code": 404, "message": f"no route for {method} {path}"})


class Upstream(RecordingServer[Recorded]):
    """The petstore upstream; `requests` lists what it received, oldest first."""

    handler = HeadHandler
    name = "upstream"

    def __init__(self) -> None:
        super().__init__()
        self._stopping = threading.Event()

    @property
    def base_url(self) -> str:
        return self.origin + PREFIX

    def stop(self) -> None:
        self._stopping.set()  # releases the slow endpoint at once
        super().stop()

    def respond(self, handler: Handler, request: Recorded) -> None:
        self._record(request)
        if request.path == PREFIX + "/echo/headers":  # a careless API echoing what it was sent
            status, content_type, data = _json(400, {"received": request.headers})
        elif request.path.startswith(PREFIX + "/"):
            relative = request.path[len(PREFIX) :]
            status, content_type, data = answer(request.method, relative, request.body, self.port, self._stopping)
        else:
            status, content_type, data = _json(404, {"message": "outside the API's base path"})
        headers: dict[str, str] = {}
        if 300 <= status < 400:
            headers["Location"] = data.decode()
            data = b""
        if content_type:
            headers["Content-Type"] = content_type
        if status != 204:
            headers["Content-Length"] = str(len(data))
        handler.send(status, headers, data)

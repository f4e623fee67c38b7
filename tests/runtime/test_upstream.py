"""`upstream.send`: how a route from tools.json turns arguments into the request a real HTTP
server on 127.0.0.1 receives (parameters in every OpenAPI style, bodies, credentials), and the
errors that stop a request before or while it is sent."""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import functools
import gzip
import json
import re
import threading
import time
import zlib
from collections.abc import Iterator
from email.parser import BytesParser
from email.policy import HTTP
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

import anyio
import httpx2
import pytest

from mcpgen.runtime import project as runtime_project
from mcpgen.runtime import settings, transport, upstream
from mcpgen.runtime.project import Project
from mcpgen.runtime.state import state
from tests.local_http import Handler, Recorded, RecordingServer

BOMB_BYTES = 200 * 2**20  # what /bomb inflates to; ~200 KB on the wire


@functools.cache
def gzip_bomb() -> bytes:
    packer = zlib.compressobj(6, zlib.DEFLATED, 31)  # wbits 31: a gzip member
    zeros = bytes(2**20)
    return b"".join(packer.compress(zeros) for _ in range(BOMB_BYTES // 2**20)) + packer.flush()


class Upstream(RecordingServer[Recorded]):
    """Answers JSON naming the path; some paths misbehave: /slow, /moved, /away, /big (3 MB,
    with its length), /endless (chunked, never ends), /bomb (gzip of 200 MB), /gzipped (small
    gzip JSON), /drip (a byte every 0.2 s), /unavailable (503, Retry-After: 1), /hold (waits
    for `released`)."""

    name = "runtime-upstream"

    def __init__(self) -> None:
        super().__init__()
        self.streamed = 0  # body bytes /endless wrote, for bounds on what the client read
        self.holding = threading.Event()  # a /hold request arrived
        self.released = threading.Event()

    def _endless(self, handler: Handler) -> None:
        handler.send(200, {"Content-Type": "application/octet-stream", "Transfer-Encoding": "chunked"})
        chunk = b"x" * 2**16
        frame = b"%x\r\n%s\r\n" % (len(chunk), chunk)
        handler.close_connection = True
        while self.streamed < 2**31:  # 2 GB: a bound for a broken client, not reached when capped
            handler.wfile.write(frame)
            self.streamed += len(chunk)

    def _drip(self, handler: Handler) -> None:
        handler.send(200, {"Content-Type": "text/plain", "Content-Length": "100"})
        handler.close_connection = True
        for _ in range(100):
            handler.wfile.write(b".")
            handler.wfile.flush()
            time.sleep(0.2)

    def respond(self, handler: Handler, request: Recorded) -> None:
        self._record(request)
        name = request.path.rsplit("/", 1)[-1]
        if name == "slow":
            time.sleep(1.0)
        elif name == "hold":
            self.holding.set()
            self.released.wait(10)
        if name == "endless":
            self._endless(handler)
        elif name == "drip":
            self._drip(handler)
        elif name in ("moved", "away"):
            origin = "" if name == "moved" else f"http://localhost:{self.port}"
            handler.send(302, {"Location": f"{origin}/api/pets", "Content-Length": "0"})
        elif name == "unavailable":
            handler.send(503, {"Retry-After": "1", "Content-Length": "0"})
        elif name == "big":
            body = bytes(3_000_000)
            handler.send(200, {"Content-Type": "application/octet-stream", "Content-Length": str(len(body))}, body)
        elif name in ("bomb", "gzipped"):
            pad = json.dumps({"path": request.path, "pad": "y" * 5000}).encode()
            body = gzip_bomb() if name == "bomb" else gzip.compress(pad)
            handler.send(200, {"Content-Type": "application/octet-stream" if name == "bomb" else "application/json",
                               "Content-Encoding": "gzip", "Content-Length": str(len(body))}, body)
        else:
            status = 404 if name == "missing" else 200
            body = json.dumps({"path": request.path}).encode()
            handler.send(status, {"Content-Type": "application/json", "Content-Length": str(len(body))}, body)


@pytest.fixture(scope="module")
def server() -> Iterator[Upstream]:
    running = Upstream().start()
    yield running
    running.stop()


@pytest.fixture(autouse=True)
def api(project: Project, server: Upstream, monkeypatch: pytest.MonkeyPatch) -> Upstream:
    """PETSTORE_BASE_URL pointing at the server under /api, no retries, no shared client or tokens."""
    server.clear()
    server.released.clear()
    server.holding.clear()
    server.streamed = 0
    monkeypatch.setenv("PETSTORE_BASE_URL", server.origin + "/api")
    monkeypatch.setenv("PETSTORE_RETRIES", "0")
    monkeypatch.setattr(settings, "_base_url_flag", [])
    monkeypatch.setattr(upstream, "_client", None)
    state().upstream_tokens.clear()
    settings._parsed.clear()
    return server


def param(name: str, where: str, style: str, explode: bool, argument: str | None = None) -> dict[str, Any]:
    return {"name": name, "argument": argument or name, "in": where, "style": style, "explode": explode}


def route(
    path: str = "/pets",
    method: str = "GET",
    params: tuple[dict[str, Any], ...] = (),
    body: dict[str, Any] | None = None,
    security: tuple[tuple[str, ...], ...] = (),
) -> dict[str, Any]:
    return {"method": method, "path": path, "params": list(params), "body": body,
            "security": [list(r) for r in security]}


def send(shape: dict[str, Any], arguments: dict[str, Any]) -> httpx2.Response:
    async def go() -> httpx2.Response:
        async with transport.make_client() as client:
            return await upstream.send(shape, arguments, client)

    return anyio.run(go)


def received(server: Upstream, shape: dict[str, Any], arguments: dict[str, Any]) -> Recorded:
    response = send(shape, arguments)
    assert response.status_code == 200
    assert len(server.requests) == 1
    return server.requests[0]


# -- path parameters -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("style", "explode", "value", "expected"),
    [
        ("simple", False, "a/b c?d#e", "a%2Fb%20c%3Fd%23e"),  # encoded whole: the target cannot change
        ("simple", False, "..", "%2E%2E"),
        ("simple", False, ".", "%2E"),
        ("simple", False, "a..b", "a..b"),
        ("simple", False, 5.0, "5"),
        ("simple", False, True, "true"),
        ("simple", False, ["a/b", "c,d", 3], "a%2Fb,c%2Cd,3"),
        ("simple", False, {"a": 1, "b": "x y"}, "a,1,b,x%20y"),
        ("simple", True, {"a": 1, "b": 2}, "a=1,b=2"),
        ("label", False, "x", ".x"),
        ("label", False, [1, 2], ".1,2"),
        ("label", True, [1, 2], ".1.2"),
        ("label", False, {"a": 1, "b": 2}, ".a,1,b,2"),
        ("label", True, {"a": 1, "b": 2}, ".a=1.b=2"),
        ("matrix", False, 5, ";petId=5"),
        ("matrix", False, [1, 2], ";petId=1,2"),
        ("matrix", True, [1, 2], ";petId=1;petId=2"),
        ("matrix", False, {"a": 1, "b": 2}, ";petId=a,1,b,2"),
        ("matrix", True, {"a": 1, "b": "?"}, ";a=1;b=%3F"),
    ],
)
def test_path_parameters(api: Upstream, style: str, explode: bool, value: Any, expected: str) -> None:
    shape = route("/pets/{petId}/photos", params=(param("petId", "path", style, explode, "pet_id"),))
    assert received(api, shape, {"pet_id": value}).path == f"/api/pets/{expected}/photos"


def test_an_empty_path_parameter_is_refused(api: Upstream) -> None:
    shape = route("/pets/{petId}", params=(param("petId", "path", "simple", False, "pet_id"),))
    with pytest.raises(upstream.InvalidArgument, match=r"^pet_id: a path parameter cannot be empty$"):
        send(shape, {"pet_id": ""})
    assert api.requests == []


# -- query parameters ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("style", "explode", "value", "pairs"),
    [
        ("form", True, [1, 2], [("ids", "1"), ("ids", "2")]),
        ("form", True, [True, 2.0, {"a": 1}], [("ids", "true"), ("ids", "2"), ("ids", '{"a":1}')]),
        ("pipeDelimited", False, [False, 1.0], [("ids", "false|1")]),
        ("form", False, [1, 2], [("ids", "1,2")]),
        ("spaceDelimited", False, ["a", "b c"], [("ids", "a b c")]),
        ("pipeDelimited", False, [1, 2, 3], [("ids", "1|2|3")]),
        ("form", True, {"color": "red", "size": 5}, [("color", "red"), ("size", "5")]),
        ("form", False, {"color": "red", "size": 5}, [("ids", "color,red,size,5")]),
        (
            "deepObject", True, {"a": 1, "b": {"c": "x y"}, "d": [3, 4]},
            [("ids[a]", "1"), ("ids[b][c]", "x y"), ("ids[d][0]", "3"), ("ids[d][1]", "4")],
        ),
        ("form", True, "a&b=c#d", [("ids", "a&b=c#d")]),
        ("form", True, False, [("ids", "false")]),
        ("form", True, 2.0, [("ids", "2")]),
        ("form", True, 2.5, [("ids", "2.5")]),
    ],
)
def test_query_parameters(api: Upstream, style: str, explode: bool, value: Any, pairs: list[tuple[str, str]]) -> None:
    shape = route(params=(param("ids", "query", style, explode),))
    request = received(api, shape, {"ids": value})
    assert request.path == "/api/pets"
    assert parse_qsl(request.query, keep_blank_values=True) == pairs


def test_absent_and_null_arguments_are_left_out(api: Upstream) -> None:
    shape = route(params=(param("a", "query", "form", True), param("b", "query", "form", True),
                          param("X-C", "header", "simple", False, "c")))
    request = received(api, shape, {"a": None, "z": 1})
    assert request.query == "" and "x-c" not in request.headers


def test_a_path_with_its_own_query_keeps_it(api: Upstream) -> None:
    shape = route("/search?fixed=1", params=(param("q", "query", "form", True),))
    assert parse_qsl(received(api, shape, {"q": "dogs"}).query) == [("fixed", "1"), ("q", "dogs")]


# -- headers and cookies ---------------------------------------------------------------


def test_header_parameters(api: Upstream) -> None:
    shape = route(params=(param("X-Trace", "header", "simple", False, "trace"),
                          param("X-Tags", "header", "simple", False, "tags"),
                          param("X-Obj", "header", "simple", True, "obj")))
    request = received(api, shape, {"trace": "abc\tdef", "tags": ["a", "b"], "obj": {"k": 1, "l": "m"}})
    assert request.headers["x-trace"] == "abc\tdef"
    assert request.headers["x-tags"] == "a,b"
    assert request.headers["x-obj"] == "k=1,l=m"


@pytest.mark.parametrize("value", ["a\r\nX-Injected: 1", "a\nb", "a\rb", "nul\x00", "del\x7f", "caf\u00e9"])
def test_header_values_that_cannot_be_sent_are_refused(api: Upstream, value: str) -> None:
    shape = route(params=(param("X-Trace", "header", "simple", False, "trace"),))
    with pytest.raises(upstream.InvalidArgument) as caught:
        send(shape, {"trace": value})
    assert str(caught.value) == "trace: header values must be printable ASCII, with no line breaks"
    assert api.requests == []


def test_cookie_parameters(api: Upstream) -> None:
    shape = route(params=(param("session", "cookie", "form", False), param("theme", "cookie", "form", False)))
    request = received(api, shape, {"session": "a b;c=d", "theme": ["x", "y"]})
    assert request.headers["cookie"] == "session=a%20b%3Bc%3Dd; theme=x%2Cy"


# -- bodies -----------------------------------------------------------------------------


def json_body(content_type: str = "application/json", argument: str | None = None) -> dict[str, Any]:
    fields = [] if argument else [["name", "name"], ["photoUrls", "photo_urls"], ["tag", "tag"]]
    return {"contentType": content_type, "fields": fields, "argument": argument}


def test_json_body_from_fields(api: Upstream) -> None:
    request = received(api, route(method="POST", body=json_body()), {"name": "Rëx", "photo_urls": ["u"]})
    assert request.method == "POST"
    assert request.headers["content-type"] == "application/json"
    assert request.body == '{"name":"Rëx","photoUrls":["u"]}'.encode()  # absent fields left out, UTF-8


@pytest.mark.parametrize(
    ("content_type", "sent_as"),
    [
        ("application/merge-patch+json", "application/merge-patch+json"),
        ("application/vnd.api+json; charset=utf-8", "application/vnd.api+json; charset=utf-8"),
        ("*/*", "application/json"),
    ],
)
def test_json_body_from_one_argument(api: Upstream, content_type: str, sent_as: str) -> None:
    request = received(api, route(method="PATCH", body=json_body(content_type, "body")), {"body": [1, {"a": None}]})
    assert request.headers["content-type"] == sent_as
    assert json.loads(request.body) == [1, {"a": None}]


def test_no_body_argument_sends_no_body(api: Upstream) -> None:
    request = received(api, route(method="POST", body=json_body(argument="body")), {})
    assert request.body == b"" and "content-type" not in request.headers


def test_text_and_binary_bodies(api: Upstream) -> None:
    text = {"contentType": "text/plain; charset=utf-8", "fields": [], "argument": "body"}
    request = received(api, route(method="PUT", body=text), {"body": "line 1\nline 2 ü"})
    assert request.body == "line 1\nline 2 ü".encode() and request.headers["content-type"] == "text/plain; charset=utf-8"
    api.clear()
    binary = {"contentType": "application/octet-stream", "fields": [], "argument": "data"}
    request = received(api, route(method="PUT", body=binary), {"data": base64.b64encode(b"\x00\xff").decode()})
    assert request.body == b"\x00\xff" and request.headers["content-type"] == "application/octet-stream"
    api.clear()
    with pytest.raises(upstream.InvalidArgument, match=r"^data: not valid base64$"):
        send(route(method="PUT", body=binary), {"data": "not base64!"})
    assert api.requests == []


def form_body(encoding: dict[str, Any] | None = None) -> dict[str, Any]:
    body = {"contentType": "application/x-www-form-urlencoded", "argument": None,
            "fields": [["name", "name"], ["tags", "tags"], ["filter", "filter"]]}
    return body | ({"encoding": encoding} if encoding else {})


def test_form_urlencoded_body(api: Upstream) -> None:
    arguments = {"name": "a b&c=d", "tags": ["x", "y"], "filter": {"k": "v"}}
    request = received(api, route(method="POST", body=form_body()), arguments)
    assert request.headers["content-type"] == "application/x-www-form-urlencoded"
    assert request.body == b"name=a%20b%26c%3Dd&tags=x&tags=y&k=v"
    api.clear()
    encoding = {"tags": {"style": "form", "explode": False}, "filter": {"style": "deepObject", "explode": True}}
    request = received(api, route(method="POST", body=form_body(encoding)), arguments)
    assert request.body == b"name=a%20b%26c%3Dd&tags=x%2Cy&filter[k]=v"


def multipart_parts(request: Recorded) -> list[tuple[str | None, str | None, str, bytes]]:
    head = f"Content-Type: {request.headers['content-type']}\r\n\r\n".encode()
    message = BytesParser(policy=HTTP).parsebytes(head + request.body)
    return [
        (part.get_param("name", header="content-disposition"), part.get_filename(), part.get_content_type(),
         part.get_payload(decode=True))
        for part in message.iter_parts()
    ]


MULTIPART = {
    "contentType": "multipart/form-data", "argument": None, "files": ["upload"],
    "fields": [["file", "upload"], ["meta", "meta"], ["note", "note"], ["tags", "tags"]],
    "encoding": {"meta": {"contentType": "application/json"}},
}


def test_multipart_body(api: Upstream) -> None:
    arguments = {
        "upload": {"content": base64.b64encode(b"hello").decode(), "filename": "a.txt"},
        "meta": {"k": 1}, "note": "hi", "tags": ["a", "b"],
    }
    request = received(api, route(method="POST", body=MULTIPART), arguments)
    assert request.headers["content-type"].startswith("multipart/form-data; boundary=")
    assert multipart_parts(request) == [
        ("file", "a.txt", "text/plain", b"hello"),
        ("meta", None, "application/json", b'{"k":1}'),
        ("note", None, "text/plain", b"hi"),
        ("tags", None, "text/plain", b"a"),
        ("tags", None, "text/plain", b"b"),
    ]


def test_multipart_file_from_the_upload_directory(
    api: Upstream, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    uploads = tmp_path / "uploads"
    uploads.mkdir()
    (uploads / "doc.pdf").write_bytes(b"%PDF-1.4")
    (tmp_path / "outside.txt").write_text("private")
    shape = route(method="POST", body=MULTIPART)
    with pytest.raises(upstream.InvalidArgument, match="set to the directory to allow") as caught:
        send(shape, {"upload": {"path": "doc.pdf"}})
    assert "PETSTORE_UPLOAD_DIR" in str(caught.value)
    monkeypatch.setenv("PETSTORE_UPLOAD_DIR", str(uploads))
    for path, why in (("../outside.txt", "outside the upload directory"), ("nope.txt", "no such file"),
                      (".", "outside the upload directory")):
        with pytest.raises(upstream.InvalidArgument, match=why):
            send(shape, {"upload": {"path": path}})
    assert api.requests == []
    request = received(api, shape, {"upload": {"path": "doc.pdf"}})
    assert multipart_parts(request) == [("file", "doc.pdf", "application/pdf", b"%PDF-1.4")]


# -- credentials ---------------------------------------------------------------------------


@pytest.fixture
def schemes(project: Project) -> Project:
    """The conftest project plus bearer, query and cookie API keys."""
    more = dataclasses.replace(project, security_schemes={
        **project.security_schemes,
        "bearer": {"kind": "bearer", "in": "header", "name": "Authorization", "env": ["PETSTORE_BEARER_TOKEN"]},
        "queryKey": {"kind": "apiKey", "in": "query", "name": "key", "env": ["PETSTORE_QUERY_KEY"]},
        "cookieKey": {"kind": "apiKey", "in": "cookie", "name": "sid", "env": ["PETSTORE_SID"]},
    })
    runtime_project.install(more)
    return more


def test_api_key_in_a_header(api: Upstream, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PETSTORE_API_KEY", "key-123")
    request = received(api, route(security=(("api_key",),)), {})
    assert request.headers["api_key"] == "key-123" and "authorization" not in request.headers


def test_basic_auth(api: Upstream, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PETSTORE_ADMIN_AUTH_USERNAME", "admin")
    monkeypatch.setenv("PETSTORE_ADMIN_AUTH_PASSWORD", "p@ss:word")
    request = received(api, route(security=(("adminAuth",),)), {})
    assert request.headers["authorization"] == "Basic " + base64.b64encode(b"admin:p@ss:word").decode()


def test_bearer_query_and_cookie_keys(api: Upstream, schemes: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PETSTORE_BEARER_TOKEN", "tok")
    monkeypatch.setenv("PETSTORE_QUERY_KEY", "q k&")
    monkeypatch.setenv("PETSTORE_SID", "s;1")
    shape = route(params=(param("page", "query", "form", True),), security=(("bearer", "queryKey", "cookieKey"),))
    request = received(api, shape, {"page": 2})
    assert request.headers["authorization"] == "Bearer tok"
    assert parse_qsl(request.query) == [("page", "2"), ("key", "q k&")]
    assert request.headers["cookie"] == "sid=s%3B1"


def test_the_first_configured_alternative_is_used(api: Upstream, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PETSTORE_ADMIN_AUTH_USERNAME", "admin")
    monkeypatch.setenv("PETSTORE_ADMIN_AUTH_PASSWORD", "pw")
    request = received(api, route(security=(("api_key",), ("adminAuth",))), {})
    assert request.headers["authorization"].startswith("Basic ") and "api_key" not in request.headers
    api.clear()
    monkeypatch.setenv("PETSTORE_API_KEY", "key")
    request = received(api, route(security=(("api_key",), ("adminAuth",))), {})
    assert request.headers["api_key"] == "key" and "authorization" not in request.headers


def test_optional_credentials(api: Upstream, monkeypatch: pytest.MonkeyPatch) -> None:
    request = received(api, route(security=(("api_key",), ())), {})
    assert "api_key" not in request.headers
    api.clear()
    monkeypatch.setenv("PETSTORE_API_KEY", "key")
    assert received(api, route(security=(("api_key",), ())), {}).headers["api_key"] == "key"


def test_a_missing_credential_stops_the_request(api: Upstream, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PETSTORE_ADMIN_AUTH_USERNAME", "admin")  # the password is missing
    with pytest.raises(upstream.MissingCredential) as caught:
        send(route(security=(("api_key",), ("adminAuth",))), {})
    assert str(caught.value) == (
        "This tool needs credentials that are not configured: set PETSTORE_API_KEY or "
        "PETSTORE_ADMIN_AUTH_USERNAME and PETSTORE_ADMIN_AUTH_PASSWORD in the server's environment."
    )
    assert api.requests == []


# -- failures -------------------------------------------------------------------------------


def test_no_base_url(api: Upstream, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PETSTORE_BASE_URL")
    with pytest.raises(upstream.UpstreamError) as caught:
        send(route(), {})
    assert str(caught.value) == "No upstream URL: set PETSTORE_BASE_URL or pass --base-url."


def test_the_base_url_flag_wins(api: Upstream, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PETSTORE_BASE_URL", "http://127.0.0.1:9/nowhere")
    settings.set_base_url(api.origin + "/api/")
    assert received(api, route(), {}).path == "/api/pets"


def test_a_timeout_is_an_upstream_error_and_not_retried(api: Upstream, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PETSTORE_TIMEOUT", "0.2")
    monkeypatch.setenv("PETSTORE_RETRIES", "2")
    with pytest.raises(upstream.UpstreamError) as caught:
        send(route("/slow"), {})
    assert str(caught.value) == (
        f"GET {api.origin}/api/slow: no answer within 0.2 s (timeout: PETSTORE_TIMEOUT, the wait for each read)."
    )
    assert len(api.requests) == 1  # the request may have run: not sent again


def test_a_refused_connection_is_an_upstream_error(api: Upstream, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PETSTORE_BASE_URL", "http://127.0.0.1:9")
    with pytest.raises(upstream.UpstreamError, match=r"^GET http://127.0.0.1:9/pets: request failed: ConnectError"):
        send(route(), {})


def test_an_error_status_is_returned_not_raised(api: Upstream) -> None:
    response = send(route("/missing"), {})
    assert response.status_code == 404 and response.json() == {"path": "/api/missing"}


def test_redirects_are_followed_within_the_origin_only(api: Upstream, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PETSTORE_API_KEY", "key")
    response = send(route("/moved", security=(("api_key",),)), {})
    assert response.json() == {"path": "/api/pets"}
    assert [r.path for r in api.requests] == ["/api/moved", "/api/pets"]
    assert api.requests[1].headers["api_key"] == "key"
    api.clear()
    with pytest.raises(upstream.UpstreamError, match=r"redirected to another origin \(http://localhost\)"):
        send(route("/away", security=(("api_key",),)), {})
    assert [r.path for r in api.requests] == ["/api/away"]


def test_the_shared_client(api: Upstream) -> None:
    async def go() -> int:
        try:
            response = await upstream.send(route(), {})
            assert upstream.shared_client() is upstream.shared_client()
            return response.status_code
        finally:
            await upstream.shared_client().aclose()

    assert anyio.run(go) == 200 and len(api.requests) == 1


# -- limits: body sizes, uploads, the call's deadline, the connection pool --------------------


@contextlib.contextmanager
def peak_memory() -> Iterator[list[int]]:
    """`[kB]`: how far this process's peak RSS rose above its RSS at the start of the block
    (the peak, VmHWM, is reset first where the kernel allows it)."""

    def status(field: str) -> int:
        found = re.search(rf"^{field}:\s+(\d+) kB", Path("/proc/self/status").read_text(), re.MULTILINE)
        assert found is not None
        return int(found.group(1))

    with contextlib.suppress(OSError):
        Path("/proc/self/clear_refs").write_text("5")  # 5: reset the peak RSS to the current one
    before = max(status("VmRSS"), status("VmHWM"))
    grown = [0]
    yield grown
    grown[0] = status("VmHWM") - before


LIMIT_NOTE = "(counted decompressed), the limit PETSTORE_MAX_RESPONSE_BYTES sets; stopped reading."
MEMORY_BOUND_KB = 48 * 1024  # a 2 MB limit: the body, its copy, decoder buffers; not 200 MB


def test_a_body_announced_over_the_limit_is_not_read(api: Upstream, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PETSTORE_MAX_RESPONSE_BYTES", "2MB")
    with pytest.raises(upstream.UpstreamError) as caught:
        send(route("/big"), {})
    assert str(caught.value) == (
        f"GET {api.origin}/api/big: HTTP 200: the response body is 3,000,000 bytes (its Content-Length), "
        "over the 2,000,000-byte limit PETSTORE_MAX_RESPONSE_BYTES sets; not read. Ask for less "
        "(filters, paging), or raise PETSTORE_MAX_RESPONSE_BYTES."
    )
    monkeypatch.setenv("PETSTORE_MAX_RESPONSE_BYTES", "3000000")
    assert send(route("/big"), {}).content == bytes(3_000_000)  # exactly at the limit: read


def test_an_endless_body_is_cut_at_the_limit(api: Upstream, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PETSTORE_MAX_RESPONSE_BYTES", "2MB")
    started = time.monotonic()
    with peak_memory() as grown, pytest.raises(upstream.UpstreamError) as caught:
        send(route("/endless"), {})
    assert str(caught.value) == (
        f"GET {api.origin}/api/endless: HTTP 200: the response body is larger than 2,000,000 bytes "
        f"{LIMIT_NOTE[:-1]}. Ask for less (filters, paging), or raise PETSTORE_MAX_RESPONSE_BYTES."
    )
    assert time.monotonic() - started < 5
    assert api.streamed < 2_000_000 + 32 * 2**20  # read up to the limit; the rest sat in socket buffers
    assert grown[0] < MEMORY_BOUND_KB, f"peak RSS rose {grown[0]:,} kB"


def test_a_gzip_bomb_is_cut_after_decompression(api: Upstream, monkeypatch: pytest.MonkeyPatch) -> None:
    assert len(gzip_bomb()) < 2_000_000  # on the wire it is under the limit; built before measuring
    monkeypatch.setenv("PETSTORE_MAX_RESPONSE_BYTES", "2MB")
    with peak_memory() as grown, pytest.raises(upstream.UpstreamError) as caught:
        send(route("/bomb"), {})
    assert str(caught.value).endswith(f"larger than 2,000,000 bytes {LIMIT_NOTE[:-1]}. Ask for less "
                                      "(filters, paging), or raise PETSTORE_MAX_RESPONSE_BYTES.")
    assert grown[0] < MEMORY_BOUND_KB, f"peak RSS rose {grown[0]:,} kB for a {BOMB_BYTES:,}-byte bomb"


def test_a_compressed_body_within_the_limit_arrives_decoded(api: Upstream) -> None:
    response = send(route("/gzipped"), {})
    assert response.json()["path"] == "/api/gzipped" and response.status_code == 200
    assert "content-encoding" not in response.headers  # the body is the decoded bytes now
    assert response.headers["content-length"] == str(len(response.content))
    assert response.request.url.path == "/api/gzipped" and response.reason_phrase == "OK"
    assert response.elapsed.total_seconds() >= 0 and response.is_closed


def test_a_dripping_upstream_is_stopped_at_the_call_deadline(api: Upstream, monkeypatch: pytest.MonkeyPatch) -> None:
    """A byte every 0.2 s never trips the 1 s read timeout; the call's deadline stops it, and
    the connection it held is free for the next call at once."""
    monkeypatch.setenv("PETSTORE_TIMEOUT", "1")
    monkeypatch.setenv("PETSTORE_CALL_TIMEOUT", "1.5")
    monkeypatch.setenv("PETSTORE_MAX_CONNECTIONS", "1")
    monkeypatch.setenv("PETSTORE_CONNECT_TIMEOUT", "0.5")

    async def go() -> tuple[str, float, int]:
        async with transport.make_client() as client:
            started = time.monotonic()
            with pytest.raises(upstream.UpstreamError) as caught:
                await upstream.send(route("/drip"), {}, client)
            elapsed = time.monotonic() - started
            after = await upstream.send(route(), {}, client)
            return str(caught.value), elapsed, after.status_code

    message, elapsed, status = anyio.run(go)
    assert message == (
        f"GET {api.origin}/api/drip: no complete answer within 1.5 s, the deadline PETSTORE_CALL_TIMEOUT "
        "sets for a whole call (connecting, sending, reading, retries); stopped waiting."
    )
    assert 1.4 < elapsed < 3 and status == 200


def test_the_deadline_is_twice_the_read_timeout_by_default(api: Upstream, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PETSTORE_TIMEOUT", "0.6")
    with pytest.raises(upstream.UpstreamError, match=r"no complete answer within 1\.2 s, the deadline PETSTORE_CALL"):
        send(route("/drip"), {})


def test_the_deadline_covers_retries_and_their_waits(api: Upstream, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ten retries a second apart (Retry-After: 1) would take ten seconds; the deadline is 2.5 s."""
    monkeypatch.setenv("PETSTORE_RETRIES", "10")
    monkeypatch.setenv("PETSTORE_CALL_TIMEOUT", "2.5")
    started = time.monotonic()
    with pytest.raises(upstream.UpstreamError, match=r"no complete answer within 2\.5 s"):
        send(route("/unavailable"), {})
    assert time.monotonic() - started < 4
    assert 2 <= len(api.requests) <= 4


def test_an_exhausted_pool_says_so(api: Upstream, monkeypatch: pytest.MonkeyPatch) -> None:
    """One connection allowed, held by a slow call: the next call waits the connect timeout for
    it, then says the pool is busy (not that the upstream did not answer)."""
    monkeypatch.setenv("PETSTORE_MAX_CONNECTIONS", "1")
    monkeypatch.setenv("PETSTORE_CONNECT_TIMEOUT", "0.3")

    async def go() -> tuple[str, int, int]:
        held: list[int] = []

        async def hold(client: httpx2.AsyncClient) -> None:
            held.append((await upstream.send(route("/hold"), {}, client)).status_code)

        async with transport.make_client() as client, anyio.create_task_group() as group:
            group.start_soon(hold, client)
            assert await anyio.to_thread.run_sync(api.holding.wait, 5)
            try:
                with pytest.raises(upstream.UpstreamError) as caught:
                    await upstream.send(route(), {}, client)
            finally:
                api.released.set()
        async with transport.make_client() as client:
            later = (await upstream.send(route(), {}, client)).status_code
        return str(caught.value), held[0], later

    message, held, later = anyio.run(go)
    assert message == (
        f"GET {api.origin}/api/pets: the one upstream connection is busy with other calls and none came "
        "free within 0.3 s (PETSTORE_CONNECT_TIMEOUT). Try again shortly; PETSTORE_MAX_CONNECTIONS sets "
        "how many may be open at once."
    )
    assert (held, later) == (200, 200)


def test_the_pool_size_is_the_setting(api: Upstream, monkeypatch: pytest.MonkeyPatch) -> None:
    assert transport.pool_size(transport.make_client()) == 100
    monkeypatch.setenv("PETSTORE_MAX_CONNECTIONS", "7")
    assert transport.pool_size(transport.make_client()) == 7
    assert transport.pool_size(httpx2.AsyncClient()) is None  # a client of the caller's own


def test_uploads_over_the_limit_are_refused_before_reading(
    api: Upstream, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    uploads = tmp_path / "uploads"
    uploads.mkdir()
    (uploads / "fits.bin").write_bytes(b"\x01" * 1000)
    with (uploads / "huge.bin").open("wb") as huge:
        huge.truncate(3 * 10**9)  # sparse: 3 GB by its size, no disk used
    monkeypatch.setenv("PETSTORE_UPLOAD_DIR", str(uploads))
    monkeypatch.setenv("PETSTORE_MAX_UPLOAD_BYTES", "1000")
    shape = route(method="POST", body=MULTIPART)
    started = time.monotonic()
    with peak_memory() as grown, pytest.raises(upstream.InvalidArgument) as caught:
        send(shape, {"upload": {"path": "huge.bin"}})
    assert str(caught.value) == (
        "upload.path: 'huge.bin' is 3,000,000,000 bytes, over the 1,000-byte upload limit "
        "PETSTORE_MAX_UPLOAD_BYTES sets; not sent."
    )
    assert grown[0] < 16 * 1024 and time.monotonic() - started < 2
    over = base64.b64encode(b"\x01" * 1001).decode()
    with pytest.raises(upstream.InvalidArgument, match=r"^upload\.content: the file is 1,001 bytes, over the 1,000"):
        send(shape, {"upload": {"content": over, "filename": "a.bin"}})
    binary = {"contentType": "application/octet-stream", "fields": [], "argument": "data"}
    with pytest.raises(upstream.InvalidArgument, match=r"^data: the body is 1,001 bytes, over the 1,000-byte"):
        send(route(method="PUT", body=binary), {"data": over})
    assert api.requests == []
    request = received(api, shape, {"upload": {"path": "fits.bin"}})  # exactly at the limit: sent
    assert multipart_parts(request) == [("file", "fits.bin", "application/octet-stream", b"\x01" * 1000)]


def test_an_upload_read_is_bounded_when_its_size_misleads(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    """/proc files say they are empty; the read stops one byte past the limit all the same."""
    monkeypatch.setenv("PETSTORE_MAX_UPLOAD_BYTES", "1000")
    maps = Path("/proc/self/maps")
    assert maps.stat().st_size == 0 and len(maps.read_bytes()) > 1001
    with pytest.raises(upstream.InvalidArgument) as caught:
        upstream._read_upload("upload.path", "maps", maps)
    assert str(caught.value) == (
        "upload.path: 'maps' is over the 1,000-byte upload limit PETSTORE_MAX_UPLOAD_BYTES sets; not sent."
    )

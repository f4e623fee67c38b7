"""`upstream.send`: how a route from tools.json turns arguments into the request a real HTTP
server on 127.0.0.1 receives (parameters in every OpenAPI style, bodies, credentials), and the
errors that stop a request before or while it is sent."""

from __future__ import annotations

import base64
import dataclasses
import json
import time
from collections.abc import Iterator
from email.parser import BytesParser
from email.policy import HTTP
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

import anyio
import httpx2
import pytest

from mcpgen.runtime import auth, settings, transport, upstream
from mcpgen.runtime import project as runtime_project
from mcpgen.runtime.project import Project
from tests.local_http import Handler, Recorded, RecordingServer


class Upstream(RecordingServer[Recorded]):
    name = "runtime-upstream"

    def respond(self, handler: Handler, request: Recorded) -> None:
        self._record(request)
        if request.path.endswith("/slow"):
            time.sleep(1.0)
        if request.path.endswith("/moved"):
            handler.send(302, {"Location": "/api/pets", "Content-Length": "0"})
            return
        if request.path.endswith("/away"):
            handler.send(302, {"Location": f"http://localhost:{self.port}/api/pets", "Content-Length": "0"})
            return
        status = 404 if request.path.endswith("/missing") else 200
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
    monkeypatch.setenv("PETSTORE_BASE_URL", server.origin + "/api")
    monkeypatch.setenv("PETSTORE_RETRIES", "0")
    monkeypatch.setattr(settings, "_base_url_flag", [])
    monkeypatch.setattr(upstream, "_client", None)
    monkeypatch.setattr(auth, "_tokens", {})
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

"""The generated runtime against `runtime_lab.yaml`: every parameter style, body type and auth
scheme checked as the upstream receives it; truncation; responses that stray from their schema.

Real parts only: the generated server runs as a stdio subprocess, driven by the `mcp` client
in both protocol eras (handshake `ClientSession`, modern `Client`); the upstream and its
OAuth2 token endpoint are real HTTP servers on 127.0.0.1 (`lab_upstream.py`).
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from email.parser import BytesParser
from email.policy import HTTP
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest
from mcp import Client, ClientSession, StdioServerParameters, stdio_client

from mcpgen.api import generate_openapi
from mcpgen.options import Options

from .conftest import Connection, server_env
from .lab_upstream import CLIENT_ID, CLIENT_SECRET, LabUpstream, json_answer
from .upstream import Recorded

pytestmark = pytest.mark.anyio

SPEC = Path(__file__).with_name("runtime_lab.yaml")
PACKAGE = "rtlab_mcp"
ERAS = ("stdio-handshake", "stdio-modern")
CREDENTIALS = {
    "RTLAB_KEY_HEADER": "key-h",
    "RTLAB_KEY_QUERY": "key q&=",
    "RTLAB_KEY_COOKIE": "key-c",
    "RTLAB_BASIC_AUTH_USERNAME": "ann",
    "RTLAB_BASIC_AUTH_PASSWORD": "pa:ss",
    "RTLAB_BEARER_AUTH": "bear-1",
    "RTLAB_OAUTH_CLIENT_ID": CLIENT_ID,
    "RTLAB_OAUTH_CLIENT_SECRET": CLIENT_SECRET,
    "RTLAB_OIDC": "oidc-token",
}
MAX_CHARS = 5_000


@pytest.fixture(scope="module")
def lab_generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("lab") / "rtlab-mcp"
    generate_openapi(SPEC, Options(output=out, force=True, name="rtlab"))
    return out


@pytest.fixture(scope="module")
def lab_upstream() -> Iterator[LabUpstream]:
    server = LabUpstream().start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def uploads(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An upload directory, a secret beside it, and a symlink inside pointing at the secret."""
    base = tmp_path_factory.mktemp("files")
    root = base / "uploads"
    (root / "sub").mkdir(parents=True)
    (root / "report.csv").write_text("a,b\n1,2\n")
    (root / "sub" / "pic.png").write_bytes(b"\x89PNG fake")
    (base / "secret.txt").write_text("do not send")
    (root / "link.txt").symlink_to(base / "secret.txt")
    return root


@pytest.fixture(autouse=True)
def _fresh(lab_upstream: LabUpstream) -> None:
    lab_upstream.reset()


@contextlib.asynccontextmanager
async def connect(generated: Path, env: dict[str, str], era: str, log: Path) -> AsyncIterator[Connection]:
    params = StdioServerParameters(command=sys.executable, args=["-m", PACKAGE], env=env)
    with log.open("a") as errlog:
        if era == "stdio-handshake":
            async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
                init = await session.initialize()
                await session.list_tools()
                yield Connection(era, session, init.protocol_version)
        else:
            async with Client(stdio_client(params, errlog=errlog), cache=None) as client:
                await client.list_tools()
                yield Connection(era, client, str(client.protocol_version))


def lab_env(generated: Path, upstream: LabUpstream, **extra: str | None) -> dict[str, str]:
    # one tools/list page holds every lab tool (pagination has its own tests)
    return server_env(generated, RTLAB_BASE_URL=upstream.base_url, RTLAB_PAGE_SIZE="500", **extra)


@pytest.fixture(scope="module", params=ERAS)
async def lab(
    request: pytest.FixtureRequest, lab_generated: Path, lab_upstream: LabUpstream, uploads: Path, log_dir: Path
) -> AsyncIterator[Connection]:
    """The lab server with every credential, an upload directory and a small response cap."""
    env = lab_env(
        lab_generated, lab_upstream, RTLAB_UPLOAD_DIR=str(uploads), RTLAB_MAX_RESPONSE_CHARS=str(MAX_CHARS),
        **CREDENTIALS,
    )
    async with connect(lab_generated, env, request.param, log_dir / f"lab-{request.param}.log") as connection:
        yield connection


async def ok(lab: Connection, tool: str, arguments: dict[str, Any]) -> Any:
    result = await lab.call_tool(tool, arguments)
    assert not result.is_error, result.content
    return result


async def one_request(lab: Connection, upstream: LabUpstream, tool: str, arguments: dict[str, Any]) -> Recorded:
    await ok(lab, tool, arguments)
    received = upstream.api_requests()
    assert len(received) == 1, received
    return received[0]


def error_text(result: Any) -> str:
    assert result.is_error, result.content
    return "\n".join(c.text for c in result.content)


def multipart(request: Recorded) -> list[tuple[str, str | None, str | None, bytes]]:
    """(name, filename, content type, bytes) of each part, in order."""
    head = f"Content-Type: {request.headers['content-type']}\r\n\r\n".encode()
    message = BytesParser(policy=HTTP).parsebytes(head + request.body)
    out = []
    for part in message.iter_parts():
        content_type = part["Content-Type"]
        out.append((part.get_param("name", header="content-disposition"), part.get_filename(),
                    str(content_type) if content_type else None, part.get_payload(decode=True)))
    return out


# -- parameters ----------------------------------------------------------------


async def test_query_styles(lab: Connection, lab_upstream: LabUpstream) -> None:
    request = await one_request(lab, lab_upstream, "queryStyles", {
        "formExplode": [1, 2],
        "formFlat": ["a", "b,c"],
        "objExplode": {"x": "1", "y": "2"},
        "objFlat": {"x": "1", "y": "2"},
        "spaced": ["a", "b"],
        "piped": ["a", "b"],
        "deep": {"color": "red", "size": {"min": 1}, "ids": [4, 5]},
        "flag": False,
    })
    pairs = [tuple(unquote(p.replace("+", " ")) for p in pair.split("=", 1)) for pair in request.query.split("&")]
    assert pairs == [
        ("formExplode", "1"), ("formExplode", "2"),
        ("formFlat", "a,b,c"),
        ("x", "1"), ("y", "2"),
        ("objFlat", "x,1,y,2"),
        ("spaced", "a b"),
        ("piped", "a|b"),
        ("deep[color]", "red"), ("deep[size][min]", "1"), ("deep[ids][0]", "4"), ("deep[ids][1]", "5"),
        ("flag", "false"),
    ]


@pytest.mark.parametrize(
    ("tool", "arguments", "path"),
    [
        ("pathSimple", {"ids": ["a", "b c", "d,e"]}, "/v1/simple/a,b%20c,d%2Ce"),
        ("pathSimpleObject", {"point": {"x": 1, "y": "a/b"}}, "/v1/simple-object/x=1,y=a%2Fb"),
        ("pathLabel", {"ids": ["a", "b"]}, "/v1/label/.a,b"),
        ("pathLabelExplode", {"ids": ["a", "b.c"]}, "/v1/label-explode/.a.b.c"),
        ("pathMatrix", {"id": 5, "ids": ["a", "b"], "obj": {"k": "v", "n": 2}}, "/v1/matrix/;id=5/;ids=a;ids=b/;obj=k,v,n,2"),
        ("fileWithSuffix", {"name": "report v1"}, "/v1/files/report%20v1.json"),
        ("fileWithSuffix", {"name": "../etc"}, "/v1/files/..%2Fetc.json"),
    ],
)
async def test_path_styles(lab: Connection, lab_upstream: LabUpstream, tool: str, arguments: dict[str, Any], path: str) -> None:
    request = await one_request(lab, lab_upstream, tool, arguments)
    assert (request.path, request.query) == (path, "")


async def test_path_keys_with_dots_and_dashes(lab: Connection, lab_upstream: LabUpstream) -> None:
    request = await one_request(lab, lab_upstream, "dottedKeys", {"user.id": "u.1", "post-id": 7})
    assert request.path == "/v1/users/u.1/posts/7"


async def test_path_level_parameters_shared_and_overridden(lab: Connection, lab_upstream: LabUpstream) -> None:
    tools = {t.name: t for t in (await lab.list_tools()).tools}
    schema = tools["sharedParams"].input_schema
    assert schema["properties"]["verbose"]["type"] == "boolean"  # the operation's own wins
    request = await one_request(lab, lab_upstream, "sharedParams", {"itemId": "i-1", "X-Trace": "t-9", "verbose": True})
    assert (request.path, request.query, request.headers["x-trace"]) == ("/v1/items/i-1", "verbose=true", "t-9")


async def test_same_name_in_three_locations(lab: Connection, lab_upstream: LabUpstream) -> None:
    request = await one_request(lab, lab_upstream, "sameNameTwice", {"id": "p", "query_id": "q", "header_id": "h"})
    assert (request.path, request.query, request.headers["id"]) == ("/v1/things/p", "id=q", "h")


async def test_headers_and_cookies(lab: Connection, lab_upstream: LabUpstream) -> None:
    request = await one_request(lab, lab_upstream, "headersAndCookies", {
        "X-Ids": [1, 2], "X-Obj": {"a": 1, "b": "x"}, "session": "s 1;x", "prefs": ["dark", "wide"],
    })
    assert request.headers["x-ids"] == "1,2"
    assert request.headers["x-obj"] == "a=1,b=x"
    assert request.headers["cookie"] == "session=s%201%3Bx; prefs=dark%2Cwide"


# -- request bodies --------------------------------------------------------------


async def test_json_is_picked_first(lab: Connection, lab_upstream: LabUpstream) -> None:
    request = await one_request(lab, lab_upstream, "jsonFirst", {"text": "hé", "tags": ["a"]})
    assert request.headers["content-type"] == "application/json"
    assert request.json() == {"text": "hé", "tags": ["a"]}


async def test_plus_json_media_type_is_kept(lab: Connection, lab_upstream: LabUpstream) -> None:
    request = await one_request(lab, lab_upstream, "mergePatch", {"name": None})
    assert (request.method, request.headers["content-type"]) == ("PATCH", "application/merge-patch+json")
    assert request.json() == {"name": None}


async def test_form_urlencoded(lab: Connection, lab_upstream: LabUpstream) -> None:
    request = await one_request(lab, lab_upstream, "formBody", {
        "name": "a b&c", "tags": ["x", "y"], "metadata": {"k": "v", "n": {"m": 1}}, "count": 3,
    })
    assert request.headers["content-type"] == "application/x-www-form-urlencoded"
    pairs = [tuple(unquote(p) for p in pair.split("=", 1)) for pair in request.body.decode().split("&")]
    assert pairs == [
        ("name", "a b&c"), ("tags", "x"), ("tags", "y"), ("metadata[k]", "v"), ("metadata[n][m]", "1"), ("count", "3"),
    ]


async def test_multipart_with_base64_files(lab: Connection, lab_upstream: LabUpstream) -> None:
    request = await one_request(lab, lab_upstream, "upload", {
        "title": "Q3",
        "file": {"content": base64.b64encode(b"\x00\x01binary").decode(), "filename": "q3.bin"},
        "attachments": [
            {"content": base64.b64encode(b"one").decode(), "filename": "1.txt"},
            {"content": base64.b64encode(b"{}").decode(), "filename": "2.json", "contentType": "application/x-two"},
        ],
        "meta": {"pages": 3},
        "labels": ["a", "b"],
    })
    assert request.headers["content-type"].startswith("multipart/form-data; boundary=")
    assert multipart(request) == [
        ("title", None, None, b"Q3"),
        ("file", "q3.bin", "application/octet-stream", b"\x00\x01binary"),
        ("attachments", "1.txt", "text/plain", b"one"),
        ("attachments", "2.json", "application/x-two", b"{}"),
        ("meta", None, "application/json", b'{"pages":3}'),
        ("labels", None, None, b"a"),
        ("labels", None, None, b"b"),
    ]


async def test_multipart_file_from_the_upload_directory(lab: Connection, lab_upstream: LabUpstream) -> None:
    request = await one_request(lab, lab_upstream, "upload", {"file": {"path": "report.csv"}, "attachments": [{"path": "sub/pic.png"}]})
    assert multipart(request) == [
        ("file", "report.csv", "text/csv", b"a,b\n1,2\n"),
        ("attachments", "pic.png", "image/png", b"\x89PNG fake"),
    ]


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("../secret.txt", "outside the upload directory"),
        ("link.txt", "outside the upload directory"),  # a symlink inside pointing out
        ("/etc/hostname", "outside the upload directory"),
        ("missing.txt", "no such file"),
        ("sub", "not a regular file"),
        ("a\x00b", "no such file"),
    ],
)
async def test_upload_paths_outside_are_refused(
    lab: Connection, lab_upstream: LabUpstream, uploads: Path, path: str, message: str
) -> None:
    if path == "/etc/hostname" and not os.path.exists(path):  # noqa: ASYNC240 - one stat, before any call
        path = str(uploads.parent / "secret.txt")
    text = error_text(await lab.call_tool("upload", {"file": {"path": path}}))
    assert message in text and "file.path" in text
    assert lab_upstream.api_requests() == []


async def test_upload_path_needs_the_allow_list(
    lab_generated: Path, lab_upstream: LabUpstream, uploads: Path, log_dir: Path
) -> None:
    env = lab_env(lab_generated, lab_upstream, **CREDENTIALS)  # no RTLAB_UPLOAD_DIR
    async with connect(lab_generated, env, "stdio-handshake", log_dir / "lab-no-upload.log") as lab:
        text = error_text(await lab.call_tool("upload", {"file": {"path": str(uploads / "report.csv")}}))
        assert "reading local files is disabled" in text and "RTLAB_UPLOAD_DIR" in text
        assert lab_upstream.api_requests() == []
        await ok(lab, "upload", {"file": {"content": "aGk=", "filename": "hi.txt"}})
        [(name, filename, _, data)] = multipart(lab_upstream.api_requests()[0])
        assert (name, filename, data) == ("file", "hi.txt", b"hi")


async def test_octet_stream_and_text_bodies(lab: Connection, lab_upstream: LabUpstream) -> None:
    request = await one_request(lab, lab_upstream, "octetBody", {"body": base64.b64encode(b"\xff\x00raw").decode()})
    assert (request.method, request.headers["content-type"], request.body) == ("PUT", "application/octet-stream", b"\xff\x00raw")
    request = await one_request(lab, lab_upstream, "csvBody", {"body": "a;b\n1;2\n"})
    assert (request.headers["content-type"], request.body) == ("text/csv", b"a;b\n1;2\n")


# -- auth ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tool", "where", "expected"),
    [
        ("authHeader", "header:x-api-key", "key-h"),
        ("authQuery", "query", "api_key=key%20q%26%3D"),
        ("authCookie", "header:cookie", "sid=key-c"),
        ("authBasic", "header:authorization", "Basic " + base64.b64encode(b"ann:pa:ss").decode()),
        ("authBearer", "header:authorization", "Bearer bear-1"),
        ("authOidc", "header:authorization", "Bearer oidc-token"),
        ("authEither", "header:authorization", "Bearer bear-1"),  # both alternatives set: the first wins
    ],
)
async def test_static_credentials(lab: Connection, lab_upstream: LabUpstream, tool: str, where: str, expected: str) -> None:
    request = await one_request(lab, lab_upstream, tool, {})
    if where == "query":
        assert request.query.replace("+", "%20") == expected
    else:
        assert request.headers[where.split(":")[1]] == expected
    if tool == "authEither":
        assert request.query == ""


async def test_all_schemes_of_one_requirement(lab: Connection, lab_upstream: LabUpstream) -> None:
    request = await one_request(lab, lab_upstream, "authBoth", {})
    assert (request.headers["x-api-key"], request.headers["cookie"]) == ("key-h", "sid=key-c")


async def test_optional_security_uses_credentials_when_set(lab: Connection, lab_upstream: LabUpstream) -> None:
    request = await one_request(lab, lab_upstream, "authOptional", {})
    assert request.headers["x-api-key"] == "key-h"


async def test_oauth2_client_credentials_cached_and_refreshed_on_401(lab: Connection, lab_upstream: LabUpstream) -> None:
    await ok(lab, "authOauth", {})
    await ok(lab, "authOauth", {})
    received = lab_upstream.take()
    token_requests = [r for r in received if r.path == "/oauth/token"]
    api = [r for r in received if r.path == "/v1/auth/oauth"]
    assert len(api) == 2 and len({r.headers["authorization"] for r in api}) == 1  # cached
    assert len(token_requests) == 1  # this server process's first token
    token = api[0].headers["authorization"].removeprefix("Bearer ")
    lab_upstream.revoked.add(token)  # revoked before its expiry: the next call gets 401 once
    await ok(lab, "authOauth", {})
    received = lab_upstream.take()
    assert [r.path for r in received] == ["/v1/auth/oauth", "/oauth/token", "/v1/auth/oauth"]
    assert received[0].headers["authorization"] == f"Bearer {token}"
    assert received[2].headers["authorization"] != f"Bearer {token}"
    assert received[1].headers["content-type"] == "application/x-www-form-urlencoded"
    assert received[1].body == b"grant_type=client_credentials"


async def test_oauth2_token_expiry_and_failures(lab_generated: Path, lab_upstream: LabUpstream, log_dir: Path) -> None:
    env = lab_env(lab_generated, lab_upstream, RTLAB_OAUTH_CLIENT_ID=CLIENT_ID, RTLAB_OAUTH_CLIENT_SECRET=CLIENT_SECRET)
    lab_upstream.tokens.expires_in = 10  # below the expiry margin: never reused
    async with connect(lab_generated, env, "stdio-modern", log_dir / "lab-oauth.log") as lab:
        await ok(lab, "authOauth", {})
        await ok(lab, "authOauth", {})
        paths = [r.path for r in lab_upstream.take()]
        assert paths == ["/oauth/token", "/v1/auth/oauth", "/oauth/token", "/v1/auth/oauth"]
        lab_upstream.revoked.update(f"tok-{n}" for n in range(1000))  # every token refused
        text = error_text(await lab.call_tool("authOauth", {}))
        assert "HTTP 401" in text
        assert [r.path for r in lab_upstream.take()] == ["/oauth/token", "/v1/auth/oauth", "/oauth/token", "/v1/auth/oauth"]
    env["RTLAB_OAUTH_CLIENT_SECRET"] = "wrong"
    async with connect(lab_generated, env, "stdio-modern", log_dir / "lab-oauth.log") as lab:
        text = error_text(await lab.call_tool("authOauth", {}))
        assert "OAuth2 token request" in text and "HTTP 401" in text and "RTLAB_OAUTH_CLIENT_SECRET" in text
        assert [r.path for r in lab_upstream.take()] == ["/oauth/token"]


async def test_without_credentials(lab_generated: Path, lab_upstream: LabUpstream, log_dir: Path) -> None:
    env = lab_env(lab_generated, lab_upstream, RTLAB_OAUTH="pre-obtained")
    async with connect(lab_generated, env, "stdio-handshake", log_dir / "lab-nocreds.log") as lab:
        request = await one_request(lab, lab_upstream, "authOptional", {})  # `{}`: goes out without auth
        assert "x-api-key" not in request.headers and "authorization" not in request.headers
        text = error_text(await lab.call_tool("authEither", {}))
        assert "RTLAB_BEARER_AUTH or RTLAB_KEY_QUERY" in text
        assert lab_upstream.api_requests() == []
        request = await one_request(lab, lab_upstream, "authOauth", {})  # a token obtained elsewhere: no fetch
        assert request.headers["authorization"] == "Bearer pre-obtained"
        assert lab_upstream.take() == []


# -- responses -------------------------------------------------------------------

DEVIANT_PET = {
    "id": "seven", "name": None, "status": "zombie", "tags": ["x", 5, "y", "z"],
    "owner": {"extra": 1}, "kind": {"barks": True, "meows": False}, "undeclared": [1],
}


async def test_response_straying_from_its_schema_still_arrives(lab: Connection, lab_upstream: LabUpstream) -> None:
    lab_upstream.canned["/deviant/pet"] = json_answer(DEVIANT_PET)
    result = await ok(lab, "deviantPet", {})  # the client validated structuredContent: it would raise
    assert json.loads(result.content[0].text) == DEVIANT_PET
    # What strays is left out (an undeclared null too; an array item is taken out), the rest arrives.
    assert result.structured_content == {
        "status": "zombie", "tags": ["x", "y", "z"],
        "owner": {"extra": 1}, "kind": {"barks": True, "meows": False}, "undeclared": [1],
    }
    note = result.content[1].text
    assert "$.id: 'seven'" in note and "$.tags[1]: 5" in note and "$.name: None" in note


async def test_numbers_javascript_cannot_read_are_left_out(lab: Connection, lab_upstream: LabUpstream) -> None:
    """`1e400` parses to infinity (sent as null) and a 400-digit id reads as Infinity in a
    TypeScript client: structuredContent leaves both out, the text keeps them, a note says so."""
    body = b'{"id": ' + b"9" * 400 + b', "name": "Rex", "status": "sold", "tags": [1e400]}'
    lab_upstream.canned["/deviant/pet"] = (200, "application/json", body)
    result = await ok(lab, "deviantPet", {})
    assert result.structured_content == {"name": "Rex", "status": "sold", "tags": []}
    assert result.content[0].text.startswith('{"id": 999')
    note = result.content[1].text
    assert "$.id: 999" in note and "$.tags[0]: inf" in note and "not a number every client can read" in note


async def test_array_items_and_root_that_stray(lab: Connection, lab_upstream: LabUpstream) -> None:
    lab_upstream.canned["/deviant/pets"] = json_answer([{"id": 1, "name": "A", "status": "sold"}, "oops", {"id": "x"}])
    result = await ok(lab, "deviantPets", {})
    assert result.structured_content == {"result": [{"id": 1, "name": "A", "status": "sold"}, {}]}
    lab_upstream.canned["/deviant/pet"] = json_answer(["not", "an", "object"])
    result = await ok(lab, "deviantPet", {})
    assert result.structured_content == {}
    assert json.loads(result.content[0].text) == ["not", "an", "object"]


async def test_output_schema_describes_without_constraining(lab: Connection) -> None:
    tools = {t.name: t for t in (await lab.list_tools()).tools}
    schema = tools["deviantPet"].output_schema
    assert schema["type"] == "object" and schema["properties"]["status"] == {"type": "string"}
    text = json.dumps(schema)
    for keyword in ('"required"', '"enum"', '"pattern"', '"minimum"', '"maxItems"', '"additionalProperties": false', '"oneOf"'):
        assert keyword not in text, keyword


async def test_large_json_is_truncated_to_valid_json(lab: Connection, lab_upstream: LabUpstream) -> None:
    items = [{"id": n, "name": f"Pet {n}", "status": "available", "tags": ["t"] * 3} for n in range(1, 401)]
    lab_upstream.canned["/big"] = json_answer({"items": items, "next": "c-2"})
    result = await ok(lab, "bigList", {"limit": 400})
    text = result.content[0].text
    assert len(text) <= MAX_CHARS
    shown = json.loads(text)  # still JSON: whole items were dropped from the end
    assert shown["next"] == "c-2" and 1 < len(shown["items"]) < 400 and shown["items"] == items[: len(shown["items"])]
    assert result.structured_content == shown
    note = result.content[1].text
    total = len(json.dumps({"items": items, "next": "c-2"}, ensure_ascii=False))
    assert f"{total:,} characters of JSON" in note
    assert f"`$.items`: kept the first {len(shown['items'])} of 400 items" in note
    assert "`limit`" in note and "`cursor`" in note


async def test_large_text_is_truncated(lab: Connection, lab_upstream: LabUpstream) -> None:
    lab_upstream.canned["/big-text"] = (200, "text/plain; charset=utf-8", ("line\n" * 3000).encode())
    result = await ok(lab, "bigText", {})
    assert result.content[0].text == ("line\n" * 3000)[:MAX_CHARS]
    assert f"first {MAX_CHARS:,} of 15,000 characters (10,000 cut)" in result.content[1].text


async def test_small_responses_are_not_touched(lab: Connection, lab_upstream: LabUpstream) -> None:
    pet = {"id": 3, "name": "Rex", "status": "sold"}
    lab_upstream.canned["/deviant/pet"] = json_answer(pet)
    result = await ok(lab, "deviantPet", {})
    assert result.structured_content == pet and len(result.content) == 1


def test_lab_package_passes_static_checks(lab_generated: Path, tmp_path: Path) -> None:
    """auth.py, results.py and every body/parameter path in upstream.py, type-checked."""
    cache = f"--cache-dir={tmp_path / 'mypy-cache'}"
    for args in ([sys.executable, "-m", "mypy", "--strict", cache, "src"], [sys.executable, "-m", "ruff", "check", "--no-cache", "."]):
        done = subprocess.run(args, check=False, cwd=lab_generated, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr

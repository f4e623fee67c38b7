"""OAuth scopes on every kind of entry, end to end: operations served only as a resource or a
template need their operation's scopes, prompts obey `default_scopes`, and an access setting can
name a resource-only entry.

tests/e2e/specs/oauth_store.yaml: listPets (a tool) needs pets:read; getPet (served only as
the template `.../pets/{petId}`) and getInventory (only as a resource) need pets:admin; the
`[[prompts]]` entry states nothing, so `default_scopes = ["mcp"]` applies to it. A real
authorization server signs the tokens; the upstream records what reaches it.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mcpgen.api import generate_openapi
from mcpgen.options import Options, PromptMessageSpec, PromptSpec, RouteRule

from .conftest import http_process, server_env
from .oauth_server import AuthServer
from .test_oauth import UPSTREAM_TOKEN, Upstream, raw_post

SPEC = Path(__file__).parent / "specs" / "oauth_store.yaml"
PACKAGE = "scoped_store_mcp"


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("oauth-entries") / "scoped-store-mcp"
    options = Options(
        output=out,
        force=True,
        routes=(
            RouteRule(action="resource_template", operations=("getPet",)),
            RouteRule(action="resource", operations=("getInventory",)),
        ),
        prompts=(PromptSpec(name="adopt", messages=(PromptMessageSpec(role="user", text="Adopt a pet"),)),),
        default_scopes=("mcp",),
    )
    generate_openapi(SPEC, options)
    return out


@pytest.fixture(scope="module")
def auth_server() -> Iterator[AuthServer]:
    server = AuthServer().start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def upstream() -> Iterator[Upstream]:
    server = Upstream().start()
    yield server
    server.stop()


@contextlib.contextmanager
def serving(project: Path, log: Path, **env: str) -> Iterator[str]:
    """The server over HTTP on 127.0.0.1; yields its /mcp URL (also the tokens' audience)."""
    with http_process(PACKAGE, server_env(project, **env), log) as (port, _):
        yield f"http://127.0.0.1:{port}/mcp"


def environment(auth_server: AuthServer, upstream: Upstream, **more: str) -> dict[str, str]:
    return {
        "SCOPED_STORE_BASE_URL": upstream.origin,
        "SCOPED_STORE_STORE_AUTH": UPSTREAM_TOKEN,
        "SCOPED_STORE_MCP_AUTH": "oauth",
        "SCOPED_STORE_MCP_OAUTH_ISSUER": auth_server.issuer,
        **more,
    }


@pytest.fixture(scope="module")
def url(project: Path, auth_server: AuthServer, upstream: Upstream, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serving(project, tmp_path_factory.mktemp("logs") / "entries.log", **environment(auth_server, upstream)) as found:
        yield found


def rpc(method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 7, "method": method, "params": params or {}}


def uris(project: Path) -> dict[str, str]:
    """Entry name -> its URI or URI template, from the generated resources.json."""
    entries = json.loads((project / "src" / PACKAGE / "resources.json").read_text())
    return {e["name"]: e.get("uri") or e["uriTemplate"] for e in entries}


def listed(url: str, token: str) -> dict[str, list[str]]:
    found = {}
    for method, field, key in [
        ("tools/list", "tools", "name"),
        ("resources/list", "resources", "name"),
        ("resources/templates/list", "resourceTemplates", "name"),
        ("prompts/list", "prompts", "name"),
    ]:
        status, _, body = raw_post(url, token, rpc(method))
        assert status == 200, (method, body)
        found[method] = sorted(item[key] for item in body["result"][field])
    return found


def test_generated_data_files_carry_each_operations_scopes(project: Path) -> None:
    entries = {e["name"]: e for e in json.loads((project / "src" / PACKAGE / "resources.json").read_text())}
    assert entries["getPet"]["scopes"] == [["pets:admin"]]
    assert entries["getInventory"]["scopes"] == [["pets:admin"]]
    tools = [t["tool"]["name"] for t in json.loads((project / "src" / PACKAGE / "tools.json").read_text())]
    assert tools == ["listPets"]  # getPet and getInventory are served only as resources


def test_resource_only_operations_need_their_operations_scopes(
    url: str, project: Path, auth_server: AuthServer, upstream: Upstream
) -> None:
    where = uris(project)
    pet, inventory = where["getPet"].replace("{petId}", "rex"), where["getInventory"]
    upstream.requests.clear()
    for scopes in ("", "pets:read", "pets:read mcp"):
        token = auth_server.token(url, scopes)
        shown = listed(url, token)
        assert shown["resources/list"] == [] and shown["resources/templates/list"] == [], scopes
        for request in [
            rpc("resources/read", {"uri": pet}),
            rpc("resources/read", {"uri": inventory}),
            rpc("completion/complete", {
                "ref": {"type": "ref/resource", "uri": where["getPet"]}, "argument": {"name": "petId", "value": "r"},
            }),
        ]:
            status, headers, body = raw_post(url, token, request)
            assert status == 403, (scopes, request, body)
            assert 'error="insufficient_scope"' in headers["www-authenticate"]
            assert 'scope="pets:admin"' in headers["www-authenticate"]
    assert upstream.requests == []  # nothing out of scope reached the API

    admin = auth_server.token(url, "pets:admin")
    shown = listed(url, admin)
    assert shown["resources/list"] == ["getInventory"] and shown["resources/templates/list"] == ["getPet"]
    assert shown["tools/list"] == [] and shown["prompts/list"] == []  # listPets: pets:read; adopt: mcp
    for uri in (pet, inventory):
        status, _, body = raw_post(url, admin, rpc("resources/read", {"uri": uri}))
        assert status == 200 and json.loads(body["result"]["contents"][0]["text"]) == {"pets": ["rex"]}, body
    status, _, body = raw_post(url, admin, rpc("completion/complete", {
        "ref": {"type": "ref/resource", "uri": where["getPet"]}, "argument": {"name": "petId", "value": "r"},
    }))
    assert status == 200 and body["result"]["completion"]["values"] == ["rex"], body
    assert sorted(r.path for r in upstream.requests) == ["/pets/rex", "/store/inventory"]
    for request in upstream.requests:  # the server's own credential, never the caller's token
        assert request.headers["authorization"] == f"Bearer {UPSTREAM_TOKEN}"


def test_prompts_obey_the_default_scopes(url: str, auth_server: AuthServer) -> None:
    reader = auth_server.token(url, "pets:read")
    assert listed(url, reader)["prompts/list"] == []
    status, headers, _ = raw_post(url, reader, rpc("prompts/get", {"name": "adopt"}))
    assert status == 403 and 'scope="mcp"' in headers["www-authenticate"]
    member = auth_server.token(url, "mcp")
    assert listed(url, member)["prompts/list"] == ["adopt"]
    status, _, body = raw_post(url, member, rpc("prompts/get", {"name": "adopt"}))
    assert status == 200 and body["result"]["messages"][0]["content"]["text"] == "Adopt a pet"


def test_access_settings_name_a_resource_only_entry(
    project: Path, auth_server: AuthServer, upstream: Upstream, tmp_path: Path
) -> None:
    settings = {"SCOPED_STORE_TOOLS_DENY": "getInventory", "SCOPED_STORE_RATE_LIMIT_GETPET": "1/h burst 1"}
    with serving(project, tmp_path / "deny.log", **environment(auth_server, upstream, **settings)) as url:
        admin = auth_server.token(url, "pets:admin")
        assert listed(url, admin)["resources/list"] == []  # denied though in scope
        status, _, body = raw_post(url, admin, rpc("resources/read", {"uri": uris(project)["getInventory"]}))
        assert status == 200 and body["error"]["code"] == -32002, body
        assert "SCOPED_STORE_TOOLS_DENY" in body["error"]["message"]
        pet = uris(project)["getPet"].replace("{petId}", "tom")
        assert raw_post(url, admin, rpc("resources/read", {"uri": pet}))[2]["result"]
        status, _, body = raw_post(url, admin, rpc("resources/read", {"uri": pet}))
        assert body["error"]["code"] == -32029 and "SCOPED_STORE_RATE_LIMIT_GETPET" in body["error"]["message"], body

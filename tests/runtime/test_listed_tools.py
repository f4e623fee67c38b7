"""tools/list through `ListedTools` is what the SDK's own path sends, page by page, in both eras:
the generated tools are spliced into the envelope the SDK validated (not re-validated), custom
tools still go through the SDK's sieve, and every filter (deny lists, read-only) still applies."""

from __future__ import annotations

import copy
import dataclasses
import gc
import types
from typing import Any

import anyio
import pytest
from mcp import Client

from mcpgen.runtime import app, catalog, extensions, settings
from mcpgen.runtime import project as runtime_project
from mcpgen.runtime.project import Project
from mcpgen.runtime.state import state


@pytest.fixture
def custom(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    """One custom tool, whose wire dict carries a 2025-11-25-only key the 2026-07-28 sieve drops."""
    monkeypatch.setattr(extensions, "_REGISTERED", {})

    @extensions.tool(read_only=True)
    async def echo(text: str) -> str:
        """Repeat TEXT."""
        return text

    extensions._REGISTERED["echo"].entry["tool"]["execution"] = {"taskSupport": "forbidden"}
    monkeypatch.setenv("PETSTORE_PAGE_SIZE", "2")
    monkeypatch.setenv("PETSTORE_ONE_PAGE_BYTES", "0")  # paged, though the list is small
    settings._parsed.clear()


def _pages(mode: str, spliced: bool) -> list[dict[str, Any]]:
    """Every page's result as the server sends it (recorded outside the middleware)."""
    server = app.server()
    kept = list(server.middleware)
    sent: list[dict[str, Any]] = []

    async def record(ctx: Any, call_next: Any) -> Any:
        result = await call_next(ctx)
        if ctx.method == "tools/list":
            sent.append(copy.deepcopy(result))
        return result

    listing = [m for m in kept if spliced or not isinstance(m, app.ListedTools)]
    server.middleware[:] = [listing[0], record, *listing[1:]]

    async def run() -> None:
        async with Client(server, mode=mode, cache=None) as client:  # type: ignore[arg-type]
            cursor = None
            while True:
                page = await client.list_tools(cursor=cursor)
                cursor = page.next_cursor
                if not cursor:
                    return

    try:
        anyio.run(run)
    finally:
        server.middleware[:] = kept
    return sent


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_the_pages_are_the_sdks_own(custom: None, mode: str) -> None:
    assert any(isinstance(m, app.ListedTools) for m in app.server().middleware)
    spliced, plain = _pages(mode, True), _pages(mode, False)
    assert spliced == plain
    names = [tool["name"] for page in spliced for tool in page["tools"]]
    assert names == ["getPet", "addPet", "deletePet", "echo"]
    echo = spliced[-1]["tools"][-1]
    assert ("execution" in echo) is (mode == "legacy")  # the custom tool went through the sieve
    if mode == "auto":
        assert {(p["ttlMs"], p["cacheScope"], p["resultType"]) for p in spliced} == {(300_000, "public", "complete")}
    else:
        assert not {"ttlMs", "cacheScope", "resultType"} & {key for page in spliced for key in page}


@pytest.mark.parametrize("mode", ["legacy", "auto"])
@pytest.mark.parametrize(
    ("variable", "value", "listed"),
    [("PETSTORE_TOOLS_DENY", "*Pet", ["echo"]), ("PETSTORE_READ_ONLY", "1", ["getPet", "echo"]),
     ("PETSTORE_TOOLS_ALLOW", "add*,echo", ["addPet", "echo"])],
)
def test_filters_still_apply(
    custom: None, monkeypatch: pytest.MonkeyPatch, mode: str, variable: str, value: str, listed: list[str]
) -> None:
    monkeypatch.setenv(variable, value)
    settings._parsed.clear()
    spliced = _pages(mode, True)
    assert [tool["name"] for page in spliced for tool in page["tools"]] == listed
    assert spliced == _pages(mode, False)


def test_the_handler_alone_still_lists_everything(custom: None) -> None:
    """Without the middleware (another SDK pipeline), `list_tools` returns whole pages."""

    async def run() -> dict[str, Any]:
        return await app.list_tools(None, None)  # type: ignore[arg-type]

    page = anyio.run(run)
    assert [tool["name"] for tool in page["tools"]] == ["getPet", "addPet"]


def test_the_catalogue_is_parsed_with_the_collector_paused(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[bool] = []
    read_json = Project.read_json
    monkeypatch.setattr(Project, "read_json", lambda self, file: seen.append(gc.isenabled()) or read_json(self, file))
    frozen: list[int] = []
    monkeypatch.setattr(gc, "freeze", lambda: frozen.append(1))
    catalog.tool_table.cache_clear()
    assert set(catalog.tool_table()) == {"getPet", "addPet", "deletePet"}
    assert seen == [False] and gc.isenabled() and not frozen  # a test process: nothing frozen
    monkeypatch.setattr(state(), "owns_process", True)
    catalog.tool_table.cache_clear()
    catalog.tool_table()
    assert frozen == [1] and gc.isenabled()


class _NoMiddleware(app._Server):
    """An SDK whose `Server.middleware` (provisional within mcp 2.x) is no list one can add to:
    its own pipeline runs, and reads the chain, but the runtime cannot join it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.middleware = tuple(self.middleware)  # type: ignore[assignment]


def test_without_sdk_middleware_the_plain_path_serves_every_page(
    custom: None, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(app, "_Server", _NoMiddleware)
    app.server.cache_clear()
    try:
        server = app.server()
        assert not any(isinstance(m, app.ListedTools) for m in server.middleware)
        assert "no usable Server.middleware: tools/list takes the SDK's plain path" in caplog.text

        async def run() -> list[str]:
            names: list[str] = []
            async with Client(server, mode="legacy", cache=None) as client:  # type: ignore[arg-type]
                cursor = None
                while True:
                    page = await client.list_tools(cursor=cursor)
                    names += [tool.name for tool in page.tools]
                    cursor = page.next_cursor
                    if not cursor:
                        return names

        assert anyio.run(run) == ["getPet", "addPet", "deletePet", "echo"]
    finally:
        app.server.cache_clear()


def test_without_sdk_middleware_a_server_that_asks_refuses_to_start(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The requestState boundary stops a client forging an answer: no boundary, no server."""
    monkeypatch.setattr(app, "_Server", _NoMiddleware)
    runtime_project.install(dataclasses.replace(project, confirm_tools=("deletePet",)))
    app.server.cache_clear()
    try:
        with pytest.raises(app.SdkUnsupported, match=r"no usable Server\.middleware, which this server needs to seal"):
            app.server()
    finally:
        app.server.cache_clear()


def test_an_sdk_without_the_attribute_at_all(project: Project, caplog: pytest.LogCaptureFixture) -> None:
    app._add_middleware(types.SimpleNamespace(), False)  # type: ignore[arg-type]
    assert "no usable Server.middleware" in caplog.text
    with pytest.raises(app.SdkUnsupported):
        app._add_middleware(types.SimpleNamespace(), True)  # type: ignore[arg-type]

"""The server's lists: cacheable for `LIST_TTL_MS`, shared (`public`) unless the server requires
a token, `listChanged: false` for tools, prompts and resources in both eras; icons from the project."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import anyio
import pytest
from mcp import Client

from mcpgen.runtime import app, settings
from mcpgen.runtime import project as runtime_project
from mcpgen.runtime.project import Project

LOGO = {"src": "https://example.com/logo.png", "mimeType": "image/png", "sizes": ["48x48"], "theme": "dark"}


@pytest.fixture
def served(project: Project, tmp_path: Path) -> Project:
    for listed in ("resources.json", "prompts.json"):
        (tmp_path / project.package / listed).write_text("[]")
    changed = dataclasses.replace(project, has_prompts=True, has_resources=True, icons=(LOGO,))
    runtime_project.install(changed)
    settings._parsed.clear()
    return changed


def test_lists_are_public_and_cacheable(served: Project) -> None:
    hints = app.cache_hints()
    assert set(hints) == {"tools/list", "prompts/list", "resources/list", "resources/templates/list"}
    assert {(h.ttl_ms, h.scope) for h in hints.values()} == {(app.LIST_TTL_MS, "public")}
    assert app.LIST_TTL_MS == 300_000


def test_a_server_requiring_a_token_keeps_them_private(served: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PETSTORE_MCP_TOKEN", "a-long-enough-token-0123")
    assert {h.scope for h in app.cache_hints().values()} == {"private"}


@pytest.mark.parametrize("version", [None, "2025-11-25", "2026-07-28"])
def test_list_changed_is_false_everywhere(served: Project, version: str | None) -> None:
    capabilities = app.server().get_capabilities(protocol_version=version)
    assert capabilities.tools is not None and capabilities.tools.list_changed is False
    assert capabilities.prompts is not None and capabilities.prompts.list_changed is False
    assert capabilities.resources is not None and capabilities.resources.list_changed is False


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_in_process_clients_get_icons_order_and_hints(served: Project, mode: str) -> None:
    async def run() -> None:
        async with Client(app.server(), mode=mode, cache=None) as client:  # type: ignore[arg-type]
            assert client.server_info is not None and client.server_info.icons is not None
            assert [i.model_dump(by_alias=True, exclude_none=True) for i in client.server_info.icons] == [LOGO]
            first, second = await client.list_tools(), await client.list_tools()
            assert [t.name for t in first.tools] == [t.name for t in second.tools] == ["getPet", "addPet", "deletePet"]
            if mode == "auto":
                assert (first.ttl_ms, first.cache_scope) == (300_000, "public")

    anyio.run(run)

"""mcpgen.toml route rules (OpenAPI operations as resources, templates or nothing), Python
functions bound to URIs, and completion of prompt arguments, through a real MCP client
over stdio in both protocol eras, against the recording upstream."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from mcp import MCPError, types
from typer.testing import CliRunner

from mcpgen.cli import app

from .projects import assert_mypy_strict_and_ruff, connect, run_cli
from .test_regenerate import spec_v1
from .upstream import Upstream

pytestmark = pytest.mark.anyio

ROUTES = '''
[[routes]]
match = { method = "GET", path = "^/pet/" }
as = "resource_template"

[[routes]]
match = { operation = "getInv*" }
as = "resource"

[[routes]]
match = { method = "DELETE" }
as = "exclude"

[[prompts]]
name = "adopt"
arguments = [{ name = "kind", required = true, values = ["cat", "dog", "cow"] }]
messages = [{ role = "user", text = "Adopt a {kind}." }]
'''

MODULE = '''
"""Inventory."""

ITEMS: dict[str, dict[str, str | int]] = {"A-1": {"name": "anvil", "qty": 3}, "B-2": {"name": "bolt", "qty": 50}}


def count(sku: str) -> int:
    """How many of SKU."""
    return int(ITEMS[sku]["qty"])


def catalogue() -> str:
    """Every SKU, one per line."""
    return "\\n".join(ITEMS)


def item(sku: str) -> dict[str, str | int]:
    """One item."""
    return ITEMS[sku]


def logo() -> bytes:
    """The shop logo."""
    return b"\\x89PNG-not-really"
'''

BINDINGS = '''
[[resources]]
function = "catalogue"
uri = "inventory://skus"

[[resources]]
function = "item"
uri = "inventory://items/{sku}"
name = "item"
title = "One item"

[[resources]]
function = "logo"
uri = "inventory://logo"
mime_type = "image/png"
'''

HOOK = '''

def complete(ref: str, argument: str, value: str, context: dict[str, str]) -> list[str] | None:
    if ref == "inventory://items/{sku}" and argument == "sku":
        return [s for s in ("A-1", "B-2") if s.startswith(value.upper())]
    return None
'''



@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("routes")
    (root / "spec.yaml").write_text(yaml.safe_dump(spec_v1()))
    run_cli("from-openapi", str(root / "spec.yaml"), "-o", str(root / "out"))
    with (root / "out" / "mcpgen.toml").open("a") as f:
        f.write(ROUTES)
    run_cli("regenerate", str(root / "out"))
    return root / "out"


@pytest.fixture(scope="module")
def inventory(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("bound")
    (root / "inventory.py").write_text(MODULE)
    run_cli("from-python", str(root / "inventory.py"), "-o", str(root / "out"))
    with (root / "out" / "mcpgen.toml").open("a") as f:
        f.write(BINDINGS)
    hooks = root / "out" / "src" / "inventory_mcp" / "hooks.py"
    text = hooks.read_text()
    hooks.write_text(text[: text.index("\n\ndef complete(")] + HOOK)  # the user's own completer
    run_cli("regenerate", str(root / "out"))
    return root / "out"



@pytest.mark.parametrize("era", ["handshake", "modern"])
async def test_route_rules_serve_operations_as_resources(shop: Path, upstream: Upstream, era: str) -> None:
    async with connect(shop, "shop_mcp", era, SHOP_BASE_URL=upstream.base_url) as client:
        tools = {t.name for t in (await client.list_tools()).tools}
        assert tools == set()  # getPetById a template, getInventory a resource, deletePet excluded
        (resource,) = (await client.list_resources()).resources
        assert str(resource.uri) == "shop://store/inventory"
        (template,) = (await client.list_resource_templates()).resource_templates
        assert template.uri_template == "shop://pet/{petId}"
        read = await client.read_resource("shop://pet/1")
        assert '"name"' in read.contents[0].text  # type: ignore[union-attr]
        prompt_ref = types.PromptReference(type="ref/prompt", name="adopt")
        done = await client.complete(prompt_ref, {"name": "kind", "value": "c"})
        assert done.completion.values == ["cat", "cow"]
        with pytest.raises(MCPError):
            await client.complete(types.PromptReference(type="ref/prompt", name="nope"), {"name": "kind", "value": ""})


@pytest.mark.parametrize("era", ["handshake", "modern"])
async def test_python_functions_bound_to_uris(inventory: Path, era: str) -> None:
    async with connect(inventory, "inventory_mcp", era) as client:
        assert {t.name for t in (await client.list_tools()).tools} == {"count"}
        resources = {str(r.uri): r for r in (await client.list_resources()).resources}
        assert set(resources) == {"inventory://skus", "inventory://logo"}
        assert resources["inventory://logo"].mime_type == "image/png"
        (template,) = (await client.list_resource_templates()).resource_templates
        assert (template.name, template.title, template.uri_template) == ("item", "One item", "inventory://items/{sku}")
        skus = await client.read_resource("inventory://skus")
        assert skus.contents[0].text == "A-1\nB-2"  # type: ignore[union-attr]
        one = await client.read_resource("inventory://items/B-2")
        assert one.contents[0].mime_type == "application/json"
        assert one.contents[0].text == '{"name": "bolt", "qty": 50}'  # type: ignore[union-attr]
        logo = await client.read_resource("inventory://logo")
        assert logo.contents[0].blob  # type: ignore[union-attr]
        with pytest.raises(MCPError, match="Resource not found"):
            await client.read_resource("inventory://items/C-3")  # KeyError in the function
        ref = types.ResourceTemplateReference(type="ref/resource", uri="inventory://items/{sku}")
        done = await client.complete(ref, {"name": "sku", "value": "b"})
        assert done.completion.values == ["B-2"]


@pytest.mark.parametrize(
    ("addition", "message"),
    [
        ('\n[[routes]]\nmatch = { method = "POST" }\nas = "resource"\n', "routes.3: matches no operation"),
        ('\n[[routes]]\nmatch = { path = "(" }\nas = "tool"\n', "routes.3.match.path: expected a regular expression"),
        ('\n[[routes]]\nmatch = { method = "GET" }\nas = "table"\n', "routes.3.as: expected"),
    ],
)
def test_route_rule_problems_are_located(shop: Path, addition: str, message: str) -> None:
    config = shop / "mcpgen.toml"
    original = config.read_text()
    try:
        config.write_text(original + addition)
        result = CliRunner().invoke(app, ["regenerate", str(shop)])
        assert message in result.stderr
        assert f"(line {len(original.splitlines()) + 2}" in result.stderr or "(line" in result.stderr
    finally:
        config.write_text(original)


def test_ineligible_route_is_an_error(shop: Path) -> None:
    config = shop / "mcpgen.toml"
    original = config.read_text()
    try:
        config.write_text(original.replace('as = "resource_template"', 'as = "resource"', 1))
        result = CliRunner().invoke(app, ["regenerate", str(shop)])
        assert result.exit_code == 1
        assert "cannot be a resource: it has path parameters; use as = \"resource_template\"" in result.stderr
    finally:
        config.write_text(original)


def test_bound_resource_uri_must_fit_the_function(inventory: Path) -> None:
    config = inventory / "mcpgen.toml"
    original = config.read_text()
    try:
        config.write_text(original.replace("inventory://items/{sku}", "inventory://items/{id}"))
        result = CliRunner().invoke(app, ["regenerate", str(inventory)])
        assert result.exit_code == 1
        assert "{id} names no parameter of item()" in result.stderr
        assert "parameter 'sku' is required but not in the URI" in result.stderr
    finally:
        config.write_text(original)


@pytest.mark.parametrize("fixture", ["shop", "inventory"])
def test_projects_pass_mypy_strict_and_ruff(fixture: str, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    assert_mypy_strict_and_ruff(request.getfixturevalue(fixture), tmp_path)

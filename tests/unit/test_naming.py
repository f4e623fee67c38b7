"""The naming rules, as tables."""

from __future__ import annotations

import re

import pytest

from mcpgen import naming
from mcpgen.naming import ToolNameRequest, assign_tool_names

COMPLIANT = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,63}$")


@pytest.mark.parametrize(
    ("wanted", "expected", "renamed"),
    [
        ("getPetById", "getPetById", False),
        ("list-pets", "list-pets", False),
        ("repos/get-content", "repos_get-content", True),
        ("get /pets/{id}", "get_pets_id", True),
        ("9lives", "op_9lives", True),
        ("__private__", "private", True),
        ("über.cool", "uber_cool", True),
        ("!!!", "tool", True),
    ],
)
def test_tool_name_cleaning(wanted: str, expected: str, renamed: bool) -> None:
    (result,) = assign_tool_names([ToolNameRequest("GET /x", wanted)])
    assert result.name == expected
    assert bool(result.reason) is renamed
    assert COMPLIANT.match(result.name)


def test_long_names_are_truncated_with_a_stable_hash_suffix() -> None:
    long = "a" * 100
    (first,) = assign_tool_names([ToolNameRequest("GET /a", long)])
    (again,) = assign_tool_names([ToolNameRequest("GET /a", long)])
    assert len(first.name) == 64 and first.name == again.name
    assert re.fullmatch(r"a{57}_[0-9a-f]{6}", first.name)
    assert "longer than 64" in first.reason


def test_collisions_do_not_depend_on_order() -> None:
    requests = [ToolNameRequest("GET /a", "get/pet"), ToolNameRequest("GET /b", "get_pet"), ToolNameRequest("GET /c", "get pet")]
    forward = {n.key: n.name for n in assign_tool_names(requests)}
    backward = {n.key: n.name for n in assign_tool_names(list(reversed(requests)))}
    assert forward == backward
    assert forward["GET /b"] == "get_pet"  # the exact name keeps it
    assert len(set(forward.values())) == 3
    assert all(COMPLIANT.match(n) for n in forward.values())


def test_adding_an_operation_never_renames_another() -> None:
    base = [ToolNameRequest(f"GET /{i}", f"op_{i}") for i in range(5)]
    before = {n.key: n.name for n in assign_tool_names(base)}
    after = {n.key: n.name for n in assign_tool_names([ToolNameRequest("GET /new", "op/3"), *base])}
    assert {k: after[k] for k in before} == before
    assert after["GET /new"].startswith("op_3_")


def test_duplicate_operation_ids_all_get_a_suffix() -> None:
    names = assign_tool_names([ToolNameRequest("GET /a", "dup"), ToolNameRequest("GET /b", "dup")])
    assert all(n.name.startswith("dup_") and "collides" in n.reason for n in names)
    assert names[0].name != names[1].name


@pytest.mark.parametrize("budget", [5, 10, 64, 128])
def test_budget_is_respected_and_names_stay_unique(budget: int) -> None:
    requests = [ToolNameRequest(f"GET /{i}", "listAllTheThings" + "x" * i) for i in range(20)]
    names = [n.name for n in assign_tool_names(requests, budget)]
    assert all(1 <= len(n) <= budget for n in names)
    assert len(set(names)) == len(names)
    assert all(re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]*", n) for n in names)


def test_a_budget_too_small_for_unique_names_is_an_error() -> None:
    requests = [ToolNameRequest(f"GET /{i}", f"op{i}") for i in range(100)]
    with pytest.raises(ValueError, match="unique names"):
        assign_tool_names(requests, 1)


def test_budget_out_of_range() -> None:
    with pytest.raises(ValueError, match="1-128"):
        assign_tool_names([], 129)


@pytest.mark.parametrize(
    ("text", "expected"),
    [("getPetById", "get_pet_by_id"), ("X-Rate-Limit", "x_rate_limit"), ("class", "class_"), ("id", "id_"),
     ("2fa", "value_2fa"), ("HTTPServer", "http_server"), ("", "value")],
)
def test_python_identifier(text: str, expected: str) -> None:
    assert naming.python_identifier(text) == expected


@pytest.mark.parametrize(
    ("title", "slug", "package", "prefix"),
    [
        ("Swagger Petstore - OpenAPI 3.0", "swagger-petstore-openapi-3-0", "swagger_petstore_openapi_3_0_mcp", "SWAGGER_PETSTORE_OPENAPI_3_0"),
        ("shelf", "shelf", "shelf_mcp", "SHELF"),
        ("Ünïcode API!", "unicode-api", "unicode_api_mcp", "UNICODE_API"),
        ("", "server", "server_mcp", "SERVER"),
    ],
)
def test_project_names(title: str, slug: str, package: str, prefix: str) -> None:
    assert naming.slug(title) == slug
    assert naming.package_name(slug) == package
    assert naming.env_prefix(slug) == prefix


@pytest.mark.parametrize(("scheme", "var"), [("apiKey", "API_KEY"), ("petstore_auth", "PETSTORE_AUTH"), ("Bearer-Auth", "BEARER_AUTH")])
def test_env_names(scheme: str, var: str) -> None:
    assert naming.env_name(scheme) == var


@pytest.mark.parametrize(
    ("name", "expected"),
    [("petId", "petId"), ("X-Request-ID", "X-Request-ID"), ("filter[status]", "filter_status"), ("a b", "a_b")],
)
def test_property_names(name: str, expected: str) -> None:
    assert naming.property_name(name) == expected


@pytest.mark.parametrize(("raw", "version"), [("1.2.0", "1.2.0"), ("v2", "2"), ("2023-01-01", "2023.1.1"), ("1.0.0-beta", "1.0.0b0"), ("latest", "0.1.0")])
def test_package_version(raw: str, version: str) -> None:
    assert naming.package_version(raw) == version


@pytest.mark.parametrize(
    ("title", "name"),
    [
        ("GitHub's official OpenAPI spec + Octokit extension", "github"),  # not github-s-official-openapi-...
        ("Swagger Petstore", "petstore"),
        ("Stripe API", "stripe"),
        ("Slack Web API", "slack"),
        ("Twilio - Intelligence", "twilio-intelligence"),
        ("OData Service for namespace microsoft.graph", "microsoft-graph"),
        ("Haryana State Board of Technical Education, Haryana", "haryana-state-board"),  # three words at most
        ("Webhooks Webhooks", "webhooks"),
        ("Petstore", "petstore"),
        ("API", "api"),  # nothing tells: the title's own slug
        ("", "server"),
        ("x" * 80, "x" * 30),
    ],
)
def test_default_server_name_is_short_and_telling(title: str, name: str) -> None:
    assert naming.default_server_name(title) == name


@pytest.mark.parametrize(
    ("module", "doc_title", "parent", "name"),
    [
        ("shop", "Anything at all.", "pkg", "shop"),  # a telling module name is kept
        ("tools", "Inventory: a small stock-keeping toolkit.", "samples", "inventory"),
        ("tools", "", "shop_pkg", "shop-pkg"),  # no docstring: its package or folder
        ("server", "The server.", "", "server"),  # nothing better: the module's own
        ("__init__", "", "billing", "billing"),
    ],
)
def test_a_generic_module_name_gives_way_to_a_telling_one(module: str, doc_title: str, parent: str, name: str) -> None:
    """`tools.py` would make `tools`, whose settings read `TOOLS_TOOLS_ALLOW`."""
    assert naming.default_module_server_name(module, doc_title, parent) == name


def test_server_settings_list_every_variable_the_runtime_reads() -> None:
    """A credential never takes a variable the server reads as a setting of its own."""
    import re
    from pathlib import Path

    import mcpgen.runtime
    from mcpgen.naming import SERVER_SETTINGS, credential_base, is_server_setting

    runtime = Path(mcpgen.runtime.__file__).parent
    text = "\n".join(p.read_text() for p in runtime.glob("*.py"))
    read = set(re.findall(r'(?:read|variable)\(\s*"([A-Z_]+)"', text)) | set(re.findall(r'prefix\}_([A-Z_]+)"', text))
    assert read and read <= SERVER_SETTINGS, read - SERVER_SETTINGS
    assert is_server_setting("P", "P_RATE_LIMIT_GETPET") and not is_server_setting("P", "P_API_KEY")
    assert credential_base("P", "api-key") == credential_base("P", "Api_Key") == "P_API_KEY"
    assert credential_base("P", "api-key", hashed=True) != credential_base("P", "Api_Key", hashed=True)

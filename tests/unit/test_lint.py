"""`mcpgen lint` and client profiles against inputs that break every client rule.

Two inputs together hit every rule: `tests/clients/every_rule.yaml` (what the generator
itself can produce: long names, recursion and `$defs`, formats, patterns, non-string enums,
additionalProperties) and RAW_TOOLS below, tools as another generator might have written
them (top-level combinators, arrays without items, names with dots, no description),
linted as a project's tools.json. Each profile's output must lint clean for its client.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from mcpgen.api import build_openapi, generate_openapi
from mcpgen.cli import app
from mcpgen.clients import lint, profiles
from mcpgen.ir import Annotations, Origin, Project, Tool
from mcpgen.options import Options
from mcpgen.rendering.render import wire_tool
from mcpgen.schema.portable_input import portable_input_schema

SPEC = Path(__file__).resolve().parents[1] / "clients" / "every_rule.yaml"
SERVER = "every-rule"
LONG = "getQuarterlyFinancialSummaryRegionalBreakdownForReport"

RAW_TOOLS: list[dict[str, Any]] = [
    {
        "name": "files.read",
        "inputSchema": {
            "type": "object",
            "anyOf": [
                {"properties": {"path": {"type": "string"}}, "required": ["path"]},
                {"properties": {"paths": {"type": "array"}}, "required": ["paths"]},
            ],
        },
    },
    {
        "name": "tag_all",
        "description": "Tag many things.",
        "inputSchema": {
            "type": "object",
            "properties": {"tags": {"type": "array"}, "when": {"type": ["string", "null"], "format": "date"}},
            "allOf": [{"required": ["tags"]}],
        },
    },
    {"name": "2fa/enable", "description": "Turn on 2FA.", "inputSchema": {"type": "object"}},
    {"name": "list_" + "very_long_" * 7 + "things", "description": "Long.", "inputSchema": {"type": "object"}},
]


def spec_tools() -> list[dict[str, Any]]:
    project, _ = build_openapi(SPEC, Options())
    return [wire_tool(t) for t in project.tools]


def rules_hit(findings: list[lint.Finding]) -> set[tuple[str, str]]:
    return {(f.client, f.rule) for f in findings}


def test_rules_are_data_with_a_check_each() -> None:
    assert set(lint.CLIENTS) == {"claude", "openai", "gemini", "cursor", "vscode"}
    for client in lint.CLIENTS.values():
        assert set(client.rules) <= set(lint.CHECKS) | {"tool-count"}, client.name
        assert all(rule.level in (lint.ERROR, lint.WARNING) for rule in client.rules.values())


def test_every_rule_of_every_client_is_hit() -> None:
    many = [{"name": f"t{i}", "description": "x", "inputSchema": {"type": "object"}} for i in range(129)]
    found = rules_hit(lint.lint_tools(spec_tools(), SERVER, list(lint.CLIENTS)))
    found |= rules_hit(lint.lint_tools(RAW_TOOLS, "acme.api", list(lint.CLIENTS)))
    found |= rules_hit(lint.lint_tools(many, SERVER, list(lint.CLIENTS)))
    expected = {(c.name, rule) for c in lint.CLIENTS.values() for rule in c.rules}
    assert expected - found == set()


def test_findings_name_the_tool_rule_and_place() -> None:
    findings = lint.lint_tools(spec_tools(), SERVER, list(lint.CLIENTS))
    by_key = {(f.client, f.tool, f.rule): f for f in findings}
    # 54 characters is fine alone, too long once Claude Code, Cursor, VS Code prefix it
    assert ("openai", LONG, "name-length") not in by_key
    assert "mcp__every-rule__" in by_key[("claude", LONG, "name-length")].message
    assert by_key[("cursor", LONG, "name-length")].level == "error"
    refs = [f.pointer for f in findings if (f.client, f.tool, f.rule) == ("gemini", "createNode", "ref")]
    assert refs == ["/properties/children/items/$ref", "/$defs/Node/properties/children/items/$ref", "/$defs"]
    assert by_key[("gemini", "searchThings", "enum-type")].pointer == "/properties/level/enum"
    assert by_key[("gemini", "searchThings", "pattern")].level == "warning"
    formats = [f for f in findings if f.client == "gemini" and f.rule == "format"]
    assert {f.message.split("'")[1] for f in formats} == {"uuid", "email"}  # date-time and double pass
    raw = lint.lint_tools(RAW_TOOLS, "acme.api", ["claude", "openai"])
    raw_keys = {(f.client, f.tool, f.rule) for f in raw}
    assert ("claude", "files.read", "top-level-combinator") in raw_keys
    assert ("claude", "tag_all", "top-level-combinator") in raw_keys
    assert ("openai", "files.read", "name-chars") in raw_keys
    assert ("claude", "tag_all", "name-chars") in raw_keys  # the prefix mcp__acme.api__ brings the dot
    assert ("openai", "files.read", "missing-description") in raw_keys
    assert ("openai", "tag_all", "array-items") in raw_keys


def test_clean_tools_pass() -> None:
    ok = {"name": "get_thing", "description": "Get a thing.", "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}}}}
    assert lint.lint_tools([ok], "srv", list(lint.CLIENTS)) == []


def _project(tools: list[dict[str, Any]]) -> Project:
    return Project(
        name="raw", package="raw_mcp", env_prefix="RAW", title="Raw", description="", version="1",
        source_kind="openapi", source_file="raw.json", base_url=None, security_schemes=(), env_vars=(),
        tools=tuple(
            Tool(
                name=t["name"], title=None, description=t.get("description", ""), input_schema=t["inputSchema"],
                output_schema=None, wraps_result=False, annotations=Annotations(), origin=Origin("raw.json"),
                python_name=f"f{i}",
            )
            for i, t in enumerate(tools)
        ),
    )


@pytest.mark.parametrize("profile", profiles.PROFILES)
def test_profile_output_relints_clean(profile: str, tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = generate_openapi(SPEC, Options(output=out, force=True, client_profile=profile))
    tools, server = lint.project_tools(out)
    assert server == SERVER
    assert lint.lint_tools(tools, server, [profile]) == []
    entries = json.loads(next(out.glob("src/*/tools.json")).read_text())
    # The source's schemas as the first pass makes them portable (the same instances accepted).
    original = {repr(portable_input_schema(wire_tool(t)["inputSchema"])) for t in build_openapi(SPEC, Options())[0].tools}
    for entry in entries:
        # Where the advertised schema differs, the full one is kept for validation.
        validation = entry.get("inputValidation", entry["tool"]["inputSchema"])
        assert repr(validation) in original
    assert result.project.client_profile == profile
    # Tools from elsewhere too (combinators, missing items, dotted names, no description).
    fixed, notes = profiles.apply(_project(RAW_TOOLS), profile)
    assert not [n for n in notes if n.level.value == "error"]
    assert lint.lint_tools([wire_tool(t) for t in fixed.tools], fixed.name, [profile]) == []


def test_profile_renames_within_the_prefix_budget() -> None:
    project, _ = build_openapi(SPEC, Options())
    fixed, notes = profiles.apply(project, "claude")
    long = next(t for t in fixed.tools if t.route is not None and "quarterly" in t.route.path)
    assert len("mcp__every-rule__" + long.name) <= 64
    assert any(LONG in n.message and long.name in n.message for n in notes)
    assert long.python_name == next(t for t in project.tools if t.name == LONG).python_name


def test_inline_refs_unrolls_recursion_then_describes() -> None:
    project, _ = build_openapi(SPEC, Options())
    node = next(t for t in project.tools if t.name == "createNode").input_schema
    inlined = profiles.inline_refs(json.loads(json.dumps(node)))
    assert "$defs" not in inlined and "$ref" not in json.dumps(inlined)
    level = inlined["properties"]["children"]["items"]  # Node, unrolled once
    level = level["properties"]["children"]["items"]  # and twice
    stand_in = level["properties"]["children"]["items"]
    assert stand_in["type"] == "object" and "Node" in stand_in["description"]
    assert "properties" not in stand_in


def test_flatten_top_level_combinators() -> None:
    schema = json.loads(json.dumps(RAW_TOOLS[0]["inputSchema"]))
    flat = profiles.flatten_top_level(schema)
    assert "anyOf" not in flat and set(flat["properties"]) == {"path", "paths"}
    assert "required" not in flat  # neither alternative's requirement holds for both
    assert "(path) | (paths)" in flat["description"]
    all_of = profiles.flatten_top_level(json.loads(json.dumps(RAW_TOOLS[1]["inputSchema"])))
    assert all_of["required"] == ["tags"]


# -- the command ---------------------------------------------------------------------

runner = CliRunner()


def test_cli_table_and_exit_code() -> None:
    done = runner.invoke(app, ["lint", str(SPEC), "--client", "claude"])
    assert done.exit_code == 1, done.output
    assert LONG in done.output and "name-length" in done.output
    assert done.output.strip().splitlines()[-1] == "4 tools, claude: 1 errors, 0 warnings"


def test_cli_json() -> None:
    done = runner.invoke(app, ["lint", str(SPEC), "--client", "gemini", "--client", "cursor", "--format", "json"])
    assert done.exit_code == 1
    report = json.loads(done.output)
    assert report["summary"]["clients"] == ["gemini", "cursor"]
    assert report["summary"]["errors"] == sum(f["level"] == "error" for f in report["findings"]) > 0
    assert {f["client"] for f in report["findings"]} == {"gemini", "cursor"}


def test_cli_project_and_clean_exit(tmp_path: Path) -> None:
    out = tmp_path / "out"
    generate_openapi(SPEC, Options(output=out, force=True, client_profile="gemini"))
    done = runner.invoke(app, ["lint", str(out), "--client", "gemini"])
    assert done.exit_code == 0, done.output
    raw = tmp_path / "tools.json"
    raw.write_text(json.dumps([{"tool": t} for t in RAW_TOOLS]))
    done = runner.invoke(app, ["lint", str(raw), "--client", "openai", "--format", "json"])
    assert done.exit_code == 1
    rules = {f["rule"] for f in json.loads(done.output)["findings"]}
    assert rules == {"name-chars", "name-length", "array-items", "missing-description"}


def test_cli_bad_input(tmp_path: Path) -> None:
    done = runner.invoke(app, ["lint", str(tmp_path)])
    assert done.exit_code == 1 and "no src/<package>/tools.json" in done.output
    done = runner.invoke(app, ["lint", str(tmp_path / "missing.yaml")])
    assert done.exit_code == 1 and "no such file" in done.output


def test_cli_python_module_and_dynamic_project(tmp_path: Path) -> None:
    samples = SPEC.parents[2] / "samples"
    done = runner.invoke(app, ["lint", str(samples / "tools.py"), "--client", "openai", "--format", "json"])
    assert done.exit_code == 0, done.output
    assert json.loads(done.output)["summary"]["tools"] == 9
    many = tmp_path / "many.json"
    paths = {f"/t{i}": {"get": {"operationId": f"t{i}", "responses": {"204": {"description": "ok"}}}} for i in range(41)}
    many.write_text(json.dumps({"openapi": "3.0.3", "info": {"title": "Many", "version": "1"}, "paths": paths}))
    static, dynamic = tmp_path / "static", tmp_path / "dynamic"
    generate_openapi(many, Options(output=static, force=True))
    generate_openapi(many, Options(output=dynamic, force=True, tool_mode="dynamic"))
    assert runner.invoke(app, ["lint", str(static), "--client", "cursor"]).exit_code == 1
    done = runner.invoke(app, ["lint", str(dynamic), "--client", "cursor"])
    assert done.exit_code == 0 and "dynamic tool mode" in done.output

"""The tests a generated project ships: `tests/` beside `src/`, run with `pytest` there.

Test code is fixed templates (`templates/tests/`); what varies per project is data,
emitted as `tests/tool_cases.json`: per tool, arguments synthesised from its inputSchema
(or null when none can be built with confidence), arguments the schema rejects, and for
OpenAPI tools the HTTP route and the canned answer the test's stub upstream serves.
"""

from __future__ import annotations

import base64
from typing import Any

from mcpgen.ir import Project, Tool
from mcpgen.schema.instances import Unsynthesisable, invalid_arguments, minimal_instance

DATA_FILE = "tests/tool_cases.json"
CREDENTIAL = "test-credential"  # the value every credential env var gets in the tests

# output path -> template under templates/tests/, per source kind
_COMMON = {"tests/__init__.py": "tests/__init__.py.j2", "tests/conftest.py": "tests/conftest.py.j2",
           "tests/test_tools_list.py": "tests/test_tools_list.py.j2", DATA_FILE: "tests/tool_cases.json.j2"}
_BY_KIND = {"openapi": {"tests/test_contract.py": "tests/test_contract.py.j2",
                        "tests/stub_upstream.py": "tests/stub_upstream.py.j2"},
            "python": {"tests/test_smoke.py": "tests/test_smoke.py.j2"}}


def test_templates(project: Project) -> dict[str, str]:
    """Output path -> template for the project's tests."""
    return {**_COMMON, **_BY_KIND[project.source_kind]}


def tool_cases(project: Project) -> dict[str, Any]:
    """The data `tests/tool_cases.json` holds; sorted by tool name, so it is deterministic."""
    return {
        "envPrefix": project.env_prefix,
        "credentials": {var.name: CREDENTIAL for var in project.env_vars if var.secret},
        "tools": [_case(tool) for tool in sorted(project.tools, key=lambda t: t.name)],
    }


def _case(tool: Tool) -> dict[str, Any]:
    try:
        arguments: dict[str, Any] | None = minimal_instance(tool.input_schema)
    except Unsynthesisable:
        arguments = None
    case: dict[str, Any] = {
        "name": tool.name,
        "arguments": arguments,
        "invalidArguments": invalid_arguments(tool.input_schema, arguments),
        "readOnly": bool(tool.annotations.read_only),
    }
    if tool.route is not None:
        case["http"] = {"method": tool.route.method, "path": tool.route.path}
        case["response"] = _canned_response(tool)
    return case


def _canned_response(tool: Tool) -> dict[str, Any] | None:
    """What the stub upstream answers for this tool: status, content type, body (JSON
    value or base64 bytes). None when no response fitting the outputSchema can be built."""
    if tool.route is None:
        raise ValueError(f"{tool.name}: a canned upstream response needs an HTTP tool")
    kind = tool.route.response_kind
    if tool.output_schema is not None:
        # A wrapped result of any value (`{}`, a ref left unresolved, `--output-schemas object`)
        # has no `result` property.
        schema = tool.output_schema.get("properties", {}).get("result", {}) if tool.wraps_result else tool.output_schema
        try:
            value = minimal_instance(schema, root=tool.output_schema)
        except Unsynthesisable:
            return None
        return {"status": 200, "contentType": "application/json", "json": value}
    if kind == "empty":
        return {"status": 204, "contentType": "", "base64": ""}
    if kind == "json":
        return {"status": 200, "contentType": "application/json", "json": {}}
    if kind == "text":
        return {"status": 200, "contentType": "text/plain; charset=utf-8", "base64": _b64(b"stub answer")}
    return {"status": 200, "contentType": "application/octet-stream", "base64": _b64(b"\x00stub\xff")}


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")

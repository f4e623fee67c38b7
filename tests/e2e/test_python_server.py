"""End to end, from-python: generate a server from Python code, run it, call every tool.

`samples/tools.py` (a FILE target, copied into the package) is generated once per module
and served over stdio from a directory without `samples/`, with only `<out>/src` on
PYTHONPATH: the copy alone must make it run. A small package written to tmp (a MODULE
target, imported by name) is served the same way; it also shows where sync functions run.

Every test runs against two clients, each with its own server process (and so its own
in-memory inventory): `ClientSession` + `initialize()` (the handshake era, 2025-11-25)
and `mcp.Client` in its default auto mode (2026-07-28). Both clients check
structuredContent against the listed outputSchema; the tests check it again themselves.
Tests share a server's inventory, so each uses its own SKUs and item names.
"""

from __future__ import annotations

import json
import os
import re
import sys
import textwrap
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import anyio
import jsonschema
import pytest
from mcp import Client, ClientSession, MCPError, StdioServerParameters, stdio_client, types
from mcp.client.stdio import get_default_environment
from mcp.shared.tool_name_validation import validate_tool_name

from mcpgen.api import Result, generate_python
from mcpgen.diagnostics import Level
from mcpgen.options import Options

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "samples" / "tools.py"
SAMPLE_PACKAGE = "inventory_mcp"

CLIENT_KINDS = ("handshake", "modern")
# Not a speed limit: a request unanswered this long means the server died or hung, and
# the test should fail rather than wait forever. Calls take milliseconds.
HANG_GUARD = 120.0
EXPECTED_VERSION = {"handshake": "2025-11-25", "modern": "2026-07-28"}

SAMPLE_TOOLS = [
    "add_item",
    "find_items",
    "adjust_stock",
    "move_item",
    "low_stock",
    "tag_items",
    "place_order",
    "remove_item",
    "export_items",
]
# Tools whose result is not an object: served as {"result": value}.
WRAPPED = {"find_items", "adjust_stock", "low_stock", "tag_items"}  # export_items returns str: plain text

# The MODULE target: a package importable by name, never copied into the output.
MODULE_FILES = {
    "stockroom/__init__.py": '"""Stockroom helpers."""\n',
    "stockroom/shifts.py": '''\
        """Shift board: who works when, and a probe of where tool functions run."""

        from __future__ import annotations

        import enum
        import sys
        import threading

        from pydantic import BaseModel

        _waiting = threading.Event()
        _released = threading.Event()


        class Shift(enum.Enum):
            EARLY = 1
            LATE = 2


        class Held(BaseModel):
            released: bool
            thread: int


        def shift_name(shift: Shift) -> str:
            """The name of a shift.

            Args:
                shift: Which shift.
            """
            if not isinstance(shift, Shift):
                raise TypeError(f"got {type(shift).__name__}, not Shift")
            return shift.name


        def hold(timeout: float = 60.0) -> Held:
            """Block until `release` is called (at most TIMEOUT seconds).

            Args:
                timeout: Seconds to wait for `release`.
            """
            _waiting.set()
            released = _released.wait(timeout)
            return Held(released=released, thread=threading.get_ident())


        def release(timeout: float = 60.0) -> bool:
            """Let `hold` return, once it is waiting; true if it was.

            Args:
                timeout: Seconds to wait for `hold` to start.
            """
            seen = _waiting.wait(timeout)
            _released.set()
            return seen


        async def loop_thread() -> int:
            """The id of the thread that runs the event loop (async tools run there)."""
            return threading.get_ident()


        def close_board(code: int = 0) -> None:
            """Ends the process, as command-line code does.

            Args:
                code: The exit status.
            """
            sys.exit(code)
        ''',
}
MODULE_PACKAGE = "shifts_mcp"

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


# -- generation ----------------------------------------------------------------


@dataclass
class Generated:
    out: Path  # the output dir (pyproject.toml, src/)
    package: str
    result: Result
    pythonpath: list[Path]  # what the server needs on PYTHONPATH


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Generated:
    """samples/tools.py generated once (a file target: copied into the package)."""
    out = tmp_path_factory.mktemp("py-generated") / "tools-mcp"
    result = generate_python(str(SAMPLE), Options(output=out, force=True))
    return Generated(out, SAMPLE_PACKAGE, result, [out / "src"])


@pytest.fixture(scope="module")
def module_target(tmp_path_factory: pytest.TempPathFactory) -> Generated:
    """`stockroom.shifts`, imported by name from a tmp dir on sys.path and on PYTHONPATH."""
    root = tmp_path_factory.mktemp("py-module-root")
    for relative, text in MODULE_FILES.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(textwrap.dedent(text))
    out = tmp_path_factory.mktemp("py-module-generated") / "shifts-mcp"
    with pytest.MonkeyPatch.context() as mp:
        mp.syspath_prepend(str(root))
        result = generate_python("stockroom.shifts", Options(output=out, force=True))
    assert "stockroom" not in sys.modules  # the generator cleaned up after its import
    return Generated(out, MODULE_PACKAGE, result, [out / "src", root])


# -- servers and clients -------------------------------------------------------


@dataclass
class Conn:
    """A connected client of either API, with the tools it listed."""

    kind: str
    session: Any  # ClientSession or Client: both have list_tools / call_tool
    protocol_version: str
    log: Path  # the server's stderr
    tools: dict[str, types.Tool] = field(default_factory=dict)

    async def call(self, name: str, arguments: dict[str, Any] | None = None) -> types.CallToolResult:
        result: types.CallToolResult = await self.session.call_tool(name, arguments or {})
        return result


def _params(generated: Generated, cwd: Path) -> StdioServerParameters:
    env = dict(get_default_environment())  # nothing of the test's own env leaks in
    env["PYTHONPATH"] = os.pathsep.join(str(p) for p in generated.pythonpath)
    env["PYTHONUNBUFFERED"] = "1"
    return StdioServerParameters(command=sys.executable, args=["-m", generated.package], env=env, cwd=cwd)


@asynccontextmanager
async def _connect(kind: str, generated: Generated, cwd: Path, log: Path) -> AsyncIterator[Conn]:
    params = _params(generated, cwd)
    with log.open("w") as errlog:
        if kind == "handshake":
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write, read_timeout_seconds=HANG_GUARD) as session,
            ):
                init = await session.initialize()
                listed = await session.list_tools()
                yield Conn(kind, session, init.protocol_version, log, {t.name: t for t in listed.tools})
        else:
            async with Client(
                stdio_client(params, errlog=errlog), cache=None, read_timeout_seconds=HANG_GUARD
            ) as client:
                listed = await client.list_tools()
                yield Conn(kind, client, str(client.protocol_version), log, {t.name: t for t in listed.tools})


def _server_fixture(generated_fixture: str, kind: str) -> Any:
    """A module-scoped fixture `<generated_fixture>_<kind>`: one server process, one client."""

    @pytest.fixture(scope="module", name=f"{generated_fixture}_{kind}")
    async def connection(
        request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
    ) -> AsyncIterator[Conn]:
        generated: Generated = request.getfixturevalue(generated_fixture)
        cwd = tmp_path_factory.mktemp("empty-cwd")  # no samples/, no copy of the module
        # conftest's log_dir: its report hook shows these logs when a test fails.
        log = request.getfixturevalue("log_dir") / f"python-{generated_fixture}-{kind}.log"
        async with _connect(kind, generated, cwd, log) as conn:
            yield conn

    return connection


sample_handshake = _server_fixture("sample", "handshake")
sample_modern = _server_fixture("sample", "modern")
module_target_handshake = _server_fixture("module_target", "handshake")
module_target_modern = _server_fixture("module_target", "modern")


@pytest.fixture(params=CLIENT_KINDS)
def inv(request: pytest.FixtureRequest) -> Conn:
    """The sample's server, once per client kind."""
    conn: Conn = request.getfixturevalue(f"sample_{request.param}")
    return conn


@pytest.fixture(params=CLIENT_KINDS)
def shifts(request: pytest.FixtureRequest) -> Conn:
    """The module target's server, once per client kind."""
    conn: Conn = request.getfixturevalue(f"module_target_{request.param}")
    return conn


# -- result checks -------------------------------------------------------------


async def ok(conn: Conn, name: str, arguments: dict[str, Any] | None = None) -> Any:
    """Call a tool that must succeed; return its value (unwrapped) after checking the shapes."""
    result = await conn.call(name, arguments)
    text = _text(result)
    assert not result.is_error, text
    tool = conn.tools[name]
    if tool.output_schema is None:
        assert result.structured_content is None
        return text
    value = json.loads(text)  # the text content mirrors the structured content
    jsonschema.Draft202012Validator(tool.output_schema).validate(result.structured_content)
    if name in WRAPPED:
        assert result.structured_content == {"result": value}
    else:
        assert result.structured_content == value
    return value


async def fails(conn: Conn, name: str, arguments: dict[str, Any] | None = None) -> str:
    """Call a tool that must return a tool error; return the error text."""
    result = await conn.call(name, arguments)
    assert result.is_error, result
    text = _text(result)
    assert "Traceback" not in text and 'File "' not in text, text
    return text


def _text(result: types.CallToolResult) -> str:
    assert len(result.content) == 1 and isinstance(result.content[0], types.TextContent), result.content
    return result.content[0].text


async def names_of(conn: Conn, text: str) -> list[str]:
    return [item["sku"] for item in await ok(conn, "find_items", {"text": text})]


# -- generation ----------------------------------------------------------------


def test_generation_reports_only_the_skipped_function(sample: Generated) -> None:
    diagnostics = [(d.level, d.message) for d in sample.result.diagnostics if d.level is not Level.INFO]
    assert len(diagnostics) == 1
    level, message = diagnostics[0]
    assert level is Level.WARNING and "'restock'" in message and "*args" in message
    src = sample.out / "src" / SAMPLE_PACKAGE
    assert (src / "source" / "tools.py").read_text() == SAMPLE.read_text()  # the copy the server runs


def test_module_target_is_imported_by_name_not_copied(module_target: Generated) -> None:
    src = module_target.out / "src" / MODULE_PACKAGE
    assert not (src / "source").exists()
    assert "'stockroom.shifts'" in (src / "project.py").read_text().replace('"', "'")


# -- tools/list ------------------------------------------------------------------


async def test_protocol_era(inv: Conn) -> None:
    assert inv.protocol_version == EXPECTED_VERSION[inv.kind]


async def test_tool_names(inv: Conn) -> None:
    listed = await inv.session.list_tools()
    names = [t.name for t in listed.tools]
    assert names == SAMPLE_TOOLS  # source order; `restock(*skus)` is skipped
    assert "restock" not in names
    for name in names:
        assert re.fullmatch(r"[A-Za-z0-9_-]{1,64}", name), name
        assert validate_tool_name(name).is_valid and not validate_tool_name(name).warnings, name


async def test_every_input_schema_is_a_valid_object_schema(inv: Conn) -> None:
    for tool in inv.tools.values():
        jsonschema.Draft202012Validator.check_schema(tool.input_schema)
        assert tool.input_schema["type"] == "object", tool.name
        assert tool.input_schema.get("additionalProperties") is False, tool.name
        assert tool.description, tool.name
        if tool.output_schema is not None:
            jsonschema.Draft202012Validator.check_schema(tool.output_schema)
            assert tool.output_schema["type"] == "object", tool.name  # handshake-era clients need it


async def test_input_schema_types_defaults_and_constraints(inv: Conn) -> None:
    add = inv.tools["add_item"].input_schema
    assert add["required"] == ["sku", "name", "category"]
    props = add["properties"]
    assert props["sku"]["pattern"] == r"^[A-Z]{3}-\d{4}$"
    assert props["name"]["minLength"] == 1 and props["name"]["maxLength"] == 80
    assert props["quantity"]["minimum"] == 0 and props["quantity"]["default"] == 0
    # pydantic's $defs, inlined (none is recursive): frameworks' strict converters refuse a bare $ref
    assert "$defs" not in add
    assert props["category"]["enum"] == ["tools", "parts", "supplies"]  # Enum
    assert props["category"]["description"] == "What kind of item this is."
    assert {"type": "null"} in props["tags"]["anyOf"]  # X | None
    location = next(s for s in props["location"]["anyOf"] if s.get("type") == "object")
    assert location["required"] == ["warehouse"]  # dataclass
    dimensions = next(s for s in props["dimensions"]["anyOf"] if s.get("type") == "object")
    assert dimensions["required"] == ["width", "height", "depth"]  # TypedDict

    find = inv.tools["find_items"].input_schema
    assert find["required"] == []  # every parameter has a default
    assert find["properties"]["sort"]["enum"] == ["name", "quantity", "updated"]  # Literal
    assert find["properties"]["tags"]["uniqueItems"] is True  # frozenset
    assert find["properties"]["limit"]["minimum"] == 1 and find["properties"]["limit"]["maximum"] == 100

    order = inv.tools["place_order"].input_schema["properties"]
    assert order["quantity"]["exclusiveMinimum"] == 0 and order["quantity"]["default"] == 10
    deliver = next(s for s in order["deliver_to"]["anyOf"] if s.get("type") == "array")
    assert deliver["prefixItems"] == [{"type": "string"}, {"type": "integer"}]  # tuple[str, int]

    tag = inv.tools["tag_items"].input_schema["properties"]
    assert tag["skus"]["uniqueItems"] is True and tag["skus"]["type"] == "array"  # set
    assert tag["tags"]["items"] == {"type": "string"}  # tuple[str, ...]
    assert inv.tools["low_stock"].input_schema["properties"]["thresholds"]["additionalProperties"] == {
        "type": "integer"
    }  # dict[str, int]


async def test_parameter_descriptions_come_from_docstrings(inv: Conn) -> None:
    def described(tool: str, parameter: str) -> str:
        return str(inv.tools[tool].input_schema["properties"][parameter]["description"])

    assert described("add_item", "name") == "Display name."  # Google style
    assert described("add_item", "sku") == "Stock unit, e.g. BOL-0001."  # the Field description wins
    assert described("find_items", "text") == "Case-insensitive text to look for in names."  # numpy style
    assert described("adjust_stock", "delta") == "Units received (positive) or taken (negative)."  # reST
    description = inv.tools["add_item"].description or ""
    assert description.startswith("Add an item to the inventory") and "Args:" not in description


async def test_output_schemas(inv: Conn) -> None:
    item = inv.tools["add_item"].output_schema
    assert item is not None and item["title"] == "Item" and "result" not in item["properties"]
    assert item["properties"]["updated_at"]["description"] == "Format: date-time"  # named, never asserted
    for name in WRAPPED:
        wrapped = inv.tools[name].output_schema
        assert wrapped is not None and wrapped["required"] == ["result"], name
    found = inv.tools["find_items"].output_schema
    assert found is not None and found["properties"]["result"] == {"items": {"$ref": "#/$defs/Item"}, "type": "array"}
    assert inv.tools["export_items"].output_schema is None  # -> str: the text is the result
    assert inv.tools["remove_item"].output_schema is None  # -> None


# -- calls -------------------------------------------------------------------------


async def test_required_only_call_applies_the_defaults(inv: Conn) -> None:
    item = await ok(inv, "add_item", {"sku": "DEF-0001", "name": "Default widget", "category": "tools"})
    assert item["quantity"] == 0 and item["tags"] == [] and item["location"] is None and item["dimensions"] is None
    assert item["category"] == "tools"  # an Enum member goes out as its value
    updated = datetime.fromisoformat(item["updated_at"])  # a datetime goes out as ISO 8601
    assert updated.tzinfo is not None


async def test_every_argument_kind_arrives_typed(inv: Conn) -> None:
    item = await ok(
        inv,
        "add_item",
        {
            "sku": "ALL-0001",
            "name": "Full bolt",
            "category": "parts",
            "quantity": 7,
            "tags": ["steel", "m8", "steel"],  # list
            "location": {"warehouse": "north", "bins": ["b2"]},  # dataclass, aisle defaulted
            "dimensions": {"width": 1.5, "height": 2, "depth": 0.5},  # TypedDict
        },
    )
    assert item["quantity"] == 7
    assert item["tags"] == ["m8", "steel"]
    assert item["location"] == {"warehouse": "north", "aisle": 1, "bins": ["b2"]}
    assert item["dimensions"] == {"width": 1.5, "height": 2.0, "depth": 0.5}


async def test_enum_and_literal_arguments(inv: Conn) -> None:
    await ok(inv, "add_item", {"sku": "ENU-0001", "name": "Enum saw", "category": "tools", "quantity": 3})
    await ok(inv, "add_item", {"sku": "ENU-0002", "name": "Enum nail", "category": "parts", "quantity": 9})
    await ok(inv, "add_item", {"sku": "ENU-0003", "name": "Enum glue", "category": "supplies", "quantity": 1})
    # find_items compares `item.category is category`: only an Enum member matches.
    parts = await ok(inv, "find_items", {"text": "enum", "category": "parts"})
    assert [i["sku"] for i in parts] == ["ENU-0002"]
    # None is accepted for an Optional argument, and means "any".
    every = await ok(inv, "find_items", {"text": "enum", "category": None})
    assert [i["sku"] for i in every] == ["ENU-0003", "ENU-0002", "ENU-0001"]  # sort="name" by default
    by_quantity = await ok(inv, "find_items", {"text": "enum", "sort": "quantity", "limit": 2})
    assert [i["sku"] for i in by_quantity] == ["ENU-0003", "ENU-0001"]
    assert "sort" in await fails(inv, "find_items", {"sort": "price"})
    assert "category" in await fails(inv, "find_items", {"category": "food"})


async def test_set_tuple_and_frozenset_arguments(inv: Conn) -> None:
    await ok(inv, "add_item", {"sku": "TAG-0001", "name": "Tagged one", "category": "tools", "tags": ["old"]})
    await ok(inv, "add_item", {"sku": "TAG-0002", "name": "Tagged two", "category": "tools"})
    changed = await ok(inv, "tag_items", {"skus": ["TAG-0002", "TAG-0001"], "tags": ["red", "big"]})
    assert changed == ["TAG-0001", "TAG-0002"]
    found = await ok(inv, "find_items", {"text": "tagged", "tags": ["big", "old"]})  # frozenset: every tag
    assert [(i["sku"], i["tags"]) for i in found] == [("TAG-0001", ["big", "old", "red"])]
    await ok(inv, "tag_items", {"skus": ["TAG-0001"], "tags": ["new"], "replace": True})
    assert (await ok(inv, "find_items", {"text": "tagged one"}))[0]["tags"] == ["new"]
    assert "skus" in await fails(inv, "tag_items", {"skus": "TAG-0001", "tags": []})


async def test_dataclass_argument_arrives_as_the_dataclass(inv: Conn) -> None:
    await ok(inv, "add_item", {"sku": "MOV-0001", "name": "Moved crate", "category": "supplies"})
    # move_item calls dataclasses.replace(to, ...) and reads to.bins: a dict would fail.
    item = await ok(
        inv, "move_item", {"sku": "MOV-0001", "to": {"warehouse": "south", "aisle": 4, "bins": ["c", "a", "c"]}}
    )
    assert item["location"] == {"warehouse": "south", "aisle": 4, "bins": ["a", "c"]}
    assert "to.warehouse" in await fails(inv, "move_item", {"sku": "MOV-0001", "to": {"aisle": 2}})


async def test_optional_argument_and_wrapped_int_result(inv: Conn) -> None:
    await ok(inv, "add_item", {"sku": "ADJ-0001", "name": "Adjusted", "category": "parts", "quantity": 2})
    assert await ok(inv, "adjust_stock", {"sku": "ADJ-0001", "delta": 5}) == 7
    assert await ok(inv, "adjust_stock", {"sku": "ADJ-0001", "delta": -3, "reason": "sold"}) == 4
    assert await ok(inv, "adjust_stock", {"sku": "ADJ-0001", "delta": 0, "reason": None}) == 4


async def test_dict_argument_and_result(inv: Conn) -> None:
    await ok(inv, "add_item", {"sku": "LOW-0001", "name": "Low one", "category": "parts", "quantity": 2})
    await ok(inv, "add_item", {"sku": "LOW-0002", "name": "Low two", "category": "parts", "quantity": 8})
    low = await ok(inv, "low_stock", {"thresholds": {"LOW-0002": 10}})
    assert low["LOW-0001"] == 2 and low["LOW-0002"] == 8  # default threshold 5, own threshold 10
    low = await ok(inv, "low_stock", {"thresholds": {"LOW-0001": 1}, "default_threshold": 0})
    assert "LOW-0001" not in low and "LOW-0002" not in low
    assert "thresholds.LOW-0001" in await fails(inv, "low_stock", {"thresholds": {"LOW-0001": "many"}})


async def test_async_function_is_awaited(inv: Conn) -> None:
    await ok(inv, "add_item", {"sku": "ORD-0001", "name": "Ordered", "category": "tools"})
    order = await ok(inv, "place_order", {"sku": "ORD-0001", "supplier": "Acme"})
    assert order == {"sku": "ORD-0001", "supplier": "Acme", "quantity": 10, "status": "sent", "deliver_to": None}
    await ok(inv, "move_item", {"sku": "ORD-0001", "to": {"warehouse": "east", "aisle": 3}})
    order = await ok(inv, "place_order", {"sku": "ORD-0001", "supplier": "Acme", "quantity": 1000})
    assert order["quantity"] == 1000 and order["deliver_to"] == ["east", 3]  # a tuple goes out as an array
    order = await ok(inv, "place_order", {"sku": "ORD-0001", "supplier": "Acme", "deliver_to": ["west", 9]})
    assert order["deliver_to"] == ["west", 9]
    assert "quantity" in await fails(inv, "place_order", {"sku": "ORD-0001", "supplier": "Acme", "quantity": 0})
    assert "deliver_to" in await fails(inv, "place_order", {"sku": "ORD-0001", "supplier": "Acme", "deliver_to": ["w"]})
    text = await fails(inv, "place_order", {"sku": "ORD-9999", "supplier": "Acme"})
    assert text == "UnknownItem: no item with SKU ORD-9999"  # raised inside the coroutine


async def test_none_result_has_no_structured_content(inv: Conn) -> None:
    await ok(inv, "add_item", {"sku": "DEL-0001", "name": "Deleted thing", "category": "tools"})
    assert await ok(inv, "remove_item", {"sku": "DEL-0001"}) == "Done."
    assert await names_of(inv, "deleted thing") == []


async def test_str_result_is_the_text(inv: Conn) -> None:
    await ok(inv, "add_item", {"sku": "EXP-0001", "name": "Exported", "category": "tools", "quantity": 4})
    document = await ok(inv, "export_items")
    assert isinstance(document, str)
    exported = {i["sku"]: i for i in json.loads(document)}
    assert exported["EXP-0001"]["quantity"] == 4 and exported["EXP-0001"]["category"] == "tools"


# -- errors --------------------------------------------------------------------------


async def test_exception_becomes_a_tool_error_without_traceback(inv: Conn) -> None:
    assert await fails(inv, "adjust_stock", {"sku": "NON-0001", "delta": 1}) == "UnknownItem: no item with SKU NON-0001"
    await ok(inv, "add_item", {"sku": "EXC-0001", "name": "Scarce", "category": "parts", "quantity": 3})
    text = await fails(inv, "adjust_stock", {"sku": "EXC-0001", "delta": -4})
    assert text == "ValueError: only 3 units of EXC-0001 on hand"
    assert (await ok(inv, "find_items", {"text": "scarce"}))[0]["quantity"] == 3  # unchanged
    log = inv.log.read_text()
    assert "Traceback" in log and "ValueError: only 3 units" in log  # the traceback goes to the server's log
    # ...and names the copy inside the generated package: the server never saw samples/.
    assert "/src/inventory_mcp/source/tools.py" in log and "samples/tools.py" not in log


@pytest.mark.parametrize(
    ("arguments", "field_name"),
    [
        ({"quantity": -1}, "quantity"),  # Field(ge=0)
        ({"name": "x" * 81}, "name"),  # Field(max_length=80)
        ({"name": ""}, "name"),  # Field(min_length=1)
        ({"sku": "bad"}, "sku"),  # the pattern of the Sku alias
        ({"category": None}, "category"),  # required, not Optional
        ({"tags": "steel"}, "tags"),
        ({"location": {"warehouse": "n", "aisle": "first"}}, "location.aisle"),  # inside the dataclass
        ({"location": {"warehouse": "n", "shelf": 2}}, "location.shelf"),  # unknown dataclass field
        ({"dimensions": {"width": 1, "height": 1}}, "dimensions.depth"),  # TypedDict key missing
        ({"colour": "red"}, "colour"),  # not a parameter
        ({"quantity": "5"}, "quantity"),  # the schema says integer: no lax coercion
        ({"quantity": 2.5}, "quantity"),
    ],
)
async def test_invalid_arguments_name_the_field_and_change_nothing(
    inv: Conn, arguments: dict[str, Any], field_name: str
) -> None:
    call = {"sku": "BAD-0001", "name": "Rejected", "category": "tools", **arguments}
    text = await fails(inv, "add_item", call)
    assert text.startswith("Invalid arguments:\n"), text
    assert re.search(rf"^{re.escape(field_name)}: ", text, re.MULTILINE), text
    assert await names_of(inv, "rejected") == []  # the function never ran


async def test_missing_required_argument(inv: Conn) -> None:
    text = await fails(inv, "add_item", {"sku": "MIS-0001", "name": "Missing"})
    assert re.search(r"^category: Field required", text, re.MULTILINE), text
    assert await names_of(inv, "missing") == []


async def test_unknown_tool_is_a_protocol_error(inv: Conn) -> None:
    with pytest.raises(MCPError) as raised:
        await inv.call("restock", {"skus": ["AAA-0001"]})
    assert raised.value.code == types.INVALID_PARAMS
    assert "restock" in str(raised.value)


# -- the module target ----------------------------------------------------------------


async def test_module_target_tools(shifts: Conn) -> None:
    assert shifts.protocol_version == EXPECTED_VERSION[shifts.kind]
    assert list(shifts.tools) == ["shift_name", "hold", "release", "loop_thread", "close_board"]
    schema = shifts.tools["shift_name"].input_schema
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["properties"]["shift"]["enum"] == [1, 2]  # its $defs entry, inlined
    assert schema["properties"]["shift"]["description"] == "Which shift."


async def test_enum_argument_arrives_as_the_member(shifts: Conn) -> None:
    result = await shifts.call("shift_name", {"shift": 2})
    assert not result.is_error and result.structured_content is None
    assert _text(result) == "LATE"
    assert "shift" in await fails(shifts, "shift_name", {"shift": 3})


async def test_sync_function_runs_off_the_event_loop(shifts: Conn) -> None:
    """`hold` blocks until `release` runs: that can only happen if `hold` blocks a worker
    thread, not the event loop that must still receive and dispatch `release`."""
    held: dict[str, Any] = {}

    async def call_hold() -> None:
        result = await shifts.call("hold", {"timeout": 30})
        assert not result.is_error, _text(result)
        held.update(result.structured_content or {})

    async with anyio.create_task_group() as tg:
        tg.start_soon(call_hold)
        released = await shifts.call("release", {"timeout": 30})
        assert not released.is_error and released.structured_content == {"result": True}  # hold was waiting
    assert held["released"] is True  # and returned because of release, not its timeout
    loop = await shifts.call("loop_thread")
    assert loop.structured_content is not None
    assert held["thread"] != loop.structured_content["result"]  # async on the loop, sync on a worker


async def test_sys_exit_in_a_function_is_a_tool_error(shifts: Conn) -> None:
    """`sys.exit()` in a tool fails that call; the server keeps serving every client."""
    assert await fails(shifts, "close_board", {"code": 3}) == "FunctionExited: the function called sys.exit(3)"
    result = await shifts.call("shift_name", {"shift": 1})
    assert _text(result) == "EARLY"

"""Protocol fuzzing: malformed and hostile JSON-RPC messages and tool arguments, sent as raw bytes to
the generated petstore server over stdio (newline-delimited JSON-RPC to `python -m petstore_mcp`, after
a handshake-era initialize) and over streamable HTTP (raw POSTs to /mcp), against a real upstream on
127.0.0.1.

Properties: the server never crashes (the process is alive and answers a well-formed tools/list after
every message), never hangs (each message is followed within HARNESS_TIMEOUT by the answers it calls
for: a harness timeout, not a performance assertion), every response is valid JSON-RPC (a result or an
error) and every well-formed request with an id gets one with that id, and its memory stays bounded
(VmRSS from /proc/<pid>/status after the run, against the figure after the first tools/list).

Settings on each test (`HYPOTHESIS_PROFILE=long` runs many more examples), as in
tests/property/test_generated_properties.py; no profile is loaded.
"""

from __future__ import annotations

import base64
import contextlib
import http.client
import json
import os
import queue
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, event, given, settings
from hypothesis import strategies as st
from hypothesis.control import currently_in_test_context

from mcpgen.api import generate_openapi
from mcpgen.options import OperationFilter, Options
from tests.e2e.conftest import PACKAGE, PETSTORE, http_process, shared_env
from tests.e2e.upstream import Upstream

HARNESS_TIMEOUT = 30.0  # seconds for each message's answers; only a hang exceeds it
RSS_GROWTH_BOUND_KB = 300 * 1024
TOOLS = (
    "addPet", "updatePet", "findPetsByStatus", "findPetsByTags", "getPetById", "deletePet", "getPetPhoto",
    "addPetNote", "getInventory", "placeOrder", "getOrderById", "getCategory", "resetStore",
)  # fmt: skip
ARGUMENT_NAMES = (
    "name", "category", "photoUrls", "tags", "status", "birthday", "limit", "petId", "X-Reason", "body",
    "quantity", "shipDate", "complete", "orderId", "id", "confirm",
)  # fmt: skip
HANDSHAKE = "2025-06-18"
MODERN = "2026-07-28"
MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientInfo": {"name": "fuzz", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {},
}

_HEALTH = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture]
# The servers are shared by every example: once one breaks, shrinking only replays the breakage.
_NO_SHRINK = [Phase.explicit, Phase.reuse, Phase.generate]
_PROFILES = {
    "default": settings(max_examples=60, deadline=None, suppress_health_check=_HEALTH, phases=_NO_SHRINK),
    "long": settings(max_examples=1000, deadline=None, suppress_health_check=_HEALTH, phases=_NO_SHRINK),
}
_PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "default")
if _PROFILE not in _PROFILES:
    raise ValueError(f"HYPOTHESIS_PROFILE={_PROFILE!r}: expected one of {', '.join(_PROFILES)}")
_SETTINGS = _PROFILES[_PROFILE]


# -- strategies ----------------------------------------------------------------------


_NASTY = [
    "NaN", "Infinity", "-Infinity", "1e999", "-0", "0x10", "null", "true", "", " ", "\x00", "\x1b[2J",
    "\u2028", "\u202e", "\ufeff", "\ud800", "\udfff", "../../etc/passwd", "%00", "%2e%2e/", "{{7*7}}",
    "' OR 1=1 --", "\r\nX-Injected: 1", "日本語", "🐾" * 50,
]  # fmt: skip
any_text = st.text(alphabet=st.characters(codec=None), max_size=40)  # control characters and lone surrogates
nasty = st.one_of(st.sampled_from(_NASTY), any_text)
huge_string = st.sampled_from([10_000, 100_000, 1_000_000]).map(lambda n: "A" * n)
huge_int = st.one_of(st.integers(), st.integers(-(2**300), 2**300), st.sampled_from([2**63, -(2**63) - 1, 2**64]))
scalars = st.one_of(
    st.none(), st.booleans(), huge_int, st.floats(allow_nan=False, allow_infinity=False), nasty
)


@st.composite
def deep(draw: st.DrawFn) -> Any:
    """A value nested up to 150 lists or objects deep: within the SDK's JSON parser's limit (pydantic-core
    stops at about 200 levels; `raw()` sends deeper messages, which are then invalid JSON)."""
    value: Any = draw(scalars)
    for _ in range(draw(st.integers(1, 150))):
        value = [value] if draw(st.booleans()) else {draw(st.sampled_from(["a", "", "petId"])): value}
    return value


json_values = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(nasty, inner, max_size=4), max_leaves=12
)
values = st.one_of(json_values, deep(), huge_string)
ids = st.one_of(
    st.integers(-(2**31), 2**31), huge_int, nasty, st.none(), st.booleans(), st.floats(), json_values, deep()
)
tool_names = st.one_of(
    st.sampled_from(TOOLS),
    nasty,
    st.integers(65, 5000).map(lambda n: "x" * n),
    st.sampled_from(TOOLS).map(lambda name: name + "\x00"),
    st.sampled_from(TOOLS).map(str.upper),
    json_values,  # not a string at all
)
arguments = st.one_of(
    st.dictionaries(st.sampled_from(ARGUMENT_NAMES) | nasty, values, max_size=6),
    json_values,  # wrong type: a list, a number, null
)
uris = st.one_of(
    nasty,
    st.sampled_from(["file:///etc/passwd", "petstore://pet/1", "http://127.0.0.1:1/", "data:,x", "\\\\host\\share"]),
    huge_string,
    json_values,
)


def _params(draw: st.DrawFn, method: str) -> Any:
    if draw(st.integers(0, 7)) == 0:
        return draw(json_values)  # params of the wrong type
    if method == "tools/call":
        params: dict[str, Any] = {"name": draw(tool_names)}
        if draw(st.integers(0, 5)):
            params["arguments"] = draw(arguments)
    elif method == "resources/read":
        params = {"uri": draw(uris)}
    elif method == "prompts/get":
        params = {"name": draw(tool_names), "arguments": draw(arguments)}
    elif method == "initialize":
        params = {
            "protocolVersion": draw(st.sampled_from([HANDSHAKE, "2099-01-01", MODERN]) | nasty),
            "capabilities": draw(json_values),
            "clientInfo": draw(json_values),
        }
    else:
        params = draw(st.dictionaries(nasty, values, max_size=3))
    if draw(st.integers(0, 5)) == 0:
        params["_meta"] = draw(st.sampled_from([MODERN_META, {}]) | json_values)
    return params


_METHODS = [
    "tools/call", "tools/call", "tools/call", "tools/list", "resources/read", "resources/list", "prompts/get",
    "prompts/list", "ping", "initialize", "completion/complete", "logging/setLevel", "server/discover",
    "notifications/cancelled", "notifications/initialized", "rpc.discover", "",
]  # fmt: skip


@st.composite
def requests(draw: st.DrawFn) -> Any:
    """A JSON-RPC message as a value, sometimes broken: jsonrpc, id, method and params each drawn."""
    message: dict[str, Any] = {}
    if draw(st.integers(0, 5)):
        message["jsonrpc"] = "2.0"
    else:
        message["jsonrpc"] = draw(st.sampled_from(["1.0", "2", "2.00", 2.0, None]) | nasty)
    if draw(st.integers(0, 7)):
        message["id"] = draw(st.one_of(st.integers(-(2**31), 2**31), huge_int, nasty) if draw(st.booleans()) else ids)
    method = draw(st.sampled_from(_METHODS) | nasty | json_values)
    if draw(st.integers(0, 9)):
        message["method"] = method
    if draw(st.integers(0, 4)):
        message["params"] = _params(draw, method if isinstance(method, str) else "")
    return message


_VALID: dict[str, st.SearchStrategy[Any]] = {
    "petId": st.integers(1, 10), "orderId": st.integers(1, 20), "quantity": st.integers(1, 5),
    "limit": st.integers(1, 10), "name": st.text(max_size=20), "id": st.text(min_size=1, max_size=20),
    "body": st.text(max_size=20) | huge_string, "X-Reason": st.text(max_size=20), "confirm": st.booleans(),
    "complete": st.booleans(), "status": st.sampled_from(["available", "pending", "sold"]),
    "photoUrls": st.lists(st.text(max_size=10), max_size=3), "tags": st.lists(st.text(max_size=10), max_size=3),
    "shipDate": st.just("2024-01-01T00:00:00Z"), "birthday": st.none(),
    "category": st.just({"id": "dogs", "name": "Dogs"}),
}  # fmt: skip
_PARAMETERS = {
    "addPet": ("name", "category", "photoUrls", "tags", "status", "birthday"),
    "updatePet": ("name", "category", "photoUrls", "tags", "status", "birthday"),
    "findPetsByStatus": ("status", "limit"), "findPetsByTags": ("tags",), "getPetById": ("petId",),
    "deletePet": ("petId", "X-Reason"), "getPetPhoto": ("petId",), "addPetNote": ("petId", "body"),
    "getInventory": (), "placeOrder": ("petId", "quantity", "shipDate", "status", "complete"),
    "getOrderById": ("orderId",), "getCategory": ("id",), "resetStore": ("confirm",),
}  # fmt: skip


@st.composite
def tool_arguments(draw: st.DrawFn, tool: str) -> Any:
    """Arguments for a listed tool: each parameter valid, hostile or left out; sometimes extra keys."""
    chosen: dict[str, Any] = {}
    for name in _PARAMETERS[tool]:
        kind = draw(st.integers(0, 6))
        if kind < 3:
            value = draw(_VALID[name])
            chosen[name] = [value] if (tool, name) == ("findPetsByStatus", "status") else value  # an array there
        elif kind < 5:
            chosen[name] = draw(values)
    if draw(st.integers(0, 4)) == 0:
        chosen.update(draw(st.dictionaries(nasty, values, max_size=3)))
    return chosen


@st.composite
def tool_calls(draw: st.DrawFn) -> Any:
    """A well-formed tools/call request whose name and arguments are hostile."""
    if draw(st.integers(0, 4)):
        tool = draw(st.sampled_from(TOOLS))
        params: dict[str, Any] = {"name": tool, "arguments": draw(tool_arguments(tool) | arguments)}
    else:
        params = {"name": draw(tool_names), "arguments": draw(arguments)}
    return {"jsonrpc": "2.0", "id": draw(st.integers(1, 2**40)), "method": "tools/call", "params": params}


@st.composite
def raw(draw: st.DrawFn) -> bytes:
    """Bytes that are not one JSON-RPC object: invalid JSON, truncated JSON, other JSON, batches."""
    kind = draw(st.integers(0, 6))
    if kind == 0:
        return draw(st.binary(max_size=300)).replace(b"\n", b" ")
    if kind == 1:
        text = json.dumps(draw(requests()))
        return text[: draw(st.integers(0, max(0, len(text) - 1)))].encode()
    if kind == 2:
        return json.dumps(draw(st.lists(requests(), max_size=4))).encode()  # a batch
    if kind == 3:
        return json.dumps(draw(json_values)).encode()
    if kind == 4:  # JSON extensions Python would accept
        return draw(st.sampled_from([b"NaN", b'{"jsonrpc":"2.0","id":NaN,"method":"ping"}', b"[1,]", b"{'a':1}"]))
    if kind == 5:  # nested beyond the parser's limit, up to a 1 MB line
        depth = draw(st.sampled_from([250, 1000, 100_000, 500_000]))
        arguments = b"[" * depth + b"]" * depth
        return b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"addPet","arguments":%s}}' % arguments
    return b"\xef\xbb\xbf" + json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode()  # a BOM


def encode(message: Any, ascii_only: bool) -> bytes:
    return json.dumps(message, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass")


def expected_id(message: Any) -> tuple[bool, Any]:
    """(True, id) when `message` is a well-formed request that must be answered with that id."""
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0" or "id" not in message:
        return False, None
    request_id = message["id"]
    if isinstance(request_id, bool) or not isinstance(request_id, (int, str)):
        return False, None
    if not isinstance(message.get("method"), str) or message["method"].startswith("notifications/"):
        return False, None
    if "params" in message and not isinstance(message["params"], dict):
        return False, None
    try:  # a lone surrogate is not strict JSON: the SDK's parser rejects the message as a whole
        json.dumps(message, ensure_ascii=False).encode()
    except UnicodeEncodeError:
        return False, None
    return True, request_id


def note_answers(answers: list[Any], wanted: tuple[bool, Any]) -> None:
    """Labels the example for --hypothesis-show-statistics: how the server answered it."""
    if not currently_in_test_context():
        return  # the fixtures' own exchanges
    answer = next((m for m in answers if wanted[0] and same(m.get("id"), wanted[1])), None)
    if answer is None:
        event("no answer expected")
    elif "error" in answer:
        event(f"error {answer['error']['code']}")
    else:
        event("isError result" if answer["result"].get("isError") else "result")


def same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


def check_response(message: Any) -> None:
    """A server message with an id is a JSON-RPC response: a result or an error, never both."""
    assert isinstance(message, dict), message
    assert message.get("jsonrpc") == "2.0", message
    if "method" in message and "result" not in message and "error" not in message:
        return  # a notification or request from the server
    assert "id" in message, message
    assert ("result" in message) != ("error" in message), message
    if "error" in message:
        error = message["error"]
        assert isinstance(error, dict), message
        assert isinstance(error.get("code"), int) and isinstance(error.get("message"), str), message
    else:
        assert isinstance(message["result"], dict), message


def check_tools_list(message: dict[str, Any]) -> None:
    check_response(message)
    assert "result" in message, message
    assert sorted(t["name"] for t in message["result"]["tools"]) == sorted(TOOLS)


def _header_value(value: Any) -> str | None:
    """A header's text the way the SDK's client writes it: visible ASCII as is, else base64 of UTF-8."""
    if not isinstance(value, str):
        return None
    if re.fullmatch(r"[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?", value):
        return value
    try:
        return "=?base64?" + base64.b64encode(value.encode()).decode() + "?="
    except UnicodeEncodeError:
        return None


def modern_headers(data: bytes) -> dict[str, str]:
    """Mcp-Method and Mcp-Name as a 2026-07-28 client sends them, when the body has them."""
    try:
        body = json.loads(data)
    except (ValueError, RecursionError):  # not JSON, or nested too deeply for Python's parser too
        return {}
    if not isinstance(body, dict):
        return {}
    headers: dict[str, str] = {}
    method = body.get("method")
    if (value := _header_value(method)) is not None:
        headers["Mcp-Method"] = value
    key = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}.get(method) if isinstance(method, str) else None
    params = body.get("params")
    if key is not None and isinstance(params, dict) and (name := _header_value(params.get(key))) is not None:
        headers["Mcp-Name"] = name
    return headers


def status_kb(pid: int, name: str) -> int:
    found = re.search(rf"^{name}:\s+(\d+) kB", Path(f"/proc/{pid}/status").read_text(), re.MULTILINE)
    assert found is not None, name
    return int(found.group(1))


# -- the servers -----------------------------------------------------------------------


@dataclass
class StdioServer:
    """`python -m petstore_mcp` on stdio; a thread queues each stdout line."""

    proc: subprocess.Popen[bytes]
    lines: queue.Queue[bytes] = field(default_factory=queue.Queue)
    counter: int = 0
    baseline_kb: int = 0

    def start(self) -> StdioServer:
        assert self.proc.stdout is not None
        stdout = self.proc.stdout
        threading.Thread(target=lambda: [self.lines.put(line) for line in stdout], daemon=True).start()
        return self

    def write(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data + b"\n")
        self.proc.stdin.flush()

    def exchange(self, data: bytes, wanted: tuple[bool, Any]) -> list[dict[str, Any]]:
        """Sends `data`, then a tools/list; returns every message read until the tools/list answer
        (and the answer to `data`'s id, when it must have one) came back."""
        self.counter += 1
        sentinel = f"fuzz-sentinel-{self.counter}"
        self.write(data)
        self.write(json.dumps({"jsonrpc": "2.0", "id": sentinel, "method": "tools/list"}).encode())
        pending = [sentinel, *([wanted[1]] if wanted[0] else [])]
        seen: list[dict[str, Any]] = []
        end = time.monotonic() + HARNESS_TIMEOUT
        while pending:
            left = end - time.monotonic()
            try:
                line = self.lines.get(timeout=max(left, 0.01))
            except queue.Empty:
                alive = self.proc.poll() is None
                raise AssertionError(f"no answer for {pending!r} in {HARNESS_TIMEOUT} s (alive: {alive})") from None
            message = json.loads(line)  # every stdout line is one JSON text
            check_response(message)
            seen.append(message)
            if "method" not in message:
                pending = [p for p in pending if not same(p, message.get("id"))]
        assert self.proc.poll() is None, "the server exited"
        check_tools_list(next(m for m in seen if m.get("id") == sentinel))
        note_answers(seen, wanted)
        return seen


@dataclass
class HttpServer:
    port: int
    proc: subprocess.Popen[bytes]
    baseline_kb: int = 0

    def post(self, data: bytes, version: str | None) -> tuple[int, list[Any]]:
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        if version is not None:
            headers["MCP-Protocol-Version"] = version
        if version == MODERN:
            headers.update(modern_headers(data))
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=HARNESS_TIMEOUT)
        try:
            connection.request("POST", "/mcp", body=data, headers=headers)
            response = connection.getresponse()
            body = response.read()
            kind = response.getheader("Content-Type", "")
        finally:
            connection.close()
        if not body.strip():
            return response.status, []
        if kind.startswith("text/event-stream"):
            # SSE ends lines at CR, LF or CRLF only; str.splitlines() would also cut at U+2028,
            # which JSON leaves unescaped in a string.
            lines = re.split(r"\r\n|\r|\n", body.decode())
            texts = [line[5:] for line in lines if line.startswith("data:")]
            return response.status, [json.loads(t) for t in texts if t.strip()]
        return response.status, [json.loads(body)]

    def exchange(self, data: bytes, wanted: tuple[bool, Any], version: str | None) -> list[Any]:
        status, messages = self.post(data, version)
        assert status < 500, (status, messages)
        for message in messages:
            check_response(message)
        if wanted[0]:
            assert any(same(m.get("id"), wanted[1]) for m in messages), (status, messages)
        assert self.proc.poll() is None, "the server exited"
        self.tools_list()
        note_answers(messages, wanted)
        return messages

    def tools_list(self) -> None:
        listing = {"jsonrpc": "2.0", "id": "fuzz-sentinel", "method": "tools/list", "params": {"_meta": MODERN_META}}
        status, messages = self.post(json.dumps(listing).encode(), MODERN)
        assert status == 200 and len(messages) == 1, (status, messages)
        check_tools_list(messages[0])


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("fuzz") / "petstore-mcp"
    generate_openapi(PETSTORE, Options(output=out, force=True, filters=OperationFilter(include_deprecated=True)))
    assert (out / "src" / PACKAGE / "server.py").is_file()
    return out


@pytest.fixture(scope="module")
def upstream() -> Iterator[Upstream]:
    server = Upstream().start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz-logs")


@pytest.fixture(scope="module")
def stdio_server(generated: Path, upstream: Upstream, logs: Path) -> Iterator[StdioServer]:
    with (logs / "stdio.log").open("wb") as sink:
        proc = subprocess.Popen(
            [sys.executable, "-m", PACKAGE],
            env=shared_env(generated, upstream),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=sink,
        )
        server = StdioServer(proc).start()
        try:
            initialize = {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {"protocolVersion": HANDSHAKE, "capabilities": {}, "clientInfo": {"name": "fuzz", "version": "1"}},
            }
            answers = server.exchange(json.dumps(initialize).encode(), (True, 0))
            assert next(m for m in answers if m.get("id") == 0)["result"]["protocolVersion"] == HANDSHAKE
            server.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode())
            server.baseline_kb = status_kb(proc.pid, "VmRSS")
            yield server
        finally:
            with contextlib.suppress(OSError):
                proc.stdin.close()  # type: ignore[union-attr]
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


@pytest.fixture(scope="module")
def http_server(generated: Path, upstream: Upstream, logs: Path) -> Iterator[HttpServer]:
    with http_process(PACKAGE, shared_env(generated, upstream), logs / "http.log") as (port, proc):
        server = HttpServer(port, proc)
        server.tools_list()
        server.baseline_kb = status_kb(proc.pid, "VmRSS")
        yield server


# -- the properties ----------------------------------------------------------------------


@_SETTINGS
@given(message=requests(), ascii_only=st.booleans())
def test_stdio_hostile_messages(stdio_server: StdioServer, message: Any, ascii_only: bool) -> None:
    stdio_server.exchange(encode(message, ascii_only), expected_id(message))


@_SETTINGS
@given(message=tool_calls(), ascii_only=st.booleans())
def test_stdio_hostile_tool_arguments(stdio_server: StdioServer, message: Any, ascii_only: bool) -> None:
    wanted = expected_id(message)
    answers = stdio_server.exchange(encode(message, ascii_only), wanted)
    if wanted[0] and message["params"]["name"] in TOOLS and isinstance(message["params"]["arguments"], dict):
        answer = next(m for m in answers if m.get("id") == message["id"])
        assert "result" in answer, answer  # a known tool answers with a result, isError or not


@_SETTINGS
@given(data=raw())
def test_stdio_invalid_json(stdio_server: StdioServer, data: bytes) -> None:
    stdio_server.exchange(data, (False, None))


_VERSIONS = st.sampled_from([None, HANDSHAKE, "2025-11-25", MODERN]) | st.sampled_from(["2099-01-01", "", "x" * 300])


@_SETTINGS
@given(message=requests(), ascii_only=st.booleans(), version=_VERSIONS)
def test_http_hostile_messages(http_server: HttpServer, message: Any, ascii_only: bool, version: str | None) -> None:
    http_server.exchange(encode(message, ascii_only), expected_id(message), version)


@_SETTINGS
@given(message=tool_calls(), modern=st.booleans())
def test_http_hostile_tool_arguments(http_server: HttpServer, message: Any, modern: bool) -> None:
    if modern:
        message["params"]["_meta"] = MODERN_META
    http_server.exchange(encode(message, True), expected_id(message), MODERN if modern else HANDSHAKE)


@_SETTINGS
@given(data=raw(), version=_VERSIONS)
def test_http_invalid_json(http_server: HttpServer, data: bytes, version: str | None) -> None:
    http_server.exchange(data, (False, None), version)


def test_memory_stays_bounded(stdio_server: StdioServer, http_server: HttpServer) -> None:
    """Runs last in this module: neither server grew by more than RSS_GROWTH_BOUND_KB over the fuzzing."""
    for name, server in (("stdio", stdio_server), ("http", http_server)):
        assert server.proc.poll() is None, f"{name} server exited"
        now = status_kb(server.proc.pid, "VmRSS")
        grown = now - server.baseline_kb
        print(f"{name}: VmRSS {server.baseline_kb // 1024} MB after the first tools/list, {now // 1024} MB now")
        assert grown < RSS_GROWTH_BOUND_KB, f"{name} server grew by {grown // 1024} MB"

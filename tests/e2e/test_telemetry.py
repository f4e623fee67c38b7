"""OpenTelemetry: one trace from an MCP client through the generated server to the API.

The generated petstore server runs on streamable HTTP with the real OpenTelemetry SDK (the
package's `otel` extra, installed in the test venv) exporting over OTLP/HTTP to a receiver in
this test on 127.0.0.1. The Python `mcp` client sends a W3C `traceparent` in `params._meta`;
the recording upstream receives the server's upstream span as its parent. No argument value,
credential or message reaches an exported attribute, and the audit line carries the ids.
"""

from __future__ import annotations

import http.client
import json
import os
import secrets
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue

from tests.local_http import Handler, Recorded, RecordingServer

from .conftest import API_KEY, PACKAGE, free_port, http_server, server_env, shared_env
from .upstream import Upstream

pytestmark = pytest.mark.anyio
MARKER = 987_654_321  # an argument value that must appear in no attribute


class Receiver(RecordingServer[Recorded]):
    """An OTLP/HTTP endpoint: keeps what is posted to /v1/traces and /v1/metrics."""

    name = "otlp-receiver"

    def respond(self, handler: Handler, request: Recorded) -> None:
        self._record(request)
        handler.send(200, {"Content-Type": "application/x-protobuf", "Content-Length": "0"})

    def spans(self) -> list[Any]:
        found = []
        for request in list(self.requests):
            if request.path == "/v1/traces":
                message = ExportTraceServiceRequest.FromString(request.body)
                for resource in message.resource_spans:
                    for scope in resource.scope_spans:
                        found.extend(scope.spans)
        return found

    def metrics(self) -> dict[str, Any]:
        found: dict[str, Any] = {}
        for request in list(self.requests):
            if request.path == "/v1/metrics":
                message = ExportMetricsServiceRequest.FromString(request.body)
                for resource in message.resource_metrics:
                    for scope in resource.scope_metrics:
                        found.update({metric.name: metric for metric in scope.metrics})
        return found


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    server = Receiver().start()
    yield server
    server.stop()


def attributes(item: Any) -> dict[str, Any]:
    return {a.key: _value(a.value) for a in item.attributes}


def _value(value: AnyValue) -> Any:
    return getattr(value, value.WhichOneof("value")) if value.WhichOneof("value") else None


def everything_exported(receiver: Receiver) -> str:
    """Every attribute, event and status of every span and metric point, as text."""
    parts: list[str] = []
    for span in receiver.spans():
        parts += [span.name, span.status.message, json.dumps(attributes(span), default=str)]
        parts += [json.dumps(attributes(event), default=str) + event.name for event in span.events]
    for metric in receiver.metrics().values():
        points = metric.histogram.data_points or metric.sum.data_points
        parts += [json.dumps(attributes(point), default=str) for point in points]
    return "\n".join(parts)


def outcomes(receiver: Receiver) -> set[tuple[str | None, str]]:
    """(tool, outcome) of every point of the request duration metric exported so far."""
    metric = receiver.metrics().get("mcp.server.operation.duration")
    points = metric.histogram.data_points if metric is not None else []
    return {(attributes(p).get("gen_ai.tool.name"), attributes(p)["mcpgen.outcome"]) for p in points}


def wait_for(check: Any, timeout: float = 15.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if check():
            return
        time.sleep(0.1)
    raise AssertionError("not exported in time")


async def test_one_trace_from_client_through_server_to_api(
    generated: Path, upstream: Upstream, receiver: Receiver, log_dir: Path
) -> None:
    env = shared_env(generated, upstream)
    env.update(
        OTEL_EXPORTER_OTLP_ENDPOINT=receiver.origin,
        OTEL_SERVICE_NAME="petstore-under-test",
        OTEL_BSP_SCHEDULE_DELAY="100",
        OTEL_METRIC_EXPORT_INTERVAL="300",
    )
    trace_id, client_span = secrets.token_hex(16), secrets.token_hex(8)
    traceparent = f"00-{trace_id}-{client_span}-01"
    log = log_dir / "telemetry.log"
    with http_server(PACKAGE, env, log) as port:
        async with Client(f"http://127.0.0.1:{port}/mcp", mode="legacy", cache=None) as client:
            await client.list_tools()
            result = await client.call_tool("getPetById", {"petId": 1}, meta={"traceparent": traceparent})
            assert not result.is_error
            await client.call_tool("getPetById", {"petId": MARKER})  # found or not: traced
            refused = await client.call_tool("getPetById", {"petId": "not a number"})
            assert refused.is_error
        wait_for(lambda: any(s.name == "tools/call getPetById" for s in receiver.spans()))
        wait_for(lambda: {("getPetById", "ok"), ("getPetById", "invalid"), (None, "ok")} <= outcomes(receiver)
                 and "http.client.request.duration" in receiver.metrics() and "mcpgen.refusals" in receiver.metrics())
    spans = receiver.spans()
    traced = [s for s in spans if s.trace_id.hex() == trace_id]
    server = next(s for s in traced if s.name == "tools/call getPetById")
    assert server.parent_span_id.hex() == client_span and server.kind == server.SPAN_KIND_SERVER
    assert attributes(server) | {"jsonrpc.request.id": None} == {
        "mcp.method.name": "tools/call", "mcp.protocol.version": "2025-11-25", "gen_ai.tool.name": "getPetById",
        "gen_ai.operation.name": "execute_tool", "mcpgen.outcome": "ok", "jsonrpc.request.id": None,
    }
    client_side = next(s for s in traced if s.parent_span_id == server.span_id)
    assert client_side.name == "GET /pet/{petId}" and client_side.kind == client_side.SPAN_KIND_CLIENT
    assert attributes(client_side) == {
        "http.request.method": "GET", "url.template": "/pet/{petId}", "server.address": "127.0.0.1",
        "server.port": upstream.port, "url.scheme": "http", "http.response.status_code": 200,
    }
    # The API received the upstream span as the parent of its work: one trace, end to end.
    first = next(r for r in upstream.requests if r.path.endswith("/pet/1"))
    assert first.headers["traceparent"] == f"00-{trace_id}-{client_side.span_id.hex()}-01"
    # A request with no trace context starts its own trace; tools/list has its span too.
    assert any(s.name == "tools/list" for s in spans)
    invalid = next(s for s in spans if s.name == "tools/call getPetById" and s.trace_id.hex() != trace_id
                   and attributes(s)["mcpgen.outcome"] == "invalid")
    assert [(e.name, attributes(e)) for e in invalid.events] == [
        ("mcpgen.refusal", {"mcpgen.refusal.reason": "invalid_arguments"})]
    # Metrics: by method, tool and outcome; the upstream by status; refusals by reason.
    found = receiver.metrics()
    statuses = {attributes(p).get("http.response.status_code")
                for p in found["http.client.request.duration"].histogram.data_points}
    assert 200 in statuses
    reasons = [attributes(p) for p in found["mcpgen.refusals"].sum.data_points]
    assert {"mcpgen.refusal.reason": "invalid_arguments", "mcp.method.name": "tools/call"} in reasons
    # Nothing the caller sent, no credential, no message in any exported attribute.
    exported = everything_exported(receiver)
    assert str(MARKER) not in exported and API_KEY not in exported and "not a number" not in exported
    # The audit line names the trace and the server span.
    lines = [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]
    audited = next(line for line in lines if line.get("arguments") == {"petId": 1})
    assert audited["trace_id"] == trace_id and audited["span_id"] == server.span_id.hex()


async def test_propagate_mode_passes_the_context_on_and_records_nothing(
    generated: Path, upstream: Upstream, receiver: Receiver, log_dir: Path
) -> None:
    env = shared_env(generated, upstream)
    env.update(OTEL_EXPORTER_OTLP_ENDPOINT=receiver.origin, OTEL_BSP_SCHEDULE_DELAY="100",
               PETSTORE_TELEMETRY="propagate")
    trace_id, client_span = secrets.token_hex(16), secrets.token_hex(8)
    with http_server(PACKAGE, env, log_dir / "telemetry-propagate.log") as port:
        async with Client(f"http://127.0.0.1:{port}/mcp", mode="legacy", cache=None) as client:
            meta = {"traceparent": f"00-{trace_id}-{client_span}-01"}
            assert not (await client.call_tool("getPetById", {"petId": 1}, meta=meta)).is_error
        await anyio.sleep(0.5)  # past the batch export delay: anything recorded would be sent
    sent = next(r for r in upstream.requests if r.path.endswith("/pet/1"))
    assert sent.headers["traceparent"] == f"00-{trace_id}-{client_span}-01"  # the caller's own span
    assert receiver.spans() == []


async def test_off_mode_sends_no_trace_context(generated: Path, upstream: Upstream, log_dir: Path) -> None:
    env = shared_env(generated, upstream)
    env["PETSTORE_TELEMETRY"] = "off"
    with http_server(PACKAGE, env, log_dir / "telemetry-off.log") as port:
        async with Client(f"http://127.0.0.1:{port}/mcp", mode="legacy", cache=None) as client:
            meta = {"traceparent": f"00-{secrets.token_hex(16)}-{secrets.token_hex(8)}-01"}
            assert not (await client.call_tool("getPetById", {"petId": 1}, meta=meta)).is_error
    sent = next(r for r in upstream.requests if r.path.endswith("/pet/1"))
    assert "traceparent" not in sent.headers


def test_prometheus_metrics_behind_the_token_and_the_host_check(
    generated: Path, upstream: Upstream, log_dir: Path
) -> None:
    token = "m" * 32
    env = shared_env(generated, upstream)
    env.update(PETSTORE_METRICS="prometheus", PETSTORE_MCP_TOKEN=token)

    def get(port: int, headers: dict[str, str]) -> tuple[int, str, str]:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        connection.request("GET", "/metrics", headers=headers)
        response = connection.getresponse()
        body = response.read().decode()
        connection.close()
        return response.status, response.getheader("content-type", ""), body

    async def calls(port: int) -> None:
        url = f"http://127.0.0.1:{port}/mcp"
        async with (
            httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30) as http,
            Client(streamable_http_client(url, http_client=http), mode="legacy", cache=None) as client,
        ):
            assert not (await client.call_tool("getPetById", {"petId": 1})).is_error
            assert (await client.call_tool("getPetById", {"petId": "x" * 7})).is_error

    with http_server(PACKAGE, env, log_dir / "telemetry-prometheus.log") as port:
        anyio.run(calls, port)
        unauthorized = get(port, {})
        foreign = get(port, {"Authorization": f"Bearer {token}", "Host": "evil.example:80"})
        status, content_type, body = get(port, {"Authorization": f"Bearer {token}"})
    assert unauthorized[0] == 401 and foreign[0] == 421
    assert status == 200 and content_type.startswith("text/plain"), (status, body[:300])
    lines = body.splitlines()
    assert any(line.startswith("mcp_server_operation_duration_seconds_count{") and 'gen_ai_tool_name="getPetById"' in line
               and 'mcpgen_outcome="ok"' in line for line in lines), body[:2000]
    assert any(line.startswith("http_client_request_duration_seconds_count{") and 'http_response_status_code="200"' in line
               for line in lines), body[:2000]
    assert any(line.startswith("mcpgen_refusals_total{") and 'mcpgen_refusal_reason="invalid_arguments"' in line
               for line in lines), body[:2000]
    assert "xxxxxxx" not in body and token not in body and API_KEY not in body


def test_metrics_without_the_extra_is_a_configuration_error(generated: Path, tmp_path: Path) -> None:
    """A venv with the server's own dependencies only: PREFIX_METRICS=prometheus names the extra to install."""
    blocker = tmp_path / "blocker"
    blocker.mkdir()
    (blocker / "sitecustomize.py").write_text(
        "import sys\n"
        "class _Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.startswith(('opentelemetry.sdk', 'opentelemetry.exporter', 'prometheus_client')):\n"
        "            raise ImportError(name)\n"
        "sys.meta_path.insert(0, _Block())\n"
    )
    env = server_env(generated, PETSTORE_METRICS="prometheus")
    env["PYTHONPATH"] = f"{blocker}{os.pathsep}{env['PYTHONPATH']}"
    run = subprocess.run(
        [sys.executable, "-m", PACKAGE, "--transport", "http", "--port", str(free_port())],
        env=env, capture_output=True, text=True, timeout=60, check=False,
    )
    assert run.returncode == 2, run.stderr
    assert "PETSTORE_METRICS=prometheus needs the OpenTelemetry SDK: pip install 'petstore_mcp[otel]'" in run.stderr

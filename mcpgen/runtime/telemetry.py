# mcpgen's server runtime, copied byte for byte into each generated package; edit it in mcpgen.
"""Traces and metrics in OpenTelemetry, through its API alone (no-op until an SDK is set up).

- A SERVER span per MCP request (`tools/call getPetById`, `tools/list`, ...) with the semantic
  conventions for MCP (`mcp.method.name`, `gen_ai.tool.name`, `jsonrpc.request.id`,
  `error.type`), its parent the W3C trace context in the request's `params._meta`
  (`traceparent`, `tracestate`); a CLIENT span per upstream request (HTTP client conventions:
  `http.request.method`, `url.template`, `server.address`, `http.response.status_code`,
  `http.request.resend_count`), whose context goes upstream in `traceparent`, so one trace runs
  client -> server -> API. Refusals (access, validation, rate limit) and confirmations are
  events on the request's span.
- Metrics: `mcp.server.operation.duration` (by method, entry and outcome),
  `http.client.request.duration` (upstream), `mcpgen.refusals` (by reason).
- Nothing a caller sent is recorded: no argument value, no URL with its values, no message
  (messages can quote arguments), no token. `PREFIX_TELEMETRY`: `on` (default), `propagate`
  (trace context passed on to the API, no spans or metrics), `off`.
- `configure` sets up the SDK from the standard `OTEL_*` variables when one names an exporter
  or endpoint and the package's `otel` extra is installed (an SDK set up before, e.g. by
  `opentelemetry-instrument`, is kept).
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import os
import sys
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from mcp import MCPError
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from opentelemetry import context as otel_context
from opentelemetry import metrics, propagate, trace
from opentelemetry.trace import SpanKind, StatusCode
from pydantic import ValidationError

from . import settings

log = logging.getLogger(__name__)

SCOPE = "mcpgen.runtime"
# Seconds, as the semantic conventions advise for request durations.
DURATION_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10)
_tracer = trace.get_tracer(SCOPE)
_meter = metrics.get_meter(SCOPE)
_operation_duration = _meter.create_histogram(
    "mcp.server.operation.duration",
    unit="s",
    description="MCP requests served, by method, entry and outcome",
    explicit_bucket_boundaries_advisory=DURATION_BUCKETS,
)
_upstream_duration = _meter.create_histogram(
    "http.client.request.duration",
    unit="s",
    description="Requests to the upstream API",
    explicit_bucket_boundaries_advisory=DURATION_BUCKETS,
)
_refusals = _meter.create_counter(
    "mcpgen.refusals", unit="{refusal}", description="Requests refused, by reason"
)
_TARGETS = {"tools/call": "gen_ai.tool.name", "prompts/get": "gen_ai.prompt.name"}
_EXPORTER_VARIABLES = (
    "OTEL_TRACES_EXPORTER",
    "OTEL_METRICS_EXPORTER",
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
)


@dataclass(slots=True)
class Request:
    """What the request's steps learn for its span and metrics (set by `guarded`)."""

    method: str
    target: str | None
    outcome: str | None = None


_request: contextvars.ContextVar[Request | None] = contextvars.ContextVar(
    "telemetry_request", default=None
)


def mode() -> settings.TelemetryMode:
    return settings.current().telemetry


class TelemetryMiddleware:
    """Server middleware, in place of the SDK's own span middleware: the request's span,
    parented by `params._meta`, and its duration metric."""

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        chosen = mode()
        if chosen == "off":
            return await call_next(ctx)
        parent = _parent(ctx.meta)
        if chosen == "propagate":
            token = otel_context.attach(parent) if parent is not None else None
            try:
                return await call_next(ctx)
            finally:
                if token is not None:
                    otel_context.detach(token)
        name = ctx.params.get("name") if ctx.params else None
        target = name if isinstance(name, str) and ctx.method in _TARGETS else None
        attributes: dict[str, Any] = {
            "mcp.method.name": ctx.method,
            "mcp.protocol.version": ctx.protocol_version,
        }
        if ctx.request_id is not None:
            attributes["jsonrpc.request.id"] = str(ctx.request_id)
        if target is not None:
            attributes[_TARGETS[ctx.method]] = target
        if ctx.method == "tools/call":
            attributes["gen_ai.operation.name"] = "execute_tool"
        request = Request(ctx.method, target)
        started = time.perf_counter()
        error_type: str | None = None
        with _tracer.start_as_current_span(
            f"{ctx.method} {target}" if target else ctx.method,
            kind=SpanKind.SERVER,
            context=parent,
            attributes=attributes,
            record_exception=False,  # an exception's message can quote the arguments
            set_status_on_exception=False,
        ) as span:
            marker = _request.set(request)
            try:
                result = await call_next(ctx)
                if ctx.method == "tools/call" and _is_error(result):
                    error_type = "tool_error"
                return result
            except MCPError as exc:
                error_type = str(exc.error.code)
                span.set_attribute("rpc.response.status_code", error_type)
                raise
            except ValidationError:
                error_type = "-32602"
                raise
            except Exception as exc:
                error_type = type(exc).__qualname__
                raise
            finally:
                _request.reset(marker)
                outcome = request.outcome or ("ok" if error_type is None else "error")
                span.set_attribute("mcpgen.outcome", outcome)
                measured = {k: v for k, v in attributes.items() if k != "jsonrpc.request.id"}
                measured["mcpgen.outcome"] = outcome
                if error_type is not None:
                    span.set_attribute("error.type", error_type)
                    span.set_status(StatusCode.ERROR)
                    measured["error.type"] = error_type
                _operation_duration.record(time.perf_counter() - started, measured)


def _is_error(result: Any) -> bool:
    if isinstance(result, Mapping):
        return result.get("isError") is True
    return getattr(result, "is_error", False) is True


def _parent(meta: Any) -> otel_context.Context | None:
    """The caller's trace context from `_meta`, or None (a malformed one is ignored)."""
    if meta is None:
        return None
    carrier = meta if isinstance(meta, Mapping) else getattr(meta, "model_extra", None) or {}
    carrier = {k: v for k, v in carrier.items() if isinstance(v, str)}
    if "traceparent" not in carrier:
        return None
    try:
        extracted = propagate.extract(carrier)
    except (ValueError, TypeError):
        return None
    if not trace.get_current_span(extracted).get_span_context().is_valid:
        return None
    return extracted


def outcome(value: str, reason: str | None = None) -> None:
    """The request's outcome as `guarded` decided it; a refusal also counts by `reason`."""
    request = _request.get()
    if request is None or mode() != "on":
        return
    request.outcome = value
    if reason is not None:
        trace.get_current_span().add_event("mcpgen.refusal", {"mcpgen.refusal.reason": reason})
        attributes = {"mcpgen.refusal.reason": reason, "mcp.method.name": request.method}
        _refusals.add(1, attributes)


def event(name: str, **attributes: str) -> None:
    """A named step of the request (a confirmation asked, accepted, declined) on its span."""
    if mode() == "on":
        trace.get_current_span().add_event(name, attributes)


@contextlib.contextmanager
def upstream_span(method: str, template: str, url: Any, headers: Any, resend: int) -> Iterator[Any]:
    """A CLIENT span around one upstream request (`url`: an httpx URL), its context put in
    `headers`; yields a setter for the response's status code."""
    chosen = mode()
    if chosen == "off":
        yield lambda status: None
        return
    if chosen == "propagate":
        propagate.inject(headers)
        yield lambda status: None
        return
    attributes: dict[str, Any] = {
        "http.request.method": method,
        "url.template": template,
        "server.address": url.host,
        "server.port": url.port or (443 if url.scheme == "https" else 80),
        "url.scheme": url.scheme,
    }
    if resend:
        attributes["http.request.resend_count"] = resend
    started = time.perf_counter()
    status: list[int] = []
    with _tracer.start_as_current_span(
        f"{method} {template}",
        kind=SpanKind.CLIENT,
        attributes=attributes,
        record_exception=False,
        set_status_on_exception=False,
    ) as span:
        propagate.inject(headers)
        measured = {k: v for k, v in attributes.items() if k != "http.request.resend_count"}
        try:
            yield status.append
        except BaseException as exc:
            error = type(exc).__qualname__
            span.set_attribute("error.type", error)
            span.set_status(StatusCode.ERROR)
            measured["error.type"] = error
            raise
        finally:
            if status:
                span.set_attribute("http.response.status_code", status[-1])
                measured["http.response.status_code"] = status[-1]
                if status[-1] >= 400:
                    span.set_attribute("error.type", str(status[-1]))
                    span.set_status(StatusCode.ERROR)
                    measured["error.type"] = str(status[-1])
            _upstream_duration.record(time.perf_counter() - started, measured)


def ids() -> dict[str, str]:
    """The current trace and span ids (hex, as W3C writes them) for the audit line."""
    context = trace.get_current_span().get_span_context()
    if not context.is_valid:
        return {}
    return {
        "trace_id": format(context.trace_id, "032x"),
        "span_id": format(context.span_id, "016x"),
    }


def configure(package: str, name: str) -> str | None:
    """Set up the OpenTelemetry SDK from `OTEL_*` when they ask for export, and the Prometheus
    reader for PREFIX_METRICS=prometheus; the problem when what they need is not installed."""
    wanted = any(os.environ.get(v) for v in _EXPORTER_VARIABLES)
    disabled = os.environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true"
    prometheus = settings.current().metrics == "prometheus"
    if mode() != "on":  # propagate needs no SDK: the API's W3C propagator passes context on
        return None
    if (not wanted and not prometheus) or disabled:
        return None
    if not isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider):
        return None  # already set up (opentelemetry-instrument, your own code)
    try:
        from opentelemetry.sdk.metrics import MeterProvider
        from opentelemetry.sdk.metrics.export import MetricReader, PeriodicExportingMetricReader
        from opentelemetry.sdk.resources import OTELResourceDetector, Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
    except ImportError:
        why = f"{settings.current().variable('METRICS')}=prometheus" if prometheus else "OTEL_*"
        return f"{why} needs the OpenTelemetry SDK: pip install '{package}[otel]'"
    readers: list[MetricReader] = []
    if prometheus:
        try:
            from opentelemetry.exporter.prometheus import PrometheusMetricReader
        except ImportError:
            variable = settings.current().variable("METRICS")
            return f"{variable}=prometheus needs pip install '{package}[otel]'"
        readers.append(PrometheusMetricReader())
    resource = Resource.create({"service.name": name}).merge(OTELResourceDetector().detect())
    traces, meters = _exporters() if wanted else (None, None)
    if traces is not None:
        provider = TracerProvider(resource=resource)
        provider.add_span_processor(BatchSpanProcessor(traces))
        trace.set_tracer_provider(provider)
    if meters is not None:
        readers.append(PeriodicExportingMetricReader(meters))
    if readers:
        metrics.set_meter_provider(MeterProvider(resource=resource, metric_readers=readers))
    return None


METRICS_PATH = "/metrics"


def exposition() -> tuple[bytes, str]:
    """The Prometheus text of every metric (PREFIX_METRICS=prometheus), and its content type."""
    from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, generate_latest

    return generate_latest(REGISTRY), CONTENT_TYPE_LATEST


def _exporters() -> tuple[Any, Any]:
    """OTLP over HTTP (protobuf), or the console, as OTEL_{TRACES,METRICS}_EXPORTER say."""
    chosen: list[Any] = []
    for signal in ("TRACES", "METRICS"):
        name = os.environ.get(f"OTEL_{signal}_EXPORTER", "otlp").strip().lower()
        if name == "none":
            chosen.append(None)
        elif name == "console":
            if signal == "TRACES":
                from opentelemetry.sdk.trace.export import ConsoleSpanExporter

                chosen.append(ConsoleSpanExporter(out=sys.stderr))  # stdout: stdio's protocol
            else:
                from opentelemetry.sdk.metrics.export import ConsoleMetricExporter

                chosen.append(ConsoleMetricExporter(out=sys.stderr))
        elif signal == "TRACES":
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

            chosen.append(OTLPSpanExporter())
        else:
            from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter

            chosen.append(OTLPMetricExporter())
    return chosen[0], chosen[1]

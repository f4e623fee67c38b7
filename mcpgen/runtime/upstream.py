# mcpgen's server runtime, copied byte for byte into each generated package; edit it in mcpgen.
"""HTTP calls to the upstream API: request building (parameters in every OpenAPI style,
JSON/form/multipart/binary/text bodies), errors; credentials come from `auth`.

A route (from `tools.json`) says where each tool argument goes. Path values are
percent-encoded whole, so `../` or `?` in a value cannot change the request target.

Bounded: a call ends within `PREFIX_CALL_TIMEOUT` (connect, send, every read, retries and
their waits); a body is streamed and refused past `PREFIX_MAX_RESPONSE_BYTES`, counted after
decompression; a file or binary body sent is refused past `PREFIX_MAX_UPLOAD_BYTES`. A
streamed response (a route with `stream`: JSON Lines, JSON Seq, server-sent events) is read
item by item within the stream limits (`streams`) and answered as one JSON summary.
"""

from __future__ import annotations

import base64
import contextlib
import json
import mimetypes
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import quote

import anyio
import httpx2

from . import audit, auth, extensions, replay, settings, streams, telemetry, transport

MissingCredential = auth.MissingCredential  # re-exported: callers of `operations` catch it here


class InvalidArgument(ValueError):
    """An argument that passed the schema but cannot be sent (e.g. CR/LF in a header)."""


class UpstreamError(Exception):
    """The request could not be completed: timeout, connection failure, no base URL, a body
    over the size limit."""


class ApiError(Exception):
    """A non-2xx response, raised by the typed functions in `operations`."""

    def __init__(self, response: httpx2.Response) -> None:
        self.response = response
        self.status_code = response.status_code
        super().__init__(
            f"HTTP {response.status_code} {response.reason_phrase}: {response.text[:500]}"
        )


MAX_REDIRECTS = 5
# A stream stops at the call's deadline with what it read; the call's own cut comes this much later.
STREAM_GRACE = 1.0
_client: httpx2.AsyncClient | None = None


def shared_client() -> httpx2.AsyncClient:
    """One connection pool per process, created on first use."""
    global _client
    if _client is None:
        _client = transport.make_client(
            event_hooks={"request": [_on_request], "response": [_on_response]}
        )
    return _client


async def _on_request(request: httpx2.Request) -> None:
    await extensions.hooks().on_request(extensions.current_tool.get(), request)


async def _on_response(response: httpx2.Response) -> None:
    await extensions.hooks().on_response(extensions.current_tool.get(), response)


async def send(
    route: Mapping[str, Any],
    arguments: Mapping[str, Any],
    client: httpx2.AsyncClient | None = None,
    on_item: streams.OnItem | None = None,
) -> httpx2.Response:
    """Send one operation's request; return the response, whatever its status, its body read
    (decoded) in full. Raises UpstreamError past the call's deadline or the body size limit.
    A streamed 2xx response comes back as its JSON summary (`streams.Stream.summary`), each
    item handed to `on_item` as it was read."""
    current = settings.current()
    base = current.base_url
    if not base:
        raise UpstreamError(
            f"No upstream URL: set {current.variable('BASE_URL')} or pass --base-url."
        )
    http = client or shared_client()
    method, url = route["method"], base + route["path"]
    stream = None
    if route.get("stream"):
        stream = _Streaming(route["stream"], on_item, anyio.current_time() + current.call_timeout)
    with anyio.move_on_after(current.call_timeout + (STREAM_GRACE if stream else 0.0)):
        url, request, fetched_tokens = await _prepare(route, arguments, base, http)
        template = route["path"]
        response = await _send(http, method, url, request, template, stream)
        if response.status_code == 401 and fetched_tokens:
            # The cached OAuth2 token may have been revoked before its expiry: fetch a new one, once.
            auth.forget(fetched_tokens)
            url, request, _ = await _prepare(route, arguments, base, http)
            response = await _send(http, method, url, request, template, stream)
        return response
    audit.note_upstream("CallTimeout")  # reached only when the deadline cancelled the call
    raise UpstreamError(
        f"{method} {url}: no complete answer within {current.call_timeout:g} s, the deadline "
        f"{current.variable('CALL_TIMEOUT')} sets for a whole call (connecting, sending, reading, "
        "retries); stopped waiting."
    )


async def _prepare(
    route: Mapping[str, Any], arguments: Mapping[str, Any], base: str, http: httpx2.AsyncClient
) -> tuple[str, dict[str, Any], list[str]]:
    """URL, httpx2 request arguments, and the OAuth2 schemes whose fetched token was used."""
    headers: dict[str, str] = {}
    cookies: dict[str, str] = {}
    query: list[tuple[str, str]] = []
    raw_query = ""  # a `querystring` parameter's value: the query string, already encoded
    path = route["path"]
    for param in route["params"]:
        if param["argument"] not in arguments or arguments[param["argument"]] is None:
            continue
        value = arguments[param["argument"]]
        where = param["in"]
        if where == "path":
            expanded = _path_value(
                param["argument"], param["name"], value, param["style"], param["explode"]
            )
            path = path.replace("{" + param["name"] + "}", expanded)
        elif where == "query":
            query.extend(_query_pairs(param["name"], value, param["style"], param["explode"]))
        elif where == "querystring":
            raw_query = _query_string(value, param.get("contentType", ""))
        elif where == "header":
            headers[param["name"]] = _header_value(
                param["argument"], _simple(value, param["explode"])
            )
        else:
            cookies[param["name"]] = _simple(value, param["explode"])
    request: dict[str, Any] = {"headers": headers, "params": query}
    if raw_query:
        request["raw_query"] = raw_query
    if route["body"] is not None:  # before credentials: a bad argument fetches no token
        body_arguments, content_type = _body(route["body"], arguments)
        request.update(body_arguments)
        if content_type:
            headers["Content-Type"] = content_type
    if route["method"].upper() not in transport.IDEMPOTENT:  # a retried call keeps its key
        keyed = replay.idempotency_key(extensions.current_tool.get() or route["path"])
        if keyed is not None:
            headers[keyed[0]] = keyed[1]
    fetched = await auth.apply(route["security"], http, headers, query, cookies)
    if cookies:
        headers["Cookie"] = "; ".join(f"{k}={quote(v, safe='')}" for k, v in cookies.items())
    return base + path, request, fetched


class _Streaming:
    """How to read a streamed response: its format, who hears each item, when to stop."""

    def __init__(self, fmt: str, on_item: streams.OnItem | None, deadline: float) -> None:
        self.fmt, self.on_item, self.deadline = fmt, on_item, deadline


async def _send(
    http: httpx2.AsyncClient,
    method: str,
    url: str,
    request: dict[str, Any],
    template: str,
    stream: _Streaming | None = None,
) -> httpx2.Response:
    current = settings.current()
    try:
        keyed = bool(current.idempotency_key and current.idempotency_key in request["headers"])
        return await transport.send_with_retries(
            method,
            lambda resend: _send_following(
                http, method, url, dict(request), template, resend, stream
            ),
            keyed,
        )
    except httpx2.PoolTimeout:
        size = transport.pool_size(http)
        busy = {None: "every upstream connection is", 1: "the one upstream connection is"}.get(
            size, f"all {size} upstream connections are"
        )
        raise UpstreamError(
            f"{method} {url}: {busy} busy with other calls and none came free within "
            f"{current.connect_timeout:g} s ({current.variable('CONNECT_TIMEOUT')}). Try again "
            f"shortly; {current.variable('MAX_CONNECTIONS')} sets how many may be open at once."
        ) from None
    except httpx2.ConnectTimeout:
        raise UpstreamError(
            f"{method} {url}: could not connect within {current.connect_timeout:g} s "
            f"({current.variable('CONNECT_TIMEOUT')})."
        ) from None
    except httpx2.TimeoutException:
        raise UpstreamError(
            f"{method} {url}: no answer within {transport.read_timeout():g} s (timeout: "
            f"{current.variable('TIMEOUT')}, the wait for each read)."
        ) from None
    except httpx2.HTTPError as exc:
        raise UpstreamError(
            f"{method} {url}: request failed: {type(exc).__name__}: {exc}"
        ) from None


async def _send_following(
    http: httpx2.AsyncClient,
    method: str,
    url: str,
    request: dict[str, Any],
    template: str,
    resend: int = 0,
    stream: _Streaming | None = None,
) -> httpx2.Response:
    """Follow redirects only within the API's origin, so credentials never reach another host;
    the final response's body read within the size limit (a stream's within its own)."""
    # Merge rather than replace: a path key may carry its own query (`/alerts?lat={lat}`).
    params = request.pop("params", [])
    raw_query: str = request.pop("raw_query", "")
    target = httpx2.URL(url).copy_merge_params(params) if params else httpx2.URL(url)
    if raw_query:  # appended as encoded: httpx2 would re-encode a query it parses
        joined = target.query + b"&" if target.query else b""
        target = target.copy_with(query=joined + raw_query.encode("ascii"))
    outgoing = http.build_request(method, target, **request)
    for _ in range(MAX_REDIRECTS + 1):
        headers = outgoing.headers
        with telemetry.upstream_span(method, template, outgoing.url, headers, resend) as status:
            response = await http.send(outgoing, follow_redirects=False, stream=True)
            status(response.status_code)
            following = response.next_request
            if following is None and stream is not None and 200 <= response.status_code < 300:
                return await _read_stream(response, stream)
            if following is None:
                return await _read_body(response, method, url)
        await response.aclose()  # a redirect's body is not wanted
        if not _same_origin(response.request.url, following.url):
            raise UpstreamError(
                f"{method} {url}: redirected to another origin ({following.url.scheme}://"
                f"{following.url.host}); not followed, so credentials stay with the API."
            )
        outgoing = following
    raise UpstreamError(f"{method} {url}: more than {MAX_REDIRECTS} redirects.")


async def _read_body(response: httpx2.Response, method: str, url: str) -> httpx2.Response:
    """The response with its body read, decoded, up to `PREFIX_MAX_RESPONSE_BYTES`; past it
    the connection is closed and UpstreamError says which limit and variable stopped it."""
    current = settings.current()
    limit = current.max_response_bytes
    declared = response.headers.get("content-length", "")
    identity = response.headers.get("content-encoding", "identity").lower() == "identity"
    unread = identity and declared.isdigit() and int(declared) > limit  # refused as announced
    chunks: list[bytes] = []
    size = 0
    try:
        if not unread:
            async with contextlib.aclosing(response.aiter_bytes()) as decoded:
                async for chunk in decoded:
                    size += len(chunk)
                    if size > limit:
                        break
                    chunks.append(chunk)
    finally:
        await response.aclose()
    if unread or size > limit:
        variable = current.variable("MAX_RESPONSE_BYTES")
        over = (
            f"is {int(declared):,} bytes (its Content-Length), over the {limit:,}-byte limit "
            f"{variable} sets; not read"
            if unread
            else f"is larger than {limit:,} bytes (counted decompressed), the limit {variable} "
            "sets; stopped reading"
        )
        raise UpstreamError(
            f"{method} {url}: HTTP {response.status_code}: the response body {over}. Ask for "
            f"less (filters, paging), or raise {variable}."
        )
    # The decoded bytes, so `content`, `text` and `json()` need no second pass: the headers
    # say so (no Content-Encoding, its length). The request, extensions and timing are kept.
    headers = [
        (k, v)
        for k, v in response.headers.multi_items()
        if k.lower() not in ("content-encoding", "transfer-encoding")
    ]
    read = httpx2.Response(
        response.status_code,
        headers=headers,
        content=b"".join(chunks),
        request=response.request,
        extensions=response.extensions,
        history=response.history,
        default_encoding=response.default_encoding,
    )
    read.headers["Content-Length"] = str(size)
    read.elapsed = response.elapsed
    return read


async def _read_stream(response: httpx2.Response, stream: _Streaming) -> httpx2.Response:
    """A streamed response read item by item, as a response whose JSON body is the summary."""
    current = settings.current()
    read = await streams.read(
        response,
        stream.fmt,
        stream.on_item,
        current.stream_max_items,
        current.stream_max_bytes,
        stream.deadline,
    )
    if read.note:
        read.note += (
            f" ({current.variable('STREAM_MAX_ITEMS')}, {current.variable('STREAM_MAX_BYTES')} and "
            f"{current.variable('CALL_TIMEOUT')} bound a stream)"
        )
    body = json.dumps(read.summary(), ensure_ascii=False).encode()
    skipped = ("content-encoding", "transfer-encoding", "content-length", "content-type")
    headers = [(k, v) for k, v in response.headers.multi_items() if k.lower() not in skipped]
    headers.append(("Content-Type", "application/json"))
    summary = httpx2.Response(
        response.status_code,
        headers=headers,
        content=body,
        request=response.request,
        extensions=response.extensions,
    )
    summary.elapsed = response.elapsed
    return summary


def _same_origin(a: httpx2.URL, b: httpx2.URL) -> bool:
    """Same scheme, host and port, or the same host upgraded from http to https."""
    if a.host != b.host:
        return False
    return (a.scheme, a.port) == (b.scheme, b.port) or (a.scheme, b.scheme, b.port) == (
        "http",
        "https",
        None,
    )


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))  # JSON 5.0 is a valid integer; send it as 5
    if isinstance(value, (dict, list)):
        return json.dumps(value, separators=(",", ":"))
    return str(value)


def _simple(value: Any, explode: bool) -> str:
    """`simple` style: arrays comma-joined; objects as k,v pairs (k=v when exploded)."""
    if isinstance(value, list):
        return ",".join(_scalar(v) for v in value)
    if isinstance(value, dict):
        sep = "=" if explode else ","
        return ",".join(f"{k}{sep}{_scalar(v)}" for k, v in value.items())
    return _scalar(value)


def _path_value(argument: str, name: str, value: Any, style: str, explode: bool) -> str:
    """RFC 6570 expansion for `simple`, `label` and `matrix` path styles: each value
    percent-encoded whole (`../` or `?` cannot change the target); separators literal."""
    if isinstance(value, dict):
        items = [(str(k), _scalar(v)) for k, v in value.items()]
    elif isinstance(value, list):
        items = [("", _scalar(v)) for v in value]
    else:
        items = [("", _scalar(value))]
    enc = [(_encode(k), _encode(v)) for k, v in items]
    is_object = isinstance(value, dict)
    if style == "label":
        if is_object:
            return "." + ("." if explode else ",").join(
                f"{k}={v}" if explode else f"{k},{v}" for k, v in enc
            )
        return "." + ("." if explode else ",").join(v for _, v in enc)
    if style == "matrix":
        key = _encode(name)
        if is_object:
            if explode:
                return "".join(f";{k}={v}" for k, v in enc)
            return f";{key}=" + ",".join(f"{k},{v}" for k, v in enc)
        if explode and isinstance(value, list):
            return "".join(f";{key}={v}" for _, v in enc)
        return f";{key}=" + ",".join(v for _, v in enc)
    pairs = (f"{k}={v}" if explode else f"{k},{v}" for k, v in enc)
    text = ",".join(pairs if is_object else (v for _, v in enc))
    if not text:
        raise InvalidArgument(f"{argument}: a path parameter cannot be empty")
    # `.` and `..` too, or the URL would be normalised to a parent path.
    return text.replace(".", "%2E") if text in (".", "..") else text


def _encode(text: str) -> str:
    return quote(text, safe="")


def _query_pairs(name: str, value: Any, style: str, explode: bool) -> list[tuple[str, str]]:
    if isinstance(value, list):
        if explode and style == "form":
            return [(name, _scalar(v)) for v in value]
        sep = {"spaceDelimited": " ", "pipeDelimited": "|"}.get(style, ",")
        return [(name, sep.join(_scalar(v) for v in value))]
    if isinstance(value, dict):
        if style == "deepObject":
            return _deep_pairs(name, value, 0)
        if explode:
            return [(str(k), _scalar(v)) for k, v in value.items()]
        return [(name, ",".join(f"{k},{_scalar(v)}" for k, v in value.items()))]
    return [(name, _scalar(value))]


def _query_string(value: Any, content_type: str) -> str:
    """A `querystring` parameter (OpenAPI 3.2) as the whole query string: an object as form
    pairs (form-urlencoded), a string as written (characters a query cannot hold
    percent-encoded), anything else as its JSON, percent-encoded."""
    media = content_type.split(";", maxsplit=1)[0].strip().lower()
    if isinstance(value, dict) and media == "application/x-www-form-urlencoded":
        pairs = [pair for k, v in value.items() for pair in _query_pairs(str(k), v, "form", True)]
        return _form_encode(pairs).decode("ascii")
    if isinstance(value, str) and not media.endswith(("/json", "+json")):
        return quote(value, safe="=&+;,/?:@!$'()*~%")
    return quote(json.dumps(value, ensure_ascii=False, separators=(",", ":")), safe="")


def _header_value(argument: str, value: str) -> str:
    if not value.isascii() or any((c < " " and c != "\t") or c == "\x7f" for c in value):
        raise InvalidArgument(
            f"{argument}: header values must be printable ASCII, with no line breaks"
        )
    return value


def _deep_pairs(name: str, value: Any, depth: int) -> list[tuple[str, str]]:
    """deepObject: `name[key]=v`, nested objects as `name[a][b]=v`, arrays as `name[a][0]=v`."""
    if depth > 16 or not isinstance(value, (dict, list)):
        return [(name, _scalar(value))]
    children = value.items() if isinstance(value, dict) else enumerate(value)
    return [pair for k, v in children for pair in _deep_pairs(f"{name}[{k}]", v, depth + 1)]


def _body(
    body: Mapping[str, Any], arguments: Mapping[str, Any]
) -> tuple[dict[str, Any], str | None]:
    """httpx2 request arguments for the body, and a Content-Type to set (None: httpx2's)."""
    if body["argument"] is not None:
        payload: Any = arguments.get(body["argument"])
        if payload is None:
            return {}, None
    else:
        payload = {name: arguments[arg] for name, arg in body["fields"] if arg in arguments}
    media = body["contentType"].split(";")[0].strip().lower()
    if media == "application/octet-stream":
        try:
            content = base64.b64decode(payload, validate=True)
        except ValueError:
            raise InvalidArgument(f"{body['argument']}: not valid base64") from None
        _check_upload(body["argument"], "the body", len(content))
        return {"content": content}, body["contentType"]
    encoding: dict[str, Any] = body.get("encoding", {})
    if media == "application/x-www-form-urlencoded" and isinstance(payload, dict):
        pairs: list[tuple[str, str]] = []
        for key, value in payload.items():
            spec = encoding.get(key, {})
            pairs.extend(
                _query_pairs(key, value, spec.get("style", "form"), spec.get("explode", True))
            )
        return {"content": _form_encode(pairs)}, "application/x-www-form-urlencoded"
    if media == "multipart/form-data" and isinstance(payload, dict):
        files = {name for name, arg in body["fields"] if arg in body.get("files", ())}
        return {"files": _multipart(payload, files, encoding, dict(body["fields"]))}, None
    if media.startswith("text/") and isinstance(payload, str):
        return {"content": payload.encode()}, body["contentType"]
    # JSON, also `+json` media types (sent under their own name) and `*/*`.
    content_type = body["contentType"] if media.endswith(("/json", "+json")) else "application/json"
    return {
        "content": json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()
    }, content_type


def _form_encode(pairs: list[tuple[str, str]]) -> bytes:
    return "&".join(f"{quote(k, safe='[]')}={quote(v, safe='')}" for k, v in pairs).encode("ascii")


Part = tuple[str, tuple[str | None, bytes, str | None]]


def _multipart(
    payload: Mapping[str, Any],
    files: set[str],
    encoding: Mapping[str, Any],
    arguments: Mapping[str, str],
) -> list[Part]:
    """Parts in argument order: files from base64 or an allowed path, scalars as text,
    arrays as repeated parts, objects as JSON (or the `encoding` contentType)."""
    parts: list[Part] = []
    for key, value in payload.items():
        if value is None:
            continue
        content_type = encoding.get(key, {}).get("contentType")
        if key in files:
            for one in value if isinstance(value, list) else [value]:
                parts.append((key, _file_part(arguments.get(key, key), one)))
            continue
        for item in (
            value if isinstance(value, list) and not _is_json_type(content_type) else [value]
        ):
            if isinstance(item, (dict, list)):
                data = json.dumps(item, ensure_ascii=False, separators=(",", ":")).encode()
                parts.append((key, (None, data, content_type or "application/json")))
            else:
                parts.append((key, (None, _scalar(item).encode(), content_type)))
    return parts


def _is_json_type(content_type: str | None) -> bool:
    return content_type is not None and content_type.split(";")[0].strip().lower().endswith(
        ("/json", "+json")
    )


def _file_part(argument: str, spec: Mapping[str, Any]) -> tuple[str | None, bytes, str | None]:
    """(filename, bytes, media type) of one file argument."""
    filename = spec.get("filename")
    if "content" in spec:
        try:
            data = base64.b64decode(spec["content"], validate=True)
        except ValueError:
            raise InvalidArgument(f"{argument}.content: not valid base64") from None
        _check_upload(f"{argument}.content", "the file", len(data))
        filename = filename or "file"
    else:
        path = str(spec.get("path", ""))
        target = _upload_path(argument, path)
        data = _read_upload(f"{argument}.path", path, target)
        filename = filename or target.name
    media = (
        spec.get("contentType") or mimetypes.guess_type(filename)[0] or "application/octet-stream"
    )
    return filename, data, media


def _check_upload(argument: str, what: str, size: int) -> None:
    current = settings.current()
    limit = current.max_upload_bytes
    if size > limit:
        raise InvalidArgument(
            f"{argument}: {what} is {size:,} bytes, over the {limit:,}-byte upload limit "
            f"{current.variable('MAX_UPLOAD_BYTES')} sets; not sent."
        )


def _read_upload(argument: str, path: str, target: Path) -> bytes:
    """The file's bytes, its size checked before reading and the read bounded (it may grow)."""
    current = settings.current()
    limit = current.max_upload_bytes
    try:
        _check_upload(argument, repr(path), target.stat().st_size)
        with target.open("rb") as file:
            data = file.read(limit + 1)
    except OSError as exc:
        raise InvalidArgument(f"{argument}: cannot read {path!r}: {exc.strerror}") from None
    if len(data) > limit:  # it grew while being read, or its size was not known (/proc)
        raise InvalidArgument(
            f"{argument}: {path!r} is over the {limit:,}-byte upload limit "
            f"{current.variable('MAX_UPLOAD_BYTES')} sets; not sent."
        )
    return data


def _upload_path(argument: str, path: str) -> Path:
    """A regular file inside the upload directory, symlinks resolved; anything else refused."""
    current = settings.current()
    allowed = current.upload_dir
    if not allowed:
        raise InvalidArgument(
            f"{argument}.path: reading local files is disabled; pass `content` (base64) instead, or start the "
            f"server with {current.variable('UPLOAD_DIR')} set to the directory to allow."
        )
    root = Path(allowed).resolve()
    try:
        target = (root / path).resolve(strict=True)
    except (OSError, RuntimeError, ValueError):  # missing, a symlink loop, a NUL byte
        raise InvalidArgument(
            f"{argument}.path: no such file under the upload directory: {path!r}"
        ) from None
    if not target.is_relative_to(root) or target == root:
        raise InvalidArgument(f"{argument}.path: {path!r} is outside the upload directory; refused")
    if not target.is_file():
        raise InvalidArgument(f"{argument}.path: {path!r} is not a regular file")
    return target

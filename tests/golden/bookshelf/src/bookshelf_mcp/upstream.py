"""HTTP calls to the upstream API: request building, credentials, errors.

A route (from `tools.json`) says where each tool argument goes. Path values are
percent-encoded whole, so `../` or `?` in a value cannot change the request target.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

import httpx2

from . import config, transport

# scheme name -> (kind, location, parameter name, env vars)
SECURITY_SCHEMES: dict[str, tuple[str, str, str, tuple[str, ...]]] = {
    "bearer": ("bearer", "header", "Authorization", ("BOOKSHELF_BEARER",)),
    "apiKeyQuery": ("apiKey", "query", "key", ("BOOKSHELF_API_KEY_QUERY",)),
}


class MissingCredential(Exception):
    """No credential set for any of the operation's security requirements."""


class InvalidArgument(ValueError):
    """An argument that passed the schema but cannot be sent (e.g. CR/LF in a header)."""


class UpstreamError(Exception):
    """The request could not be completed: timeout, connection failure, no base URL."""


class ApiError(Exception):
    """A non-2xx response, raised by the typed functions in `operations`."""

    def __init__(self, response: httpx2.Response) -> None:
        self.response = response
        self.status_code = response.status_code
        super().__init__(
            f"HTTP {response.status_code} {response.reason_phrase}: {response.text[:500]}"
        )


MAX_REDIRECTS = 5
_client: httpx2.AsyncClient | None = None


def shared_client() -> httpx2.AsyncClient:
    """One connection pool per process, created on first use."""
    global _client
    if _client is None:
        _client = transport.make_client()
    return _client


async def send(
    route: Mapping[str, Any], arguments: Mapping[str, Any], client: httpx2.AsyncClient | None = None
) -> httpx2.Response:
    """Send one operation's request; return the response, whatever its status."""
    base = config.base_url()
    if not base:
        raise UpstreamError(
            f"No upstream URL: set {config.ENV_PREFIX}_BASE_URL or pass --base-url."
        )
    headers: dict[str, str] = {}
    cookies: dict[str, str] = {}
    query: list[tuple[str, str]] = []
    path = route["path"]
    for param in route["params"]:
        if param["argument"] not in arguments or arguments[param["argument"]] is None:
            continue
        value = arguments[param["argument"]]
        where = param["in"]
        if where == "path":
            segment = _path_segment(param["argument"], _simple(value, param["explode"]))
            path = path.replace("{" + param["name"] + "}", segment)
        elif where == "query":
            query.extend(_query_pairs(param["name"], value, param["style"], param["explode"]))
        elif where == "header":
            headers[param["name"]] = _header_value(
                param["argument"], _simple(value, param["explode"])
            )
        else:
            cookies[param["name"]] = _simple(value, param["explode"])
    _apply_credentials(route["security"], headers, query, cookies)
    if cookies:
        headers["Cookie"] = "; ".join(f"{k}={quote(v, safe='')}" for k, v in cookies.items())
    request: dict[str, Any] = {"headers": headers, "params": query}
    if route["body"] is not None:
        body_arguments, content_type = _body(route["body"], arguments)
        request.update(body_arguments)
        if content_type:
            headers["Content-Type"] = content_type
    http = client or shared_client()
    url = base + path
    try:
        return await transport.send_with_retries(
            route["method"], lambda: _send_following(http, route["method"], url, dict(request))
        )
    except httpx2.TimeoutException:
        raise UpstreamError(
            f"{route['method']} {url}: no answer within {config.timeout():g} s (timeout)."
        ) from None
    except httpx2.HTTPError as exc:
        raise UpstreamError(
            f"{route['method']} {url}: request failed: {type(exc).__name__}: {exc}"
        ) from None


async def _send_following(
    http: httpx2.AsyncClient, method: str, url: str, request: dict[str, Any]
) -> httpx2.Response:
    """Follow redirects only within the API's origin, so credentials never reach another host."""
    # Merge rather than replace: a path key may carry its own query (`/alerts?lat={lat}`).
    params = request.pop("params", [])
    target = httpx2.URL(url).copy_merge_params(params) if params else httpx2.URL(url)
    response = await http.request(method, target, follow_redirects=False, **request)
    for _ in range(MAX_REDIRECTS):
        following = response.next_request
        if following is None:
            return response
        if not _same_origin(response.request.url, following.url):
            raise UpstreamError(
                f"{method} {url}: redirected to another origin ({following.url.scheme}://"
                f"{following.url.host}); not followed, so credentials stay with the API."
            )
        response = await http.send(following, follow_redirects=False)
    raise UpstreamError(f"{method} {url}: more than {MAX_REDIRECTS} redirects.")


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


def _path_segment(argument: str, value: str) -> str:
    """Percent-encoded whole; `.` and `..` too, or the URL would be normalised to a parent path."""
    if not value:
        raise InvalidArgument(f"{argument}: a path parameter cannot be empty")
    encoded = quote(value, safe="")
    return encoded.replace(".", "%2E") if encoded in (".", "..") else encoded


def _query_pairs(name: str, value: Any, style: str, explode: bool) -> list[tuple[str, str]]:
    if isinstance(value, list):
        if explode and style == "form":
            return [(name, _scalar(v)) for v in value]
        sep = {"spaceDelimited": " ", "pipeDelimited": "|"}.get(style, ",")
        return [(name, sep.join(_scalar(v) for v in value))]
    if isinstance(value, dict):
        if style == "deepObject":
            return [(f"{name}[{k}]", _scalar(v)) for k, v in value.items()]
        if explode:
            return [(str(k), _scalar(v)) for k, v in value.items()]
        return [(name, ",".join(f"{k},{_scalar(v)}" for k, v in value.items()))]
    return [(name, _scalar(value))]


def _header_value(argument: str, value: str) -> str:
    if not value.isascii() or any((c < " " and c != "\t") or c == "\x7f" for c in value):
        raise InvalidArgument(
            f"{argument}: header values must be printable ASCII, with no line breaks"
        )
    return value


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
        return {"content": content}, body["contentType"]
    if media == "application/x-www-form-urlencoded" and isinstance(payload, dict):
        return {"data": {k: _scalar(v) for k, v in payload.items()}}, None
    if media == "multipart/form-data" and isinstance(payload, dict):
        return {"files": [(k, (None, _scalar(v).encode())) for k, v in payload.items()]}, None
    if media.startswith("text/") and isinstance(payload, str):
        return {"content": payload.encode()}, body["contentType"]
    return {"json": payload}, None


def _apply_credentials(
    requirements: list[list[str]],
    headers: dict[str, str],
    query: list[tuple[str, str]],
    cookies: dict[str, str],
) -> None:
    """Use the first requirement whose credentials are all set; none set is an error."""
    if not requirements:
        return
    for requirement in requirements:
        if all(all(config.env(v) for v in SECURITY_SCHEMES[s][3]) for s in requirement):
            for scheme in requirement:
                _apply(SECURITY_SCHEMES[scheme], headers, query, cookies)
            return
    options = [" and ".join(v for s in req for v in SECURITY_SCHEMES[s][3]) for req in requirements]
    raise MissingCredential(
        "This tool needs credentials that are not configured: set "
        + " or ".join(options)
        + " in the server's environment."
    )


def _apply(
    scheme: tuple[str, str, str, tuple[str, ...]],
    headers: dict[str, str],
    query: list[tuple[str, str]],
    cookies: dict[str, str],
) -> None:
    kind, location, parameter, env_vars = scheme
    values = [config.env(v) or "" for v in env_vars]
    if kind == "basic":
        token = base64.b64encode(f"{values[0]}:{values[1]}".encode()).decode("ascii")
        headers["Authorization"] = f"Basic {token}"
    elif kind == "bearer":
        headers["Authorization"] = f"Bearer {values[0]}"
    elif location == "header":
        headers[parameter] = values[0]
    elif location == "query":
        query.append((parameter, values[0]))
    else:
        cookies[parameter] = values[0]

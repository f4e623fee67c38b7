# mcpgen's server runtime, copied byte for byte into each generated package; edit it in mcpgen.
"""How requests reach the upstream: timeouts, the connection pool, TLS trust, bounded retries.

- `PREFIX_CONNECT_TIMEOUT` (default 10 s: to connect, or to get a free pooled connection) and
  `PREFIX_TIMEOUT` (default 30 s, the wait for each read or write). `PREFIX_CALL_TIMEOUT`
  (default twice `PREFIX_TIMEOUT`) bounds a whole call, retries included (see `upstream.send`);
- `PREFIX_MAX_CONNECTIONS` (default 100): upstream connections open at once; a call that finds
  them all busy waits up to `PREFIX_CONNECT_TIMEOUT` for one, then fails saying so;
- TLS certificates are always verified; `PREFIX_CA_BUNDLE` names a PEM file (or directory)
  of CA certificates to trust instead of the system's. There is no switch to turn checks off;
- `PREFIX_RETRIES` (default 2): idempotent requests (GET, HEAD, OPTIONS, PUT, DELETE) are
  sent again after a connection failure or a 502/503/504, waiting with exponential backoff
  and jitter (or the answer's Retry-After when it is short). Other methods are sent once,
  unless they carry an idempotency key (`replay`): then they are retried like these, and on a
  409 too (the API still running the first request with that key, as Stripe answers).
"""

from __future__ import annotations

import os
import random
import ssl
import weakref
from collections.abc import Awaitable, Callable
from functools import cache
from typing import Any

import anyio
import httpx2

from . import audit, settings
from .guard import parse_retry_after
from .settings import SettingsError

IDEMPOTENT = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "DELETE", "QUERY"})  # QUERY: OpenAPI 3.2
RETRY_STATUSES = frozenset({502, 503, 504})
# Failures where the request most likely never ran, or the connection broke under it.
RETRY_ERRORS = (
    httpx2.ConnectError,
    httpx2.ConnectTimeout,
    httpx2.RemoteProtocolError,
    httpx2.ReadError,
)
BACKOFF_BASE = 0.25  # seconds before the first retry; doubled each time
BACKOFF_CAP = 4.0
MAX_RETRY_WAIT = 10.0  # a Retry-After longer than this is not waited for: the error is returned
MAX_KEEPALIVE = 20  # idle connections kept open for reuse (httpx's default)
_pool_sizes: weakref.WeakKeyDictionary[httpx2.AsyncClient, int] = weakref.WeakKeyDictionary()


def connect_timeout() -> float:
    return settings.current().connect_timeout


def read_timeout() -> float:
    return settings.current().timeout


def retries() -> int:
    return settings.current().retries


def tls_context() -> ssl.SSLContext | bool:
    """True (the system's trust store) or a context trusting `PREFIX_CA_BUNDLE`; never unverified."""
    current = settings.current()
    return _tls_context(current.ca_bundle, current.variable("CA_BUNDLE"))


@cache
def _tls_context(path: str | None, variable: str) -> ssl.SSLContext | bool:
    if not path:
        return True
    try:
        if os.path.isdir(path):
            return ssl.create_default_context(capath=path)
        return ssl.create_default_context(cafile=path)
    except (OSError, ssl.SSLError) as exc:
        raise SettingsError(f"{variable}={path!r}: cannot load CA certificates: {exc}") from None


def check_settings() -> None:
    """What `settings` cannot tell from the text alone: that the CA bundle loads."""
    tls_context()


def make_client(**options: Any) -> httpx2.AsyncClient:
    """The upstream client: our timeouts, pool size and TLS trust, plus `options` (e.g. event_hooks)."""
    size = settings.current().max_connections
    timeout = httpx2.Timeout(read_timeout(), connect=connect_timeout(), pool=connect_timeout())
    limits = httpx2.Limits(max_connections=size, max_keepalive_connections=min(size, MAX_KEEPALIVE))
    client = httpx2.AsyncClient(timeout=timeout, limits=limits, verify=tls_context(), **options)
    _pool_sizes[client] = size
    return client


def pool_size(client: httpx2.AsyncClient) -> int | None:
    """How many connections a client from `make_client` opens at once (None: another client)."""
    return _pool_sizes.get(client)


def backoff(attempt: int) -> float:
    """Exponential, capped, with jitter so that many clients do not retry in step."""
    ceiling = min(BACKOFF_CAP, BACKOFF_BASE * 2.0**attempt)
    return ceiling / 2 + random.uniform(0, ceiling / 2)


async def send_with_retries(
    method: str, attempt: Callable[[int], Awaitable[httpx2.Response]], keyed: bool = False
) -> httpx2.Response:
    """Run `attempt(resend)` (one complete request; `resend`: how many went before it), again
    for retryable failures of idempotent methods (or `keyed` ones: an idempotency key makes a
    resend safe, and a 409 worth retrying)."""
    allowed = retries() if keyed or method.upper() in IDEMPOTENT else 0
    statuses = RETRY_STATUSES | {409} if keyed else RETRY_STATUSES
    for number in range(allowed + 1):
        last = number == allowed
        try:
            response = await attempt(number)
        except RETRY_ERRORS as exc:
            if last:
                audit.note_upstream(type(exc).__name__)
                raise
            await anyio.sleep(backoff(number))
            continue
        except (
            Exception
        ) as exc:  # timeouts, refused redirects: named in the audit line, then raised
            audit.note_upstream(type(exc).__name__)
            raise
        if response.status_code in statuses and not last:
            wait = parse_retry_after(response.headers.get("retry-after"))
            if wait is None or wait <= MAX_RETRY_WAIT:
                await response.aclose()
                await anyio.sleep(backoff(number) if wait is None else wait)
                continue
        audit.note_upstream(response.status_code)
        return response
    raise AssertionError("unreachable: the last attempt returns or raises")

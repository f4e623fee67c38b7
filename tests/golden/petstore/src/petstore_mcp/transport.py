"""How requests reach the upstream: timeouts, TLS trust, bounded retries.

- `PREFIX_CONNECT_TIMEOUT` (default 10 s) and `PREFIX_TIMEOUT` (default 30 s, each read/write);
- TLS certificates are always verified; `PREFIX_CA_BUNDLE` names a PEM file (or directory)
  of CA certificates to trust instead of the system's. There is no switch to turn checks off;
- `PREFIX_RETRIES` (default 2): idempotent requests (GET, HEAD, OPTIONS, PUT, DELETE) are
  sent again after a connection failure or a 502/503/504, waiting with exponential backoff
  and jitter (or the answer's Retry-After when it is short). Other methods are sent once.
"""

from __future__ import annotations

import os
import random
import ssl
from collections.abc import Awaitable, Callable
from functools import cache

import anyio
import httpx2

from . import audit, config
from .guard import SettingsError, parse_retry_after

IDEMPOTENT = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "DELETE"})
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


def _number(name: str, default: float, minimum: float) -> float:
    variable = f"{config.ENV_PREFIX}_{name}"
    raw = os.environ.get(variable, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if not value >= minimum or value == float("inf"):
        raise SettingsError(f"{variable}={raw!r}: expected a number >= {minimum:g}")
    return value


def connect_timeout() -> float:
    return _number("CONNECT_TIMEOUT", 10.0, 0.001)


def read_timeout() -> float:
    return _number("TIMEOUT", 30.0, 0.001)


def retries() -> int:
    return int(_number("RETRIES", 2, 0))


@cache
def tls_context() -> ssl.SSLContext | bool:
    """True (the system's trust store) or a context trusting `PREFIX_CA_BUNDLE`; never unverified."""
    variable = f"{config.ENV_PREFIX}_CA_BUNDLE"
    path = os.environ.get(variable, "").strip()
    if not path:
        return True
    try:
        if os.path.isdir(path):
            return ssl.create_default_context(capath=path)
        return ssl.create_default_context(cafile=path)
    except (OSError, ssl.SSLError) as exc:
        raise SettingsError(f"{variable}={path!r}: cannot load CA certificates: {exc}") from None


def check_settings() -> None:
    problems = []
    for read in (connect_timeout, read_timeout, retries, tls_context):
        try:
            read()
        except SettingsError as exc:
            problems.append(str(exc))
    if problems:
        raise SettingsError("\n".join(problems))


def make_client() -> httpx2.AsyncClient:
    timeout = httpx2.Timeout(read_timeout(), connect=connect_timeout())
    return httpx2.AsyncClient(timeout=timeout, verify=tls_context())


def backoff(attempt: int) -> float:
    """Exponential, capped, with jitter so that many clients do not retry in step."""
    ceiling = min(BACKOFF_CAP, BACKOFF_BASE * 2.0**attempt)
    return ceiling / 2 + random.uniform(0, ceiling / 2)


async def send_with_retries(
    method: str, attempt: Callable[[], Awaitable[httpx2.Response]]
) -> httpx2.Response:
    """Run `attempt` (one complete request), again for retryable failures of idempotent methods."""
    allowed = retries() if method.upper() in IDEMPOTENT else 0
    for number in range(allowed + 1):
        last = number == allowed
        try:
            response = await attempt()
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
        if response.status_code in RETRY_STATUSES and not last:
            wait = parse_retry_after(response.headers.get("retry-after"))
            if wait is None or wait <= MAX_RETRY_WAIT:
                await response.aclose()
                await anyio.sleep(backoff(number) if wait is None else wait)
                continue
        audit.note_upstream(response.status_code)
        return response
    raise AssertionError("unreachable: the last attempt returns or raises")

"""Settings read from the environment (prefix `BOOKSHELF_`)."""

from __future__ import annotations

import os

SERVER_NAME = "bookshelf"
SERVER_TITLE = "Bookshelf"
SERVER_VERSION = "2.0"
ENV_PREFIX = "BOOKSHELF"
DEFAULT_BASE_URL: str | None = "http://localhost:8080/v2"

_base_url_override: str | None = None


def set_base_url(url: str) -> None:
    """Override the upstream URL (the `--base-url` flag wins over the environment)."""
    global _base_url_override
    _base_url_override = url


def base_url() -> str | None:
    url = _base_url_override or os.environ.get(f"{ENV_PREFIX}_BASE_URL") or DEFAULT_BASE_URL
    return url.rstrip("/") if url else None


def env(name: str) -> str | None:
    """An environment variable; empty counts as unset."""
    return os.environ.get(name) or None


def rate_limit() -> int:
    """Tool calls allowed per minute (`BOOKSHELF_RATE_LIMIT`); 0 means unlimited."""
    raw = os.environ.get(f"{ENV_PREFIX}_RATE_LIMIT", "0")
    try:
        return max(0, int(raw))
    except ValueError:
        return 0


def timeout() -> float:
    """Upstream request timeout in seconds (`BOOKSHELF_TIMEOUT`, default 30)."""
    try:
        return float(os.environ.get(f"{ENV_PREFIX}_TIMEOUT", "30"))
    except ValueError:
        return 30.0


def max_response_chars() -> int:
    """Characters of one tool result (`BOOKSHELF_MAX_RESPONSE_CHARS`); longer ones are cut, with a note."""
    try:
        return max(1_000, int(os.environ.get(f"{ENV_PREFIX}_MAX_RESPONSE_CHARS", "100000")))
    except ValueError:
        return 100000


def upload_dir() -> str | None:
    """The only directory whose files tools may upload by path (`BOOKSHELF_UPLOAD_DIR`); unset: none."""
    return env(f"{ENV_PREFIX}_UPLOAD_DIR")

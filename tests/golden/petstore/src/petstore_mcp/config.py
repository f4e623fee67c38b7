"""Settings read from the environment (prefix `PETSTORE_`)."""

from __future__ import annotations

import os

SERVER_NAME = "petstore"
SERVER_TITLE = "Petstore"
SERVER_VERSION = "1.2.0"
ENV_PREFIX = "PETSTORE"
DEFAULT_BASE_URL: str | None = "https://petstore.example.com/api/v3"

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


def timeout() -> float:
    """Upstream request timeout in seconds (`PETSTORE_TIMEOUT`, default 30)."""
    try:
        return float(os.environ.get(f"{ENV_PREFIX}_TIMEOUT", "30"))
    except ValueError:
        return 30.0

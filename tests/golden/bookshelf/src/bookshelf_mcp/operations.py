"""Typed async functions, one per operation of Bookshelf.

Use them from your own code, without MCP::

    from bookshelf_mcp import operations

    result = await operations.list_books(...)

Each raises `upstream.ApiError` for a non-2xx response, `upstream.UpstreamError` when no
response arrives (timeout, connection error, redirect to another origin) and
`upstream.MissingCredential` when the environment lacks a credential. Models are imported
on first use, one module at a time, so importing this module stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import httpx2
from pydantic import TypeAdapter

from . import upstream
from .catalog import tool_table

if TYPE_CHECKING:
    from .models.book import Book


async def _call(
    tool: str, arguments: dict[str, Any], client: httpx2.AsyncClient | None
) -> httpx2.Response:
    sent = {key: value for key, value in arguments.items() if value is not None}
    response = await upstream.send(tool_table()[tool]["http"], sent, client)
    if response.status_code >= 400:
        raise upstream.ApiError(response)
    return response


async def list_books(
    *,
    q: str | None = None,
    status: str | None = None,
    page: int | None = None,
    client: httpx2.AsyncClient | None = None,
) -> Any:
    """List books

    HTTP GET /books"""
    response = await _call(
        "listBooks",
        {
            "q": q,
            "status": status,
            "page": page,
        },
        client,
    )
    return response.json()


async def add_book(
    *,
    isbn: str,
    title: str,
    authors: list[str] | None = None,
    published: int | None = None,
    shelf: str | None = None,
    client: httpx2.AsyncClient | None = None,
) -> Book:
    """Add a book

    HTTP POST /books"""
    response = await _call(
        "addBook",
        {
            "isbn": isbn,
            "title": title,
            "authors": authors,
            "published": published,
            "shelf": shelf,
        },
        client,
    )
    from .models.book import Book

    return TypeAdapter(Book).validate_json(response.content)


async def get_book(
    *,
    isbn: str,
    client: httpx2.AsyncClient | None = None,
) -> Book:
    """Get one book

    HTTP GET /books/{isbn}"""
    response = await _call(
        "getBook",
        {
            "isbn": isbn,
        },
        client,
    )
    from .models.book import Book

    return TypeAdapter(Book).validate_json(response.content)


async def update_progress(
    *,
    isbn: str,
    body: Any,
    client: httpx2.AsyncClient | None = None,
) -> Book:
    """Record reading progress

    HTTP PATCH /books/{isbn}"""
    response = await _call(
        "updateProgress",
        {
            "isbn": isbn,
            "body": body,
        },
        client,
    )
    from .models.book import Book

    return TypeAdapter(Book).validate_json(response.content)


async def get_cover(
    *,
    isbn: str,
    client: httpx2.AsyncClient | None = None,
) -> bytes:
    """The book's cover image

    HTTP GET /books/{isbn}/cover"""
    response = await _call(
        "getCover",
        {
            "isbn": isbn,
        },
        client,
    )
    return response.content


async def reading_stats(
    *,
    client: httpx2.AsyncClient | None = None,
) -> Any:
    """Reading statistics

    HTTP GET /stats"""
    response = await _call(
        "readingStats",
        {},
        client,
    )
    return response.json()

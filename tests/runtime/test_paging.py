"""`paging`: bounded pages behind cursors this server issued for this list, and no other."""

from __future__ import annotations

import base64
import math

import pytest
from mcp import MCPError, types

from mcpgen.runtime import paging

ITEMS = [f"tool{i:03d}" for i in range(25)]
DIGEST = paging.digest(ITEMS)


def every_page(items: list[str], size: int, weights: list[int] | None = None) -> list[list[str]]:
    fingerprint = paging.digest(items)
    pages, cursor = [], None
    while True:
        one, cursor = paging.page(items, fingerprint, cursor, size, weights)
        pages.append(one)
        if cursor is None:
            return pages


def test_digest_depends_on_the_keys_and_their_order() -> None:
    assert paging.digest(ITEMS) == paging.digest(list(ITEMS)) and len(DIGEST) == 16
    assert paging.digest(ITEMS[::-1]) != DIGEST
    assert paging.digest([*ITEMS, "tool999"]) != DIGEST


def test_cursors_walk_the_whole_list_in_order() -> None:
    first, cursor = paging.page(ITEMS, DIGEST, None, 10)
    assert first == ITEMS[:10] and cursor is not None
    second, cursor = paging.page(ITEMS, DIGEST, cursor, 10)
    assert second == ITEMS[10:20] and cursor is not None
    third, cursor = paging.page(ITEMS, DIGEST, cursor, 10)
    assert third == ITEMS[20:] and cursor is None


def test_a_cursor_is_opaque_url_safe_text() -> None:
    _, cursor = paging.page(ITEMS, DIGEST, None, 10)
    assert cursor is not None and "=" not in cursor and set(cursor) <= set(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    )


def test_a_list_that_fits_has_no_cursor() -> None:
    assert paging.page(ITEMS, DIGEST, None, 25) == (ITEMS, None)
    assert paging.page([], paging.digest([]), None, 10) == ([], None)


def refused(items: list[str], cursor: str) -> MCPError:
    with pytest.raises(MCPError) as caught:
        paging.page(items, paging.digest(items), cursor, 10)
    assert caught.value.error.code == types.INVALID_PARAMS
    assert caught.value.error.message == "Invalid cursor: not one this server issued for this list"
    return caught.value


def test_a_cursor_of_another_list_is_refused() -> None:
    _, cursor = paging.page(ITEMS, DIGEST, None, 10)
    assert cursor is not None
    refused([*ITEMS, "tool025"], cursor)  # the list changed (another build): stale digest
    refused(ITEMS[:-1], cursor)


def forged(offset: object, fingerprint: str = DIGEST) -> str:
    return base64.urlsafe_b64encode(f"{offset}:{fingerprint}".encode()).decode().rstrip("=")


@pytest.mark.parametrize(
    "cursor",
    [
        "",
        "!!!",
        "not-a-cursor",
        "ü",
        base64.urlsafe_b64encode(b"\xff\xfe:x").decode(),
        forged("ten"),
        forged(0),  # the first page has no cursor
        forged(-5),
        forged(25),  # at or past the end
        forged(999),
        forged(" 10"),
        forged(10) + "==",  # padded: not the text this server issued
        forged(10, "0" * 16),
    ],
)
def test_a_garbage_cursor_is_refused(cursor: str) -> None:
    refused(ITEMS, cursor)


def test_a_forged_but_well_formed_cursor_is_accepted() -> None:
    """The cursor holds nothing secret: the same offset and digest is the same cursor."""
    assert paging.page(ITEMS, DIGEST, forged(10), 10) == (ITEMS[10:20], forged(20))


def test_page_size_is_at_least_one() -> None:
    assert paging.page(ITEMS, DIGEST, None, 0)[0] == ITEMS[:1]
    assert len(every_page(ITEMS, 0)) == 25


@pytest.mark.parametrize("total", [48, 49, 100, 1200, 4800, 4801, 10_000])
def test_at_most_48_pages(total: int) -> None:
    items = [f"t{i}" for i in range(total)]
    pages = every_page(items, 10)
    assert len(pages) <= paging.PAGES_TARGET
    assert [item for one in pages for item in one] == items
    assert len(pages[0]) == max(10, math.ceil(total / paging.PAGES_TARGET))


def test_page_end_counts() -> None:
    assert paging.page_end(0, 100, 25, None) == 25
    assert paging.page_end(90, 100, 25, None) == 100
    assert paging.page_end(0, 4800, 25, None) == 100  # 4800 / 48
    assert paging.page_end(0, 10, 0, None) == 1


def test_pages_are_bounded_by_bytes() -> None:
    mb = 600_000
    assert paging.page_end(0, 10, 10, [mb] * 10) == 3  # a fourth item would pass 2,000,000 bytes
    assert paging.page_end(3, 10, 10, [mb] * 10) == 6
    assert paging.page_end(0, 3, 10, [5 * mb, 1, 1]) == 1  # the first item always goes, even alone over the bound
    assert paging.page_end(0, 10, 10, [1] * 10) == 10
    exact = [1_000_000, 1_000_000, 1]
    assert paging.page_end(0, 3, 10, exact) == 2  # 2,000,000 is allowed, one byte more is not


def test_byte_bounded_pages_walk_the_whole_list() -> None:
    items = [f"t{i}" for i in range(10)]
    weights = [900_000, 900_000, 900_000, 10, 10, 2_500_000, 10, 10, 10, 10]
    pages = every_page(items, 10, weights)
    assert pages == [items[:2], items[2:5], items[5:6], items[6:]]


def test_a_list_within_the_one_page_budget_is_served_whole() -> None:
    weights = [1_000] * len(ITEMS)  # 25 kB in all
    whole, cursor = paging.page(ITEMS, DIGEST, None, 10, weights, one_page_bytes=25_000)
    assert whole == ITEMS and cursor is None  # a client that reads one page sees every item
    first, cursor = paging.page(ITEMS, DIGEST, None, 10, weights, one_page_bytes=24_999)
    assert first == ITEMS[:10] and cursor is not None  # past the budget: paged as before
    assert paging.page(ITEMS, DIGEST, cursor, 10, weights, one_page_bytes=10**9)[0] == ITEMS[10:20]
    assert paging.page(ITEMS, DIGEST, None, 10, None, one_page_bytes=10**9)[0] == ITEMS[:10]  # unweighed


def test_the_one_page_budget_is_a_setting(project: object, monkeypatch: pytest.MonkeyPatch) -> None:
    from mcpgen.runtime import settings

    assert settings.current().one_page_bytes == paging.ONE_PAGE_BYTES
    for raw, expected in [("0", 0), ("512KiB", 524_288), ("5MB", 5_000_000)]:
        monkeypatch.setenv("PETSTORE_ONE_PAGE_BYTES", raw)
        settings._parsed.clear()
        assert settings.current().one_page_bytes == expected
    monkeypatch.setenv("PETSTORE_ONE_PAGE_BYTES", "lots")
    settings._parsed.clear()
    with pytest.raises(settings.SettingsError, match="PETSTORE_ONE_PAGE_BYTES='lots'"):
        settings.current()

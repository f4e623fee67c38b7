"""Inventory: a small stock-keeping toolkit.

Items live in memory for the life of the server. Try it with
`mcpgen from-python samples/tools.py -o out/inventory`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import enum
from dataclasses import dataclass, field
from datetime import datetime, timezone
from json import dumps as to_json  # imported, so not a tool
from typing import Annotated, Literal

from pydantic import BaseModel, Field
from typing_extensions import TypedDict  # pydantic needs it on Python < 3.12

SKU_PATTERN = r"^[A-Z]{3}-\d{4}$"
Sku = Annotated[
    str,
    Field(pattern=SKU_PATTERN, description="Stock unit, e.g. BOL-0001."),
]


class Category(str, enum.Enum):
    TOOLS = "tools"
    PARTS = "parts"
    SUPPLIES = "supplies"


@dataclass
class Location:
    """Where an item is kept."""

    warehouse: str
    aisle: int = 1
    bins: list[str] = field(default_factory=list)


class Dimensions(TypedDict):
    """Outer size of one unit, in centimetres."""

    width: float
    height: float
    depth: float


class Item(BaseModel):
    """One stock-keeping unit."""

    sku: str
    name: str
    category: Category
    quantity: int
    tags: list[str] = []
    location: Location | None = None
    dimensions: Dimensions | None = None
    updated_at: datetime


class Order(BaseModel):
    """A purchase order sent to a supplier."""

    sku: str
    supplier: str
    quantity: int
    status: Literal["sent", "confirmed"]
    deliver_to: tuple[str, int] | None = None  # warehouse, aisle


class UnknownItem(LookupError):
    """No item has this SKU."""


_ITEMS: dict[str, Item] = {}


def _now() -> datetime:
    return datetime.now(timezone.utc)


def _get(sku: str) -> Item:
    try:
        return _ITEMS[sku]
    except KeyError:
        raise UnknownItem(f"no item with SKU {sku}") from None


def add_item(
    sku: Sku,
    name: Annotated[str, Field(min_length=1, max_length=80)],
    category: Category,
    quantity: Annotated[int, Field(ge=0)] = 0,
    tags: list[str] | None = None,
    location: Location | None = None,
    dimensions: Dimensions | None = None,
) -> Item:
    """Add an item to the inventory, or replace the one with the same SKU.

    The item starts with the given quantity on hand.

    Args:
        sku: Its stock-keeping unit (the Field description above wins).
        name: Display name.
        category: What kind of item this is.
        quantity: Units on hand.
        tags: Free-form labels for searching.
        location: Where the item is kept.
        dimensions: Size of one unit.

    Returns:
        The stored item.
    """
    item = Item(
        sku=sku,
        name=name,
        category=category,
        quantity=quantity,
        tags=sorted(set(tags or [])),
        location=location,
        dimensions=dimensions,
        updated_at=_now(),
    )
    _ITEMS[sku] = item
    return item


def find_items(
    text: str = "",
    category: Category | None = None,
    tags: frozenset[str] = frozenset(),
    sort: Literal["name", "quantity", "updated"] = "name",
    limit: Annotated[int, Field(ge=1, le=100)] = 20,
) -> list[Item]:
    """Search the inventory.

    Parameters
    ----------
    text
        Case-insensitive text to look for in names.
    category
        Only items of this category.
    tags
        Only items carrying every one of these tags.
    sort
        Order of the results.
    limit
        At most this many results.
    """
    found = [
        item
        for item in _ITEMS.values()
        if text.lower() in item.name.lower()
        and (category is None or item.category is category)
        and tags <= set(item.tags)
    ]
    if sort == "name":
        found.sort(key=lambda item: item.name)
    elif sort == "quantity":
        found.sort(key=lambda item: item.quantity)
    else:
        found.sort(key=lambda item: item.updated_at)
    return found[:limit]


def adjust_stock(sku: Sku, delta: int, reason: str | None = None) -> int:
    """Add or remove units of an item.

    :param sku: The item to change.
    :param delta: Units received (positive) or taken (negative).
    :param reason: Why, for the record.
    :returns: The new quantity on hand.
    :raises UnknownItem: No item has this SKU.
    :raises ValueError: The stock would go below zero.
    """
    item = _get(sku)
    if item.quantity + delta < 0:
        raise ValueError(f"only {item.quantity} units of {sku} on hand")
    item.quantity += delta
    item.updated_at = _now()
    return item.quantity


def move_item(sku: Sku, to: Location) -> Item:
    """Move an item to another location.

    Args:
        sku: The item to move.
        to: Its new place.
    """
    item = _get(sku)
    item.location = dataclasses.replace(to, bins=sorted(set(to.bins)))  # bins: sorted, no repeats
    item.updated_at = _now()
    return item


def low_stock(thresholds: dict[str, int], default_threshold: int = 5) -> dict[str, int]:
    """Items whose quantity is below their threshold, with the quantity.

    Args:
        thresholds: Per-SKU minimum; other items use `default_threshold`.
        default_threshold: Minimum for items not in `thresholds`.
    """
    return {
        sku: item.quantity
        for sku, item in sorted(_ITEMS.items())
        if item.quantity < thresholds.get(sku, default_threshold)
    }


def tag_items(
    skus: set[str],
    tags: tuple[str, ...],
    replace: bool = False,
) -> list[str]:
    """Add tags to several items at once; returns the SKUs changed.

    Args:
        skus: Items to tag.
        tags: Tags to add.
        replace: Drop the items' current tags first.
    """
    changed = []
    for sku in sorted(skus):
        item = _get(sku)
        item.tags = sorted(set(tags) | (set[str]() if replace else set(item.tags)))
        changed.append(sku)
    return changed


async def place_order(
    sku: Sku,
    supplier: str,
    quantity: Annotated[int, Field(gt=0, le=1000)] = 10,
    deliver_to: tuple[str, int] | None = None,
) -> Order:
    """Send a purchase order to a supplier.

    Args:
        sku: What to order.
        supplier: Who to order from.
        quantity: Units to order.
        deliver_to: Warehouse and aisle; the item's own location if omitted.
    """
    item = _get(sku)
    if deliver_to is None and item.location is not None:
        deliver_to = (item.location.warehouse, item.location.aisle)
    await asyncio.sleep(0)  # stands in for a call to the supplier's API
    return Order(sku=sku, supplier=supplier, quantity=quantity, status="sent", deliver_to=deliver_to)


def remove_item(sku: Sku) -> None:
    """Remove an item from the inventory.

    Args:
        sku: The item to remove.
    """
    _get(sku)
    del _ITEMS[sku]


def export_items() -> str:
    """The whole inventory as a JSON document."""
    return to_json([item.model_dump(mode="json") for _, item in sorted(_ITEMS.items())])


def restock(*skus: str, quantity: int = 10) -> None:
    """Skipped by mcpgen with a warning: *args cannot be a tool argument."""
    for sku in skus:
        adjust_stock(sku, quantity)

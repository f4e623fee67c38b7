"""Typed async functions, one per operation of Petstore.

Use them from your own code, without MCP::

    from petstore_mcp import operations

    result = await operations.add_pet(...)

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
    from .models.category import Category
    from .models.order import Order
    from .models.pet import Pet


async def _call(
    tool: str, arguments: dict[str, Any], client: httpx2.AsyncClient | None
) -> httpx2.Response:
    sent = {key: value for key, value in arguments.items() if value is not None}
    response = await upstream.send(tool_table()[tool]["http"], sent, client)
    if response.status_code >= 400:
        raise upstream.ApiError(response)
    return response


async def add_pet(
    *,
    name: str,
    photo_urls: list[str],
    category: dict[str, Any] | None = None,
    tags: list[dict[str, Any]] | None = None,
    status: str | None = None,
    birthday: str | None = None,
    client: httpx2.AsyncClient | None = None,
) -> Pet:
    """Add a new pet to the store

    HTTP POST /pet

    :param photo_urls: tool argument ``photoUrls``"""
    response = await _call(
        "addPet",
        {
            "name": name,
            "photoUrls": photo_urls,
            "category": category,
            "tags": tags,
            "status": status,
            "birthday": birthday,
        },
        client,
    )
    from .models.pet import Pet

    return TypeAdapter(Pet).validate_json(response.content)


async def update_pet(
    *,
    name: str,
    photo_urls: list[str],
    category: dict[str, Any] | None = None,
    tags: list[dict[str, Any]] | None = None,
    status: str | None = None,
    birthday: str | None = None,
    client: httpx2.AsyncClient | None = None,
) -> Pet:
    """Update an existing pet

    Replaces the pet with the same id.

    HTTP PUT /pet

    :param photo_urls: tool argument ``photoUrls``"""
    response = await _call(
        "updatePet",
        {
            "name": name,
            "photoUrls": photo_urls,
            "category": category,
            "tags": tags,
            "status": status,
            "birthday": birthday,
        },
        client,
    )
    from .models.pet import Pet

    return TypeAdapter(Pet).validate_json(response.content)


async def find_pets_by_status(
    *,
    status: list[str] | None = None,
    limit: int | None = None,
    client: httpx2.AsyncClient | None = None,
) -> list[Pet]:
    """Find pets by status

    Several statuses can be given at once.

    HTTP GET /pet/findByStatus"""
    response = await _call(
        "findPetsByStatus",
        {
            "status": status,
            "limit": limit,
        },
        client,
    )
    from .models.pet import Pet

    return TypeAdapter(list[Pet]).validate_json(response.content)


async def find_pets_by_tags(
    *,
    tags: list[str],
    client: httpx2.AsyncClient | None = None,
) -> list[Pet]:
    """Find pets by tags

    Deprecated.

    HTTP GET /pet/findByTags"""
    response = await _call(
        "findPetsByTags",
        {
            "tags": tags,
        },
        client,
    )
    from .models.pet import Pet

    return TypeAdapter(list[Pet]).validate_json(response.content)


async def get_pet_by_id(
    *,
    pet_id: int,
    client: httpx2.AsyncClient | None = None,
) -> Pet:
    """Find a pet by ID

    HTTP GET /pet/{petId}

    :param pet_id: tool argument ``petId``"""
    response = await _call(
        "getPetById",
        {
            "petId": pet_id,
        },
        client,
    )
    from .models.pet import Pet

    return TypeAdapter(Pet).validate_json(response.content)


async def delete_pet(
    *,
    pet_id: int,
    x_reason: str | None = None,
    client: httpx2.AsyncClient | None = None,
) -> None:
    """Delete a pet

    HTTP DELETE /pet/{petId}

    :param pet_id: tool argument ``petId``

    :param x_reason: tool argument ``X-Reason``"""
    await _call(
        "deletePet",
        {
            "petId": pet_id,
            "X-Reason": x_reason,
        },
        client,
    )


async def get_pet_photo(
    *,
    pet_id: int,
    client: httpx2.AsyncClient | None = None,
) -> bytes:
    """Download the pet's photo

    HTTP GET /pet/{petId}/photo

    :param pet_id: tool argument ``petId``"""
    response = await _call(
        "getPetPhoto",
        {
            "petId": pet_id,
        },
        client,
    )
    return response.content


async def add_pet_note(
    *,
    pet_id: int,
    body: str,
    client: httpx2.AsyncClient | None = None,
) -> str:
    """Attach a note to a pet

    HTTP POST /pet/{petId}/notes

    :param pet_id: tool argument ``petId``"""
    response = await _call(
        "addPetNote",
        {
            "petId": pet_id,
            "body": body,
        },
        client,
    )
    return response.text


async def get_inventory(
    *,
    client: httpx2.AsyncClient | None = None,
) -> Any:
    """Returns pet inventories by status

    HTTP GET /store/inventory"""
    response = await _call(
        "getInventory",
        {},
        client,
    )
    return response.json()


async def place_order(
    *,
    pet_id: int,
    quantity: int,
    ship_date: str | None = None,
    status: str | None = None,
    complete: bool | None = None,
    client: httpx2.AsyncClient | None = None,
) -> Order:
    """Place an order for a pet

    HTTP POST /store/order

    :param pet_id: tool argument ``petId``

    :param ship_date: tool argument ``shipDate``"""
    response = await _call(
        "placeOrder",
        {
            "petId": pet_id,
            "quantity": quantity,
            "shipDate": ship_date,
            "status": status,
            "complete": complete,
        },
        client,
    )
    from .models.order import Order

    return TypeAdapter(Order).validate_json(response.content)


async def get_order_by_id(
    *,
    order_id: int,
    client: httpx2.AsyncClient | None = None,
) -> Order:
    """Find a purchase order by ID

    HTTP GET /store/order/{orderId}

    :param order_id: tool argument ``orderId``"""
    response = await _call(
        "getOrderById",
        {
            "orderId": order_id,
        },
        client,
    )
    from .models.order import Order

    return TypeAdapter(Order).validate_json(response.content)


async def get_category(
    *,
    id_: str,
    client: httpx2.AsyncClient | None = None,
) -> Category:
    """A category with its subcategories

    HTTP GET /categories/{id}

    :param id_: tool argument ``id``"""
    response = await _call(
        "getCategory",
        {
            "id": id_,
        },
        client,
    )
    from .models.category import Category

    return TypeAdapter(Category).validate_json(response.content)


async def reset_store(
    *,
    confirm: bool,
    client: httpx2.AsyncClient | None = None,
) -> None:
    """Reset the store's data

    HTTP POST /admin/reset"""
    await _call(
        "resetStore",
        {
            "confirm": confirm,
        },
        client,
    )

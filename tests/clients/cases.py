"""The planned tool calls of the client matrix, per server, and what each must come back as.

Every call must return a result the client accepts: `isError: true` exactly when the
upstream (or the Python function) failed, a success otherwise, however far the upstream's
body strays from the spec (tests/clients/messy_upstream.py). Never a client-side throw.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Case:
    """One planned tool call, and what the upstream does with it."""

    tool: str
    arguments: dict[str, Any]
    fails: bool  # upstream 4xx/5xx or the function raised: the client must see isError: true
    why: str
    text: str | None = None  # when set, the first text content must equal it
    text_prefix: str | None = None  # when set, the first text content must start with it

    def plan(self) -> dict[str, Any]:
        return {"name": self.tool, "arguments": self.arguments}


PETSTORE_CASES = (
    Case("getPetById", {"petId": 1}, False, "date as 01/02/2020, unknown enum, extra properties"),
    Case("getPetById", {"petId": 2}, False, "missing required, null where non-nullable, number as string"),
    Case("getPetById", {"petId": 3}, False, "1e308, 10**30, object where array, empty strings"),
    Case("getPetById", {"petId": 4}, False, "date-time without zone for a date, 40 levels of nesting"),
    Case("getPetById", {"petId": 5}, False, "array where an object is declared"),
    Case("getPetById", {"petId": 6}, False, "a bare string where an object is declared"),
    Case("getPetById", {"petId": 404}, True, "404 {status: 404} (clashes with Pet.status: string)"),
    Case("getPetById", {"petId": 500}, True, "500 with a JSON error body"),
    Case("deletePet", {"petId": 1}, True, "404 on delete"),
    Case("findPetsByStatus", {"status": ["available"]}, False, "an array of stray pets, null and string items"),
    Case("findPetsByStatus", {"status": ["pending"]}, False, "object where an array is declared"),
    Case("findPetsByStatus", {"status": ["sold"]}, True, "500 {status: 'error'}"),
    Case("findPetsByTags", {"tags": ["cute"]}, False, "impossible date 2020-13-45"),
    Case("addPet", {"name": "Rex", "photoUrls": []}, False, "number as string, wrong format, unknown enum"),
    Case("updatePet", {"name": "Rex", "photoUrls": []}, True, "400 with a list of field errors"),
    Case("getInventory", {}, False, "numbers as strings, null, 1e308, 10**30, object value"),
    Case("getOrderById", {"orderId": 1}, False, "date-time without zone, strings for numbers and boolean"),
    Case("getOrderById", {"orderId": 2}, False, "empty date-time and enum, null boolean"),
    Case("getOrderById", {"orderId": 3}, False, "-1e308, 10**30, 1.5 for an integer, a date for a date-time"),
    Case("getOrderById", {"orderId": 404}, True, "404 {status: 404}"),
    Case("placeOrder", {"petId": 1, "quantity": 1}, False, "null id, wrong date-time, integer enum"),
    Case("getCategory", {"id": "deep"}, False, "60 levels of nesting"),
    Case("getCategory", {"id": "flat"}, False, "object where an array is declared, wrong types"),
)



SKU = "BOL-0001"
# samples/tools.py over `mcpgen from-python`, on a fresh server (its inventory lives in memory).
# export_items returns a str: it must arrive as that very text, not JSON-encoded again.
PYTHON_CASES = (
    Case("export_items", {}, False, "a str return on an empty inventory", text="[]"),
    Case("add_item", {"sku": SKU, "name": "Bolt", "category": "parts", "quantity": 3,
                      "location": {"warehouse": "A"}, "dimensions": {"width": 1, "height": 2, "depth": 3}},
         False, "a pydantic model with a datetime, a dataclass and a TypedDict"),
    Case("find_items", {"text": "bo", "tags": []}, False, "a list of models"),
    Case("adjust_stock", {"sku": SKU, "delta": 2}, False, "an int return"),
    Case("adjust_stock", {"sku": "NOP-0000", "delta": 1}, True, "raises UnknownItem"),
    Case("adjust_stock", {"sku": SKU, "delta": -100}, True, "raises ValueError"),
    Case("low_stock", {"thresholds": {SKU: 10}}, False, "a dict[str, int] return"),
    Case("tag_items", {"skus": [SKU], "tags": ["metal"]}, False, "a list[str] return"),
    Case("place_order", {"sku": SKU, "supplier": "Acme", "deliver_to": ["B", 2]}, False, "async, tuple field"),
    Case("move_item", {"sku": SKU, "to": {"warehouse": "C", "aisle": 3, "bins": ["x", "x"]}}, False, "a model"),
    Case("export_items", {}, False, "a str return holding JSON", text_prefix=f'[{{"sku": "{SKU}", "name": "Bolt"'),
    Case("remove_item", {"sku": SKU}, False, "a None return"),
    Case("export_items", {}, False, "a str return, empty again", text="[]"),
)

GITHUB_CASES = (
    Case("repos_get", {"owner": "octocat", "repo": "Hello-World"}, False, 'homepage "" for format uri, more'),
    Case("issues_get", {"owner": "octocat", "repo": "Hello-World", "issue_number": 1347}, False,
         "number as string, labels mixing strings and objects, null user"),
    Case("users_get-by-username", {"username": "octocat"}, False, 'email "", date-times without zone'),
    Case("repos_list-for-user", {"username": "octocat"}, False, "a list with a null id and an empty object"),
    Case("issues_list-for-repo", {"owner": "octocat", "repo": "Hello-World"}, False, "a list of stray issues"),
    Case("repos_get", {"owner": "octocat", "repo": "missing"}, True, "404 Not Found"),
    Case("users_get-by-username", {"username": "ghost-500"}, True, "500 Server Error"),
)

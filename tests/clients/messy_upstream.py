"""A real HTTP upstream on 127.0.0.1 whose answers stray from the spec the way real APIs do.

Petstore (`/api/v3/...`, samples/petstore.yaml) and GitHub (`/github/...`, the REST spec
from @octokit/openapi) endpoints answer 200 with bodies that break their declared schema:
a wrong `format` (`"01/02/2020"` for a date, a date-time without zone, `""` for uri, email
or uuid), a wrong type, `null` where the spec says non-nullable, an unknown enum value,
missing required and extra properties, an array where an object is declared, numbers as
strings, very large numbers (1e308, 10**30) and deep nesting; and 404/500 with JSON error
bodies (`{"status": 404, ...}` clashes with `Pet.status: string`).

tests/clients/cases.py names the tool calls that reach each answer.
"""

from __future__ import annotations

import json
from typing import Any

from ..local_http import Handler, LocalServer, Recorded

PETSTORE_PREFIX = "/api/v3"
GITHUB_PREFIX = "/github"
STRIPE_PREFIX = "/stripe"


def nested(depth: int) -> dict[str, Any]:
    """A category `depth` levels deep (subcategories of subcategories ...)."""
    node: dict[str, Any] = {"id": f"level-{depth}", "name": "leaf", "subcategories": []}
    for level in range(depth - 1, 0, -1):
        node = {"id": f"level-{level}", "name": f"level {level}", "subcategories": [node], "extra": {"level": level}}
    return node


# -- petstore ------------------------------------------------------------------------------

PETS: dict[str, Any] = {
    # wrong format (date), unknown enum value, extra properties
    "1": {"id": 1, "name": "Rex", "photoUrls": [], "status": "adopted", "birthday": "01/02/2020",
          "microchip": {"vendor": "acme"}, "legacyId": "P-1"},
    # missing required (name, photoUrls), null where non-nullable, number as string
    "2": {"id": "2", "name": None, "status": None, "tags": [{"id": "7", "name": None}]},
    # very large numbers, object where array, empty strings
    "3": {"id": 1e308, "name": "", "photoUrls": "", "tags": {"id": 10**30}, "birthday": "",
          "category": {"id": 5, "name": ["not", "a", "string"]}},
    # a date-time where a date is declared, deep nesting
    "4": {"id": 10**30, "name": "Deep", "photoUrls": [None, 3, "ok"], "birthday": "2020-01-02T03:04:05",
          "category": nested(40)},
}


def _petstore(method: str, parts: list[str], query: str, body: bytes) -> tuple[int, Any]:
    match method, parts:
        case "GET", ["pet", pet_id] if pet_id in PETS:
            return 200, PETS[pet_id]
        case "GET", ["pet", "5"]:
            return 200, [PETS["1"], PETS["2"]]  # array where an object is declared
        case "GET", ["pet", "6"]:
            return 200, "Rex"  # a bare string where an object is declared
        case "GET", ["pet", "404"]:
            return 404, {"status": 404, "error": "Not Found", "message": "Pet not found"}
        case "GET", ["pet", "500"]:
            return 500, {"status": 500, "error": "Internal Server Error", "trace": ["a", "b"]}
        case "DELETE", ["pet", _]:
            return 404, {"status": 404, "message": "no such pet"}
        case "GET", ["pet", "findByStatus"] if "status=sold" in query:
            return 500, {"status": "error", "code": 500}
        case "GET", ["pet", "findByStatus"] if "status=pending" in query:
            return 200, {"pets": [PETS["1"]], "total": "1"}  # object where an array is declared
        case "GET", ["pet", "findByStatus"]:
            return 200, [PETS["1"], PETS["2"], PETS["3"], PETS["4"], None, "Tom"]
        case "GET", ["pet", "findByTags"]:
            return 200, [{"id": 9, "name": "Kit", "photoUrls": [], "birthday": "2020-13-45"}]
        case "POST", ["pet"]:
            return 200, {**json.loads(body), "id": "10", "birthday": "yesterday", "status": "new"}
        case "PUT", ["pet"]:
            return 400, {"status": 400, "errors": [{"field": "name", "message": "taken"}]}
        case "GET", ["store", "inventory"]:
            return 200, {"available": "2", "sold": None, "lost": 1e308, "huge": 10**30, "nested": {"a": 1}}
        case "GET", ["store", "order", "1"]:
            return 200, {"id": 1, "petId": "1", "quantity": "2", "shipDate": "2020-01-02T03:04:05",
                         "status": "shipped", "complete": "yes"}
        case "GET", ["store", "order", "2"]:
            return 200, {"id": 2, "shipDate": "", "status": "", "complete": None, "quantity": 0}
        case "GET", ["store", "order", "3"]:
            return 200, {"id": -1e308, "petId": 10**30, "quantity": 1.5, "shipDate": "2020-01-02"}
        case "GET", ["store", "order", "404"]:
            return 404, {"status": 404, "message": "Order not found"}
        case "POST", ["store", "order"]:
            return 200, {**json.loads(body), "id": None, "shipDate": "tomorrow", "status": 3}
        case "GET", ["categories", "deep"]:
            return 200, nested(60)
        case "GET", ["categories", "flat"]:
            return 200, {"id": 1, "name": None, "subcategories": {"id": "x"}}
    return 404, {"status": 404, "message": f"no route for {method} /{'/'.join(parts)}"}


# -- GitHub ----------------------------------------------------------------------------------

USER = {
    "login": "octocat", "id": 1, "node_id": "MDQ6VXNlcjE=", "avatar_url": "", "gravatar_id": None,
    "url": "https://api.github.com/users/octocat", "html_url": "https://github.com/octocat",
    "followers_url": "", "following_url": "", "gists_url": "", "starred_url": "", "subscriptions_url": "",
    "organizations_url": "", "repos_url": "", "events_url": "", "received_events_url": "",
    "type": "User", "site_admin": False, "name": None, "company": "@github", "blog": "",
    "location": None, "email": "", "hireable": None, "bio": None, "twitter_username": None,
    "public_repos": "8", "public_gists": 8, "followers": 1e308, "following": 10**30,
    "created_at": "2011-01-25T18:44:36", "updated_at": "25/01/2011", "user_view_type": "public",
}
LICENSE = {"key": "mit", "name": "MIT License", "spdx_id": "MIT", "url": None, "node_id": "MDc6TGljZW5zZTEz"}
REPO = {
    "id": 1296269, "node_id": "MDEwOlJlcG9zaXRvcnkxMjk2MjY5", "name": "Hello-World", "full_name": "octocat/Hello-World",
    "owner": USER, "private": False, "html_url": "https://github.com/octocat/Hello-World",
    "description": None, "fork": False, "url": "https://api.github.com/repos/octocat/Hello-World",
    "homepage": "", "mirror_url": None, "language": None, "forks_count": 9, "stargazers_count": "80",
    "watchers_count": 80, "size": 108, "default_branch": "master", "open_issues_count": 0,
    "is_template": False, "topics": None, "has_issues": True, "has_projects": True, "has_wiki": True,
    "has_pages": False, "has_downloads": True, "has_discussions": False, "archived": False, "disabled": False,
    "visibility": "internal-ish", "pushed_at": "2011-01-26T19:06:43", "created_at": "2011-01-26T19:01:12Z",
    "updated_at": "", "permissions": {"admin": False, "push": False, "pull": True}, "license": LICENSE,
    "allow_forking": True, "web_commit_signoff_required": False, "subscribers_count": 42, "network_count": 0,
    "forks": 9, "open_issues": 0, "watchers": 80, "temp_clone_token": None, "security_and_analysis": [],
    "custom_properties": {"team": "octo"}, "organization": None, "source": {"id": "not-a-repo"},
}
ISSUE = {
    "id": 1, "node_id": "MDU6SXNzdWUx", "url": "", "repository_url": "", "labels_url": "", "comments_url": "",
    "events_url": "", "html_url": "", "number": "1347", "state": "open", "state_reason": "resolved-ish",
    "title": "Found a bug", "body": None, "user": None, "labels": ["bug", {"id": 208045946, "name": "bug",
    "color": None, "default": "no"}], "assignee": None, "assignees": None, "milestone": {}, "locked": False,
    "active_lock_reason": None, "comments": 0, "pull_request": {"url": ""}, "closed_at": None,
    "created_at": "2011-04-22T13:33:48", "updated_at": "2011-04-22", "author_association": "ROBOT",
    "reactions": {"url": "", "total_count": "0"}, "sub_issues_summary": None,
}


def _github(method: str, parts: list[str]) -> tuple[int, Any]:
    match method, parts:
        case "GET", ["repos", "octocat", "Hello-World"]:
            return 200, REPO
        case "GET", ["repos", "octocat", "Hello-World", "issues", "1347"]:
            return 200, ISSUE
        case "GET", ["users", "octocat"]:
            return 200, USER
        case "GET", ["users", "octocat", "repos"]:
            return 200, [REPO, {**REPO, "id": None, "homepage": "not a url", "owner": None}, {}]
        case "GET", ["repos", "octocat", "Hello-World", "issues"]:
            return 200, [ISSUE, {**ISSUE, "number": None, "title": None}]
        case "GET", ["repos", "octocat", "missing"]:
            return 404, {"message": "Not Found", "documentation_url": "https://docs.github.com/rest", "status": "404"}
        case "GET", ["users", "ghost-500"]:
            return 500, {"message": "Server Error", "status": 500}
    return 404, {"message": "Not Found", "documentation_url": "https://docs.github.com/rest", "status": "404"}


# -- Stripe (the agents matrix: tests/clients/test_agents.py) ---------------------------------------


def _stripe(method: str, parts: list[str]) -> tuple[int, Any]:
    if (method, parts) == ("GET", ["v1", "balance"]):
        return 200, {"object": "balance", "available": [{"amount": "0", "currency": "usd"}], "livemode": None,
                     "pending": {}}
    return 404, {"error": {"type": "invalid_request_error", "message": "Unrecognized request URL"}}


# -- the server ----------------------------------------------------------------------------------


def answer(method: str, path: str, query: str, body: bytes) -> tuple[int, Any]:
    """(status, JSON value) for one request."""
    if path.startswith(PETSTORE_PREFIX + "/"):
        return _petstore(method, path[len(PETSTORE_PREFIX) :].strip("/").split("/"), query, body)
    if path.startswith(GITHUB_PREFIX + "/"):
        return _github(method, path[len(GITHUB_PREFIX) :].strip("/").split("/"))
    if path.startswith(STRIPE_PREFIX + "/"):
        return _stripe(method, path[len(STRIPE_PREFIX) :].strip("/").split("/"))
    return 404, {"status": 404, "message": "outside every API's base path"}


class MessyUpstream(LocalServer):
    """The upstream of the client matrix; `hits` counts requests by path."""

    name = "messy-upstream"

    def __init__(self) -> None:
        super().__init__()
        self.hits: dict[str, int] = {}

    def respond(self, handler: Handler, request: Recorded) -> None:
        with self._lock:
            self.hits[request.path] = self.hits.get(request.path, 0) + 1
        status, value = answer(request.method, request.path, request.query, request.body)
        data = json.dumps(value).encode()  # 1e308 stays 1e+308, 10**30 a 31-digit integer
        handler.send(status, {"Content-Type": "application/json; charset=utf-8", "Content-Length": str(len(data))}, data)

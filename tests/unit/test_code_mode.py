"""Code mode's pieces that need no server: BM25 ranking, Python names of operations, and the
sandbox pin (the installed pydantic-monty is in the generated servers' range and has the API
`runtime/sandbox.py` drives)."""

from __future__ import annotations

import importlib.metadata
import inspect

import pytest

from mcpgen.dependencies import CODE
from mcpgen.runtime.code_mode import bm25, identifier
from mcpgen.runtime.dynamic import words

DOCS = [
    ("issues_list_for_repo", {"name": words("issues_list_for_repo"), "tags": ["issue"], "parameters": words("owner repo labels state"),
                              "summary": words("List repository issues")}),
    ("repos_list_for_org", {"name": words("repos_list_for_org"), "tags": ["repo"], "parameters": words("org type"),
                            "summary": words("List organization repositories")}),
    ("issues_create", {"name": words("issues_create"), "tags": ["issue"], "parameters": words("owner repo title body"),
                       "summary": words("Create an issue")}),
    ("users_get", {"name": words("users_get"), "tags": ["user"], "parameters": words("username"),
                   "summary": words("Get a user")}),
]


def test_bm25_ranks_the_operations_a_task_needs_first() -> None:
    assert bm25(DOCS, words("list issues of a repository"), 2)[0][0] == "issues_list_for_repo"
    assert [n for n, _ in bm25(DOCS, words("create issue"), 2)] == ["issues_create", "issues_list_for_repo"]
    assert bm25(DOCS, words("list repos for an org"), 1)[0][0] == "repos_list_for_org"
    assert bm25(DOCS, words("labels"), 5) == [("issues_list_for_repo", pytest.approx(bm25(DOCS, ["label"], 1)[0][1]))]


def test_bm25_no_match_no_result_and_ties_by_name() -> None:
    assert bm25(DOCS, words("zebra"), 5) == []
    assert bm25([], words("issue"), 5) == []
    twins = [("b", {"name": ["x"]}), ("a", {"name": ["x"]})]
    assert [n for n, _ in bm25(twins, ["x"], 5)] == ["a", "b"]


def test_a_rare_word_outweighs_a_common_one() -> None:
    (best, _), *_ = bm25(DOCS, ["issue", "username"], 4)
    assert best == "users_get"


@pytest.mark.parametrize(("name", "expected"), [
    ("getPetById", "getPetById"), ("repos/list-for-org", "repos_list_for_org"), ("2fa", "_2fa"), ("class", "class_"),
])
def test_python_names_of_operations(name: str, expected: str) -> None:
    assert identifier(name) == expected


def test_the_installed_sandbox_is_in_the_pinned_minor_and_has_the_api_driven() -> None:
    (pin,) = CODE
    assert pin.requirement == "pydantic-monty>=1.4,<1.5"
    version = importlib.metadata.version("pydantic-monty")
    assert version.startswith("1.4."), version
    import pydantic_monty as monty

    for name in ("AsyncMonty", "MontyComplete", "AsyncFunctionSnapshot", "MontyRuntimeError", "MontySyntaxError",
                 "MontyCrashedError", "MontyError"):
        assert hasattr(monty, name), name
    assert {"script_name", "limits", "os_policy"} <= set(inspect.signature(monty.AsyncMonty.checkout).parameters)

"""`registry` and `policy`: every entry the server exposes is registered once, and one
decision (settings, then the OAuth caller's scopes) says who may see and use it.

The server's handlers are called as the SDK calls them, on the `served` project of
test_guarded (tools, HTTP- and function-bound resources and templates, prompts, a
completer); `upstream.send` is its recorder, so a test sees what reached the upstream."""

from __future__ import annotations

import contextlib
import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from mcp import MCPError, types

from mcpgen.runtime import app, guard, policy, principal, registry, settings
from mcpgen.runtime import project as runtime_project
from mcpgen.runtime.project import Project
from mcpgen.runtime.registry import Entry

from .test_guarded import RESOURCES, Recorder, call, complete, get_prompt, lines, read, served

__all__ = ["lines", "served"]  # fixtures, used by name


@contextlib.contextmanager
def calling_as(*scopes: str) -> Iterator[None]:
    """Requests made inside come from an OAuth caller holding `scopes`."""
    held = principal.caller.set(principal.Principal("alice", "app", frozenset(scopes)))
    try:
        yield
    finally:
        principal.caller.reset(held)


def handle(method: str, params: Any = None) -> Any:
    """What the server's handler for `method` answers `params`, called as the SDK calls it."""
    return anyio.run(app.server()._request_handlers[method].handler, None, params)


def reinstall(project: Project, tmp_path: Path, **changes: Any) -> None:
    """The installed project again with `changes`, its data files as they are now."""
    runtime_project.install(dataclasses.replace(runtime_project.current(), **changes))
    settings._parsed.clear()


def state_scopes(tmp_path: Path, project: Project, file: str, scopes: dict[str, Any]) -> None:
    """Write `scopes` (entry name -> alternatives) into the package's `file`."""
    path = tmp_path / project.package / file
    entries = json.loads(path.read_text())
    for entry in entries:
        name = entry["tool"]["name"] if "tool" in entry else entry.get("name") or entry["prompt"]["name"]
        if name in scopes:
            entry["scopes"] = scopes[name]
    path.write_text(json.dumps(entries))


# -- the registry ------------------------------------------------------------------


def test_every_kind_of_entry_is_registered_once(served: Recorder) -> None:
    entries = registry.registry().entries
    assert sorted((e.kind, e.name) for e in entries) == [
        ("prompt", "greet"),
        ("prompt", "plain"),
        ("resource", "getInventory"),
        ("resource", "touchStore"),
        ("resource template", "getPet"),
        ("resource template", "note"),
        ("tool", "addPet"),
        ("tool", "describe_tool"),
        ("tool", "getPet"),
    ]
    assert policy.names_addressed() == [
        "addPet", "describe_tool", "getInventory", "getPet", "greet", "note", "plain", "touchStore"
    ]


def test_dynamic_mode_registers_its_meta_tools(served: Recorder, project: Project, tmp_path: Path) -> None:
    reinstall(project, tmp_path, tool_mode="dynamic", default_scopes=("mcp",))
    metas = registry.registry().of_kind("meta tool")
    assert [(e.name, e.scopes, e.read_only) for e in metas] == [
        (name, (("mcp",),), True) for name in ("call_tool", "describe_tool", "search_tools")
    ]
    assert registry.registry().tool("describe_tool").kind == "meta tool"  # type: ignore[union-attr]


def test_scopes_stated_then_the_operations_then_the_default(served: Recorder, project: Project, tmp_path: Path) -> None:
    state_scopes(tmp_path, project, "tools.json", {"getPet": [["pets:read"]], "addPet": [["pets:write"], ["pets:admin"]]})
    state_scopes(tmp_path, project, "resources.json", {"getInventory": [["store:admin"]], "note": [[]]})
    reinstall(project, tmp_path, default_scopes=("mcp",))
    found = {(e.kind, e.name): e.scopes for e in registry.registry().entries}
    assert found[("tool", "getPet")] == (("pets:read",),)
    assert found[("resource template", "getPet")] == (("pets:read",),)  # none stated: its operation's
    assert found[("resource", "getInventory")] == (("store:admin",),)  # resource-only: stated in resources.json
    assert found[("resource template", "note")] == ((),)  # stated: none needed
    assert found[("resource", "touchStore")] == (("mcp",),)
    assert found[("prompt", "plain")] == (("mcp",),)  # prompts obey default_scopes
    assert found[("tool", "describe_tool")] == (("mcp",),)
    assert registry.registry().all_scopes() == ["mcp", "pets:admin", "pets:read", "pets:write", "store:admin"]


def test_requested_names_the_entries_of_a_request(served: Recorder) -> None:
    def named(method: str, params: Any) -> list[tuple[str, str]]:
        return [(e.kind, e.name) for e in registry.requested(method, params)]

    assert named("tools/call", {"name": "getPet"}) == [("tool", "getPet")]
    assert named("resources/read", {"uri": "petstore://pet/3"}) == [("resource template", "getPet")]
    assert named("resources/subscribe", {"uri": "petstore://store/inventory"}) == [("resource", "getInventory")]
    assert named("prompts/get", {"name": "plain"}) == [("prompt", "plain")]
    ref = {"type": "ref/resource", "uri": "petstore://notes/{key}"}
    assert named("completion/complete", {"ref": ref}) == [("resource template", "note")]
    assert named("completion/complete", {"ref": {"type": "ref/prompt", "name": "greet"}}) == [("prompt", "greet")]
    for method, params in [
        ("tools/call", {"name": 3}), ("resources/read", {"uri": "petstore://nowhere"}), ("prompts/get", []),
        ("completion/complete", {"ref": "x"}), ("tools/list", {}),
    ]:
        assert named(method, params) == []


# -- the decision -----------------------------------------------------------------


def _entry(name: str, read_only: bool = True, scopes: registry.Scopes = ()) -> Entry:
    return Entry("tool", name, scopes, read_only)


def test_everything_may_be_used_by_default(project: Project) -> None:
    assert [policy.refusal(_entry(n)) for n in ("getPet", "addPet", "deletePet")] == [None, None, None]


def test_read_only_refuses_entries_not_marked_read_only(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PETSTORE_READ_ONLY", "1")
    assert policy.allowed(_entry("getPet"))
    assert policy.refusal(_entry("addPet", read_only=False)) == (
        "tool 'addPet' is not read-only and this server runs with PETSTORE_READ_ONLY=1"
    )
    monkeypatch.setenv("PETSTORE_READ_ONLY", "off")
    assert policy.allowed(_entry("addPet", read_only=False))


def test_allow_and_deny_lists(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PETSTORE_TOOLS_ALLOW", "get*, addPet")
    assert policy.allowed(_entry("getPet")) and policy.allowed(_entry("addPet"))
    assert policy.refusal(_entry("deletePet")) == "tool 'deletePet' is not in PETSTORE_TOOLS_ALLOW"
    monkeypatch.setenv("PETSTORE_TOOLS_ALLOW", "*")
    monkeypatch.setenv("PETSTORE_TOOLS_DENY", "delete*")
    assert policy.refusal(_entry("deletePet")) == "tool 'deletePet' is in PETSTORE_TOOLS_DENY"  # deny wins


def test_read_only_is_named_before_the_lists_and_the_lists_before_scopes(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PETSTORE_READ_ONLY", "yes")
    monkeypatch.setenv("PETSTORE_TOOLS_DENY", "addPet")
    entry = _entry("addPet", read_only=False, scopes=(("pets:write",),))
    with calling_as():
        assert policy.refusal(entry) == "tool 'addPet' is not read-only and this server runs with PETSTORE_READ_ONLY=1"
        monkeypatch.delenv("PETSTORE_READ_ONLY")
        assert policy.refusal(entry) == "tool 'addPet' is in PETSTORE_TOOLS_DENY"
        monkeypatch.delenv("PETSTORE_TOOLS_DENY")
        assert policy.refusal(entry) == "tool 'addPet' needs scope 'pets:write'"


def test_scopes_are_alternatives_each_needed_whole(project: Project) -> None:
    entry = _entry("addPet", scopes=(("pets:write", "pets:read"), ("pets:admin",)))
    assert policy.allowed(entry)  # no OAuth caller (stdio, a static token): the settings alone decide
    for held, allowed in [((), False), (("pets:write",), False), (("pets:write", "pets:read"), True), (("pets:admin",), True)]:
        with calling_as(*held):
            assert policy.allowed(entry) is allowed, held
    with calling_as():
        assert policy.allowed(_entry("open", scopes=((),)))  # stated: none needed


def test_per_caller_memoises_per_settings_and_scopes(served: Recorder, project: Project, tmp_path: Path) -> None:
    state_scopes(tmp_path, project, "tools.json", {"getPet": [["pets:read"]], "addPet": [["pets:write"]]})
    reinstall(project, tmp_path)
    computed: list[frozenset[str] | None] = []

    @policy.per_caller
    def shown() -> list[str]:
        caller = principal.principal()
        computed.append(caller.scopes if caller else None)
        return [e.name for e in policy.visible("tool")]

    assert shown() == ["getPet", "addPet", "describe_tool"]
    for held, expected in [(("pets:read",), ["getPet", "describe_tool"]), (("pets:write",), ["addPet", "describe_tool"])]:
        with calling_as(*held):
            assert shown() == expected
            assert shown() == expected
    assert shown() == ["getPet", "addPet", "describe_tool"]
    assert len(computed) == 3


# -- every access setting addresses every entry -------------------------------------


def test_resource_only_and_prompt_names_are_valid_settings(served: Recorder, monkeypatch: pytest.MonkeyPatch) -> None:
    environ = {
        "PETSTORE_TOOLS_DENY": "getInventory, plain",  # a resource-only entry and a prompt
        "PETSTORE_TOOLS_ALLOW": "*",
        "PETSTORE_RATE_LIMIT_TOUCHSTORE": "1/h",
        "PETSTORE_RATE_LIMIT_GREET": "1/h",
        "PETSTORE_RATE_LIMIT_NOTE": "1/h",
    }
    loaded = settings.load(runtime_project.current(), environ, policy.names_addressed)
    assert loaded.tools_deny == ("getInventory", "plain")
    assert sorted(loaded.tool_rate_limits) == ["greet", "note", "touchStore"]


def test_a_denied_prompt_is_hidden_and_refused(served: Recorder, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PETSTORE_TOOLS_DENY", "plain")
    listed = handle("prompts/list")
    assert [p.name for p in listed.prompts] == ["greet"]
    with pytest.raises(MCPError, match=r"Unknown prompt: plain \(prompt 'plain' is in PETSTORE_TOOLS_DENY\)"):
        get_prompt("plain", {"who": "x"})
    with pytest.raises(MCPError, match="prompt 'plain' is in PETSTORE_TOOLS_DENY"):
        complete(types.PromptReference(type="ref/prompt", name="plain"), "who")


def test_a_prompt_has_its_own_rate_limit_which_its_completion_counts_against(
    served: Recorder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PETSTORE_RATE_LIMIT_PLAIN", "1/h burst 2")
    assert get_prompt("plain", {"who": "x"}).messages
    assert complete(types.PromptReference(type="ref/prompt", name="plain"), "who")
    with pytest.raises(MCPError, match="PETSTORE_RATE_LIMIT_PLAIN"):
        get_prompt("plain", {"who": "x"})
    assert get_prompt("greet", {"who": "x"}).messages  # another prompt, another bucket


# -- scopes on every kind of entry ----------------------------------------------------


def test_an_out_of_scope_resource_is_not_listed_read_subscribed_or_completed(
    served: Recorder, project: Project, tmp_path: Path
) -> None:
    state_scopes(tmp_path, project, "tools.json", {"getPet": [["pets:admin"]]})
    state_scopes(tmp_path, project, "resources.json", {"getInventory": [["pets:admin"]], "note": [["notes"]]})
    reinstall(project, tmp_path, default_scopes=("mcp",))
    with calling_as("mcp"):
        listed = handle("resources/list")
        templates = handle("resources/templates/list")
        assert [str(r.uri) for r in listed.resources] == ["petstore://store/touch"]
        assert templates.resource_templates == []
        for uri in ("petstore://pet/1", "petstore://store/inventory", "petstore://notes/a"):
            with pytest.raises(MCPError, match="needs scope"):
                read(uri)
            with pytest.raises(MCPError, match="Resource not found"):
                handle("resources/subscribe", types.SubscribeRequestParams(uri=uri))
        with pytest.raises(MCPError, match="needs scope 'pets:admin'"):
            complete(types.ResourceTemplateReference(type="ref/resource", uri="petstore://pet/{petId}"), "petId")
        assert get_prompt("plain", {"who": "x"}).messages  # mcp: the default scope
    with calling_as("pets:admin", "notes"):
        assert read("petstore://pet/1").contents and read("petstore://store/inventory").contents
        assert read("petstore://notes/a").contents
        with pytest.raises(MCPError, match=r"prompt 'plain' needs scope 'mcp'"):
            get_prompt("plain", {"who": "x"})
        with pytest.raises(MCPError, match=r"prompt 'greet' needs scope 'mcp'"):
            complete(types.PromptReference(type="ref/prompt", name="greet"), "who")
        prompts_listed = handle("prompts/list")
        assert prompts_listed.prompts == []
    assert [path for path, _ in served.sent] == ["/pet/1", "/store/inventory"]


# -- one decision point: every handler the server registers consults it -------------------

# A request that names an entry: it must ask the policy for that entry and be refused.
ENTRY_REQUESTS: dict[str, Any] = {
    "tools/call": types.CallToolRequestParams(name="getPet", arguments={}),
    "resources/read": types.ReadResourceRequestParams(uri="petstore://pet/1"),
    "resources/subscribe": types.SubscribeRequestParams(uri="petstore://notes/a"),
    "subscriptions/listen": types.SubscriptionsListenRequestParams(
        notifications=types.SubscriptionFilter(resource_subscriptions=["petstore://notes/a"])
    ),
    "prompts/get": types.GetPromptRequestParams(name="plain", arguments={"who": "x"}),
    "completion/complete": types.CompleteRequestParams(
        ref=types.PromptReference(type="ref/prompt", name="plain"),
        argument=types.CompletionArgument(name="who", value=""),
    ),
}
# A list: it must ask the policy about each entry of its kinds and list none refused.
LISTS = {
    "tools/list": ("tools", {"tool", "meta tool"}),
    "resources/list": ("resources", {"resource"}),
    "resources/templates/list": ("resource_templates", {"resource template"}),
    "prompts/list": ("prompts", {"prompt"}),
}
# Requests that name no entry, and why they need no decision.
EXEMPT = {
    "ping": "names nothing",
    "server/discover": "the server's own description and capabilities",
    "logging/setLevel": "the caller's own log level",
    "resources/unsubscribe": "drops a subscription the caller holds (which the policy allowed)",
}


def test_every_registered_request_handler_goes_through_the_policy(
    served: Recorder, lines: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[tuple[str, str]] = []

    def refuse_everything(entry: Entry) -> str:
        asked.append((entry.kind, entry.name))
        return "refused by the test's policy"

    monkeypatch.setattr(policy, "refusal", refuse_everything)
    handlers = app.server()._request_handlers
    unknown = set(handlers) - set(ENTRY_REQUESTS) - set(LISTS) - set(EXEMPT)
    assert not unknown, f"{sorted(unknown)}: a handler the policy test does not know; put it through `policy`"
    by_kind = {(e.kind, e.name) for e in registry.registry().entries}
    for method, params in ENTRY_REQUESTS.items():
        if method not in handlers:
            continue
        asked.clear()
        try:
            result = handle(method, params)
        except MCPError:
            pass
        else:
            assert isinstance(result, types.CallToolResult) and result.is_error, (method, result)
        assert asked and set(asked) <= by_kind, (method, asked)
    for method, (field, kinds) in LISTS.items():
        if method not in handlers:
            continue
        asked.clear()
        settings._parsed.clear()  # new settings: lists memoised per settings (`per_caller`) ask again
        result = handle(method)
        items = result[field] if isinstance(result, dict) else getattr(result, field)
        assert items == [], (method, items)
        assert {(e.kind, e.name) for e in registry.registry().of_kind(*kinds)} <= set(asked), method  # type: ignore[arg-type]
    assert served.sent == []
    assert {"resources/subscribe", "subscriptions/listen", "completion/complete"} <= set(handlers)  # all exercised


# -- the property: listing and gate agree, nothing out of scope goes upstream ----------------

SCOPES = ("a", "b", "c")
alternatives = st.lists(st.frozensets(st.sampled_from(SCOPES), max_size=2), max_size=2).map(
    lambda alts: [sorted(a) for a in alts]
)


@hypothesis_settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    scopes=st.fixed_dictionaries({n: st.none() | alternatives for n in ("getPet", "addPet", "getInventory", "note", "plain")}),
    deny=st.sets(st.sampled_from(["getPet", "addPet", "getInventory", "note", "plain", "greet", "touchStore"]), max_size=3),
    read_only=st.booleans(),
    default=st.lists(st.sampled_from(SCOPES), max_size=1),
    held=st.none() | st.frozensets(st.sampled_from(SCOPES)),
    limited=st.sets(st.sampled_from(["getPet", "note", "plain", "touchStore"]), max_size=2),
)
def test_the_listing_and_the_gate_agree(
    served: Recorder,
    project: Project,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    scopes: dict[str, Any],
    deny: set[str],
    read_only: bool,
    default: list[str],
    held: frozenset[str] | None,
    limited: set[str],
) -> None:
    package = tmp_path / project.package
    tools = json.loads((package / "tools.json").read_text())
    for entry in tools:
        entry.pop("scopes", None)
        if scopes.get(entry["tool"]["name"]) is not None:
            entry["scopes"] = scopes[entry["tool"]["name"]]
    (package / "tools.json").write_text(json.dumps(tools))
    data = [dict(r) for r in RESOURCES]
    for entry in data:
        if scopes.get(entry["name"]) is not None:
            entry["scopes"] = scopes[entry["name"]]
    (package / "resources.json").write_text(json.dumps(data))
    reinstall(project, tmp_path, default_scopes=tuple(default))
    for variable in [v for v in __import__("os").environ if v.startswith("PETSTORE_RATE_LIMIT") or v in ("PETSTORE_TOOLS_DENY", "PETSTORE_READ_ONLY")]:
        monkeypatch.delenv(variable)
    if deny:
        monkeypatch.setenv("PETSTORE_TOOLS_DENY", ",".join(sorted(deny)))
    monkeypatch.setenv("PETSTORE_READ_ONLY", "1" if read_only else "0")
    for name in limited:
        monkeypatch.setenv(f"PETSTORE_RATE_LIMIT_{name.upper()}", "1/h burst 1")
    guard.state().buckets.clear()
    served.sent.clear()

    def listed() -> set[tuple[str, str]]:
        tools = handle("tools/list")
        found = {("tool", t["name"]) for t in tools["tools"]}
        for method, field, kind in [
            ("resources/list", "resources", "resource"),
            ("resources/templates/list", "resource_templates", "resource template"),
            ("prompts/list", "prompts", "prompt"),
        ]:
            result = handle(method)
            found |= {(kind, item.name) for item in getattr(result, field)}
        return found

    def used(kind: str, name: str) -> bool:
        """Whether the gate lets one request to the entry through (it may then be rate limited)."""
        try:
            if kind == "tool":
                result = call(name)
                text = result.content[0].text if result.content else ""  # type: ignore[union-attr]
                return not result.is_error or "Rate limit" in text
            if kind == "prompt":
                get_prompt(name, {"who": "x"})
            else:
                uri = next(
                    (r.get("uri") or r["uriTemplate"].replace("{petId}", "1").replace("{key}", "a"))
                    for r in RESOURCES
                    if r["name"] == name
                )
                read(uri)
            return True
        except MCPError as exc:
            return exc.code == -32029  # over a limit: the gate let it through first

    context = calling_as(*held) if held is not None else contextlib.nullcontext()
    with context:
        shown = listed()
        for entry in registry.registry().entries:
            key = (entry.kind, entry.name)
            assert used(*key) == (key in shown), (key, shown)
            assert (key in shown) == policy.allowed(entry)
    sent_tools = {path.strip("/") for path, _ in served.sent if path in ("/getPet", "/addPet", "/describe_tool")}
    assert sent_tools <= {name for kind, name in shown if kind == "tool"}
    sent_reads = {path for path, _ in served.sent} - {"/getPet", "/addPet", "/describe_tool"}
    reachable = {"/pet/1": ("resource template", "getPet"), "/store/inventory": ("resource", "getInventory"),
                 "/store/touch": ("resource", "touchStore")}
    assert all(reachable[path] in shown for path in sent_reads), (sent_reads, shown)

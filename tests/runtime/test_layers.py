"""The runtime's import graph, function-local imports included, has no cycle, and its modules
sit in the layers docs/development.md names (lower layers never import higher ones)."""

from __future__ import annotations

import ast
from pathlib import Path

import mcpgen.runtime

RUNTIME = Path(mcpgen.runtime.__file__).parent

# Bottom to top. A module imports only modules of its own layer or lower ones.
LAYERS: list[set[str]] = [
    {"project", "state", "settings", "principal", "redact", "patterns", "messages", "paging",
     "results", "content", "catalog", "asgi", "json_lists", "telemetry", "replay", "declared", "sandbox",
     "toolsets", "streams"},
    {"extensions", "functions", "shared", "audit"},
    {"registry"},
    {"policy", "guard"},
    {"guarded"},
    {"auth", "transport", "upstream", "tool_context", "confirm", "resources", "prompts",
     "completion", "dynamic", "subscriptions", "code_mode", "toolset_tool"},
    {"app", "oauth", "http_guard", "public", "cli"},
]


def imports(module: Path) -> set[str]:
    """The runtime modules `module` imports, at module level or inside functions."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(module.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                found.add(node.module.split(".")[0])
            else:
                found.update(alias.name for alias in node.names)
    return found - {"__init__"}


def graph() -> dict[str, set[str]]:
    return {path.stem: imports(path) for path in RUNTIME.glob("*.py") if path.stem != "__init__"}


def test_the_runtime_import_graph_has_no_cycle() -> None:
    edges = graph()
    state: dict[str, str] = {}
    cycles: list[list[str]] = []

    def visit(node: str, trail: list[str]) -> None:
        state[node] = "open"
        for target in sorted(edges.get(node, ())):
            if state.get(target) == "open":
                cycles.append([*trail[trail.index(target):], target])
            elif target not in state:
                visit(target, [*trail, target])
        state[node] = "done"

    for node in sorted(edges):
        if node not in state:
            visit(node, [node])
    assert cycles == []


def test_every_module_has_a_layer_and_imports_no_higher_one() -> None:
    layer_of = {name: i for i, layer in enumerate(LAYERS) for name in layer}
    edges = graph()
    assert sorted(set(edges) - set(layer_of)) == [], "a new runtime module needs a layer here"
    upward = [
        f"{source} (layer {layer_of[source]}) imports {target} (layer {layer_of[target]})"
        for source, targets in sorted(edges.items())
        for target in sorted(targets)
        if layer_of[target] > layer_of[source]
    ]
    assert upward == []


def test_the_public_surface_is_declared() -> None:
    from mcpgen.runtime import public

    assert sorted(public.__all__) == ["Principal", "current_tool", "principal", "resource_updated", "tool"]
    for name in public.__all__:
        assert getattr(public, name) is not None

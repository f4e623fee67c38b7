"""Annotation hints from HTTP methods and their mcpgen.toml overrides; icons from the spec and
mcpgen.toml, and the refusals of unsafe ones; the warning of a spec without security schemes."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest

from mcpgen.diagnostics import Diagnostics, GenerationError, Level
from mcpgen.ir import Annotations, Icon
from mcpgen.options import IconSpec, Options, ToolOverride
from mcpgen.project.project_file import ProjectFile, read_project_file, render_project_file
from mcpgen.rendering.render import wire_tool
from mcpgen.sources.openapi.tools import method_annotations
from mcpgen.sources.python import PYTHON_ANNOTATIONS
from mcpgen.transforms import icons
from mcpgen.transforms.overrides import apply_overrides
from tests.unit.spec_helpers import ok, parse, spec

PNG = "data:image/png;base64," + base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * 40).decode()
METHODS = ("get", "head", "options", "put", "delete", "post", "patch")
# method -> (readOnly, destructive, idempotent); openWorld is always true
EXPECTED = {
    "get": (True, False, True), "head": (True, False, True), "options": (True, False, True),
    "put": (False, True, True), "delete": (False, True, True),
    "post": (False, True, False), "patch": (False, True, False),
}


def _every_method() -> dict[str, Any]:
    return {"/things": {m: {"operationId": f"{m}Things", "tags": ["things"], "responses": ok()} for m in METHODS}}


def test_every_method_states_all_four_hints(tmp_path: Path) -> None:
    project, _ = parse(tmp_path, spec(_every_method()))
    for tool in project.tools:
        method = tool.route.method.lower() if tool.route else ""
        read, destructive, idempotent = EXPECTED[method]
        assert tool.annotations == Annotations(read, destructive, idempotent, True), method
        sent = wire_tool(tool)["annotations"]
        assert sent == {"readOnlyHint": read, "destructiveHint": destructive, "idempotentHint": idempotent,
                        "openWorldHint": True}, method


def test_method_rule_table() -> None:
    assert method_annotations("TRACE") == Annotations(False, True, False, True)  # unknown: the safe side
    assert Annotations(read_only=False, destructive=True, idempotent=False, open_world=True) == PYTHON_ANNOTATIONS


def _override(tool_method: str, tmp_path: Path, **hints: bool) -> tuple[Annotations, Diagnostics]:
    project, _ = parse(tmp_path, spec(_every_method()))
    notes = Diagnostics(file="mcpgen.toml")
    changed = apply_overrides(project, (ToolOverride(key=f"{tool_method}Things", **hints),), notes)
    tool = next(t for t in changed.tools if t.name == f"{tool_method}Things")
    return tool.annotations, notes


def test_a_search_post_made_read_only_follows_with_the_other_hints(tmp_path: Path) -> None:
    hints, notes = _override("post", tmp_path, read_only=True)
    assert hints == Annotations(True, False, True, True) and not notes.items
    hints, notes = _override("post", tmp_path, read_only=True, idempotent=False, open_world=False)
    assert hints == Annotations(True, False, False, False) and not notes.items


def test_a_get_that_changes_things_is_assumed_destructive(tmp_path: Path) -> None:
    assert _override("get", tmp_path, read_only=False)[0] == Annotations(False, True, False, True)
    assert _override("get", tmp_path, read_only=False, destructive=False)[0] == Annotations(False, False, False, True)
    assert _override("delete", tmp_path, destructive=False)[0] == Annotations(False, False, True, True)


def test_read_only_and_destructive_contradict(tmp_path: Path) -> None:
    _, notes = _override("post", tmp_path, read_only=True, destructive=True)
    (error,) = notes.items
    assert error.level is Level.ERROR and error.pointer == "tools.postThings.annotations"
    assert "contradict" in error.message and "remove `destructive = true`" in error.hint


@pytest.mark.parametrize(
    ("table", "message", "line"),
    [
        ('annotations = { read_only = "yes" }', "tools.getThings.annotations.read_only: expected true or false", 5),
        ('annotations = { destructiv = true }', "tools.getThings.annotations.destructiv: unknown key", 5),
        ('icons = "https://example.com/a.png"', "tools.getThings.icons: expected a list of { src", 5),
        ('icons = [{ src = "https://example.com/a.png", theme = "blue" }]',
         "tools.getThings.icons.0.theme: expected \"light\" or \"dark\"", 5),
        ('icons = [{ url = "https://example.com/a.png" }]', "tools.getThings.icons.0.url: unknown key", 5),
    ],
)
def test_bad_values_name_file_key_and_line(tmp_path: Path, table: str, message: str, line: int) -> None:
    (tmp_path / "mcpgen.toml").write_text(f'[source]\nopenapi = "a.yaml"\n\n[tools.getThings]\n{table}\n')
    with pytest.raises(GenerationError) as caught:
        read_project_file(tmp_path)
    found = [d for d in caught.value.diagnostics if message in d.message]
    assert found, [str(d) for d in caught.value.diagnostics]
    assert found[0].line == line and found[0].file.endswith("mcpgen.toml")


def test_icons_round_trip_through_the_project_file(tmp_path: Path) -> None:
    logo = IconSpec(src="https://example.com/logo.svg", mime_type="image/svg+xml", sizes=("any",), theme="dark")
    original = ProjectFile(source_kind="openapi", source="a.yaml", options=Options(
        icons=(logo,), tag_icons={"pets": (IconSpec(src=PNG),)},
        overrides=(ToolOverride(key="getThings", icons=(IconSpec(src="https://example.com/t.png", sizes=("48x48",)),)),),
    ))
    (tmp_path / "mcpgen.toml").write_text(render_project_file(original, "getThings"))
    assert read_project_file(tmp_path)[0] == original


@pytest.mark.parametrize(
    ("src", "why"),
    [
        ("http://example.com/logo.png", "only https: URLs and data: URIs"),
        ("javascript:alert(1)", "only https: URLs and data: URIs"),
        ("file:///etc/passwd", "only https: URLs and data: URIs"),
        ("//example.com/logo.png", "only https: URLs and data: URIs"),
        ("https://exa mple.com/logo.png", "not a well-formed https: URL"),
        ("https://", "not a well-formed https: URL"),
        ("data:text/html;base64,PHNjcmlwdD4=", "only images"),
        ("data:image/png;base64,@@@", "base64 content is not valid"),
        ("data:image/png;base64", "not a data: URI"),
        ("data:image/png;base64," + "A" * icons.MAX_DATA_URI, "more than 65,536"),
    ],
)
def test_unsafe_icons_are_refused(src: str, why: str) -> None:
    problem = icons.problem(src)
    assert problem is not None and why in problem, problem


def test_safe_icons_pass() -> None:
    for src in (PNG, "https://example.com/logo.png?v=2", "https://cdn.example.com:8443/i.svg",
                "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg'/%3E"):
        assert icons.problem(src) is None, src
    assert icons.problem(PNG, "text/html") == "mime_type 'text/html' is not an image media type"
    assert icons.problem(PNG, None, ("48x48", "big")) == "size 'big' is not WxH (e.g. 48x48) or any"


def test_x_logo_is_the_server_icon(tmp_path: Path) -> None:
    document = spec(_every_method())
    document["info"]["x-logo"] = {"url": "https://example.com/logo.png", "altText": "Logo"}
    project, _ = parse(tmp_path, document)
    assert project.icons == (Icon("https://example.com/logo.png", "image/png"),)


def test_an_unsafe_x_logo_is_refused_where_it_is(tmp_path: Path) -> None:
    document = spec(_every_method())
    document["info"]["x-logo"] = {"url": "http://example.com/logo.png"}
    project, diagnostics = parse(tmp_path, document)
    assert project.icons == ()
    (warning,) = [d for d in diagnostics if "x-logo" in d.message]
    assert warning.level is Level.WARNING and warning.pointer == "/info/x-logo/url"


def test_options_icons_replace_the_logo_and_tags_give_tools_theirs(tmp_path: Path) -> None:
    document = spec(_every_method())
    document["info"]["x-logo"] = {"url": "https://example.com/logo.png"}
    project, _ = parse(tmp_path, document)
    notes = Diagnostics(file="mcpgen.toml")
    options = Options(
        icons=(IconSpec(src=PNG, sizes=("16x16",)), IconSpec(src="ftp://example.com/x.png")),
        tag_icons={"things": (IconSpec(src="https://example.com/things.svg"),), "gone": (IconSpec(src=PNG),)},
    )
    changed = icons.apply_icons(project, options, notes)
    assert changed.icons == (Icon(PNG, "image/png", ("16x16",)),)
    assert {t.icons for t in changed.tools} == {(Icon("https://example.com/things.svg", "image/svg+xml"),)}
    refused, unused = sorted(notes.items, key=lambda d: d.pointer)
    assert refused.pointer == "options.icons.1" and "only https: URLs" in refused.message
    assert unused.pointer == "options.tag_icons.gone" and "no tool has the tag" in unused.message
    own = ToolOverride(key="getThings", icons=(IconSpec(src="https://example.com/own.png"), IconSpec(src="x:y")))
    overridden = apply_overrides(changed, (own,), notes)
    tool = next(t for t in overridden.tools if t.name == "getThings")
    assert tool.icons == (Icon("https://example.com/own.png", "image/png"),)
    assert notes.items[-1].pointer == "tools.getThings.icons.1"
    assert wire_tool(tool)["icons"] == [{"src": "https://example.com/own.png", "mimeType": "image/png"}]


def test_a_spec_without_security_schemes_says_what_to_set(tmp_path: Path) -> None:
    project, diagnostics = parse(tmp_path, spec(_every_method()))
    assert project.generic_credentials
    (warning,) = [d for d in diagnostics if "security scheme" in d.message]
    assert warning.level is Level.WARNING and "spec.json declares no security scheme" in warning.message
    assert "TEST_BEARER_TOKEN" in warning.message and "TEST_HEADERS" in warning.message
    variables = {v.name: v for v in project.env_vars}
    assert variables["TEST_BEARER_TOKEN"].secret and "TEST_HEADERS" in variables


def test_a_spec_with_a_scheme_gets_no_generic_credentials(tmp_path: Path) -> None:
    schemes = {"securitySchemes": {"key": {"type": "apiKey", "in": "header", "name": "X-Key"}}}
    project, diagnostics = parse(tmp_path, spec(_every_method(), components=schemes, security=[{"key": []}]))
    assert not project.generic_credentials
    assert not [d for d in diagnostics if "declares no security scheme" in d.message]
    assert "TEST_BEARER_TOKEN" not in {v.name for v in project.env_vars}

"""Overlays: the OpenAPI Initiative's own examples (tests/fixtures/overlay), the merge rules,
and a stale target reported where it is."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from mcpgen.diagnostics import Diagnostics, GenerationError, Level
from mcpgen.sources.openapi.overlay import apply_overlays

FIXTURES = Path(__file__).parent.parent / "fixtures" / "overlay"
COMPLIANT = sorted(p for p in (FIXTURES / "compliant-sets").iterdir() if p.is_dir())
# The traits example's target (`$.paths.*.get[?@.x-oai-traits...`) uses a member name with a
# `-`, which RFC 9535's shorthand does not allow; a strict implementation rejects it.
NOT_RFC_9535 = {"actions-traits-example.yaml"}
PASSING = sorted(p for p in FIXTURES.glob("tests/v1.*/pass/*.yaml") if p.name not in NOT_RFC_9535)
FAILING = sorted(FIXTURES.glob("tests/v1.*/fail/*.yaml"))


def _apply(document: Any, *overlays: Path) -> tuple[Any, Diagnostics]:
    diagnostics = Diagnostics(file="spec.yaml")
    return apply_overlays(document, overlays, diagnostics), diagnostics


def _write(tmp_path: Path, text: str, name: str = "overlay.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("folder", COMPLIANT, ids=lambda p: p.name)
def test_compliant_sets_give_the_published_output(folder: Path) -> None:
    document = yaml.safe_load((folder / "openapi.yaml").read_text())
    result, diagnostics = _apply(document, folder / "overlay.yaml")
    assert result == yaml.safe_load((folder / "output.yaml").read_text())
    assert not [d for d in diagnostics.items if d.level is not Level.INFO]


@pytest.mark.parametrize("overlay", PASSING, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_valid_overlays_are_accepted(overlay: Path) -> None:
    _, diagnostics = _apply({"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {}}, overlay)
    assert not diagnostics.has_errors
    assert any(d.message.startswith("overlay applied") for d in diagnostics.items)


@pytest.mark.parametrize("overlay", FAILING, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_invalid_overlays_are_errors_in_the_overlay_file(overlay: Path) -> None:
    document = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {}}
    with pytest.raises(GenerationError) as caught:
        _apply(document, overlay)
    errors = [d for d in caught.value.diagnostics if d.level is Level.ERROR]
    assert errors, caught.value.diagnostics
    assert all(d.file == str(overlay) for d in errors)


def test_an_error_names_the_place_and_line(tmp_path: Path) -> None:
    overlay = _write(tmp_path, 'overlay: "1.0.0"\ninfo: {title: t, version: "1"}\nactions:\n  - target: "$.a"\n    remove: maybe\n')
    with pytest.raises(GenerationError) as caught:
        _apply({"a": 1}, overlay)
    (error,) = [d for d in caught.value.diagnostics if d.level is Level.ERROR]
    assert (error.pointer, error.line) == ("/actions/0/remove", 5)


def test_a_target_that_matches_nothing_is_a_warning_at_the_action(tmp_path: Path) -> None:
    overlay = _write(
        tmp_path,
        'overlay: "1.0.0"\ninfo: {title: t, version: "1"}\nactions:\n'
        '  - target: "$.info"\n    update: {x-fixed: true}\n'
        "  - target: \"$.paths['/gone'].get\"\n    update: {operationId: listGone}\n",
    )
    result, diagnostics = _apply({"info": {"title": "t"}, "paths": {}}, overlay)
    assert result == {"info": {"title": "t", "x-fixed": True}, "paths": {}}
    (warning,) = [d for d in diagnostics.items if d.level is Level.WARNING]
    assert (warning.file, warning.pointer, warning.line) == (str(overlay), "/actions/1/target", 6)
    assert "matches nothing" in warning.message and "spec changed" in warning.hint


def test_merge_rules(tmp_path: Path) -> None:
    overlay = _write(
        tmp_path,
        'overlay: "1.0.0"\ninfo: {title: t, version: "1"}\nactions:\n'
        "  - target: $.tags\n    update: {name: added}\n"  # one item appended to an array
        "  - target: $.servers\n    update: [{url: 'https://b'}]\n"  # arrays concatenated
        "  - target: $.info\n    update: {title: new, contact: {name: n}}\n"  # objects merged, values replaced
        "  - target: $.info.version\n    update: '2'\n"  # a primitive replaced
        "  - target: $.components\n    update:\n",  # a null placeholder changes nothing
    )
    document = {
        "info": {"title": "old", "version": "1", "contact": {"email": "e"}},
        "tags": [{"name": "first"}],
        "servers": [{"url": "https://a"}],
        "components": {"schemas": {}},
    }
    result, _ = _apply(document, overlay)
    assert result == {
        "info": {"title": "new", "version": "2", "contact": {"email": "e", "name": "n"}},
        "tags": [{"name": "first"}, {"name": "added"}],
        "servers": [{"url": "https://a"}, {"url": "https://b"}],
        "components": {"schemas": {}},
    }


def test_remove_takes_every_match_out_of_its_array(tmp_path: Path) -> None:
    overlay = _write(
        tmp_path,
        'overlay: "1.0.0"\ninfo: {title: t, version: "1"}\nactions:\n'
        "  - target: $.paths.*.get.parameters[?@.in == 'header']\n    remove: true\n",
    )
    params = [{"name": "a", "in": "header"}, {"name": "b", "in": "query"}, {"name": "c", "in": "header"}]
    result, _ = _apply({"paths": {"/x": {"get": {"parameters": params}}}}, overlay)
    assert result["paths"]["/x"]["get"]["parameters"] == [{"name": "b", "in": "query"}]


def test_overlays_apply_in_order_each_on_the_last(tmp_path: Path) -> None:
    first = _write(tmp_path, 'overlay: "1.0.0"\ninfo: {title: t, version: "1"}\nactions:\n  - target: $\n    update: {x-a: 1}\n', "a.yaml")
    second = _write(
        tmp_path, 'overlay: "1.0.0"\ninfo: {title: t, version: "1"}\nactions:\n  - target: $["x-a"]\n    update: 2\n', "b.yaml"
    )
    result, diagnostics = _apply({}, first, second)
    assert result == {"x-a": 2}
    assert [d.file for d in diagnostics.items] == [str(first), str(second)]


def test_copy_needs_exactly_one_source(tmp_path: Path) -> None:
    overlay = _write(
        tmp_path,
        'overlay: "1.1.0"\ninfo: {title: t, version: "1"}\nactions:\n'
        "  - target: $.b\n    copy: $.a\n"
        "  - target: $.b\n    copy: $.many[*]\n",
    )
    result, diagnostics = _apply({"a": {"k": 1}, "b": {}, "many": [1, 2]}, overlay)
    assert result["b"] == {"k": 1}
    (warning,) = [d for d in diagnostics.items if d.level is Level.WARNING]
    assert warning.pointer == "/actions/1/copy"


def test_copy_is_refused_in_a_1_0_overlay(tmp_path: Path) -> None:
    overlay = _write(tmp_path, 'overlay: "1.0.0"\ninfo: {title: t, version: "1"}\nactions:\n  - target: $.b\n    copy: $.a\n')
    with pytest.raises(GenerationError) as caught:
        _apply({"a": 1, "b": 2}, overlay)
    assert [d.pointer for d in caught.value.diagnostics if d.level is Level.ERROR] == ["/actions/0/copy"]


@pytest.mark.parametrize("version", ["v1.0", "v1.1"])
def test_the_traits_example_is_refused_for_its_jsonpath(version: str) -> None:
    with pytest.raises(GenerationError) as caught:
        _apply({}, FIXTURES / "tests" / version / "pass" / "actions-traits-example.yaml")
    (error,) = [d for d in caught.value.diagnostics if d.level is Level.ERROR]
    assert error.pointer == "/actions/0/target" and "invalid JSONPath" in error.message


def test_an_invalid_jsonpath_is_an_error_at_the_target(tmp_path: Path) -> None:
    overlay = _write(tmp_path, 'overlay: "1.0.0"\ninfo: {title: t, version: "1"}\nactions:\n  - target: "$.paths[?(@.x"\n    remove: true\n')
    with pytest.raises(GenerationError) as caught:
        _apply({}, overlay)
    (error,) = [d for d in caught.value.diagnostics if d.level is Level.ERROR]
    assert error.pointer == "/actions/0/target" and "JSONPath" in error.message

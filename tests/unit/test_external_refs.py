"""External `$ref`s: relative files (YAML and JSON), fragments, nesting, cycles, refusals."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from mcpgen.api import build_typed_openapi
from mcpgen.diagnostics import Diagnostics, GenerationError, Level
from mcpgen.options import Options
from mcpgen.sources.openapi.parser import OpenApiOptions, parse_openapi


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _parse(spec: Path, **options: object) -> tuple[object, list[object]]:
    diagnostics = Diagnostics(file=str(spec))
    project = parse_openapi(spec, OpenApiOptions(models=False, **options), diagnostics)  # type: ignore[arg-type]
    return project, diagnostics.items


ROOT = """\
openapi: 3.0.3
info: {title: Ext, version: "1"}
paths:
  /pets:
    $ref: "paths/pets.yaml"
  /pets/{id}:
    get:
      operationId: getPet
      parameters:
        - $ref: "common/params.json#/id"
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {$ref: "schemas/pet.yaml#/Pet"}
"""

PATHS = """\
get:
  operationId: listPets
  parameters:
    - $ref: "../common/params.json#/limit"
  responses:
    "200":
      description: ok
      content:
        application/json:
          schema:
            type: array
            items: {$ref: "../schemas/pet.yaml#/Pet"}
"""

PARAMS = {
    "id": {"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}},
    "limit": {"name": "limit", "in": "query", "schema": {"$ref": "#/Limit"}},
    "Limit": {"type": "integer", "maximum": 100},
}

# Pet -> Owner (another file) -> Pet again: a cycle across files
PET = """\
Pet:
  type: object
  required: [name]
  properties:
    name: {type: string}
    owner: {$ref: "owner.yaml#/Owner"}
"""
OWNER = """\
Owner:
  type: object
  properties:
    login: {type: string}
    pets:
      type: array
      items: {$ref: "pet.yaml#/Pet"}
"""


def _tree(tmp_path: Path, root_name: str = "api spec.yaml") -> Path:
    _write(tmp_path / "paths" / "pets.yaml", PATHS)
    _write(tmp_path / "common" / "params.json", json.dumps(PARAMS))
    _write(tmp_path / "schemas" / "pet.yaml", PET)
    _write(tmp_path / "schemas" / "owner.yaml", OWNER)
    return _write(tmp_path / root_name, ROOT)


def test_relative_files_fragments_nesting_and_cycles_are_bundled(tmp_path: Path) -> None:
    project, diagnostics = _parse(_tree(tmp_path))  # a file name with a space
    tools = {t.name: t for t in project.tools}  # type: ignore[attr-defined]
    assert sorted(tools) == ["getPet", "listPets"]
    listing = tools["listPets"]
    assert listing.input_schema["properties"]["limit"]["maximum"] == 100  # a local ref inside params.json
    assert [p.location for p in listing.route.params] == ["query"]
    get = tools["getPet"]
    assert get.route.params[0].name == "id" and get.route.params[0].location == "path"
    output = get.output_schema
    jsonschema.Draft202012Validator.check_schema(output)
    # the cycle Pet -> Owner -> Pet stays a reference in $defs
    assert output["properties"]["owner"]["properties"]["pets"]["items"] == {"$ref": "#/$defs/Pet"}
    validator = jsonschema.Draft202012Validator(output)
    assert validator.is_valid({"name": "rex", "owner": {"login": "a", "pets": [{"name": "b"}]}})
    # output schemas describe without constraining (missing fields are fine), but types still count
    assert not validator.is_valid({"name": "rex", "owner": {"pets": [{"name": 5}]}})
    read = sorted(d.message for d in diagnostics if d.level is Level.INFO and "external" in d.message)  # type: ignore[attr-defined]
    assert read == [
        "external $ref: read common/params.json",
        "external $ref: read paths/pets.yaml",
        "external $ref: read schemas/owner.yaml",
        "external $ref: read schemas/pet.yaml",
    ]
    assert not [d for d in diagnostics if d.level is not Level.INFO and "security scheme" not in d.message]  # type: ignore[attr-defined]


def test_external_schemas_become_component_schemas_with_models(tmp_path: Path) -> None:
    spec = _tree(tmp_path)
    project, _ = build_typed_openapi(spec, Options())
    get = next(t for t in project.tools if t.name == "getPet")
    assert get.route is not None and get.route.response_model == "Pet"


# A bad external ref is a located warning: what uses it is skipped, never the whole spec.


def _warning(diagnostics: list[object], text: str) -> object:
    (found,) = [d for d in diagnostics if d.level is Level.WARNING and text in d.message]  # type: ignore[attr-defined]
    return found


def test_a_missing_file_is_a_located_warning(tmp_path: Path) -> None:
    spec = _write(tmp_path / "spec.yaml", ROOT)
    project, diagnostics = _parse(spec)
    error = _warning(diagnostics, "paths/pets.yaml not found")
    assert "listPets" not in {t.name for t in project.tools}  # type: ignore[attr-defined]
    assert str(error) == (
        f"warning: {spec}#/paths/~1pets (line 4): $ref 'paths/pets.yaml': file paths/pets.yaml not found "
        "(check the path; it is relative to the file that holds the ref)"
    )


def test_an_error_inside_another_file_names_that_file_and_line(tmp_path: Path) -> None:
    spec = _tree(tmp_path)
    _write(tmp_path / "schemas" / "owner.yaml", OWNER.replace("pet.yaml#/Pet", "pet.yaml#/Cat"))
    _, diagnostics = _parse(spec)
    error = _warning(diagnostics, "points at nothing")
    assert error.file == "schemas/owner.yaml"
    assert error.pointer == "/Owner/properties/pets/items"
    assert error.line == 7
    assert "points at nothing in schemas/pet.yaml" in error.message


def test_non_spec_files_are_never_read(tmp_path: Path) -> None:
    secret = _write(tmp_path / "secret.txt", "password")
    spec = _write(tmp_path / "spec.yaml", ROOT.replace("paths/pets.yaml", secret.name))
    _, diagnostics = _parse(spec)
    error = _warning(diagnostics, "which is not a .json, .yaml or .yml file")
    assert error.line == 4


def test_remote_refs_are_refused_without_the_flag(tmp_path: Path) -> None:
    spec = _write(tmp_path / "spec.yaml", ROOT.replace("paths/pets.yaml", "https://example.invalid/pets.yaml"))
    _, diagnostics = _parse(spec)
    error = _warning(diagnostics, "is not fetched")
    assert str(error) == (
        f"warning: {spec}#/paths/~1pets (line 4): remote $ref 'https://example.invalid/pets.yaml' is not fetched "
        "(pass --allow-remote-refs to fetch it, or save the file beside the spec)"
    )


def test_remote_refs_are_fetched_with_the_flag(tmp_path: Path) -> None:
    import http.server
    import threading

    site = tmp_path / "site"
    _write(site / "paths" / "pets.yaml", PATHS)
    _write(site / "common" / "params.json", json.dumps(PARAMS))
    _write(site / "schemas" / "pet.yaml", PET)
    _write(site / "schemas" / "owner.yaml", OWNER)

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, directory=str(site), **kwargs)  # type: ignore[arg-type]

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}/"
        text = ROOT.replace('"paths/pets.yaml"', f'"{base}paths/pets.yaml"')
        text = text.replace('"common/params.json', f'"{base}common/params.json')
        text = text.replace('"schemas/pet.yaml', f'"{base}schemas/pet.yaml')
        project, diagnostics = _parse(_write(tmp_path / "spec.yaml", text), allow_remote_refs=True)
    finally:
        server.shutdown()
        server.server_close()
    assert sorted(t.name for t in project.tools) == ["getPet", "listPets"]  # type: ignore[attr-defined]
    # refs relative to a fetched file are fetched relative to its URL
    assert f"external $ref: read {base}schemas/owner.yaml" in [d.message for d in diagnostics]  # type: ignore[attr-defined]


def test_a_spec_without_external_refs_is_left_as_is(tmp_path: Path) -> None:
    from mcpgen.sources.openapi.refs import bundle

    doc = {"openapi": "3.1.0", "paths": {}, "components": {"schemas": {"A": {"enum": [{"$ref": "x.yaml"}]}}}}
    assert bundle(doc, tmp_path / "spec.yaml", Diagnostics()) is doc


def test_a_deeply_nested_document_with_external_refs_is_an_error_not_a_crash(tmp_path: Path) -> None:
    from mcpgen.sources.openapi.refs import bundle

    _tree(tmp_path)
    deep: dict = {"type": "string"}
    for _ in range(5000):
        deep = {"type": "array", "items": deep}
    doc = {"openapi": "3.0.3", "info": {"title": "t", "version": "1"},
           "paths": {"/pets": {"$ref": "paths/pets.yaml"}}, "components": {"schemas": {"Deep": deep}}}
    with pytest.raises(GenerationError) as caught:
        bundle(doc, tmp_path / "deep.json", Diagnostics(file="deep.json"))
    assert "nests too deeply" in str(caught.value)


# Files outside the root spec's folder tree are read only with allow_refs_outside.

SECRET = '{"auths": {"registry.example": {"auth": "c2VjcmV0LXRva2Vu"}}}'
PICKED = """\
openapi: 3.0.3
info: {title: Picked, version: "1"}
paths:
  /pets:
    get:
      operationId: listPets
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {$ref: "REF"}
"""


def _outside(tmp_path: Path) -> tuple[Path, Path]:
    """(the spec's folder, a docker config outside it)."""
    secret = _write(tmp_path / "home" / ".docker" / "config.json", SECRET)
    return tmp_path / "project", secret


@pytest.mark.parametrize("how", ["absolute", "relative", "link"])
def test_refs_outside_the_spec_folder_are_refused(tmp_path: Path, how: str) -> None:
    folder, secret = _outside(tmp_path)
    if how == "link":  # a link inside the folder, resolved before the check
        folder.mkdir()
        (folder / "shared").symlink_to(secret.parent, target_is_directory=True)
        ref = "shared/config.json#/auths"
    else:
        ref = (str(secret) if how == "absolute" else "../home/.docker/config.json") + "#/auths"
    spec = _write(folder / "spec.yaml", PICKED.replace("REF", ref))
    project, diagnostics = _parse(spec)
    error = _warning(diagnostics, "outside the spec's folder")
    assert str(error) == (
        f"warning: {spec}#/paths/~1pets/get/responses/200/content/application~1json/schema (line 12): "
        f"$ref {ref!r} names {secret}, outside the spec's folder {folder} (pass --allow-refs-outside "
        "(or allow_refs_outside = true in mcpgen.toml) to read it, or copy the file into the spec's folder)"
    )
    assert "c2VjcmV0" not in json.dumps([t.output_schema for t in project.tools])  # type: ignore[attr-defined]
    assert project.files_read == (str(spec),)  # type: ignore[attr-defined]


def test_refs_outside_the_spec_folder_are_read_when_allowed_and_listed(tmp_path: Path) -> None:
    folder, secret = _outside(tmp_path)
    spec = _write(folder / "spec.yaml", PICKED.replace("REF", f"{secret}#/auths"))
    project, diagnostics = _parse(spec, allow_refs_outside=True)
    assert not [d for d in diagnostics if d.level is Level.WARNING and "security scheme" not in d.message]  # type: ignore[attr-defined]
    assert project.files_read == (str(spec), str(secret))  # type: ignore[attr-defined]


def test_the_cli_lists_every_file_read(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from mcpgen.cli import app

    spec = _tree(tmp_path / "spec")
    result = CliRunner().invoke(app, ["from-openapi", str(spec), "-o", str(tmp_path / "out"), "--no-models"])
    assert result.exit_code == 0, result.output
    assert (
        f"Read 5 files: {spec}, paths/pets.yaml, common/params.json, schemas/pet.yaml, schemas/owner.yaml"
    ) in result.stdout.splitlines()


# A remote fetch has one deadline and one byte cap, however slowly the server sends.


def _serving(handler: type) -> tuple[object, str]:
    import http.server
    import threading

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def _handler(body: bytes, drip: float, headers_drip: bool = False) -> type:
    import http.server
    import time

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            try:
                if headers_drip:
                    for byte in b"HTTP/1.1 200 OK\r\nX-Slow: " + b"a" * 1000:
                        self.wfile.write(bytes([byte]))
                        self.wfile.flush()
                        time.sleep(drip)
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                for start in range(0, len(body), 1 if drip else len(body)):
                    self.wfile.write(body[start:start + (1 if drip else len(body))])
                    self.wfile.flush()
                    time.sleep(drip)
            except OSError:
                pass

        def log_message(self, *args: object) -> None:
            pass

    return Handler


@pytest.mark.parametrize("headers_drip", [False, True], ids=["body", "headers"])
def test_a_dripping_remote_ref_ends_at_the_deadline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, headers_drip: bool) -> None:
    import time

    from mcpgen.sources.openapi import refs

    monkeypatch.setattr(refs, "REMOTE_DEADLINE", 1.0)
    server, base = _serving(_handler(json.dumps(PARAMS).encode() * 50, 0.01, headers_drip))
    try:
        spec = _write(tmp_path / "spec.yaml", ROOT.replace('"common/params.json', f'"{base}params.json'))
        started = time.monotonic()
        _, diagnostics = _parse(spec, allow_remote_refs=True)
        took = time.monotonic() - started
    finally:
        server.shutdown()  # type: ignore[attr-defined]
        server.server_close()  # type: ignore[attr-defined]
    assert took < 5, took
    error = _warning(diagnostics, "could not be fetched")
    assert str(error).endswith(f"remote $ref '{base}params.json#/id' could not be fetched: not received within 1 s")


def test_a_remote_ref_larger_than_the_cap_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mcpgen.sources.openapi import refs

    monkeypatch.setattr(refs, "REMOTE_MAX_BYTES", 1000)
    server, base = _serving(_handler(b" " * 5000 + json.dumps(PARAMS).encode(), 0))
    try:
        spec = _write(tmp_path / "spec.yaml", ROOT.replace('"common/params.json', f'"{base}params.json'))
        _, diagnostics = _parse(spec, allow_remote_refs=True)
    finally:
        server.shutdown()  # type: ignore[attr-defined]
        server.server_close()  # type: ignore[attr-defined]
    assert _warning(diagnostics, "could not be fetched: larger than 1,000 bytes")

"""External `$ref`s: other files (and fragments inside them) bundled into the root document.

After `bundle`, every `$ref` of the document is local (`#/...`), so the parser, the schema
converter and datamodel-code-generator see one self-contained document:

- a ref in a schema position (`schema`, `components/schemas`, anything inside a schema)
  becomes `#/components/schemas/<Name>`, its target copied there once (so recursion, also
  across files, stays a reference and typed models get a class);
- any other ref (a path item, parameter, response, request body...) is replaced by a copy
  of its target, whose own refs are resolved against the file it came from.

What may be read: files in the root spec's own folder tree (relative to the file that
holds the ref; symbolic links resolved before the check), or anywhere on disk with
`allow_outside`, if they end in `.json`, `.yaml` or `.yml` (anything else is refused: a ref
never makes mcpgen read a non-spec file); every file read is reported. Remote `http(s)`
refs are refused with a located error unless `allow_remote`; then each is fetched once,
within one deadline and byte cap for the whole fetch (a server that sends slowly cannot
hold generation longer than that).
"""

from __future__ import annotations

import contextlib
import http.client
import re
import socket
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urljoin, urlsplit

from mcpgen.diagnostics import Diagnostic, Diagnostics, GenerationError, Level, join_pointer
from mcpgen.sources.openapi.document import load_document, parse_text
from mcpgen.sources.openapi.v32 import rebase

SPEC_SUFFIXES = (".json", ".yaml", ".yml")
REMOTE_DEADLINE = 30.0  # seconds for one remote fetch: connecting, redirects, headers and body
REMOTE_MAX_BYTES = 20_000_000  # of one remote document (GitHub's whole API is 12 MB of JSON)
_MAX_REDIRECTS = 5
# Values that hold instance data: a `$ref` key inside them is data, not a reference.
_DATA_KEYWORDS = frozenset({"enum", "const", "default", "example", "examples", "x-examples"})
_SCHEMA_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})
_NAME = re.compile(r"[^A-Za-z0-9_.-]+")


@dataclass(slots=True)
class _File:
    """One loaded document: its data, and how to report a location in it."""

    location: str  # absolute path or URL
    shown: str  # as diagnostics name it
    data: Any
    diagnostics: Diagnostics


@dataclass(slots=True)
class _Bundler:
    root: _File
    diagnostics: Diagnostics
    allow_remote: bool
    allow_outside: bool = False  # local files outside the root spec's folder tree
    files: dict[str, _File] = field(default_factory=dict)
    read: list[str] = field(default_factory=list)  # every file and URL read, as diagnostics name them
    names: dict[tuple[str, str], str] = field(default_factory=dict)  # (file, fragment) -> component name
    schemas: dict[str, Any] = field(default_factory=dict)  # the root's components/schemas
    # The root's `$self` (OpenAPI 3.2): the base its references resolve against; a URI under
    # its folder is read from the spec's folder tree, the document's own URI is the document.
    self_uri: str | None = None

    # -- walking ------------------------------------------------------------

    def walk(self, node: Any, file: _File, pointer: str, in_schema: bool, stack: tuple[tuple[str, str], ...]) -> Any:
        """A copy of `node` (from `file`, at `pointer`) with every ref made local. Recursive:
        only documents with external refs are walked, and their nesting stays far below
        Python's stack limit in practice (a cycle of refs is cut by `names` and `stack`)."""
        if isinstance(node, list):
            return [self.walk(item, file, f"{pointer}/{i}", in_schema, stack) for i, item in enumerate(node)]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and (file is not self.root or not ref.startswith("#")):
            return self.reference(node, ref, file, pointer, in_schema, stack)
        out: dict[str, Any] = {}
        for key, value in node.items():
            here = join_pointer(pointer, key)
            if key.startswith("x-") or (key in _DATA_KEYWORDS and (in_schema or key != "examples")):
                out[key] = value  # vendor extensions and instance data hold no references
            elif in_schema and key in _SCHEMA_MAPS and isinstance(value, dict):
                out[key] = {k: self.walk(v, file, join_pointer(here, k), True, stack) for k, v in value.items()}
            else:
                child_schema = in_schema or key in ("schema", "schemas", "definitions")
                out[key] = self.walk(value, file, here, child_schema, stack)
        return out

    def reference(
        self, node: dict[str, Any], ref: str, file: _File, pointer: str, in_schema: bool,
        stack: tuple[tuple[str, str], ...],
    ) -> Any:
        try:
            return self._reference(node, ref, file, pointer, in_schema, stack)
        except _Unresolvable:
            # Left as it is: the parser skips what uses it with its own located warning,
            # so one bad ref costs one operation, never the whole spec.
            return dict(node)

    def _reference(
        self, node: dict[str, Any], ref: str, file: _File, pointer: str, in_schema: bool,
        stack: tuple[tuple[str, str], ...],
    ) -> Any:
        target_file, fragment = self.target(ref, file, pointer)
        siblings = {k: v for k, v in node.items() if k != "$ref"}
        if target_file is self.root:
            local: dict[str, Any] = {"$ref": "#" + fragment}
            if siblings:
                local.update(self.walk(siblings, file, pointer, in_schema, stack))
            return local
        key = (target_file.location, fragment)
        if in_schema:
            name = self.names.get(key)
            if name is None:
                name = self.names[key] = self.component_name(target_file, fragment)
                self.schemas[name] = {}  # placeholder: a cycle back here finds the name
                target = self.resolve(target_file, fragment, file, pointer, ref)
                self.schemas[name] = self.walk(target, target_file, fragment, True, stack)
            out: dict[str, Any] = {"$ref": "#/components/schemas/" + name.replace("~", "~0").replace("/", "~1")}
            if siblings:
                out.update(self.walk(siblings, file, pointer, True, stack))
            return out
        if key in stack:
            self.fail(file, pointer, f"$ref {ref!r} refers back to itself through other files",
                      "a cycle of path items, parameters or responses cannot be inlined")
        target = self.resolve(target_file, fragment, file, pointer, ref)
        inlined = self.walk(target, target_file, fragment, False, (*stack, key))
        if isinstance(inlined, dict) and siblings:
            inlined = {**inlined, **self.walk(siblings, file, pointer, False, stack)}
        return inlined

    # -- locating and loading -------------------------------------------------

    def target(self, ref: str, file: _File, pointer: str) -> tuple[_File, str]:
        """The file a ref names (loaded once) and the JSON pointer inside it."""
        address, _, fragment = ref.partition("#")
        fragment = unquote(fragment)
        if fragment and not fragment.startswith("/"):
            self.fail(file, pointer, f"$ref {ref!r}: the fragment is not a JSON pointer",
                      "write it as file.yaml#/path/to/node")
        if not address:
            return file, fragment
        if self.self_uri is not None and file is self.root:
            rebased = rebase(address, self.self_uri)
            if rebased == "":
                return self.root, fragment
            address = address if rebased is None else rebased
        scheme = urlsplit(address).scheme.lower()
        if _is_url(file.location) and not scheme:
            location = urljoin(file.location, address)
        elif scheme in ("http", "https"):
            location = address
        elif scheme and len(scheme) > 1:  # `c:` is a Windows drive, not a scheme
            self.fail(file, pointer, f"$ref {ref!r}: {scheme}: references are not supported",
                      "use a relative file path")
        else:
            location = str((Path(file.location).parent / unquote(address)).resolve())
            folder = Path(self.root.location).parent
            if not self.allow_outside and not Path(location).is_relative_to(folder):
                self.fail(file, pointer, f"$ref {ref!r} names {location}, outside the spec's folder {folder}",
                          "pass --allow-refs-outside (or allow_refs_outside = true in mcpgen.toml) to read it, "
                          "or copy the file into the spec's folder")
        if location == self.root.location:
            return self.root, fragment
        if location not in self.files:
            self.files[location] = self.load(location, ref, file, pointer)
        return self.files[location], fragment

    def load(self, location: str, ref: str, file: _File, pointer: str) -> _File:
        shown = _shown(location, self.root.location)
        child = Diagnostics(file=shown)
        if _is_url(location):
            if not self.allow_remote:
                self.fail(file, pointer, f"remote $ref {ref!r} is not fetched",
                          "pass --allow-remote-refs to fetch it, or save the file beside the spec")
            self.read.append(shown)
            data = self.fetch(location, ref, file, pointer, child)
        else:
            path = Path(location)
            if path.suffix.lower() not in SPEC_SUFFIXES:
                self.fail(file, pointer, f"$ref {ref!r} names {shown}, which is not a .json, .yaml or .yml file",
                          "external refs may only point at spec files")
            if not path.is_file():
                self.fail(file, pointer, f"$ref {ref!r}: file {shown} not found", "check the path; it is "
                          "relative to the file that holds the ref")
            self.read.append(shown)
            try:
                data = load_document(path, child)
            except GenerationError:
                for item in child.items:  # that file's problems, reported as warnings of this ref
                    level = Level.WARNING if item.level is Level.ERROR else item.level
                    self.diagnostics.items.append(replace(item, level=level))
                child.items.clear()
                raise _Unresolvable from None
        self.diagnostics.info(f"external $ref: read {shown}")
        return _File(location, shown, data, child)

    def fetch(self, url: str, ref: str, file: _File, pointer: str, child: Diagnostics) -> Any:
        try:
            raw = fetch_bounded(url, REMOTE_DEADLINE, REMOTE_MAX_BYTES)
        except (OSError, ValueError, http.client.HTTPException) as exc:
            self.fail(file, pointer, f"remote $ref {ref!r} could not be fetched: {exc}")
        try:
            return parse_text(raw.decode("utf-8"), urlsplit(url).path.lower().endswith(".json"), child)
        except (GenerationError, UnicodeDecodeError):
            self.absorb(child)
            self.fail(file, pointer, f"remote $ref {ref!r} is not a JSON or YAML document")

    def resolve(self, target: _File, fragment: str, file: _File, pointer: str, ref: str) -> Any:
        node = target.data
        for token in fragment[1:].split("/") if fragment else []:
            token = token.replace("~1", "/").replace("~0", "~")
            if isinstance(node, dict) and token in node:
                node = node[token]
            elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
                node = node[int(token)]
            else:
                self.fail(file, pointer, f"$ref {ref!r} points at nothing in {target.shown}")
        return node

    # -- names and errors ---------------------------------------------------

    def component_name(self, target: _File, fragment: str) -> str:
        last = fragment.rsplit("/", 1)[-1].replace("~1", "/").replace("~0", "~") if fragment else ""
        base = _NAME.sub("_", last or Path(urlsplit(target.shown).path).stem).strip("_") or "Schema"
        name, n = base, 2
        while name in self.schemas:
            name, n = f"{base}_{n}", n + 1
        return name

    def absorb(self, child: Diagnostics) -> None:
        self.diagnostics.items.extend(child.items)
        child.items.clear()

    def fail(self, file: _File, pointer: str, message: str, hint: str = "") -> Any:
        """Give up on one ref with a warning located in `file` (which may not be the root spec)."""
        line = file.diagnostics.line_resolver(pointer) if file.diagnostics.line_resolver and pointer else None
        self.diagnostics.items.append(Diagnostic(Level.WARNING, message, file.shown, pointer, line, hint))
        raise _Unresolvable


class _Unresolvable(Exception):
    """One external ref cannot be resolved (already reported); the ref is left as it is."""


def fetch_bounded(url: str, deadline: float, max_bytes: int) -> bytes:
    """GET an http(s) `url` (following up to 5 redirects to http(s) URLs): its body, or
    OSError/ValueError. The whole fetch, however slowly the server sends, ends within
    `deadline` seconds: past it the connection is shut from a timer, which wakes a read
    blocked on a dripping server."""
    ends = time.monotonic() + deadline
    for _ in range(_MAX_REDIRECTS + 1):
        parts = urlsplit(url)
        if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) URL: {url}")
        left = ends - time.monotonic()
        if left <= 0:
            raise TimeoutError(f"no answer within {deadline:g} s")
        connection_type = http.client.HTTPSConnection if parts.scheme.lower() == "https" else http.client.HTTPConnection
        connection = connection_type(parts.hostname, parts.port, timeout=left)
        timed_out = threading.Event()
        sockets: list[socket.socket] = []  # the connection drops its own once the response owns it

        def shut(sockets: list[socket.socket] = sockets, timed_out: threading.Event = timed_out) -> None:
            timed_out.set()
            for sock in sockets:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)

        timer = threading.Timer(left, shut)
        timer.daemon = True
        timer.start()
        try:
            connection.connect()
            if connection.sock is not None:
                sockets.append(connection.sock)
            if timed_out.is_set():  # the timer fired before the socket was known
                raise TimeoutError
            target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
            connection.request("GET", target, headers={"Accept": "application/json, application/yaml, */*"})
            response = connection.getresponse()
            location = response.getheader("Location")
            if response.status in (301, 302, 303, 307, 308) and location:
                url = urljoin(url, location)
                continue
            if response.status != 200:
                raise OSError(f"HTTP {response.status} {response.reason}")
            chunks, size = [], 0
            while chunk := response.read1(65536):
                size += len(chunk)
                if size > max_bytes:
                    raise ValueError(f"larger than {max_bytes:,} bytes")
                chunks.append(chunk)
            if timed_out.is_set():
                raise TimeoutError
            return b"".join(chunks)
        except (OSError, http.client.HTTPException) as exc:
            if timed_out.is_set():
                raise TimeoutError(f"not received within {deadline:g} s") from None
            raise OSError(str(exc) or type(exc).__name__) from None
        finally:
            timer.cancel()
            timer.join()
            connection.close()
    raise OSError(f"more than {_MAX_REDIRECTS} redirects")


def bundle(
    document: dict[str, Any], path: Path, diagnostics: Diagnostics, allow_remote: bool = False,
    allow_outside: bool = False, read: list[str] | None = None, self_uri: str | None = None,
) -> dict[str, Any]:
    """`document` (loaded from `path`) with every external ref resolved; unchanged if it has none.
    The files (and URLs) read for it are appended to `read`, as diagnostics name them.
    `self_uri`: the document's `$self`, the base URI its references resolve against."""
    if not _has_external_ref(document):
        return document
    root = _File(str(path.resolve()), diagnostics.file or path.name, document, diagnostics)
    components = document.get("components")
    existing = components.get("schemas") if isinstance(components, dict) else None
    bundler = _Bundler(root, diagnostics, allow_remote, allow_outside, self_uri=self_uri)
    if isinstance(existing, dict):
        bundler.schemas.update(existing)
    try:
        out: dict[str, Any] = bundler.walk(document, root, "", False, ())  # a dict in, so a dict out
    except RecursionError:
        diagnostics.error("the document nests too deeply to resolve its external $refs")
        raise GenerationError(diagnostics.items) from None
    if read is not None:
        read.extend(bundler.read)
    added = {name: schema for name, schema in bundler.schemas.items() if not isinstance(existing, dict) or name not in existing}
    if added:
        components = out.setdefault("components", {})
        schemas: Any = components.setdefault("schemas", {}) if isinstance(components, dict) else None
        if not isinstance(schemas, dict):
            diagnostics.error("`components/schemas` is not an object; external schemas have nowhere to go", "/components")
            raise GenerationError(diagnostics.items)
        for name, schema in added.items():
            schemas[name] = schema
    return out


def _has_external_ref(node: Any) -> bool:
    """Whether any `$ref` in `node` names another document (iterative: specs nest deeply)."""
    todo = [node]
    while todo:
        item = todo.pop()
        if isinstance(item, dict):
            ref = item.get("$ref")
            if isinstance(ref, str) and not ref.startswith("#"):
                return True
            todo.extend(v for k, v in item.items() if k not in _DATA_KEYWORDS and not k.startswith("x-"))
        elif isinstance(item, list):
            todo.extend(item)
    return False


def _is_url(location: str) -> bool:
    return urlsplit(location).scheme.lower() in ("http", "https")


def _shown(location: str, root: str) -> str:
    """A file as diagnostics name it: relative to the root spec's folder when below it."""
    if _is_url(location):
        return location
    try:
        return str(Path(location).relative_to(Path(root).parent))
    except ValueError:
        return location


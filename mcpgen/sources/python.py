"""Python module -> IR: each public function of a module becomes a tool.

Schemas come from one pydantic model per function, built from its signature; the
generated server builds the same model at run time: both call
`runtime.functions.arguments_model`, so validation and inputSchema agree.

`PythonCall.module` takes two forms:
- FILE target (`path/to/tools.py`): the file is copied into the generated package as
  `source/<stem>.py` (plus `source/__init__.py`) and `module` is the relative name
  `.source.<stem>`, imported with `importlib.import_module(module, package=__package__)`.
  A sub-package, so a user file named `server.py` cannot clash with generated modules.
- MODULE target (`pkg.tools`): `module` is the absolute dotted name, and the
  distribution that provides it (when known) goes into `extra_dependencies`.
"""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import fnmatch
import importlib
import importlib.metadata
import importlib.util
import inspect
import json
import os
import re
import sys
import textwrap
import traceback
import types
import typing
import warnings
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import docstring_parser
import pydantic
import typing_extensions  # installed with pydantic; knows both TypedDict kinds
from pydantic.fields import FieldInfo
from pydantic.json_schema import GenerateJsonSchema

from mcpgen import naming
from mcpgen.diagnostics import Diagnostic, Diagnostics, GenerationError, Level, Topic
from mcpgen.ir import Annotations, JsonSchema, Origin, Project, Prompt, PromptArgument, PythonCall, Tool
from mcpgen.runtime.content import returns_content
from mcpgen.runtime.functions import arguments_model, context_parameter
from mcpgen.schema.output import bound_output_schema, portable_output_schema, with_content_id
from mcpgen.schema.strict import drop_unencodable

COPY_PACKAGE = "source"  # sub-package of the generated package that holds a copied file
_COPY_INIT = '"""A copy of the module the tools come from, so the package runs on its own."""\n'
_IMPORT_PREFIX = "_mcpgen_source_"  # sys.modules name of a file target while it is parsed
_VERSION = "0.1.0"
_VALUE_KEYWORDS = frozenset({"default", "const", "enum", "examples"})  # hold data, not schemas
_MISSING = object()


@dataclasses.dataclass(frozen=True, slots=True)
class _Loaded:
    """The imported target and what the generated package needs to import it again."""

    module: types.ModuleType
    call_module: str  # PythonCall.module
    short_name: str  # last dotted component or file stem: the default project name
    parent_name: str  # its package or folder: the default name when short_name is generic
    source_path: Path | None  # the module's own file, to tell its functions' locations
    display: str  # how diagnostics name that file
    copied_files: tuple[tuple[str, str], ...]
    dependencies: tuple[str, ...]
    # A copied file's third-party imports: (top-level module, its distribution or None when unknown).
    imports: tuple[tuple[str, str | None], ...] = ()


@dataclasses.dataclass(frozen=True, slots=True)
class _Draft:
    """A tool before names are assigned (they depend on every other tool)."""

    key: str
    tool: Tool


def parse_python(
    target: str,
    *,
    name: str | None,
    include: list[str],
    exclude: list[str],
    max_name_length: int,
    diagnostics: Diagnostics,
    search_path: Path | None = None,
    prompt_functions: tuple[str, ...] = (),
) -> Project:
    """Import TARGET (module name or .py path) and describe its functions as tools.

    Functions named in `prompt_functions` become prompts (named after the function) instead.
    Import failure raises `GenerationError`; a function that cannot be expressed is
    skipped with a located warning.
    """
    with _imported(target, diagnostics, search_path) as loaded:
        prompts = tuple(p for f in prompt_functions if (p := _prompt(f, loaded, diagnostics)))
        functions = _select_functions(loaded, include, [*exclude, *prompt_functions], diagnostics)
        drafts = [d for key, fn in functions if (d := _draft_tool(key, fn, loaded, diagnostics))]
        module_doc = docstring_parser.parse(inspect.getdoc(loaded.module) or "")
    if not drafts:
        diagnostics.warning(f"{target}: no function could become a tool")
    if name is not None:
        project_name = naming.slug(name)
        if project_name != name:
            diagnostics.info(f"server name {name!r} became {project_name!r} (a lowercase slug)")
    else:
        project_name = naming.default_module_server_name(
            loaded.short_name, module_doc.short_description or "", loaded.parent_name
        )
        if project_name != naming.slug(loaded.short_name):
            diagnostics.info(
                f"server name {project_name!r} (settings {naming.env_prefix(project_name)}_*), "
                f"since the module's name {loaded.short_name!r} says little",
                "",
                "choose another with --name, or `name` in mcpgen.toml",
            )
    return Project(
        name=project_name,
        package=naming.package_name(project_name),
        env_prefix=naming.env_prefix(project_name),
        title=module_doc.short_description or loaded.short_name,
        description=module_doc.long_description or "",
        version=_VERSION,
        source_kind="python",
        source_file=Path(target).name if loaded.copied_files else target,
        tools=_named_tools(drafts, max_name_length, diagnostics),
        base_url=None,
        security_schemes=(),
        env_vars=(),
        extra_dependencies=_dependencies(loaded, naming.package_name(project_name), diagnostics),
        copied_files=loaded.copied_files,
        prompts=prompts,
        files_read=(loaded.display,) if loaded.source_path is not None else (),
    )


# --- importing the target -------------------------------------------------------------


@contextlib.contextmanager
def _imported(target: str, diagnostics: Diagnostics, search_path: Path | None) -> Iterator[_Loaded]:
    """Import the target for the duration of the parse, then restore sys.path/sys.modules.

    A module name is looked up from `search_path` (default: the working directory)."""
    saved_path = list(sys.path)
    before = set(sys.modules)
    is_file = target.endswith(".py") or os.sep in target or "/" in target
    try:
        if is_file:
            yield _load_file(target, diagnostics)
        else:
            yield _load_module(target, diagnostics, str(search_path) if search_path else os.getcwd())
    finally:
        sys.path[:] = saved_path
        top = target.partition(".")[0]
        for module_name in set(sys.modules) - before:
            if module_name.startswith(_IMPORT_PREFIX) or (
                not is_file and (module_name == top or module_name.startswith(top + "."))
            ):
                del sys.modules[module_name]


def _load_file(target: str, diagnostics: Diagnostics) -> _Loaded:
    path = Path(target)
    if not path.is_file():
        why = "is a directory; pass a .py file or a module name" if path.is_dir() else "no such file"
        _fail(diagnostics, f"cannot import {target}: {why}", target)
    stem = naming.python_identifier(path.stem, "tools")
    text = importlib.util.decode_source(path.read_bytes())
    # A fixed, prefixed name: never shadows a real module, and keeps pydantic's
    # $defs names (which may include the module on a clash) deterministic.
    module_name = _IMPORT_PREFIX + stem
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        _fail(diagnostics, f"cannot import {target}: not a Python source file", target)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # dataclasses and pydantic look classes' modules up here
    try:
        spec.loader.exec_module(module)
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - the user's code: anything can happen
        hint = ""
        if isinstance(exc, ImportError):
            hint = "a file target is imported alone, without its directory on sys.path; pass a module name instead"
        _import_failed(diagnostics, target, exc, path, hint)
    return _Loaded(
        module=module,
        call_module=f".{COPY_PACKAGE}.{stem}",
        short_name=stem,
        parent_name=path.resolve().parent.name,
        source_path=path.resolve(),
        display=target,
        copied_files=((f"{COPY_PACKAGE}/__init__.py", _COPY_INIT), (f"{COPY_PACKAGE}/{stem}.py", text)),
        dependencies=(),
        imports=_file_imports(text),
    )


def _load_module(target: str, diagnostics: Diagnostics, search_path: str) -> _Loaded:
    if search_path not in sys.path:  # what `python -m` would see from there; console scripts don't
        sys.path.insert(0, search_path)
    try:
        module = importlib.import_module(target)
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - the user's code: anything can happen
        hint = "is it installed in this environment, or on PYTHONPATH?" if isinstance(exc, ModuleNotFoundError) else ""
        _import_failed(diagnostics, target, exc, None, hint)
    file = getattr(module, "__file__", None)
    source_path = Path(file).resolve() if file else None
    return _Loaded(
        module=module,
        call_module=target,
        short_name=target.rpartition(".")[2],
        parent_name=target.rpartition(".")[0].rpartition(".")[2],
        source_path=source_path,
        display=str(source_path) if source_path else target,
        copied_files=(),
        dependencies=_module_dependency(target, source_path, diagnostics),
    )


def _import_failed(
    diagnostics: Diagnostics, target: str, exc: BaseException, path: Path | None, hint: str
) -> typing.NoReturn:
    """Error located at the failing line of the target file, when there is one."""
    line = None
    if (
        isinstance(exc, SyntaxError)
        and path is not None
        and exc.filename
        and Path(exc.filename).resolve() == path.resolve()
    ):
        line = exc.lineno
    elif path is not None:
        for frame in traceback.extract_tb(exc.__traceback__):
            if Path(frame.filename).resolve() == path.resolve():
                line = frame.lineno
    _fail(diagnostics, f"cannot import {target}: {type(exc).__name__}: {exc}", target, line, hint)


def _fail(
    diagnostics: Diagnostics, message: str, file: str, line: int | None = None, hint: str = ""
) -> typing.NoReturn:
    _report(diagnostics, Level.ERROR, message, file, line, hint)
    raise GenerationError(diagnostics.items)


def _report(diagnostics: Diagnostics, level: Level, message: str, file: str, line: int | None, hint: str = "") -> None:
    # Python sources are located by file and line, not by a JSON pointer, which
    # `Diagnostics.add` cannot take; the items list is the collector's public record.
    diagnostics.items.append(Diagnostic(level, message, file, "", line, hint))


# --- dependencies ---------------------------------------------------------------------


def _module_dependency(target: str, source_path: Path | None, diagnostics: Diagnostics) -> tuple[str, ...]:
    top = target.partition(".")[0]
    if top in sys.stdlib_module_names:
        return ()
    dist = _distribution(top, source_path, importlib.metadata.packages_distributions())
    if dist is None:
        diagnostics.info(
            f"cannot tell which installed distribution provides {target!r}; "
            "the generated server imports it by name, so make it importable where the server runs"
        )
        return ()
    return (dist,)


def _dependencies(loaded: _Loaded, package: str, diagnostics: Diagnostics) -> tuple[str, ...]:
    """What the generated server must install to import the target: the module's distribution, or
    those of a copied file's imports. The server's own package (`package`, which a function may
    import at run time, as for `extensions.resource_updated`) is not one: no dependency on
    itself, and no "cannot tell" for it."""
    found = set(loaded.dependencies)
    for top, dist in loaded.imports:
        if top == package:
            continue
        if dist is None:
            diagnostics.info(
                f"{loaded.display}: cannot tell which distribution provides {top!r}; add it to the dependencies"
            )
        else:
            found.add(dist)
    return tuple(sorted(found))


def _file_imports(text: str) -> tuple[tuple[str, str | None], ...]:
    """The third-party modules a copied file imports, each with its distribution (None: unknown)."""
    tops: set[str] = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            tops.update(alias.name.partition(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            tops.add(node.module.partition(".")[0])
    tops -= set(sys.stdlib_module_names) | {"__future__"}
    mapping = importlib.metadata.packages_distributions()
    return tuple((top, _distribution(top, None, mapping)) for top in sorted(tops))


def _distribution(top: str, source_path: Path | None, mapping: Mapping[str, list[str]]) -> str | None:
    candidates = sorted(set(mapping.get(top, [])))
    if len(candidates) == 1:
        return candidates[0]
    # Namespace packages (several distributions share `top`): find the file's owner.
    for candidate in candidates if source_path is not None else []:
        dist = importlib.metadata.distribution(candidate)
        if any(Path(str(dist.locate_file(f))).resolve() == source_path for f in dist.files or ()):
            return candidate
    return None


# --- choosing functions ---------------------------------------------------------------


def _select_functions(
    loaded: _Loaded, include: list[str], exclude: list[str], diagnostics: Diagnostics
) -> list[tuple[str, Callable[..., Any]]]:
    """(attribute name, function) pairs in source order, filtered by the globs."""
    module = loaded.module
    exported = getattr(module, "__all__", None)
    found: dict[str, Callable[..., Any]] = {}
    if exported is not None:
        for attr in exported:
            obj = getattr(module, attr, _MISSING) if isinstance(attr, str) else _MISSING
            if obj is _MISSING:
                diagnostics.warning(f"{loaded.display}: __all__ lists {attr!r}, which the module does not define")
            elif inspect.isfunction(obj):
                found[attr] = obj
            elif callable(obj) and not inspect.isclass(obj):
                diagnostics.info(f"{loaded.display}: {attr!r} in __all__ is not a plain function, so not a tool")
    else:
        for attr, obj in vars(module).items():
            if not attr.startswith("_") and inspect.isfunction(obj) and obj.__module__ == module.__name__:
                found[attr] = obj
    for pattern in include:
        if not any(fnmatch.fnmatchcase(attr, pattern) for attr in found):
            diagnostics.warning(f"--include {pattern!r} matches no function of {loaded.display}")
    kept = [
        (attr, fn)
        for attr, fn in found.items()
        if (not include or any(fnmatch.fnmatchcase(attr, p) for p in include))
        and not any(fnmatch.fnmatchcase(attr, p) for p in exclude)
    ]
    return sorted(kept, key=lambda item: _source_order(item, loaded))


def _source_order(item: tuple[str, Callable[..., Any]], loaded: _Loaded) -> tuple[bool, str, int, str]:
    file, line = _location(item[1], loaded)
    return (file != loaded.display, file, line or 0, item[0])


def _location(function: Callable[..., Any], loaded: _Loaded) -> tuple[str, int | None]:
    inner = inspect.unwrap(function)
    code = getattr(inner, "__code__", None)
    if code is None:
        return loaded.display, None
    path = Path(code.co_filename).resolve()
    return (loaded.display if path == loaded.source_path else str(path)), code.co_firstlineno


# --- one function -> one tool ---------------------------------------------------------


class _Skip(Exception):
    """This function cannot be a tool; the message says why, with an optional line."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


def _draft_tool(attr: str, function: Callable[..., Any], loaded: _Loaded, diagnostics: Diagnostics) -> _Draft | None:
    file, line = _location(function, loaded)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            input_schema, output_schema, wraps, takes = _schemas(attr, function)
    except _Skip as skip:
        diagnostics.items.append(Diagnostic(
            Level.WARNING, f"function {attr!r} skipped: {skip}", file, "", skip.line or line,
            topic=Topic.SKIPPED, reason="cannot be a tool",
        ))
        return None
    for schema in (input_schema, output_schema):  # a NaN or 10**5000 default cannot reach tools.json
        for pointer, reason in drop_unencodable(schema)[1] if schema is not None else []:
            _report(diagnostics, Level.WARNING, f"function {attr!r}: schema {pointer}: {reason}; dropped", file, line)
    for warning in caught:  # e.g. a default pydantic cannot put in the schema
        if not issubclass(warning.category, UserWarning):  # not deprecations of pydantic's own internals
            continue
        _report(diagnostics, Level.WARNING, f"function {attr!r}: {warning.message}", file, line)
    doc = docstring_parser.parse(inspect.getdoc(function) or "")
    _describe_parameters(input_schema, doc)
    description = "\n\n".join(part for part in (doc.short_description, doc.long_description) if part)
    if not description:
        description = naming.snake(attr).replace("_", " ").capitalize()
        _report(
            diagnostics, Level.INFO, f"function {attr!r} has no docstring; described as {description!r}", file, line
        )
    tool = Tool(
        name=attr,  # replaced once every name is known
        title=None,
        description=description,
        input_schema=input_schema,
        output_schema=output_schema,
        wraps_result=wraps,
        annotations=PYTHON_ANNOTATIONS,
        origin=Origin(file=file, line=line),
        python_name=naming.python_identifier(attr),
        call=PythonCall(
            module=loaded.call_module,
            function=attr,
            is_async=inspect.iscoroutinefunction(function),
            context=takes,
        ),
    )
    return _Draft(attr, tool)


# A function can do anything: the hints MCP clients assume when none is given (spec
# 2025-11-25 ToolAnnotations), stated explicitly; mcpgen.toml's `annotations` override them.
PYTHON_ANNOTATIONS = Annotations(read_only=False, destructive=True, idempotent=False, open_world=True)


def _prompt(attr: str, loaded: _Loaded, diagnostics: Diagnostics) -> Prompt | None:
    """A prompt from a function returning a string or a list of messages. MCP prompt
    arguments are strings, so every parameter must take a str."""
    function = getattr(loaded.module, attr, None)
    if not inspect.isfunction(function):
        diagnostics.error(f"function {attr!r} (bound in mcpgen.toml): {loaded.display} defines no such function")
        return None
    file, line = _location(function, loaded)
    doc = docstring_parser.parse(inspect.getdoc(function) or "")
    described = {p.arg_name: p.description or "" for p in doc.params}
    try:
        hints = typing.get_type_hints(function)
    except Exception as exc:  # noqa: BLE001 - the user's annotations: anything can fail
        _report(diagnostics, Level.ERROR, f"function {attr!r} (bound in mcpgen.toml): cannot read its annotations: {exc}", file, line)
        return None
    arguments = []
    for parameter in inspect.signature(function).parameters.values():
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD, parameter.POSITIONAL_ONLY):
            _report(diagnostics, Level.ERROR, f"function {attr!r} (bound in mcpgen.toml): parameter {parameter.name!r} "
                    "must be an ordinary named parameter", file, line)
            return None
        hint = hints.get(parameter.name, str)
        if hint not in (str, str | None, typing.Optional[str]):  # noqa: UP045 - either spelling
            _report(diagnostics, Level.ERROR, f"function {attr!r} (bound in mcpgen.toml): parameter {parameter.name!r} must take a "
                    "str (prompt arguments and URI template variables are strings)", file, line)
            return None
        required = parameter.default is inspect.Parameter.empty
        arguments.append(PromptArgument(parameter.name, described.get(parameter.name, ""), required))
    description = "\n\n".join(part for part in (doc.short_description, doc.long_description) if part)
    return Prompt(
        name=attr,
        title=None,
        description=description or naming.snake(attr).replace("_", " ").capitalize(),
        arguments=tuple(arguments),
        call=PythonCall(module=loaded.call_module, function=attr, is_async=inspect.iscoroutinefunction(function)),
    )


def _schemas(attr: str, function: Callable[..., Any]) -> tuple[JsonSchema, JsonSchema | None, bool, str | None]:
    if inspect.isgeneratorfunction(function) or inspect.isasyncgenfunction(function):
        raise _Skip("generator functions are not supported; return a list instead")
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError) as exc:
        raise _Skip(f"no signature: {exc}") from None
    parameters = list(signature.parameters.values())
    param_lines = _parameter_lines(function)
    for parameter in parameters:
        why = _parameter_problem(parameter)
        if why:
            raise _Skip(f"parameter {parameter.name!r} {why}", param_lines.get(parameter.name))
    hints = _type_hints(function, param_lines)
    # The request's Context (as MCPServer injects it) is passed by the server, not the model.
    takes = context_parameter(hints)
    parameters = [parameter for parameter in parameters if parameter.name != takes]
    input_schema = _input_schema(attr, parameters, hints, param_lines)
    output_schema, wraps = _output_schema(hints)
    return input_schema, output_schema, wraps, takes


def _parameter_problem(parameter: inspect.Parameter) -> str | None:
    kind = parameter.kind
    if kind is inspect.Parameter.VAR_POSITIONAL:
        return "is *args, which has no name to give as a tool argument"
    if kind is inspect.Parameter.VAR_KEYWORD:
        return "is **kwargs, whose names a JSON Schema cannot list"
    if kind is inspect.Parameter.POSITIONAL_ONLY:
        return "is positional-only, but tool arguments are passed by name"
    if parameter.annotation is inspect.Parameter.empty:
        return "has no type annotation"
    if isinstance(parameter.default, FieldInfo):
        return "has a pydantic Field() as its default; write `x: Annotated[T, Field(...)] = default`"
    if naming.property_name(parameter.name) != parameter.name:
        return "is not a valid tool argument name ([A-Za-z0-9_.-], at most 64 characters)"
    return None


def _type_hints(function: Callable[..., Any], param_lines: Mapping[str, int]) -> dict[str, Any]:
    try:
        return typing.get_type_hints(function, include_extras=True)
    except Exception as exc:  # noqa: BLE001 - find the annotation at fault, then report it
        failure = exc
    globalns = getattr(inspect.unwrap(function), "__globals__", {})
    for key, annotation in getattr(function, "__annotations__", {}).items():
        probe = types.FunctionType((lambda: None).__code__, globalns)
        probe.__annotations__ = {key: annotation}
        try:
            typing.get_type_hints(probe, include_extras=True)
        except Exception as exc:  # noqa: BLE001
            what = "the return annotation" if key == "return" else f"the annotation of parameter {key!r}"
            raise _Skip(f"{what} cannot be resolved: {type(exc).__name__}: {exc}", param_lines.get(key)) from None
    raise _Skip(f"its annotations cannot be resolved: {type(failure).__name__}: {failure}")


def _input_schema(
    attr: str, parameters: list[inspect.Parameter], hints: Mapping[str, Any], param_lines: Mapping[str, int]
) -> JsonSchema:
    try:
        model = arguments_model(attr, parameters, hints)
        schema = model.model_json_schema(schema_generator=_SchemaGenerator)
    except Exception as whole:  # noqa: BLE001 - name the parameter at fault, if one alone fails
        for parameter in parameters:
            try:
                arguments_model(attr, [parameter], hints).model_json_schema(schema_generator=_SchemaGenerator)
            except Exception as exc:  # noqa: BLE001
                why = f"has a type with no JSON Schema ({_type_name(hints[parameter.name])}): {_first_line(exc)}"
                raise _Skip(f"parameter {parameter.name!r} {why}", param_lines.get(parameter.name)) from None
        raise _Skip(f"its arguments have no JSON Schema: {_first_line(whole)}") from None
    schema.pop("title", None)  # `<fn>_arguments`: a generated name, nothing for a model to read
    _fill_array_items(schema)
    return schema


def _output_schema(hints: Mapping[str, Any]) -> tuple[JsonSchema | None, bool]:
    # `-> str` is served as the text itself, as a model reads it best; no structuredContent.
    # Content (bytes, images, audio, resources; see runtime/content.py) has none either, and a
    # client checks structuredContent against outputSchema: declaring one would break it.
    if "return" not in hints or hints["return"] in (None, type(None), str) or returns_content(hints["return"]):
        return None, False
    annotation = hints["return"]
    try:
        schema = pydantic.TypeAdapter(annotation).json_schema(mode="serialization", schema_generator=_SchemaGenerator)
    except Exception as exc:  # noqa: BLE001
        raise _Skip(f"the return type {_type_name(annotation)} has no JSON Schema: {_first_line(exc)}") from None
    _fill_array_items(schema)
    # Formats and type unions as every client reads them alike (see output_schemas).
    schema = bound_output_schema(portable_output_schema(schema))
    if _is_object_like(annotation) and schema.get("type") == "object":
        return with_content_id(schema), False
    # Clients of handshake-era protocols need an object root: wrap, keeping $defs at the
    # root so `#/$defs/...` references still resolve.
    defs = schema.pop("$defs", None)
    wrapped: JsonSchema = {"type": "object", "properties": {"result": schema} if schema else {}, "required": ["result"]}
    if defs:
        wrapped["$defs"] = defs
    return with_content_id(wrapped), True


def _is_object_like(annotation: Any) -> bool:
    if typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    origin = typing.get_origin(annotation) or annotation  # Model[int] -> Model
    if not isinstance(origin, type):
        return False
    return (
        issubclass(origin, pydantic.BaseModel)
        or dataclasses.is_dataclass(origin)
        or typing_extensions.is_typeddict(origin)
    )


class _SchemaGenerator(GenerateJsonSchema):
    """pydantic's generator, with set defaults in a stable order (sets iterate by hash)."""

    def encode_default(self, dft: Any) -> Any:
        encoded = super().encode_default(dft)
        if isinstance(dft, (set, frozenset)) and isinstance(encoded, list):
            return sorted(encoded, key=lambda value: json.dumps(value, sort_keys=True))
        return encoded


def _fill_array_items(node: Any) -> None:
    """Every array gets `items`: strict clients reject arrays without it.

    pydantic gives fixed-length tuples only `prefixItems`; their length is pinned by
    min/maxItems, so an `items` listing the element schemas changes nothing for 2020-12
    validators and tells older readers what the elements are.
    """
    if isinstance(node, list):
        for child in node:
            _fill_array_items(child)
        return
    if not isinstance(node, dict):
        return
    for key, child in node.items():
        if key not in _VALUE_KEYWORDS:
            _fill_array_items(child)
    if node.get("type") == "array" and "items" not in node:
        prefix = node.get("prefixItems") or []
        unique = [s for i, s in enumerate(prefix) if s not in prefix[:i]]
        node["items"] = unique[0] if len(unique) == 1 else ({"anyOf": unique} if unique else {})


def _describe_parameters(schema: JsonSchema, doc: docstring_parser.Docstring) -> None:
    """Docstring text for parameters whose Field gave no description."""
    properties = schema.get("properties", {})
    for param in doc.params:
        prop = properties.get(param.arg_name)
        if prop is not None and param.description and "description" not in prop:
            prop["description"] = param.description
            properties[param.arg_name] = dict(sorted(prop.items()))  # pydantic's key order


def _parameter_lines(function: Callable[..., Any]) -> dict[str, int]:
    """Source line of each parameter, for warnings about multi-line signatures."""
    try:
        lines, start = inspect.getsourcelines(function)
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except (OSError, TypeError, SyntaxError):
        return {}
    node = next((n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))), None)
    if node is None:
        return {}
    a = node.args
    every = [*a.posonlyargs, *a.args, *([a.vararg] if a.vararg else []), *a.kwonlyargs, *([a.kwarg] if a.kwarg else [])]
    return {arg.arg: start + arg.lineno - 1 for arg in every}


def _type_name(annotation: Any) -> str:
    if isinstance(annotation, type):
        return annotation.__qualname__
    return re.sub(rf"\b{_IMPORT_PREFIX}\w+\.", "", repr(annotation))  # as the file spells it


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


# --- names ----------------------------------------------------------------------------


def _named_tools(drafts: list[_Draft], max_length: int, diagnostics: Diagnostics) -> tuple[Tool, ...]:
    requests = [naming.ToolNameRequest(key=d.key, wanted=d.key) for d in drafts]
    tools = []
    for draft, assigned in zip(drafts, naming.assign_tool_names(requests, max_length), strict=True):
        if assigned.name != draft.key:
            origin = draft.tool.origin
            message = f"function {draft.key!r} is served as tool {assigned.name!r}: {assigned.reason}"
            _report(diagnostics, Level.INFO, message, origin.file, origin.line)
        tools.append(dataclasses.replace(draft.tool, name=assigned.name))
    return tuple(tools)

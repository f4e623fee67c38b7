"""The `mcpgen` command: flags → `mcpgen.options.Options` → api; diagnostics printed, exit code set."""

from __future__ import annotations

import enum
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer
from pydantic import ValidationError

from mcpgen import __version__, api, naming, progress, summary
from mcpgen.clients import lint
from mcpgen.diagnostics import Diagnostic, Diagnostics, GenerationError, Level, Topic
from mcpgen.formatting import DEFAULT_FORMATTER, FORMATTERS
from mcpgen.install import clients as install_clients
from mcpgen.naming import DEFAULT_MAX_TOOL_NAME, MCP_MAX_TOOL_NAME
from mcpgen.options import (
    CLIENT_PROFILES,
    DEFAULT_MAX_RESPONSE_CHARS,
    DEFAULT_OUTPUT_SCHEMAS,
    DEFAULT_PAGE_SIZE,
    DEFAULT_TOOL_MODE,
    MIN_MAX_RESPONSE_CHARS,
    OUTPUT_SCHEMAS,
    TOOL_MODES,
    TOOLSETS_FROM,
    Options,
    problems,
)
from mcpgen.project import changes
from mcpgen.writer import OutputExists

app = typer.Typer(
    help="Generate standalone, typed MCP server packages from OpenAPI specs or Python modules.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

OutputOption = Annotated[
    Path | None, typer.Option("--output", "-o", help="Output directory (default: ./<name>-mcp).")
]
NameOption = Annotated[str | None, typer.Option("--name", help="Server name (default: from the title/module).")]
ForceOption = Annotated[bool, typer.Option("--force", help="Replace a non-empty output directory.")]
VerboseOption = Annotated[
    bool, typer.Option("--verbose", "-v", help="List every renamed tool (by default the first ten, then a count per reason).")
]
QuietOption = Annotated[
    bool, typer.Option("--quiet", "-q", help="Print only warnings and errors (no notes, summary or progress).")
]
MaxNameOption = Annotated[
    int,
    typer.Option(
        "--max-name-length",
        min=1,
        max=MCP_MAX_TOOL_NAME,
        help=f"Longest tool name (default {DEFAULT_MAX_TOOL_NAME}, which every major client accepts).",
    ),
]


ToolMode = enum.Enum("ToolMode", {mode: mode for mode in TOOL_MODES}, type=str)  # type: ignore[misc]
OutputSchemas = enum.Enum("OutputSchemas", {kind: kind for kind in OUTPUT_SCHEMAS}, type=str)  # type: ignore[misc]
FormatterName = enum.Enum("FormatterName", {name: name for name in FORMATTERS}, type=str)  # type: ignore[misc]
ToolsetsFromName = enum.Enum("ToolsetsFromName", {name: name for name in TOOLSETS_FROM}, type=str)  # type: ignore[misc]
ClientName = enum.Enum("ClientName", {name: name for name in CLIENT_PROFILES}, type=str)  # type: ignore[misc]
LintClient = enum.Enum("LintClient", {name: name for name in (*lint.CLIENTS, "all")}, type=str)  # type: ignore[misc]


class LintFormat(str, enum.Enum):
    table = "table"
    json = "json"


ToolModeOption = Annotated[
    ToolMode,
    typer.Option(
        "--tool-mode",
        help="static: one tool per operation; dynamic: search_tools/describe_tool/call_tool over the catalogue "
        "(for APIs too big for one tools/list); code: search/execute, the model's Python run in a sandbox "
        "against the typed API.",
    ),
]
PageSizeOption = Annotated[
    int, typer.Option("--page-size", min=1, help="Tools per tools/list page (the server's <PREFIX>_PAGE_SIZE overrides).")
]
OutputSchemasOption = Annotated[
    OutputSchemas,
    typer.Option(
        "--output-schemas",
        help="shaped: each tool's outputSchema says its result's shape; object: every outputSchema is "
        '{"type": "object"} (the TypeScript SDK 1.x compiles every shape on each tools/list: big servers list '
        "several times faster).",
    ),
]
ClientProfileOption = Annotated[
    ClientName | None,
    typer.Option(
        "--client-profile",
        help="Advertise schemas and names this client accepts (the server still validates the full schema).",
    ),
]
FormatterOption = Annotated[
    FormatterName,
    typer.Option("--formatter", help="Lays out the generated Python: ruff (ruff format, black's style) or black."),
]


MaxResponseOption = Annotated[
    int,
    typer.Option(
        "--max-response-chars",
        min=MIN_MAX_RESPONSE_CHARS,
        help="Cut tool results longer than this, with a note (the server's <PREFIX>_MAX_RESPONSE_CHARS overrides).",
    ),
]


def _surface(
    tool_mode: ToolMode,
    page_size: int,
    client_profile: ClientName | None,
    max_response_chars: int,
    output_schemas: OutputSchemas,
) -> dict[str, object]:
    return {
        "tool_mode": tool_mode.value,
        "output_schemas": output_schemas.value,
        "page_size": page_size,
        "client_profile": client_profile.value if client_profile else None,
        "max_response_chars": max_response_chars,
    }


# Flags by the option they set (where an Options field's flag is not `--<field>`).
_FLAGS = {
    ("filters", "include_tags"): "--tag",
    ("filters", "exclude_tags"): "--exclude-tag",
    ("filters", "include_operations"): "--operation",
    ("filters", "exclude_operations"): "--exclude-operation",
    ("filters", "include_paths"): "--path",
    ("filters", "exclude_paths"): "--exclude-path",
    ("filters", "methods"): "--method",
    ("filters", "include_deprecated"): "--include-deprecated",
}


def _options(**given: object) -> Options:
    """The flags as the options model; a value it refuses is a usage error naming the flag."""
    try:
        return Options.model_validate(given)
    except ValidationError as exc:
        problem = problems(exc)[0]
        flag = _FLAGS.get(tuple(problem.loc[:2]), "--" + str(problem.loc[0]).replace("_", "-"))  # type: ignore[arg-type]
        message = f"{problem.message} ({problem.hint})" if problem.hint else problem.message
        raise typer.BadParameter(message, param_hint=flag) from None


def _version(value: bool) -> None:
    if value:
        typer.echo(f"mcpgen {__version__}")
        raise typer.Exit()


@app.callback()
def main_options(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version.")
    ] = False,
) -> None:
    """mcpgen: OpenAPI or Python → MCP server."""


@app.command("from-openapi")
def from_openapi(
    spec: Annotated[Path, typer.Argument(help="OpenAPI 3.0/3.1/3.2 (or Swagger 2.0) file, YAML or JSON.")],
    output: OutputOption = None,
    name: NameOption = None,
    force: ForceOption = False,
    max_name_length: MaxNameOption = DEFAULT_MAX_TOOL_NAME,
    models: Annotated[bool, typer.Option("--models/--no-models", help="Generate typed pydantic models.")] = True,
    tag: Annotated[list[str] | None, typer.Option("--tag", help="Only operations with a tag matching this glob.")] = None,
    exclude_tag: Annotated[list[str] | None, typer.Option("--exclude-tag", help="Skip operations tagged so.")] = None,
    operation: Annotated[
        list[str] | None, typer.Option("--operation", help="Only operations whose operationId matches this glob.")
    ] = None,
    exclude_operation: Annotated[
        list[str] | None, typer.Option("--exclude-operation", help="Skip operations whose operationId matches.")
    ] = None,
    path: Annotated[list[str] | None, typer.Option("--path", help="Only paths matching this glob, e.g. '/pets*'.")] = None,
    exclude_path: Annotated[list[str] | None, typer.Option("--exclude-path", help="Skip paths matching.")] = None,
    method: Annotated[list[str] | None, typer.Option("--method", help="Only these HTTP methods (repeatable).")] = None,
    include_deprecated: Annotated[
        bool, typer.Option("--include-deprecated", help="Also generate deprecated operations.")
    ] = False,
    overlay: Annotated[
        list[Path] | None,
        typer.Option(
            "--overlay",
            help="An OpenAPI Overlay (1.0/1.1) applied to SPEC before it is read; repeatable, applied in order, "
            "recorded in mcpgen.toml and applied again by regenerate.",
        ),
    ] = None,
    tool_mode: ToolModeOption = ToolMode[DEFAULT_TOOL_MODE],
    page_size: PageSizeOption = DEFAULT_PAGE_SIZE,
    max_response_chars: MaxResponseOption = DEFAULT_MAX_RESPONSE_CHARS,
    client_profile: ClientProfileOption = None,
    output_schemas: OutputSchemasOption = OutputSchemas[DEFAULT_OUTPUT_SCHEMAS],
    formatter: FormatterOption = FormatterName[DEFAULT_FORMATTER],
    resources: Annotated[
        bool,
        typer.Option(
            "--resources",
            help="Also serve GETs without required arguments as resources, and GETs needing only path "
            "parameters as resource templates (<name>://path/{param}).",
        ),
    ] = False,
    toolsets_from: Annotated[
        ToolsetsFromName | None,
        typer.Option(
            "--toolsets-from",
            help="Group the tools in toolsets (PREFIX_TOOLSETS picks them at run time): one per top-level "
            "OpenAPI tag (`tags`) or per first path segment (`paths`). More in mcpgen.toml's [toolsets.<name>].",
        ),
    ] = None,
    allow_remote_refs: Annotated[
        bool, typer.Option("--allow-remote-refs", help="Fetch http(s) $refs (refused by default: no network).")
    ] = False,
    allow_refs_outside: Annotated[
        bool,
        typer.Option(
            "--allow-refs-outside",
            help="Read $ref'd files outside the spec's own folder (refused by default; every file read is listed).",
        ),
    ] = False,
    verbose: VerboseOption = False,
    quiet: QuietOption = False,
) -> None:
    """Generate an MCP server package that calls the API SPEC describes.

    Filters are recorded in the project's mcpgen.toml, where they can be edited later."""
    filters = {
        "include_tags": tag or [],
        "exclude_tags": exclude_tag or [],
        "include_operations": operation or [],
        "exclude_operations": exclude_operation or [],
        "include_paths": path or [],
        "exclude_paths": exclude_path or [],
        "methods": method or [],
        "include_deprecated": include_deprecated,
    }
    options = _options(
        output=output, name=name, force=force, max_name_length=max_name_length, models=models, filters=filters,
        resources=resources, **_surface(tool_mode, page_size, client_profile, max_response_chars, output_schemas),
        allow_remote_refs=allow_remote_refs, allow_refs_outside=allow_refs_outside, formatter=formatter.value,
        toolsets_from=toolsets_from.value if toolsets_from is not None else None,
    )
    _run(lambda: api.generate_openapi(spec, options, overlay or ()), verbose, quiet)


@app.command("from-python")
def from_python(
    target: Annotated[str, typer.Argument(help="Importable module name (pkg.tools) or a path to a .py file.")],
    output: OutputOption = None,
    name: NameOption = None,
    include: Annotated[
        list[str] | None, typer.Option("--include", help="Only functions matching this glob (repeatable).")
    ] = None,
    exclude: Annotated[
        list[str] | None, typer.Option("--exclude", help="Skip functions matching this glob (repeatable).")
    ] = None,
    force: ForceOption = False,
    max_name_length: MaxNameOption = DEFAULT_MAX_TOOL_NAME,
    tool_mode: ToolModeOption = ToolMode[DEFAULT_TOOL_MODE],
    page_size: PageSizeOption = DEFAULT_PAGE_SIZE,
    max_response_chars: MaxResponseOption = DEFAULT_MAX_RESPONSE_CHARS,
    client_profile: ClientProfileOption = None,
    output_schemas: OutputSchemasOption = OutputSchemas[DEFAULT_OUTPUT_SCHEMAS],
    formatter: FormatterOption = FormatterName[DEFAULT_FORMATTER],
    verbose: VerboseOption = False,
    quiet: QuietOption = False,
) -> None:
    """Generate an MCP server package whose tools are TARGET's public functions."""
    options = _options(
        output=output,
        name=name,
        force=force,
        max_name_length=max_name_length,
        include=include or [],
        exclude=exclude or [],
        **_surface(tool_mode, page_size, client_profile, max_response_chars, output_schemas),
        formatter=formatter.value,
    )
    _run(lambda: api.generate_python(target, options), verbose, quiet)


@app.command("lint")
def lint_command(
    target: Annotated[str, typer.Argument(help="An OpenAPI spec, a Python module/.py file, or a generated project.")],
    client: Annotated[
        list[LintClient], typer.Option("--client", help="Client(s) to check against (repeatable; default all).")
    ] = [],  # noqa: B006 - typer reads the default, never mutates it
    output_format: Annotated[LintFormat, typer.Option("--format", help="table or json.")] = LintFormat.table,
    server_name: Annotated[
        str | None, typer.Option("--server-name", help="Name clients know the server by (default: generated name).")
    ] = None,
    toolsets_from: Annotated[
        ToolsetsFromName | None,
        typer.Option("--toolsets-from", help="A spec: group its tools in toolsets by `tags` or `paths`, as generating would."),
    ] = None,
) -> None:
    """Report, for every tool, each rule of each client it breaks; exit 1 on errors. A project with
    toolsets (or --toolsets-from) also gets each toolset's tool count against each client's limit."""
    chosen = [c.value for c in client] or ["all"]
    clients = list(lint.CLIENTS) if "all" in chosen else list(dict.fromkeys(chosen))
    try:
        tools, server, memberships = _lint_input(target, toolsets_from.value if toolsets_from else None)
    except lint.LintInputError as exc:
        typer.secho(f"error: {exc}", fg="red", err=True)
        raise typer.Exit(1) from None
    except GenerationError as exc:
        _print_diagnostics(exc.diagnostics)
        raise typer.Exit(1) from None
    skip: frozenset[str] = frozenset()
    if lint.is_dynamic_project(Path(target)):
        # Clients are offered search_tools/describe_tool/call_tool, whatever the catalogue's size.
        skip = frozenset({"tool-count"})
        typer.secho("note: dynamic tool mode; the tool-count rule does not apply", err=True)
    findings = lint.lint_tools(tools, server_name or server, clients, skip)
    toolsets = lint.toolset_report(lint.toolset_sizes(memberships), clients)
    findings += lint.toolset_findings(toolsets)
    render = lint.to_json if output_format is LintFormat.json else lint.to_table
    typer.echo(render(findings, len(tools), clients, toolsets))
    if any(f.level == lint.ERROR for f in findings):
        raise typer.Exit(1)


def _lint_input(
    target: str, toolsets_from: str | None = None
) -> tuple[list[dict[str, object]], str, dict[str, tuple[str, ...]]]:
    """Wire tools, server name and each tool's toolsets of a generated project, a spec, or a Python module."""
    from mcpgen.rendering.render import wire_tool

    path = Path(target)
    if path.is_dir() or path.name == "tools.json":
        return lint.project_catalogue(path)
    if path.suffix in (".yaml", ".yml", ".json"):
        if not path.is_file():
            raise lint.LintInputError(f"{path}: no such file")
        options = Options.model_validate({"toolsets_from": toolsets_from})
        project, diagnostics = api.build_openapi(path, options)
        project = api.group_toolsets(project, options, Diagnostics())
    else:
        project, diagnostics = api.build_python(target, Options())
    if any(d.level is Level.ERROR for d in diagnostics):
        raise GenerationError(diagnostics)
    memberships = {t.name: t.toolsets for t in project.tools if t.toolsets}
    return [wire_tool(t) for t in project.tools], project.name, memberships


@app.command("regenerate")
def regenerate(
    directory: Annotated[Path, typer.Argument(help="The project (where mcpgen.toml is).")] = Path("."),
    force: Annotated[
        bool, typer.Option("--force", help="Also overwrite generated files you edited (each kept as <file>.orig).")
    ] = False,
    check: Annotated[
        bool, typer.Option("--check", help="Write nothing; exit 1 if regenerating would change anything.")
    ] = False,
    report: Annotated[
        str, typer.Option("--report", help="Change report format: text (default) or json (on stdout).")
    ] = "text",
) -> None:
    """Rebuild a generated project from its mcpgen.toml after the API or module changed.

    Your files (hooks.py, custom_tools.py, mcpgen.toml) are never touched; a generated file
    you edited stops the run unless --force."""
    if report not in ("text", "json"):
        raise typer.BadParameter("expected text or json", param_hint="--report")
    try:
        result = api.regenerate(directory, force=force, check=check)
    except GenerationError as exc:
        _print_diagnostics(exc.diagnostics)
        typer.secho("error: nothing was written.", fg="red", err=True)
        raise typer.Exit(1) from None
    except api.Conflicts as exc:
        _print_diagnostics(exc.result.diagnostics)
        typer.secho("error: generated files were edited since they were generated:", fg="red", err=True)
        for conflict in exc.result.plan.blocking if exc.result.plan else []:
            typer.secho(f"  {conflict.describe()}", err=True)
        typer.secho(
            "Nothing was written. Move your changes into hooks.py or custom_tools.py (or mcpgen.toml overrides), "
            "or pass --force to overwrite them (keeping <file>.orig copies).",
            err=True,
        )
        _print_report(exc.result.changes, exc.result.diagnostics, report)
        raise typer.Exit(1) from None
    _print_diagnostics(result.diagnostics)
    if result.project.files_read:
        typer.echo(summary.files_read_line(result.project.files_read), err=True)  # stdout holds the (JSON) report
    plan_lines = result.plan.lines() if result.plan else []
    if check:
        if result.pending:
            typer.echo("Regeneration would change:" if plan_lines else "Regeneration would update the manifest.", err=True)
            for line in plan_lines:
                typer.echo(line, err=True)
        else:
            typer.echo("Up to date.", err=True)
        _print_report(result.changes, result.diagnostics, report)
        raise typer.Exit(1 if result.pending else 0)
    if not result.pending:
        typer.echo("Up to date: nothing to regenerate.", err=True)
    else:
        for line in plan_lines:
            typer.echo(line, err=True)
        for backup in result.backups:
            typer.echo(f"  kept your edited version as {backup}", err=True)
    _print_report(result.changes, result.diagnostics, report)


def _print_report(found: list[changes.Change], diagnostics: list[Diagnostic], report: str) -> None:
    if report == "json":
        typer.echo(json.dumps(changes.as_json(found, diagnostics), indent=2))
    else:
        typer.echo(changes.as_text(found, diagnostics))


def _run(generate: Callable[[], api.Result], verbose: bool = True, quiet: bool = False) -> None:
    """Run one generation; print diagnostics and a summary; exit 1 on any refusal. A status
    line shows the step under way, on a terminal only."""
    line = progress.TerminalLine(sys.stderr) if sys.stderr.isatty() and not quiet else None
    try:
        with progress.reporting(line):
            try:
                result = generate()
            finally:  # before anything else is printed
                if line is not None:
                    line.clear()
    except GenerationError as exc:
        _print_diagnostics(exc.diagnostics)
        typer.secho("error: nothing was written.", fg="red", err=True)
        raise typer.Exit(1) from None
    except OutputExists as exc:
        typer.secho(f"error: {exc}", fg="red", err=True)
        raise typer.Exit(1) from None
    if quiet:
        _print_diagnostics([d for d in result.diagnostics if d.level is not Level.INFO], verbose=True)
        return
    _print_diagnostics(result.diagnostics, verbose)
    for text in summary.lines(
        len(result.project.tools),
        result.project.title,
        str(result.output),
        result.diagnostics,
        result.project.files_read,
        verbose,
        "function" if result.project.source_kind == "python" else "operation",
    ):
        typer.echo(text)
    for backup in result.backups:
        typer.echo(f"  kept your previous version as {backup}", err=True)
    if result.changes:
        typer.echo(changes.as_text(result.changes))
    # Installed, the server has its dependencies (mcp, httpx2, ...), which mcpgen's own environment lacks.
    command = naming.distribution_name(result.project.name)
    typer.echo(f"Run it: pip install {result.output} && {command}   (--transport http --port 8000 for HTTP)")


def _print_diagnostics(diagnostics: list[Diagnostic], verbose: bool = True) -> None:
    """Each diagnostic on its own line; unless `verbose`, renames past the first ten are left to
    the summary's count per reason (GitHub's spec renames all 1,186 tools: a line each would
    bury the warnings)."""
    colours = {Level.ERROR: "red", Level.WARNING: "yellow", Level.INFO: None}
    renames = 0
    for diagnostic in diagnostics:
        if diagnostic.topic is Topic.RENAMED:
            renames += 1
            if not verbose and renames > summary.RENAMES_SHOWN:
                continue
        typer.secho(str(diagnostic), fg=colours[diagnostic.level], err=True)


@app.command("new")
def new(
    name: Annotated[str, typer.Argument(help="Project name: letters, digits, '-', '_' (e.g. weather-tools).")],
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Output directory (default: ./NAME).")] = None,
    force: ForceOption = False,
) -> None:
    """Create a hand-written MCP server project: example tool, resource and prompt, tests, README."""
    from mcpgen.rendering.scaffold import ScaffoldError

    try:
        target, files = api.new_project(name, output, force)
    except (ScaffoldError, OutputExists) as exc:
        typer.secho(f"error: {exc}", fg="red", err=True)
        raise typer.Exit(1) from None
    typer.echo(f"Created {len(files)} files in {target}")
    typer.echo(f"Try it: cd {target} && pip install -e '.[test]' && pytest")


InstallClient = enum.Enum(  # type: ignore[misc]
    "InstallClient", {name: name for name in (*install_clients.CLIENTS, install_clients.MCP_JSON)}, type=str
)


class InstallScope(str, enum.Enum):
    user = "user"
    project = "project"


@app.command("install")
def install_command(
    client: Annotated[InstallClient, typer.Argument(help="Client whose config gets the server (mcp-json: print it).")],
    directory: Annotated[Path, typer.Argument(help="The server project (default: the current directory).")] = Path("."),
    env: Annotated[
        list[str] | None, typer.Option("--env", help="KEY=VALUE for the server's environment (repeatable).")
    ] = None,
    name: Annotated[str | None, typer.Option("--name", help="Key the client knows the server by (default: its name).")] = None,
    scope: Annotated[
        InstallScope,
        typer.Option("--scope", help="user: your own config; project: the current directory's (.mcp.json, .vscode/mcp.json, ...)."),
    ] = InstallScope.user,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print the change (a diff) and write nothing.")] = False,
) -> None:
    """Add the server in DIRECTORY to a client's MCP config, keeping every other entry."""
    from mcpgen.install import commands

    commands.install(client.value, directory, env or [], name, scope.value, dry_run)


@app.command("bundle")
def bundle_command(
    directory: Annotated[Path, typer.Argument(help="The server project (default: the current directory).")] = Path("."),
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="The .mcpb file (default: ./<name>-<version>.mcpb).")
    ] = None,
) -> None:
    """Build an MCPB bundle (Claude Desktop's one-click install format) of the server in DIRECTORY."""
    from mcpgen.install import commands

    commands.bundle(directory, output)


def main() -> None:
    app()

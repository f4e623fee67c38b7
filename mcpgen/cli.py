"""The `mcpgen` command: flags → Options → api; diagnostics printed, exit code set."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Optional

import typer

from mcpgen import __version__, api, changes
from mcpgen.config import OperationFilter, Options
from mcpgen.diagnostics import Diagnostic, GenerationError, Level
from mcpgen.naming import DEFAULT_MAX_TOOL_NAME, MCP_MAX_TOOL_NAME
from mcpgen.writer import OutputExists

app = typer.Typer(
    help="Generate standalone, typed MCP server packages from OpenAPI specs or Python modules.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

OutputOption = Annotated[
    Optional[Path], typer.Option("--output", "-o", help="Output directory (default: ./<name>-mcp).")
]
NameOption = Annotated[Optional[str], typer.Option("--name", help="Server name (default: from the title/module).")]
ForceOption = Annotated[bool, typer.Option("--force", help="Replace a non-empty output directory.")]
MaxNameOption = Annotated[
    int,
    typer.Option(
        "--max-name-length",
        min=1,
        max=MCP_MAX_TOOL_NAME,
        help=f"Longest tool name (default {DEFAULT_MAX_TOOL_NAME}, which every major client accepts).",
    ),
]


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
    spec: Annotated[Path, typer.Argument(help="OpenAPI 3.0/3.1 file, YAML or JSON.")],
    output: OutputOption = None,
    name: NameOption = None,
    force: ForceOption = False,
    max_name_length: MaxNameOption = DEFAULT_MAX_TOOL_NAME,
    models: Annotated[bool, typer.Option("--models/--no-models", help="Generate typed pydantic models.")] = True,
    tag: Annotated[Optional[list[str]], typer.Option("--tag", help="Only operations with a tag matching this glob.")] = None,
    exclude_tag: Annotated[Optional[list[str]], typer.Option("--exclude-tag", help="Skip operations tagged so.")] = None,
    operation: Annotated[
        Optional[list[str]], typer.Option("--operation", help="Only operations whose operationId matches this glob.")
    ] = None,
    exclude_operation: Annotated[
        Optional[list[str]], typer.Option("--exclude-operation", help="Skip operations whose operationId matches.")
    ] = None,
    path: Annotated[Optional[list[str]], typer.Option("--path", help="Only paths matching this glob, e.g. '/pets*'.")] = None,
    exclude_path: Annotated[Optional[list[str]], typer.Option("--exclude-path", help="Skip paths matching.")] = None,
    method: Annotated[Optional[list[str]], typer.Option("--method", help="Only these HTTP methods (repeatable).")] = None,
    include_deprecated: Annotated[
        bool, typer.Option("--include-deprecated", help="Also generate deprecated operations.")
    ] = False,
    allow_remote_refs: Annotated[
        bool, typer.Option("--allow-remote-refs", help="Fetch http(s) $refs (refused by default: no network).")
    ] = False,
) -> None:
    """Generate an MCP server package that calls the API SPEC describes.

    Filters are recorded in the project's mcpgen.toml, where they can be edited later."""
    methods = tuple(m.upper() for m in method or ())
    unknown = sorted(set(methods) - {"GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH", "TRACE"})
    if unknown:
        raise typer.BadParameter(f"unknown HTTP method {unknown[0]!r}", param_hint="--method")
    filters = OperationFilter(
        include_tags=tuple(tag or ()),
        exclude_tags=tuple(exclude_tag or ()),
        include_operations=tuple(operation or ()),
        exclude_operations=tuple(exclude_operation or ()),
        include_paths=tuple(path or ()),
        exclude_paths=tuple(exclude_path or ()),
        methods=methods,
        include_deprecated=include_deprecated,
    )
    options = Options(
        output=output, name=name, force=force, max_name_length=max_name_length, models=models, filters=filters,
        allow_remote_refs=allow_remote_refs,
    )
    _run(lambda: api.generate_openapi(spec, options))


@app.command("from-python")
def from_python(
    target: Annotated[str, typer.Argument(help="Importable module name (pkg.tools) or a path to a .py file.")],
    output: OutputOption = None,
    name: NameOption = None,
    include: Annotated[
        Optional[list[str]], typer.Option("--include", help="Only functions matching this glob (repeatable).")
    ] = None,
    exclude: Annotated[
        Optional[list[str]], typer.Option("--exclude", help="Skip functions matching this glob (repeatable).")
    ] = None,
    force: ForceOption = False,
    max_name_length: MaxNameOption = DEFAULT_MAX_TOOL_NAME,
) -> None:
    """Generate an MCP server package whose tools are TARGET's public functions."""
    options = Options(
        output=output,
        name=name,
        force=force,
        max_name_length=max_name_length,
        include=tuple(include or ()),
        exclude=tuple(exclude or ()),
    )
    _run(lambda: api.generate_python(target, options))


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
        _print_report(exc.result.changes, report)
        raise typer.Exit(1) from None
    _print_diagnostics(result.diagnostics)
    plan_lines = result.plan.lines() if result.plan else []
    if check:
        if result.pending:
            typer.echo("Regeneration would change:" if plan_lines else "Regeneration would update the manifest.", err=True)
            for line in plan_lines:
                typer.echo(line, err=True)
        else:
            typer.echo("Up to date.", err=True)
        _print_report(result.changes, report)
        raise typer.Exit(1 if result.pending else 0)
    if not result.pending:
        typer.echo("Up to date: nothing to regenerate.", err=True)
    else:
        for line in plan_lines:
            typer.echo(line, err=True)
        for backup in result.backups:
            typer.echo(f"  kept your edited version as {backup}", err=True)
    _print_report(result.changes, report)


def _print_report(found: list[changes.Change], report: str) -> None:
    if report == "json":
        typer.echo(json.dumps(changes.as_json(found), indent=2))
    else:
        typer.echo(changes.as_text(found))


def _run(generate: Callable[[], api.Result]) -> None:
    """Run one generation; print diagnostics and a summary; exit 1 on any refusal."""
    try:
        result = generate()
    except GenerationError as exc:
        _print_diagnostics(exc.diagnostics)
        typer.secho("error: nothing was written.", fg="red", err=True)
        raise typer.Exit(1) from None
    except OutputExists as exc:
        typer.secho(f"error: {exc}", fg="red", err=True)
        raise typer.Exit(1) from None
    _print_diagnostics(result.diagnostics)
    tools = result.project.tools
    renamed = [d for d in result.diagnostics if d.level is Level.INFO and "renamed" in d.message]
    skipped = [d for d in result.diagnostics if d.level is Level.WARNING and "skipped" in d.message]
    typer.echo(
        f"Generated {len(tools)} tool{'s' if len(tools) != 1 else ''} for {result.project.title!r} "
        f"({len(renamed)} renamed, {len(skipped)} skipped) in {result.output}"
    )
    for backup in result.backups:
        typer.echo(f"  kept your previous version as {backup}", err=True)
    if result.changes:
        typer.echo(changes.as_text(result.changes))
    typer.echo(f"Run it: PYTHONPATH={result.output / 'src'} python -m {result.project.package}")


def _print_diagnostics(diagnostics: list[Diagnostic]) -> None:
    colours = {Level.ERROR: "red", Level.WARNING: "yellow", Level.INFO: None}
    for diagnostic in diagnostics:
        typer.secho(str(diagnostic), fg=colours[diagnostic.level], err=True)


def main() -> None:
    app()

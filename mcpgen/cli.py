"""The `mcpgen` command: flags → Options → api; diagnostics printed, exit code set."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Optional

import typer

from mcpgen import __version__, api
from mcpgen.config import Options
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
    allow_remote_refs: Annotated[
        bool, typer.Option("--allow-remote-refs", help="Fetch http(s) $refs (refused by default: no network).")
    ] = False,
) -> None:
    """Generate an MCP server package that calls the API SPEC describes."""
    options = Options(
        output=output, name=name, force=force, max_name_length=max_name_length, models=models,
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
    typer.echo(f"Run it: PYTHONPATH={result.output / 'src'} python -m {result.project.package}")


def _print_diagnostics(diagnostics: list[Diagnostic]) -> None:
    colours = {Level.ERROR: "red", Level.WARNING: "yellow", Level.INFO: None}
    for diagnostic in diagnostics:
        typer.secho(str(diagnostic), fg=colours[diagnostic.level], err=True)


def main() -> None:
    app()

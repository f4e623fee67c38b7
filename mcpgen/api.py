"""Library entry points: `generate_openapi` and `generate_python` run the whole pipeline."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from mcpgen import naming
from mcpgen.config import Options
from mcpgen.diagnostics import Diagnostic, Diagnostics, GenerationError, Level
from mcpgen.ir import Project
from mcpgen.render import render_project
from mcpgen.writer import check_target, format_files, write_tree


@dataclass(frozen=True, slots=True)
class Result:
    project: Project
    output: Path
    files: dict[str, str]
    diagnostics: list[Diagnostic]


def build_openapi(spec: Path, options: Options) -> tuple[Project, list[Diagnostic]]:
    from mcpgen.sources.openapi import OpenApiOptions, parse_openapi

    diagnostics = Diagnostics(file=str(spec))
    project = parse_openapi(
        spec, OpenApiOptions(options.name, options.max_name_length, options.models, options.allow_remote_refs), diagnostics
    )
    return project, diagnostics.items


def build_python(target: str, options: Options) -> tuple[Project, list[Diagnostic]]:
    from mcpgen.sources.python import parse_python

    diagnostics = Diagnostics(file=target)
    project = parse_python(
        target,
        name=options.name,
        include=list(options.include),
        exclude=list(options.exclude),
        max_name_length=options.max_name_length,
        diagnostics=diagnostics,
    )
    return project, diagnostics.items


def emit(project: Project, diagnostics: list[Diagnostic], options: Options) -> Result:
    """Render, format and write one project; errors stop before anything is written."""
    if any(d.level is Level.ERROR for d in diagnostics):
        raise GenerationError(diagnostics)
    output = options.output or Path.cwd() / naming.distribution_name(project.name)
    check_target(output, options.force)  # fail fast, before the costly steps
    copied = frozenset(f"src/{project.package}/{relative}" for relative, _ in project.copied_files)
    files = format_files(render_project(project), keep=copied)
    write_tree(output, files, options.force)
    return Result(project, output, files, diagnostics)


def generate_openapi(spec: Path, options: Options) -> Result:
    return emit(*build_openapi(spec, options), options)


def generate_python(target: str, options: Options) -> Result:
    return emit(*build_python(target, options), options)

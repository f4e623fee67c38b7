"""Library entry points: `generate_openapi` / `generate_python` (a first generation) and
`regenerate` (an existing project, from its mcpgen.toml) run the whole pipeline."""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from mcpgen import __version__, naming
from mcpgen.config import Options
from mcpgen.diagnostics import Diagnostic, Diagnostics, GenerationError, Level
from mcpgen.ir import Project
from mcpgen.project.changes import Change, Served, compare, served, tool_identity
from mcpgen.project.manifest import MANIFEST_FILE, Manifest, ManifestError, digest, read_manifest, with_header
from mcpgen.project.project_file import (
    PROJECT_FILE,
    ProjectFile,
    read_project_file,
    relative_source,
    render_project_file,
)
from mcpgen.project.sync import Plan, apply, plan
from mcpgen.rendering.render import render_project, render_user_files, runtime_files, wire_tool
from mcpgen.transforms import resources
from mcpgen.transforms.overrides import apply_overrides
from mcpgen.transforms.prompts import apply_prompts
from mcpgen.writer import OutputExists, check_target, format_files, write_tree


@dataclass(frozen=True, slots=True)
class Result:
    project: Project
    output: Path
    files: dict[str, str]  # the generated files (not the user's)
    diagnostics: list[Diagnostic]
    plan: Plan | None = None  # None: a new directory, written whole
    changes: list[Change] = field(default_factory=list)
    backups: list[str] = field(default_factory=list)  # `.orig` copies of edited files (force)
    pending: bool = False  # `check`: regeneration would change something


class Conflicts(Exception):
    """Generated files were edited by hand; regeneration stopped and wrote nothing."""

    def __init__(self, result: Result) -> None:
        self.result = result
        assert result.plan is not None
        super().__init__("\n".join(c.describe() for c in result.plan.blocking))


def build_openapi(spec: Path, options: Options) -> tuple[Project, list[Diagnostic]]:
    from mcpgen.sources.openapi.parser import OpenApiOptions, parse_openapi

    diagnostics = Diagnostics(file=str(spec))
    project = parse_openapi(
        spec,
        OpenApiOptions(options.name, options.max_name_length, options.models, options.filters, options.allow_remote_refs),
        diagnostics,
    )
    return project, diagnostics.items


def build_python(target: str, options: Options, search_path: Path | None = None) -> tuple[Project, list[Diagnostic]]:
    from mcpgen.sources.python import parse_python

    diagnostics = Diagnostics(file=target)
    project = parse_python(
        target,
        name=options.name,
        include=list(options.include),
        exclude=list(options.exclude),
        max_name_length=options.max_name_length,
        diagnostics=diagnostics,
        search_path=search_path,
        # Functions bound as prompts or resources are described as such, not as tools.
        prompt_functions=tuple(
            [p.function for p in options.prompts if p.function] + [r.function for r in options.resource_functions]
        ),
    )
    return project, diagnostics.items


def generate_openapi(spec: Path, options: Options) -> Result:
    project, diagnostics = build_openapi(spec, options)
    return emit(project, diagnostics, options, lambda output: _first_project_file("openapi", str(spec), options, output))


def generate_python(target: str, options: Options) -> Result:
    project, diagnostics = build_python(target, options)
    return emit(project, diagnostics, options, lambda output: _first_project_file("python", target, options, output))


def emit(
    project: Project,
    diagnostics: list[Diagnostic],
    options: Options,
    project_file: Callable[[Path], ProjectFile] | None = None,
) -> Result:
    """Render, format and write a first generation; errors stop before anything is written.

    Into a new or empty directory the tree is swapped in whole. An existing directory is
    only written with `force`, and then like a regeneration: files the user changed are
    kept as `.orig` copies, files mcpgen does not generate are left alone.
    """
    project, diagnostics = shape_surface(project, diagnostics, options)
    if any(d.level is Level.ERROR for d in diagnostics):
        raise GenerationError(diagnostics)
    output = options.output or Path.cwd() / naming.distribution_name(project.name)
    check_target(output, options.force)  # fail fast, before the costly steps
    generated, user_files, manifest = _render(project)
    if project_file is not None:
        example = project.tools[0].name if project.tools else ""
        user_files[PROJECT_FILE] = render_project_file(project_file(output), example)
    if not output.exists() or not any(output.iterdir()):
        write_tree(output, {**generated, **user_files, MANIFEST_FILE: manifest.to_json()}, options.force)
        return Result(project, output, generated, diagnostics)
    try:
        old_manifest = read_manifest(output)
    except ManifestError:
        old_manifest = None  # --force was given: every differing file is kept as .orig
    # A re-run of from-openapi/from-python replaces mcpgen.toml too (its old text kept as .orig).
    replaced = {**generated, **{p: t for p, t in user_files.items() if p == PROJECT_FILE}}
    kept_user_files = {p: t for p, t in user_files.items() if p != PROJECT_FILE}
    the_plan = plan(output, replaced, kept_user_files, old_manifest)
    changes = _changes(output, old_manifest, project)
    backups = apply(output, the_plan, replaced, kept_user_files, manifest, force=True)
    return Result(project, output, generated, diagnostics, the_plan, changes, backups)


def regenerate(project_dir: Path, *, force: bool = False, check: bool = False) -> Result:
    """Rebuild `project_dir` from its mcpgen.toml; never overwrite a file the user edited
    (unless `force`, which keeps a `.orig` copy). `check` computes everything, writes nothing."""
    project_dir = project_dir.resolve()
    project_file, toml_diagnostics = read_project_file(project_dir)
    options = project_file.options(project_dir, force)
    target = project_file.source_target(project_dir)
    if (project_file.source_kind == "openapi" or target.endswith(".py")) and not Path(target).is_file():
        key = f"source.{project_file.source_kind}"
        toml_diagnostics.error(f"{key}: no such file: {target}", key, "update the path (relative to mcpgen.toml)")
        raise GenerationError(toml_diagnostics.items)
    if project_file.source_kind == "openapi":
        project, diagnostics = build_openapi(Path(target), options)
    else:
        search_path = (project_dir / project_file.workdir).resolve() if project_file.workdir else None
        project, diagnostics = build_python(target, options, search_path)
    if any(d.level is Level.ERROR for d in diagnostics):
        raise GenerationError(diagnostics)
    project = apply_overrides(project, options.overrides, toml_diagnostics)
    project = resources.apply_routes(project, options.routes, toml_diagnostics)
    project = resources.bind_functions(project, options.resource_functions, toml_diagnostics)
    project = apply_prompts(project, options.prompts, toml_diagnostics)
    diagnostics = [*diagnostics, *toml_diagnostics.items]
    project, diagnostics = shape_surface(project, diagnostics, options)
    if toml_diagnostics.has_errors:
        raise GenerationError(diagnostics)
    if project_file.mcpgen_version and project_file.mcpgen_version != __version__:
        diagnostics.append(
            Diagnostic(Level.INFO, f"generated by mcpgen {project_file.mcpgen_version}; now {__version__}", PROJECT_FILE)
        )
    try:
        old_manifest = read_manifest(project_dir)
    except ManifestError as exc:
        if not force:
            raise GenerationError([*diagnostics, Diagnostic(Level.ERROR, str(exc))]) from None
        old_manifest = None
    if old_manifest is None and not force:
        message = f"no {MANIFEST_FILE}: cannot tell generated files from edited ones"
        hint = "restore it from version control, or pass --force (differing files are kept as .orig)"
        raise GenerationError([*diagnostics, Diagnostic(Level.ERROR, message, str(project_dir), hint=hint)])
    generated, user_files, manifest = _render(project)
    the_plan = plan(project_dir, generated, user_files, old_manifest)
    changes = _changes(project_dir, old_manifest, project)
    manifest_text = (project_dir / MANIFEST_FILE).read_text("utf-8") if old_manifest else ""
    pending = the_plan.changes_files or manifest_text != manifest.to_json()
    result = Result(project, project_dir, generated, diagnostics, the_plan, changes, pending=pending)
    if check or not pending:
        return result
    if the_plan.blocking and not force:
        raise Conflicts(result)
    backups = apply(project_dir, the_plan, generated, user_files, manifest, force)
    return Result(project, project_dir, generated, diagnostics, the_plan, changes, backups, pending=True)


def shape_surface(
    project: Project, diagnostics: list[Diagnostic], options: Options
) -> tuple[Project, list[Diagnostic]]:
    """What the server advertises: client profile, tool mode, page size; tool-count warnings."""
    from mcpgen.clients import lint, profiles

    diagnostics = list(diagnostics)
    if options.resources:
        project, notes = resources.derive(project)  # before a profile renames the tools
        diagnostics += notes
    if options.client_profile:
        project, notes = profiles.apply(project, options.client_profile)
        diagnostics += notes
    mode: Literal["static", "dynamic"] = "dynamic" if options.tool_mode == "dynamic" else "static"
    project = dataclasses.replace(
        project, tool_mode=mode, page_size=options.page_size, max_response_chars=options.max_response_chars
    )
    if mode == "static":
        warnings = lint.tool_count_notes(len(project.tools))
        if len(project.tools) > lint.CLIENT_MAX_PAGES:  # fewer tools cannot take more pages: skip the sizing
            sizes = [len(json.dumps(wire_tool(tool), ensure_ascii=False)) for tool in project.tools]
            warnings += lint.page_count_notes(sizes, project.page_size)
        diagnostics += [Diagnostic(Level.WARNING, warning, project.source_file) for warning in warnings]
    return project, diagnostics


def _render(project: Project) -> tuple[dict[str, str], dict[str, str], Manifest]:
    """Generated files (formatted, with their header), the user's files, and the manifest."""
    # Copied byte for byte: the user's source modules (line numbers must match) and the runtime.
    copied = frozenset(f"src/{project.package}/{relative}" for relative, _ in project.copied_files)
    copied |= frozenset(runtime_files(project))
    # Model modules already as black writes them (most of a big spec's Python) skip black.
    black_formatted = frozenset(f"src/{project.package}/models/{m.path}" for m in project.models if m.black_formatted)
    formatted = format_files(render_project(project), keep=copied | black_formatted)
    generated = {path: text if path in copied else with_header(path, text) for path, text in formatted.items()}
    user_files = render_user_files(project)
    manifest = Manifest(
        mcpgen_version=__version__,
        files={path: digest(text) for path, text in generated.items()},
        user_files=tuple(sorted(user_files)),
        tools={tool.name: tool_identity(tool) for tool in project.tools},
    )
    return generated, user_files, manifest


def _changes(project_dir: Path, old_manifest: Manifest | None, project: Project) -> list[Change]:
    """Tool changes against the catalog on disk (empty when there is none to compare)."""
    if old_manifest is None:
        return []
    catalogs = [p for p in old_manifest.files if p.startswith("src/") and p.endswith("/tools.json")]
    if not catalogs:
        return []
    try:
        entries = json.loads((project_dir / catalogs[0]).read_text("utf-8"))
        old = {entry["tool"]["name"]: entry["tool"] for entry in entries}
        # The old routes come from the old catalog: manifests before operation identities held only routes.
        old_routes = {
            entry["tool"]["name"]: f"{entry['http']['method']} {entry['http']['path']}"
            for entry in entries if isinstance(entry.get("http"), dict)
        }
    except (OSError, ValueError, KeyError, TypeError):
        return []
    old_served = {name: Served(identity, old_routes.get(name)) for name, identity in old_manifest.tools.items()}
    new = {tool.name: wire_tool(tool) for tool in project.tools}
    return compare(old, old_served, new, {tool.name: served(tool) for tool in project.tools})


def _first_project_file(kind: str, target: str, options: Options, output: Path) -> ProjectFile:
    """mcpgen.toml for a first generation: the source relative to the project, the options used."""
    workdir = None
    if kind == "openapi" or target.endswith(".py") or os.sep in target or "/" in target:
        source = relative_source(target, output)
    else:  # a module name, imported from the working directory
        source = target
        workdir = relative_source(os.getcwd(), output)
    return ProjectFile(
        source_kind="openapi" if kind == "openapi" else "python",
        source=source,
        workdir=workdir,
        name=options.name,
        max_name_length=options.max_name_length,
        models=options.models,
        include=options.include,
        exclude=options.exclude,
        filters=options.filters,
        tool_mode=options.tool_mode,
        page_size=options.page_size,
        max_response_chars=options.max_response_chars,
        allow_remote_refs=options.allow_remote_refs,
        client_profile=options.client_profile,
        resources=options.resources,
    )


__all__ = [
    "Conflicts",
    "OutputExists",
    "Result",
    "build_openapi",
    "build_python",
    "emit",
    "generate_openapi",
    "generate_python",
    "regenerate",
]

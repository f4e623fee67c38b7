"""Library entry points: `generate_openapi` / `generate_python` (a first generation) and
`regenerate` (an existing project, from its mcpgen.toml) run the whole pipeline.

Both run the same `PASSES` over the parsed project, so the options given to a first
generation are applied, and recorded in mcpgen.toml, exactly as `regenerate` applies them.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import json
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from mcpgen import __version__, naming, progress
from mcpgen.diagnostics import Diagnostic, Diagnostics, GenerationError, Level, LineLookup, Topic, renamed_message
from mcpgen.formatting import format_files
from mcpgen.ir import Project
from mcpgen.models import stage as models_stage
from mcpgen.models.stage import ModelsAhead
from mcpgen.options import Options, SourceKind, source_problems
from mcpgen.project.changes import Change, Served, compare, served, tool_identity
from mcpgen.project.facts import MAX_FACTS_BYTES, fact
from mcpgen.project.manifest import MANIFEST_FILE, Manifest, ManifestError, digest, read_manifest, with_header
from mcpgen.project.paths import read_bounded
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
from mcpgen.transforms.icons import apply_icons
from mcpgen.transforms.output_schemas import apply_output_schemas
from mcpgen.transforms.overrides import apply_confirm, apply_overrides
from mcpgen.transforms.portable import apply_portable_inputs
from mcpgen.transforms.prompts import apply_prompts
from mcpgen.transforms.toolsets import assign as assign_toolsets
from mcpgen.writer import OutputExists, check_target, write_tree

if TYPE_CHECKING:
    from mcpgen.sources.openapi.parser import OpenApiOptions, OpenApiSource

OPTIONS = "options"  # where a first generation's option problems point (there is no mcpgen.toml yet)


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
        blocking = result.plan.blocking if result.plan is not None else []
        super().__init__("\n".join(c.describe() for c in blocking))


def openapi_options(options: Options, overlays: Sequence[Path] = ()) -> OpenApiOptions:
    """The OpenAPI parser's narrow view of the options (the only place it is made); `overlays`:
    the Overlay documents applied to the spec, in order."""
    from mcpgen.sources.openapi.parser import OpenApiOptions

    return OpenApiOptions(
        name=options.name,
        max_name_length=options.max_name_length,
        models=options.models,
        filters=options.filters,
        allow_remote_refs=options.allow_remote_refs,
        allow_refs_outside=options.allow_refs_outside,
        overlays=tuple(overlays),
    )


def build_openapi(spec: Path, options: Options) -> tuple[Project, list[Diagnostic]]:
    """The source stage for a spec: the parsed project and its diagnostics."""
    source, collector = _read_openapi(spec, options)
    return build_project(source), collector.items


def build_typed_openapi(spec: Path, options: Options) -> tuple[Project, list[Diagnostic]]:
    """The spec parsed and its models generated, without the passes (for tools that read a spec)."""
    source, collector = _read_openapi(spec, options)
    return add_typed_models(build_project(source), collector.items, collector.line_resolver)


def _read_openapi(spec: Path, options: Options, overlays: Sequence[Path] = ()) -> tuple[OpenApiSource, Diagnostics]:
    """The document read and its operations selected, and the source's collector (which the
    tool conversion goes on filling; its line lookup serves the models stage)."""
    from mcpgen.sources.openapi.parser import read_openapi

    diagnostics = Diagnostics(file=str(spec))
    progress.step(f"reading {spec.name}")
    return read_openapi(spec, openapi_options(options, overlays), diagnostics), diagnostics


def build_project(source: OpenApiSource) -> Project:
    """The rest of the source stage: a tool per selected operation, the server's settings."""
    from mcpgen.sources.openapi import parser

    return parser.build_project(source)


def _read_openapi_ahead(
    spec: Path, options: Options, running: contextlib.ExitStack, overlays: Sequence[Path] = ()
) -> tuple[OpenApiSource, Diagnostics, ModelsAhead | None]:
    """`_read_openapi`, and the one overlap of the pipeline: a big spec's models generated in a
    process of their own (started before the reading for a very big file) while its tools are
    converted and the passes run; the models stage waits for them. `running` stops the child."""
    early = None
    with contextlib.suppress(OSError):  # an unreadable spec is the reader's to report
        early = models_stage.early(spec.stat().st_size, options.models)
    child = running.enter_context(early) if early is not None else None
    source, collector = _read_openapi(spec, options, overlays)
    started = models_stage.ahead(source.model_schemas, child)
    if started is not None and started is not child:
        running.enter_context(started)
    return source, collector, started


def build_python(target: str, options: Options, search_path: Path | None = None) -> tuple[Project, list[Diagnostic]]:
    from mcpgen.sources.python import parse_python

    diagnostics = Diagnostics(file=target)
    progress.step(f"reading {target}")
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


def generate_openapi(spec: Path, options: Options, overlays: Sequence[Path] = ()) -> Result:
    """A first generation from `spec`, with `overlays` applied to it (recorded in mcpgen.toml)."""
    _check_source(options, "openapi")
    first_file = functools.partial(_first_project_file, "openapi", str(spec), options, overlays=overlays)
    with contextlib.ExitStack() as running:  # the models generated ahead, stopped on any error
        source, collector, started = _read_openapi_ahead(spec, options, running, overlays)
        project = build_project(source)
        return emit(project, collector.items, options, first_file, collector.line_resolver, started)


def generate_python(target: str, options: Options) -> Result:
    _check_source(options, "python")
    project, diagnostics = build_python(target, options)
    return emit(project, diagnostics, options, lambda output: _first_project_file("python", target, options, output))


def new_project(name: str, output: Path | None = None, force: bool = False) -> tuple[Path, dict[str, str]]:
    """`mcpgen new`: a hand-written server project in `output` (default ./NAME), rendered,
    formatted and written by the same stages as a generation; nothing is written on any error."""
    from mcpgen.rendering.scaffold import check_new_target, project_names, render_new

    names = project_names(name)
    target = output or Path.cwd() / names.name
    problem = check_new_target(target, force)
    if problem is not None:
        raise OutputExists(problem)
    files = format_files(render_new(names))
    write_tree(target, files, force=True)  # checked above, with advice that fits `new`
    return target, files


def _check_source(options: Options, kind: SourceKind) -> None:
    """Options this kind of source cannot use are an error, not silently dropped."""
    found = source_problems(options, kind)
    if found:
        where = Diagnostics(file=OPTIONS)
        for problem in found:
            key = ".".join(map(str, problem.loc))
            where.error(f"{key}: {problem.message}", key, problem.hint)
        raise GenerationError(where.items)


def emit(
    project: Project,
    diagnostics: list[Diagnostic],
    options: Options,
    project_file: Callable[[Path], ProjectFile] | None = None,
    lines: LineLookup | None = None,
    started: ModelsAhead | None = None,
) -> Result:
    """Run the passes, the models, render, format and write a first generation; errors stop
    before anything is written. `lines`: the source's line lookup, for the models' warnings;
    `started`: the models being generated ahead.

    Into a new or empty directory the tree is swapped in whole. An existing directory is
    only written with `force`, and then like a regeneration: files the user changed are
    kept as `.orig` copies, files mcpgen does not generate are left alone.
    """
    project, diagnostics = run_passes(project, diagnostics, options, Diagnostics(file=OPTIONS))
    if any(d.level is Level.ERROR for d in diagnostics):
        raise GenerationError(diagnostics)
    output = options.output or Path.cwd() / naming.distribution_name(project.name)
    check_target(output, options.force)  # fail fast, before the costly steps
    project, diagnostics = add_typed_models(project, diagnostics, lines, started)
    generated, user_files, manifest = render_and_format(project, options)
    if project_file is not None:
        example = project.tools[0].name if project.tools else ""
        user_files[PROJECT_FILE] = render_project_file(project_file(output), example)
    if not output.exists() or not any(output.iterdir()):
        progress.step(f"writing {len(generated) + len(user_files)} files")
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
    progress.step("writing changes")
    backups = apply(output, the_plan, replaced, kept_user_files, manifest, force=True)
    return Result(project, output, generated, diagnostics, the_plan, changes, backups)


_LEGACY_NAME = re.compile(r'^SERVER_NAME = "([a-z0-9-]{1,100})"$', re.MULTILINE)  # config.py, before runtime/


def served_name(project_dir: Path) -> str | None:
    """The server name a generated project was given, read from its package without importing
    anything of it (`project.py`, or `config.py` of projects older than the runtime package);
    None if it cannot be told."""
    root = project_dir.resolve()
    for path in sorted(project_dir.glob("src/*/project.py")):
        if path.resolve().is_relative_to(root):
            name = fact(path, "name")
            if name is not None and re.fullmatch(r"[a-z0-9-]{1,100}", name):
                return name
    for path in sorted(project_dir.glob("src/*/config.py")):
        if path.resolve().is_relative_to(root) and path.is_file():
            with path.open("rb") as file:
                found = _LEGACY_NAME.search(file.read(MAX_FACTS_BYTES).decode("utf-8", "replace"))
            if found:
                return found.group(1)
    return None


def regenerate(project_dir: Path, *, force: bool = False, check: bool = False) -> Result:
    """Rebuild `project_dir` from its mcpgen.toml; never overwrite a file the user edited
    (unless `force`, which keeps a `.orig` copy). `check` computes everything, writes nothing."""
    project_dir = project_dir.resolve()
    project_file, toml_diagnostics = read_project_file(project_dir)
    try:  # read first: a manifest naming files outside the project stops the run at once
        old_manifest = read_manifest(project_dir)
        manifest_error = None
    except ManifestError as exc:
        old_manifest, manifest_error = None, exc
    options = project_file.options.model_copy(update={"output": project_dir, "force": force})
    if options.name is None:  # keep the name it has: the default-name rule may have changed since
        options = options.model_copy(update={"name": served_name(project_dir)})
    target = project_file.source_target(project_dir)
    if (project_file.source_kind == "openapi" or target.endswith(".py")) and not Path(target).is_file():
        key = f"source.{project_file.source_kind}"
        toml_diagnostics.error(f"{key}: no such file: {target}", key, "update the path (relative to mcpgen.toml)")
        raise GenerationError(toml_diagnostics.items)
    for overlay in project_file.overlay_targets(project_dir):
        if not Path(overlay).is_file():
            hint = "update the path (relative to mcpgen.toml), or take it out of source.overlays"
            toml_diagnostics.error(f"source.overlays: no such file: {overlay}", "source.overlays", hint)
    if toml_diagnostics.has_errors:
        raise GenerationError(toml_diagnostics.items)
    with contextlib.ExitStack() as running:  # the models generated ahead, stopped on any error
        lines, started = None, None
        if project_file.source_kind == "openapi":
            overlays = [Path(p) for p in project_file.overlay_targets(project_dir)]
            source, collector, started = _read_openapi_ahead(Path(target), options, running, overlays)
            project = build_project(source)
            diagnostics, lines = collector.items, collector.line_resolver
        else:
            search_path = (project_dir / project_file.workdir).resolve() if project_file.workdir else None
            project, diagnostics = build_python(target, options, search_path)
        if any(d.level is Level.ERROR for d in diagnostics):
            raise GenerationError(diagnostics)
        project, diagnostics = run_passes(project, diagnostics, options, toml_diagnostics)
        if any(d.level is Level.ERROR for d in diagnostics):
            raise GenerationError(diagnostics)
        if project_file.mcpgen_version and project_file.mcpgen_version != __version__:
            diagnostics.append(
                Diagnostic(Level.INFO, f"generated by mcpgen {project_file.mcpgen_version}; now {__version__}", PROJECT_FILE)
            )
        if manifest_error is not None and not force:
            raise GenerationError([*diagnostics, Diagnostic(Level.ERROR, str(manifest_error))]) from None
        if old_manifest is None and not force:
            message = f"no {MANIFEST_FILE}: cannot tell generated files from edited ones"
            hint = "restore it from version control, or pass --force (differing files are kept as .orig)"
            raise GenerationError([*diagnostics, Diagnostic(Level.ERROR, message, str(project_dir), hint=hint)])
        project, diagnostics = add_typed_models(project, diagnostics, lines, started)
        generated, user_files, manifest = render_and_format(project, options)
    the_plan = plan(project_dir, generated, user_files, old_manifest)
    changes = _changes(project_dir, old_manifest, project)
    manifest_text = read_bounded(project_dir / MANIFEST_FILE) if old_manifest else ""
    changed = the_plan.changes_files or manifest_text != manifest.to_json()
    result = Result(project, project_dir, generated, diagnostics, the_plan, changes, pending=changed)
    if check or not changed:
        return result
    if the_plan.blocking and not force:
        raise Conflicts(result)
    progress.step("writing changes")
    backups = apply(project_dir, the_plan, generated, user_files, manifest, force)
    return Result(project, project_dir, generated, diagnostics, the_plan, changes, backups, pending=True)


# -- passes: what the options change in a parsed project, in order ---------------------------
# Each takes the project, the options and the options' collector (mcpgen.toml's when
# regenerating, so its problems point into that file) and returns the changed project.

Pass = Callable[[Project, Options, Diagnostics], Project]


def make_inputs_portable(project: Project, options: Options, notes: Diagnostics) -> Project:
    return apply_portable_inputs(project, notes)


def apply_tool_overrides(project: Project, options: Options, notes: Diagnostics) -> Project:
    return apply_overrides(project, options.overrides, notes)


def decide_confirmations(project: Project, options: Options, notes: Diagnostics) -> Project:
    return apply_confirm(project, options.confirm)


def route_operations(project: Project, options: Options, notes: Diagnostics) -> Project:
    return resources.apply_routes(project, options.routes, notes)


def group_toolsets(project: Project, options: Options, notes: Diagnostics) -> Project:
    return assign_toolsets(project, options, notes, dict(project.tag_parents))


def bind_resources(project: Project, options: Options, notes: Diagnostics) -> Project:
    return resources.bind_functions(project, options.resource_functions, notes)


def add_prompts(project: Project, options: Options, notes: Diagnostics) -> Project:
    return apply_prompts(project, options.prompts, notes)


def derive_resources(project: Project, options: Options, notes: Diagnostics) -> Project:
    """`--resources`: before a profile renames the tools."""
    if not options.resources:
        return project
    project, found = resources.derive(project)
    notes.items.extend(found)
    return project


def choose_output_schemas(project: Project, options: Options, notes: Diagnostics) -> Project:
    return apply_output_schemas(project, options.output_schemas, notes)


def apply_client_profile(project: Project, options: Options, notes: Diagnostics) -> Project:
    from mcpgen.clients import profiles

    if not options.client_profile:
        return project
    project, found = profiles.apply(project, options.client_profile)
    notes.items.extend(found)
    return project


def set_surface(project: Project, options: Options, notes: Diagnostics) -> Project:
    """Tool mode, page size and result cap; in static mode, the tool-count warnings."""
    from mcpgen.clients import lint

    project = dataclasses.replace(
        project,
        tool_mode=options.tool_mode,
        page_size=options.page_size,
        max_response_chars=options.max_response_chars,
        default_scopes=options.default_scopes,
    )
    if project.tool_mode in ("dynamic", "code") or project.toolsets:
        project = _clear_meta_tool_names(project, notes)
    if project.tool_mode == "static":
        warnings = lint.tool_count_notes(len(project.tools), bool(project.toolsets))
        if len(project.tools) > project.page_size:  # fewer tools are one page: skip the sizing
            sizes = [len(json.dumps(wire_tool(tool), ensure_ascii=False)) for tool in project.tools]
            warnings += lint.page_count_notes(sizes, project.page_size)
        notes.items.extend(Diagnostic(Level.WARNING, warning, project.source_file) for warning in warnings)
    return project


def _clear_meta_tool_names(project: Project, notes: Diagnostics) -> Project:
    """In dynamic mode `search_tools`, `describe_tool` and `call_tool` are the server's own
    meta-tools: an operation of the same name is renamed (`search_tools_op`), and says so."""
    meta_tools = frozenset[str]()
    if project.tool_mode != "static":
        meta_tools = naming.meta_tool_names("CODE_TOOL_NAMES" if project.tool_mode == "code" else "META_TOOL_NAMES")
    if project.toolsets:  # the toolset meta tools (PREFIX_TOOLSETS_DYNAMIC)
        meta_tools |= naming.meta_tool_names("TOOLSET_TOOL_NAMES")
    if not any(tool.name in meta_tools for tool in project.tools):
        return project
    taken = {tool.name for tool in project.tools}
    tools = []
    for tool in project.tools:
        new = naming.avoid_names(tool.name, str(tool.origin), meta_tools, taken)
        if new != tool.name:
            taken.add(new)
            reason = "the name of a meta-tool" + (f" in {project.tool_mode} tool mode" if project.tool_mode != "static" else "")
            notes.items.append(Diagnostic(
                Level.INFO, renamed_message(tool.name, new, reason), tool.origin.file, tool.origin.pointer,
                tool.origin.line, hint=f"rename it in mcpgen.toml: [tools.{tool.name}] name = \"...\"",
                topic=Topic.RENAMED, reason=reason,
            ))
            tool = dataclasses.replace(tool, name=new)
        tools.append(tool)
    return dataclasses.replace(project, tools=tuple(tools))


PASSES: tuple[Pass, ...] = (
    make_inputs_portable,  # first: every later pass, the profiles and the server's validation read the portable schema
    apply_icons,  # before the overrides: a tool's own icons replace its tag's
    apply_tool_overrides,
    decide_confirmations,  # after the overrides: their confirm and annotations win
    route_operations,
    group_toolsets,  # after the routes: a tool served as a resource only is in no toolset
    bind_resources,
    add_prompts,
    derive_resources,
    choose_output_schemas,
    apply_client_profile,
    set_surface,
)
SURFACE_PASSES = PASSES[PASSES.index(derive_resources) :]  # what the server advertises


def run_passes(
    project: Project,
    diagnostics: list[Diagnostic],
    options: Options,
    notes: Diagnostics,
    passes: tuple[Pass, ...] = PASSES,
) -> tuple[Project, list[Diagnostic]]:
    """`project` after `passes`; the source's diagnostics, then those `notes` collected."""
    for step in passes:
        project = step(project, options, notes)
    return project, [*diagnostics, *notes.items]


def shape_surface(
    project: Project, diagnostics: list[Diagnostic], options: Options
) -> tuple[Project, list[Diagnostic]]:
    """What the server advertises: resources, client profile, tool mode, page size; tool-count warnings."""
    return run_passes(project, diagnostics, options, Diagnostics(file=OPTIONS), SURFACE_PASSES)


Rendered = tuple[dict[str, str], dict[str, str], Manifest]  # generated files, the user's, the manifest


def add_typed_models(
    project: Project, diagnostics: list[Diagnostic], lines: LineLookup | None = None, started: ModelsAhead | None = None
) -> tuple[Project, list[Diagnostic]]:
    """The models stage; its warnings point into the source (`lines`: its line lookup)."""
    if project.model_schemas is None:
        return project, diagnostics
    progress.step(f"generating models for {len(project.model_schemas.names):,} schemas")
    notes = Diagnostics(file=project.model_schemas.file, line_resolver=lines)
    project = models_stage.add_models(project, notes, started)
    return project, [*diagnostics, *notes.items]


def render_and_format(project: Project, options: Options) -> Rendered:
    """The project's files: rendered, then formatted once, each generated file with its header."""
    progress.step(f"rendering {len(project.tools):,} tools")
    rendered = render_project(project)
    users = render_user_files(project)
    copied = _copied(project)
    python_files = sum(path.endswith(".py") for path in [*rendered, *users]) - len(copied)
    progress.step(f"formatting {python_files:,} Python files")
    formatted = format_files({**rendered, **users}, keep=copied, formatter=options.formatter)
    generated = {path: formatted[path] if path in copied else with_header(path, formatted[path]) for path in sorted(rendered)}
    user_files = {path: formatted[path] for path in users}
    manifest = Manifest(
        mcpgen_version=__version__,
        files={path: digest(text) for path, text in generated.items()},
        user_files=tuple(sorted(user_files)),
        tools={tool.name: tool_identity(tool) for tool in project.tools},
    )
    return generated, user_files, manifest


def _copied(project: Project) -> frozenset[str]:
    """Files copied byte for byte: the user's source modules (line numbers must match) and the runtime."""
    copied = frozenset(f"src/{project.package}/{relative}" for relative, _ in project.copied_files)
    return copied | frozenset(runtime_files(project))


def _changes(project_dir: Path, old_manifest: Manifest | None, project: Project) -> list[Change]:
    """Tool changes against the catalog on disk (empty when there is none to compare)."""
    if old_manifest is None:
        return []
    catalogs = [p for p in old_manifest.files if p.startswith("src/") and p.endswith("/tools.json")]
    if not catalogs:
        return []
    try:
        entries = json.loads(read_bounded(project_dir / catalogs[0], 200_000_000))
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


def _first_project_file(
    kind: str, target: str, options: Options, output: Path, overlays: Sequence[Path] = ()
) -> ProjectFile:
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
        options=options.recorded(),
        overlays=tuple(relative_source(str(p), output) for p in overlays),
    )


__all__ = [
    "PASSES",
    "Conflicts",
    "OutputExists",
    "Result",
    "build_openapi",
    "build_python",
    "emit",
    "generate_openapi",
    "generate_python",
    "new_project",
    "regenerate",
]

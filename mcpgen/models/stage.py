"""The models stage: typed pydantic models for the component schemas the source selected, and
each tool's result typed by the model its success response names."""

from __future__ import annotations

import dataclasses

from mcpgen.diagnostics import Diagnostics
from mcpgen.ir import Project, Tool
from mcpgen.models.generate import ModelIndex, generate_models


def add_models(project: Project, notes: Diagnostics) -> Project:
    """`project` with its models and typed results; a generator failure is a warning in `notes`
    (typed functions then return plain JSON), never the end of the generation."""
    wanted = project.model_schemas
    if wanted is None:
        return project
    try:
        index = generate_models(wanted, notes.warning)
    except Exception as exc:  # noqa: BLE001 - a third-party generator on messy input
        message = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        notes.warning(
            f"typed models could not be generated ({type(exc).__name__}: {message[:300]}); "
            "typed functions return plain JSON",
            "/components/schemas",
        )
        return project
    tools = tuple(typed_tool(tool, index) for tool in project.tools) if index.classes else project.tools
    return dataclasses.replace(project, tools=tools, models=index.modules)


def typed_tool(tool: Tool, index: ModelIndex) -> Tool:
    """`tool` returning the model of the component its response names, if one was generated."""
    route = tool.route
    located = index.classes.get(route.response_component) if route and route.response_component else None
    if route is None or located is None:
        return tool
    path, cls = located
    typed = dataclasses.replace(
        route,
        response_type=f"list[{cls}]" if route.response_is_list else cls,
        response_model=cls,
        response_model_module=path[:-3].replace("/", "."),
    )
    return dataclasses.replace(tool, route=typed)

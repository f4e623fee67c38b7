"""`[[prompts]]` of mcpgen.toml → IR prompts, checked against their own arguments.

Message text is a template only in the weakest sense: `{argument}` is replaced by the
argument's value, `{{` and `}}` stand for braces, nothing else is interpreted. A
placeholder naming no declared argument is an error located in mcpgen.toml.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Literal

from mcpgen.diagnostics import Diagnostics
from mcpgen.ir import Project, Prompt, PromptArgument, PromptMessage
from mcpgen.options import PromptSpec

PLACEHOLDER = re.compile(r"\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_-]*)\}")


def placeholders(text: str) -> list[str]:
    return [m.group(1) for m in PLACEHOLDER.finditer(text) if m.group(1)]


def apply_prompts(project: Project, specs: tuple[PromptSpec, ...], diagnostics: Diagnostics) -> Project:
    """`project` with the declared prompts; function prompts (already described by the
    Python source, under their function's name) get the name, title and description given."""
    if not specs:
        return project
    described = {p.name: p for p in project.prompts}
    prompts: list[Prompt] = []
    for index, spec in enumerate(specs):
        where = f"prompts.{index}"
        if spec.function is not None:
            found = described.get(spec.function)
            if found is None:
                continue  # the source reported why, with the function's location
            prompts.append(
                replace(found, name=spec.name, title=spec.title, description=spec.description or found.description)
            )
            continue
        declared = {a.name for a in spec.arguments}
        messages = []
        for number, message in enumerate(spec.messages):
            text = message.text or ""
            if message.resource_uri is None:
                for name in placeholders(text):
                    if name not in declared:
                        diagnostics.error(
                            f"{where}.messages.{number}: placeholder {{{name}}} names no argument of prompt "
                            f"{spec.name!r}",
                            f"{where}.messages.{number}",
                            "declare it under `arguments`, or write {{ and }} for literal braces",
                        )
            role: Literal["user", "assistant"] = "assistant" if message.role == "assistant" else "user"
            messages.append(PromptMessage(role, text, message.resource_uri, message.resource_mime_type))
        prompts.append(
            Prompt(
                name=spec.name,
                title=spec.title,
                description=spec.description or spec.title or spec.name,
                arguments=tuple(PromptArgument(a.name, a.description, a.required, a.values) for a in spec.arguments),
                messages=tuple(messages),
            )
        )
    return replace(project, prompts=tuple(prompts))

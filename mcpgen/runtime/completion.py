# mcpgen's server runtime, copied byte for byte into each generated package; edit it in mcpgen.
"""completion/complete: values for prompt arguments and resource template variables.

Known values (a template variable's enum, a prompt argument's declared `values`) are
offered by prefix. `hooks.complete`, when it returns a list, answers instead: that is
where a completer that looks things up belongs.

Every completion goes through `guarded` (it runs the user's hook) for its target's registry
entry, the prompt or the resource template: the access policy decides on that entry (a hidden
or out-of-scope target is not completed), the completion counts against the server-wide rate
limit and the target's own, its values and errors are cleaned, and it writes one audit line.
"""

from __future__ import annotations

from collections.abc import Callable

from mcp import MCPError, types
from mcp.server import ServerRequestContext

from . import guarded
from .extensions import hooks
from .project import current
from .registry import completion_target

MAX_COMPLETIONS = 100  # the spec's cap on values per completion result
UserCompleter = Callable[[str, str, str, dict[str, str]], "list[str] | None"]


async def complete(
    ctx: ServerRequestContext, params: types.CompleteRequestParams
) -> types.CompleteResult:
    key = (
        params.ref.uri
        if isinstance(params.ref, types.ResourceTemplateReference)
        else params.ref.name
    )
    context = dict(params.context.arguments or {}) if params.context is not None else {}
    arguments = {"argument": params.argument.name, "value": params.argument.value}

    def missing(why: str | None) -> MCPError:
        shown = f"No prompt or resource template {key!r} to complete" + (f" ({why})" if why else "")
        return MCPError(code=types.INVALID_PARAMS, message=shown)

    return await guarded.run(
        "completion",
        key,
        completion_target(params.ref),
        {**arguments, "context": context},
        lambda: _complete(params),
        guarded.clean_completion,
        missing=missing,
    )


async def _complete(params: types.CompleteRequestParams) -> types.CompleteResult:
    argument, typed = params.argument.name, params.argument.value
    context = dict(params.context.arguments or {}) if params.context is not None else {}
    known: list[str] | None = None
    if isinstance(params.ref, types.ResourceTemplateReference):
        key = params.ref.uri
        if current().has_resources:
            from .resources import template_values

            known = template_values(key, argument)
    else:
        key = params.ref.name
        if current().has_prompts:
            from .prompts import argument_values

            known = argument_values(key, argument)
    if known is None:
        raise MCPError(
            code=types.INVALID_PARAMS, message=f"No prompt or resource template {key!r} to complete"
        )
    user: UserCompleter | None = getattr(
        hooks(), "complete", None
    )  # older hooks.py files have none
    offered = user(key, argument, typed, context) if user is not None else None
    values = (
        [str(v) for v in offered]
        if offered is not None
        else [v for v in known if v.startswith(typed)]
    )
    shown = values[:MAX_COMPLETIONS]
    return types.CompleteResult(
        completion=types.Completion(
            values=shown, total=len(values), has_more=len(values) > len(shown)
        )
    )

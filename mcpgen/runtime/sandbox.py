# mcpgen's server runtime, copied byte for byte into each generated package; edit it in mcpgen.
"""Code mode's `execute`: the model's Python run in a `pydantic-monty` sandbox.

Monty is a Python interpreter of its own (Rust), run in a worker subprocess: the code has no
`import` of the host's modules, no file, socket, environment or clock (every OS call is
refused), and its time, heap, recursion and host suspensions are bounded by the worker. The
only names reaching the outside are the operations handed in (`bindings`): calling one
suspends the sandbox, the host runs it through `run_operation` (the guarded path of a
tools/call) and resumes the sandbox with the API's JSON, or with a RuntimeError naming the
operation. A crash or timeout of the worker ends that execute only; the server goes on.

pydantic-monty's API changes between minor releases: generated servers pin one minor.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from mcp import types

from . import settings
from .catalog import tool_table

SCRIPT = "execute.py"
MAX_OPERATION_ERROR = 2_000  # characters of an operation's error message raised in the code

Answer = types.CallToolResult | types.InputRequiredResult
RunOperation = Callable[[str, dict[str, Any]], Awaitable[Answer]]
Progress = Callable[[int, str], Awaitable[None]]


class _Output:
    """What the code prints, kept up to `limit` characters."""

    def __init__(self, limit: int) -> None:
        self.limit, self.parts, self.size, self.cut = limit, [], 0, False

    parts: list[str]

    def __call__(self, stream: str, text: str) -> None:
        room = self.limit - self.size
        if room <= 0:
            self.cut = self.cut or bool(text)
            return
        if len(text) > room:
            text, self.cut = text[:room], True
        self.parts.append(text)
        self.size += len(text)

    def text(self) -> str:
        return "".join(self.parts)


def _not_called(*args: Any, **kwargs: Any) -> Any:  # resolved by the host, never run
    raise RuntimeError("operations are run by the host")


def as_python(result: types.CallToolResult, name: str) -> Any:
    """An operation's successful result as the sandbox sees it: its structured content
    (unwrapped from `result` when the tool wraps it), else its text parsed as JSON, else text."""
    entry = tool_table().get(name) or {}
    if result.structured_content is not None:
        value = result.structured_content
        if entry.get("wrapsResult") and isinstance(value, dict):
            return value.get("result")
        return value
    text = "".join(b.text for b in result.content if isinstance(b, types.TextContent))
    try:
        return json.loads(text)
    except ValueError:
        return text


def _text(result: types.CallToolResult) -> str:
    return "".join(b.text for b in result.content if isinstance(b, types.TextContent))


class _Calls:
    """The operation calls of one execute: counted, bounded, the last failure kept."""

    def __init__(
        self, bindings: dict[str, str], run: RunOperation, progress: Progress, limit: int
    ) -> None:
        self.bindings, self.run, self.progress, self.limit = bindings, run, progress, limit
        self.count = 0
        self.failed: str | None = None  # the operation whose error ended the code, if any

    async def answer(self, python: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """The sandbox's answer to one call: {"return_value": ...} or {"exception": ...}."""
        name = self.bindings.get(python)
        if name is None:
            return {"exception": NameError(f"name {python!r} is not defined")}
        if args:
            return {"exception": TypeError(f"{python}() takes keyword arguments only")}
        if self.count >= self.limit:
            self.failed = name
            variable = settings.current().variable("CODE_MAX_CALLS")
            message = f"operation call limit reached: {variable}={self.limit} calls per execute"
            return {"exception": RuntimeError(message)}
        self.count += 1
        await self.progress(self.count, name)
        result = await self.run(name, dict(kwargs))
        if isinstance(result, types.InputRequiredResult):
            self.failed = name
            message = (
                f"{python}: needs the user's confirmation, which cannot be asked inside execute "
                f"on this connection; call the tool {name} directly"
            )
            return {"exception": RuntimeError(message)}
        if result.is_error:
            self.failed = name
            message = _text(result)[:MAX_OPERATION_ERROR]
            return {"exception": RuntimeError(f"{python} failed: {message}")}
        self.failed = None
        return {"return_value": as_python(result, name)}


def _limits(current: settings.Settings) -> Any:  # pydantic_monty.ResourceLimits
    return {
        "max_feed_duration_secs": current.code_timeout,
        "max_turn_duration_secs": current.code_timeout,
        "max_memory": current.code_max_memory,
        "max_recursion_depth": 200,
        # Name lookups and refused OS calls suspend too; operation calls are counted by `_Calls`.
        "max_suspensions": 2 * current.code_max_calls + 200,
        "max_total_sleep_secs": 0.0,
    }


def _where(error: Any) -> str:
    """`line N: <source>` of the innermost frame of the model's code."""
    traceback = getattr(error, "traceback", None)
    frames = list(traceback()) if callable(traceback) else []  # the model's code only
    if not frames:
        return ""
    frame = frames[-1]
    source = (frame.source_line or "").strip()
    return f"line {frame.line}" + (f": {source}" if source else "")


def _failure(error: Any, calls: _Calls, output: _Output, kind: str) -> types.CallToolResult:
    """An error result: where in the code, what was raised, the operation that failed."""
    display = getattr(error, "display", None)
    raised = display("type-msg") if callable(display) else str(error)
    where = _where(error)
    lines = [f"{kind}" + (f" at {where}" if where else "") + f": {raised}"]
    if calls.failed is not None:
        lines.append(f"operation: {calls.failed}")
    lines.append(f"operation calls: {calls.count}")
    if output.parts:
        lines += ["printed before the error:", output.text()]
    return types.CallToolResult(
        content=[types.TextContent(type="text", text="\n".join(lines))], is_error=True
    )


def _finish(value: Any, calls: _Calls, output: _Output, limit: int) -> types.CallToolResult:
    """The code's value (JSON where it is JSON-shaped) and its printed output, bounded."""
    try:
        shown = json.dumps(value, ensure_ascii=False, default=repr)
    except (TypeError, ValueError):  # a cycle or a key JSON cannot hold
        shown = repr(value)
    structured = value if isinstance(value, dict) and len(shown) <= limit else None
    parts = []
    if output.parts:
        parts.append(output.text() + ("\n[output cut]" if output.cut else ""))
    if value is not None:
        if len(shown) > limit:
            shown = shown[:limit] + f"\n[result cut at {limit:,} characters]"
        parts.append(("Result:\n" if parts else "") + shown)
    if not parts:
        parts.append(f"Done ({calls.count} operation calls, nothing returned or printed).")
    return types.CallToolResult(
        content=[types.TextContent(type="text", text="\n".join(parts))],
        structured_content=structured,
    )


async def _drive(monty: Any, snapshot: Any, calls: _Calls) -> Any:
    """Answer the sandbox's suspensions until the code completes; its value."""
    while not isinstance(snapshot, monty.MontyComplete):
        if isinstance(snapshot, monty.AsyncFunctionSnapshot):
            if snapshot.is_os_function:  # files, sockets, clock, environment: refused
                snapshot = await snapshot.resume_not_handled()
            else:
                python = str(snapshot.function_name)
                answer = await calls.answer(python, snapshot.args, snapshot.kwargs)
                snapshot = await snapshot.resume(answer)
        else:  # a name lookup (an operation, or NameError); no operation leaves a future
            snapshot = await snapshot.resume_auto()
    return snapshot.output


async def run(
    code: str, bindings: dict[str, str], run_operation: RunOperation, progress: Progress
) -> types.CallToolResult:
    """Run `code` with the operations `bindings` (Python name -> tool name) callable."""
    import pydantic_monty as monty

    current = settings.current()
    output = _Output(current.code_max_output)
    calls = _Calls(bindings, run_operation, progress, current.code_max_calls)
    lookup: dict[str, Any] = dict.fromkeys(bindings, _not_called)
    policy: Any = {"datetime": "call_host", "sleep": "zero", "random_start": {"seed": 0}}
    backstop = current.code_timeout * 2 + 5.0  # the worker is killed past it
    try:
        async with monty.AsyncMonty(
            min_processes=1, max_processes=1, request_timeout=backstop
        ) as pool:
            checkout = pool.checkout(script_name=SCRIPT, limits=_limits(current), os_policy=policy)
            async with checkout as session:
                snapshot = await session.feed_start(
                    code, external_lookup=lookup, print_callback=output
                )
                value = await _drive(monty, snapshot, calls)
    except monty.MontySyntaxError as exc:
        return _failure(exc, calls, output, "Invalid code")
    except monty.MontyRuntimeError as exc:
        return _failure(exc, calls, output, "Error")
    except monty.MontyCrashedError as exc:
        why = "timed out" if exc.timed_out else "stopped"
        return _failure(exc, calls, output, f"The sandbox {why}")
    except monty.MontyError as exc:
        return _failure(exc, calls, output, "The sandbox refused the code")
    return _finish(value, calls, output, current.code_max_output)

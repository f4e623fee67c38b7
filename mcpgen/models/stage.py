"""The models stage: typed pydantic models for the component schemas the source selected, and
each tool's result typed by the model its success response names.

For a big spec the generation runs ahead, as one job in a child process, while the source
converts its tools and the passes run (`ModelsAhead`); the stage then waits for it. For a very
big spec file the child is started before the spec is read.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import pickle
import subprocess
import sys
import tempfile
from pathlib import Path
from types import TracebackType

from mcpgen.diagnostics import Diagnostics
from mcpgen.ir import ModelSchemas, Project, Tool
from mcpgen.models.generate import ModelIndex, generate_models

# From this many schemas on, generating ahead in a process of its own pays for its start
# (an interpreter importing the generator, about 0.5 s of CPU, spent in parallel).
AHEAD_MIN_SCHEMAS = 100
# From this size on, a spec's child is started before the spec is read, so the generator's
# imports and first-run set-up (0.5 s) overlap the reading instead of delaying the models.
EARLY_MIN_BYTES = 1 << 20
Warnings = list[tuple[str, str]]  # (message, pointer)


class ModelsAhead:
    """A child interpreter (`python -m mcpgen.models.child`) that generates one job's models,
    like a future: started first (it prepares the generator meanwhile), given its job by
    `submit`, answered once.

    A plain child process, not a multiprocessing pool: nothing of the caller's main module is
    re-imported, no worker is restarted, and `close` kills it outright. The generator's folder
    and the job's input are the caller's temporary files, removed by `close` whatever the child
    did. A context manager: leaving it stops the child if its answer was never read.
    """

    def __init__(self) -> None:
        self._folder = tempfile.TemporaryDirectory(prefix="mcpgen-models-")
        package_root = str(Path(__file__).resolve().parents[2])  # where `mcpgen` is importable from
        path = os.pathsep.join(p for p in (package_root, os.environ.get("PYTHONPATH", "")) if p)
        self._child = subprocess.Popen(
            [sys.executable, "-m", "mcpgen.models.child", self._folder.name],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env={**os.environ, "PYTHONPATH": path},
        )
        self.submitted = False

    def submit(self, wanted: ModelSchemas) -> None:
        """The job: written to the folder, then one line down the pipe (which never fills, so
        this does not wait for the child to be ready; `communicate` closes it)."""
        job = Path(self._folder.name) / "job.pickle"
        job.write_bytes(pickle.dumps(wanted, protocol=pickle.HIGHEST_PROTOCOL))
        go = self._child.stdin
        if go is None or self.submitted:
            raise RuntimeError("a models child takes one job")
        with contextlib.suppress(BrokenPipeError):  # a child already gone says why in `result`
            go.write(b"\n")
            go.flush()
        self.submitted = True

    def result(self) -> tuple[ModelIndex, Warnings]:
        """The index and the generator's warnings; raises what the generation raised."""
        answer, errors = self._child.communicate()
        if self._child.returncode != 0 or not answer:
            detail = errors.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no output"]
            raise RuntimeError(f"the model generator's process failed (exit {self._child.returncode}): {detail[0][:300]}")
        outcome, payload = pickle.loads(answer)  # noqa: S301 - our own child's answer, through a pipe
        if outcome == "error":
            raise payload
        index, warnings = payload
        return index, warnings

    def close(self) -> None:
        if self._child.poll() is None:
            self._child.kill()  # the answer is not wanted: nothing of it needs to finish
        self._child.communicate()
        self._folder.cleanup()

    def __enter__(self) -> ModelsAhead:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None) -> None:
        self.close()


def early(spec_bytes: int, models: bool) -> ModelsAhead | None:
    """A child started before a big spec is read; None: `ahead` decides once it is read."""
    return ModelsAhead() if models and spec_bytes >= EARLY_MIN_BYTES else None


def ahead(wanted: ModelSchemas | None, child: ModelsAhead | None = None) -> ModelsAhead | None:
    """The generation of `wanted` started now: in `child` if one was started early (its start
    is paid: any number of schemas goes to it), else in a new child for a big spec; None: the
    stage generates in process (and an early child is left for its owner to close)."""
    if wanted is None:
        return None
    if child is None:
        if len(wanted.names) < AHEAD_MIN_SCHEMAS:
            return None
        child = ModelsAhead()
    child.submit(wanted)
    return child


def add_models(project: Project, notes: Diagnostics, started: ModelsAhead | None = None) -> Project:
    """`project` with its models and typed results (`started`: the generation begun ahead); a
    generator failure is a warning in `notes` (typed functions then return plain JSON), never
    the end of the generation."""
    wanted = project.model_schemas
    if wanted is None:
        return project
    try:
        if started is not None:
            index, warnings = started.result()
            for message, pointer in warnings:
                notes.warning(message, pointer)
        else:
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


__all__ = ["AHEAD_MIN_SCHEMAS", "EARLY_MIN_BYTES", "ModelsAhead", "add_models", "ahead", "early", "typed_tool"]

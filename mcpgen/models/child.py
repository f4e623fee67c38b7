"""`python -m mcpgen.models.child FOLDER`: the models stage's generation ahead (`stage.ModelsAhead`),
in an interpreter of its own. It prepares the generator first, then waits for one line on stdin
(the job is ready), reads the pickled `ModelSchemas` from FOLDER/job.pickle (FOLDER is also the
generator's settings folder) and writes the pickled answer to stdout, once."""

from __future__ import annotations

import gc
import pickle
import sys
from pathlib import Path

from mcpgen.ir import ModelSchemas
from mcpgen.models.generate import generate_models

# The smallest input the generator takes whole: running it once imports its ~300 modules and
# compiles its templates (0.5 s) while the parent is still reading the spec.
_WARM_UP = ModelSchemas(
    document={
        "openapi": "3.0.3",
        "info": {"title": "warm-up", "version": "1"},
        "paths": {},
        "components": {"schemas": {"WarmUp": {"type": "object", "properties": {"n": {"type": "integer"}}}}},
    },
    names=("WarmUp",),
    file="",
)


def main(folder: Path) -> None:
    # This process answers once and exits: the cycle collector walking the generator's objects
    # cost GitHub's models 5% (0.2 s of CPU).
    gc.disable()
    generate_models(_WARM_UP, None, folder)
    if not sys.stdin.buffer.readline():
        return  # the parent closed the pipe without a job: the models are not wanted
    wanted = pickle.loads((folder / "job.pickle").read_bytes())  # noqa: S301 - written by our parent, in its own temp folder
    warnings: list[tuple[str, str]] = []
    try:
        index = generate_models(wanted, lambda message, pointer: warnings.append((message, pointer)), folder)
        answer: tuple[str, object] = ("ok", (index, warnings))
    except Exception as exc:  # noqa: BLE001 - every failure goes back to the parent, as a warning there
        try:
            pickle.dumps(exc)
        except Exception:  # noqa: BLE001 - an exception that cannot be pickled
            exc = RuntimeError(f"{type(exc).__name__}: {exc}")
        answer = ("error", exc)
    sys.stdout.buffer.write(pickle.dumps(answer, protocol=pickle.HIGHEST_PROTOCOL))
    sys.stdout.buffer.flush()


if __name__ == "__main__":
    main(Path(sys.argv[1]))

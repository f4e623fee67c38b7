"""`python -m mcpgen.models.child JOB`: the models stage's generation ahead (`stage.ModelsAhead`),
in an interpreter of its own; reads the pickled `ModelSchemas` from JOB (its folder is the
generator's settings folder) and writes the pickled answer to stdout, once."""

from __future__ import annotations

import gc
import pickle
import sys
from pathlib import Path

from mcpgen.models.generate import generate_models


def main(job: Path) -> None:
    wanted = pickle.loads(job.read_bytes())  # noqa: S301 - written by our parent, in its own temp folder
    # This process answers once and exits: the cycle collector walking the generator's objects
    # cost GitHub's models 5% (0.2 s of CPU).
    gc.disable()
    warnings: list[tuple[str, str]] = []
    try:
        index = generate_models(wanted, lambda message, pointer: warnings.append((message, pointer)), job.parent)
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

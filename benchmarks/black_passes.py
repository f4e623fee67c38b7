"""Time black spends on the template-rendered modules of a spec. No assertions.

    python benchmarks/black_passes.py [SPEC ...]

black formats a module a second time whenever its first pass changes it, so a template
that renders black's own layout halves that module's cost. Counted: every generated .py
file except models/ (datamodel-code-generator writes them) and the typed operations API.
Default specs: samples/petstore.yaml and GitHub's REST spec from /work/.corpus.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import black

from mcpgen import api
from mcpgen.config import Options
from mcpgen.render import render_project
from mcpgen.writer import _MODE

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_SPECS = (
    ROOT / "samples" / "petstore.yaml",
    Path("/work/.corpus/node_modules/@octokit/openapi/generated/api.github.com.json"),
)


def _template_modules(spec: Path) -> dict[str, str]:
    project, diagnostics = api.build_openapi(spec, Options())
    project, _ = api.shape_surface(project, diagnostics, Options())
    skipped = ("/models/", "/operations/", "/operations.py")
    return {
        path: text
        for path, text in render_project(project).items()
        if path.endswith(".py") and not any(part in path for part in skipped)
    }


def main() -> None:
    specs = [Path(arg) for arg in sys.argv[1:]] or [spec for spec in DEFAULT_SPECS if spec.is_file()]
    for spec in specs:
        modules = _template_modules(spec)
        changed = [path for path, text in modules.items() if black.format_str(text, mode=_MODE) != text]
        timings = []
        for _ in range(3):
            start = time.perf_counter()
            for text in modules.values():
                black.format_str(text, mode=_MODE)
            timings.append(time.perf_counter() - start)
        print(
            f"{spec.name}: {len(modules)} modules, {sum(map(len, modules.values())):,} chars, "
            f"black {min(timings):.3f} s (best of 3), {len(changed)} changed by black (two passes each)"
        )
        for path in changed:
            print(f"  changed: {path}")


if __name__ == "__main__":
    main()

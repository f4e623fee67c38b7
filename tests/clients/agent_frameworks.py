"""The agent frameworks of the agents matrix (tests/clients/test_agents.py): pinned versions, their venvs.

.ci/run installs these same lists (`python -m tests.clients.agent_frameworks agents|langchain`: one a line).
Two venvs: openai-agents, google-adk and pydantic-ai share one with mcp 2.x (their pins allow
it); langchain-mcp-adapters 0.3.2 needs mcp<2 (>=1.24), so it has its own.

google-genai is pinned to 2.34.0, the newest google-adk 2.13.0 allows (`google-genai<3,>=2.30`):
3.x cannot be installed beside it.
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
VENVS: dict[str, tuple[str, ...]] = {
    "agents": (
        "openai-agents==0.24.0",
        "google-adk==2.13.0",
        "google-genai==2.34.0",
        "pydantic-ai-slim[openai,anthropic,google,mcp]==2.68.0",
        "mcp==2.3.0",
        "jsonschema==4.26.0",
    ),
    "langchain": (
        "langchain-mcp-adapters==0.3.2",
        "mcp==1.30.0",
        "jsonschema==4.26.0",
    ),
}
# framework -> the venv it runs in
FRAMEWORKS = {"openai-agents": "agents", "google-adk": "agents", "pydantic-ai": "agents", "langchain": "langchain"}


def venv_python(venv: str) -> Path:
    return REPO / ".ci" / f"{venv}-venv" / "bin" / "python"


if __name__ == "__main__":
    print("\n".join(VENVS[sys.argv[1]]))

"""`audit`: one bounded, redacted JSON line per call, whatever the call's size."""

from __future__ import annotations

import json
import logging

import pytest

from mcpgen.runtime import audit, redact, settings
from mcpgen.runtime.project import Project
from mcpgen.runtime.state import state


@pytest.fixture(autouse=True)
def fresh(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    state().learned_secrets.clear()
    monkeypatch.setattr(redact, "_known", {})
    settings._parsed.clear()
    monkeypatch.setenv("PETSTORE_API_KEY", "secret-key-1")


def logged(tool: str, arguments: object, detail: str | None = None) -> tuple[str, dict[str, object]]:
    records: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record.getMessage())

    logger = audit._logger()
    handler = Keep()
    logger.addHandler(handler)
    try:
        audit.finish(audit.begin(tool, arguments), "error", detail)
    finally:
        logger.removeHandler(handler)
    [line] = records
    return line, json.loads(line)


def test_a_huge_tool_name_and_detail_give_a_short_line() -> None:
    name = "t" * 1_000_000
    line, parsed = logged(name, {}, f"Unknown tool: {name}")
    assert len(line) < 2_000
    assert parsed["tool"] == "t" * audit.MAX_VALUE + "… [1,000,000 characters]"
    assert str(parsed["detail"]).startswith("Unknown tool: ttt") and len(str(parsed["detail"])) < 300


def test_huge_arguments_give_a_short_line() -> None:
    deep: object = "bottom"
    for _ in range(500):
        deep = {"d": deep}
    arguments = {
        "k" * 100_000: "v",
        "text": "x" * 1_000_000,
        "many": list(range(100_000)),
        "big": 10**5000,
        "deep": deep,
        "wide": {f"key{i}": [f"v{j}" for j in range(50)] for i in range(50)},  # spends the budget
    }
    line, parsed = logged("addPet", arguments)
    assert len(line) < 20_000
    args = parsed["arguments"]
    assert isinstance(args, dict)
    assert "k" * audit.MAX_KEY + "… [100,000 characters]" in args
    assert args["text"] == "x" * audit.MAX_VALUE + "… [1,000,000 characters]"
    assert args["many"][-1] == f"… {100_000 - audit.MAX_ITEMS} more"
    assert args["big"].startswith("<integer of ")
    assert "…" in json.dumps(args["deep"], ensure_ascii=False)
    assert args["wide"]["key19"] == "…"  # past MAX_NODES values


def test_a_secret_straddling_the_cut_is_redacted_whole() -> None:
    text = "x" * (audit.MAX_VALUE - 5) + "secret-key-1" + "y" * 50
    _, parsed = logged("addPet", {"note": text, "secret-key-1": 1}, "failed for se\\u0063ret-key-1")
    args = parsed["arguments"]
    assert isinstance(args, dict)
    assert str(args["note"]) == "x" * (audit.MAX_VALUE - 5) + "[redacted]… [257 characters]"
    assert "[redacted]" in args and parsed["detail"] == "failed for [redacted]"

"""ajv as the TypeScript MCP clients run it, from Python: one long-lived node process
(`ajv_check.mjs`) that checks `(schema, instance)` pairs for both SDK generations."""

from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path
from types import TracebackType
from typing import Any

from typing_extensions import Self

from tests import npm

SCRIPT = Path(__file__).with_name("ajv_check.mjs")
# The majors tests/npm.py pins: the SDKs depend on ajv ^8 and ajv-formats ^3, so a fresh client gets these.
MAJORS = {"ajv": "8.", "ajv-formats": "3."}


def _installed_version(name: str) -> str:
    path = npm.package_path(name, "package.json")
    return str(json.loads(path.read_text("utf-8")).get("version", "")) if path.exists() else ""


class Ajv:
    """`check(schema, instance)` -> {"v1": {"valid", "errors"}, "v2": {...}}.

    The instance goes over as JSON text, so node parses it as a client parses a result:
    an integer beyond 2**53 loses precision, one beyond 1e308 becomes Infinity."""

    def __init__(self) -> None:
        node = npm.node()
        npm.ensure_installed(*(npm.package_path(name, "package.json") for name in MAJORS))
        # Another package's dependency could put a different major at the top of node_modules.
        wrong = {name: _installed_version(name) for name, major in MAJORS.items() if not _installed_version(name).startswith(major)}
        assert not wrong, f"{npm.NPM_PREFIX}: ajv majors {wrong}, not the {MAJORS} the TypeScript clients use"
        # ajv warns on stderr for every unknown format it ignores; kept aside, shown if node dies.
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 - open as long as the process, closed in close()
        self._process = subprocess.Popen(
            [node, str(SCRIPT)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr, text=True, encoding="utf-8",
            env={"MCPGEN_NPM_PREFIX": str(npm.NPM_PREFIX), "PATH": ""},
        )

    def check(self, schema: Any, instance: Any) -> dict[str, Any]:
        assert self._process.stdin is not None and self._process.stdout is not None
        # NaN/Infinity would be written as literals JSON.parse rejects: the answer then has `error`.
        self._process.stdin.write(json.dumps({"schema": schema, "instance": instance}, ensure_ascii=False) + "\n")
        self._process.stdin.flush()
        line = self._process.stdout.readline()
        if not line:
            self._stderr.seek(0)
            tail = self._stderr.read()[-3000:].decode("utf-8", "replace")
            raise AssertionError(f"ajv_check.mjs exited with {self._process.wait()}:\n{tail}")
        answer: dict[str, Any] = json.loads(line)
        assert "error" not in answer, answer["error"]
        return answer

    def close(self) -> None:
        if self._process.stdin is not None:
            self._process.stdin.close()
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        self._stderr.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

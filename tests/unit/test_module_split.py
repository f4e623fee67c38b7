"""A spec with more operations than one module holds: the typed API becomes a package."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from mcpgen import api
from mcpgen.options import Options
from mcpgen.rendering.render import OPERATIONS_PER_MODULE


def _spec(count: int) -> dict:
    thing = {"type": "object", "properties": {"id": {"type": "integer"}}}
    paths = {
        f"/things/{i}": {"get": {
            "operationId": f"getThing{i}",
            "responses": {"200": {"description": "ok", "content": {"application/json": {
                "schema": {"$ref": "#/components/schemas/Thing"}}}}},
        }}
        for i in range(count)
    }
    return {"openapi": "3.0.3", "info": {"title": "Many", "version": "1"}, "paths": paths,
            "components": {"schemas": {"Thing": thing}}}


def test_many_operations_are_split_into_bounded_modules(tmp_path: Path) -> None:
    count = OPERATIONS_PER_MODULE * 2 + 3
    spec = tmp_path / "many.json"
    spec.write_text(json.dumps(_spec(count)))
    result = api.generate_openapi(spec, Options(output=tmp_path / "out"))
    folder = "src/many_mcp/operations"
    parts = sorted(p for p in result.files if p.startswith(folder + "/part_"))
    assert parts == [f"{folder}/part_001.py", f"{folder}/part_002.py", f"{folder}/part_003.py"]
    assert "src/many_mcp/operations.py" not in result.files
    counts = [result.files[p].count("\nasync def get_thing") for p in parts]
    assert counts == [OPERATIONS_PER_MODULE, OPERATIONS_PER_MODULE, 3]
    # the same names as one module would give, typed, importable from `operations`
    check = (
        "import inspect, typing\n"
        "from many_mcp import operations\n"
        f"assert len(operations.__all__) == {count}\n"
        f"fn = operations.get_thing{count - 1}\n"
        "assert inspect.iscoroutinefunction(fn)\n"
        "assert fn.__module__ == 'many_mcp.operations.part_003'\n"
        "assert 'Thing' in str(inspect.signature(fn).return_annotation)\n"
    )
    done = subprocess.run([sys.executable, "-c", check], env={"PYTHONPATH": str(tmp_path / "out" / "src")},
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    again = api.generate_openapi(spec, Options(output=tmp_path / "again"))
    assert again.files == result.files  # deterministic layout

"""The generated package as a library: typed `operations` functions and a light server import.

Each check runs in a fresh interpreter with the generated `src/` on the path, so what is
imported (sys.modules) is exactly what the generated code imports."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from .conftest import API_KEY, server_env
from .upstream import PET_1, Upstream

TYPED_CALLS = """
import asyncio, json, sys
from petstore_mcp import operations
from petstore_mcp.runtime import upstream
report = {"models_after_import": sorted(m for m in sys.modules if m.startswith("petstore_mcp.models"))}

async def main():
    pet = await operations.get_pet_by_id(pet_id=1)
    report["pet_type"] = type(pet).__module__ + "." + type(pet).__qualname__
    report["pet"] = pet.model_dump(mode="json", by_alias=True)
    pets = await operations.find_pets_by_status(status=["sold"], limit=2)
    report["pets_types"] = sorted({type(p).__name__ for p in pets})
    report["inventory"] = await operations.get_inventory()
    report["photo"] = (await operations.get_pet_photo(pet_id=1))[:4].hex()
    report["note"] = await operations.add_pet_note(pet_id=1, body="hi")
    report["deleted"] = await operations.delete_pet(pet_id=1, x_reason="gone")
    try:
        await operations.get_pet_by_id(pet_id=404)
    except upstream.ApiError as exc:
        report["api_error"] = [exc.status_code, str(exc)]
    report["models_after_calls"] = sorted(m for m in sys.modules if m.startswith("petstore_mcp.models"))

asyncio.run(main())
print(json.dumps(report))
"""

LIGHT_IMPORT = """
import json, sys
import petstore_mcp.server
print(json.dumps(sorted(m for m in sys.modules if m.startswith("petstore_mcp"))))
"""


def run_python(code: str, env: dict[str, str]) -> Any:
    done = subprocess.run(
        [sys.executable, "-c", code], check=False, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_typed_functions_against_the_upstream(generated: Path, upstream: Upstream) -> None:
    env = server_env(generated, PETSTORE_BASE_URL=upstream.base_url, PETSTORE_API_KEY=API_KEY)
    report = run_python(TYPED_CALLS, env)
    assert report["models_after_import"] == []  # models load on first use
    assert report["pet_type"] == "petstore_mcp.models.pet.Pet"
    assert report["pet"]["name"] == PET_1["name"] and report["pet"]["photoUrls"] == PET_1["photoUrls"]
    assert report["pets_types"] == ["Pet"]
    assert report["inventory"] == {"available": 2, "sold": 1}
    assert report["photo"] == "89504e47"
    assert report["note"] == "note stored: hi"
    assert report["deleted"] is None
    status, message = report["api_error"]
    assert status == 404 and "404" in message
    assert "petstore_mcp.models.order" not in report["models_after_calls"]

    received = [(r.method, r.path, r.query) for r in upstream.take()]
    assert received == [
        ("GET", "/api/v3/pet/1", ""),
        ("GET", "/api/v3/pet/findByStatus", "status=sold&limit=2"),
        ("GET", "/api/v3/store/inventory", ""),
        ("GET", "/api/v3/pet/1/photo", ""),
        ("POST", "/api/v3/pet/1/notes", ""),
        ("DELETE", "/api/v3/pet/1", ""),
        ("GET", "/api/v3/pet/404", ""),
    ]


def test_server_import_stays_light(generated: Path) -> None:
    """Importing the server loads neither the models, the typed API nor the HTTP layer."""
    loaded = run_python(LIGHT_IMPORT, server_env(generated))
    assert "petstore_mcp.server" in loaded
    for heavy in ("petstore_mcp.models", "petstore_mcp.operations", "petstore_mcp.upstream"):
        assert not any(m == heavy or m.startswith(heavy + ".") for m in loaded), (heavy, loaded)

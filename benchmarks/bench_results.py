"""Cost of shaping large upstream responses in a generated server. No assertions.

    python benchmarks/bench_results.py [--items 20000] [--runs 5]

Generates tests/e2e/runtime_lab.yaml into a temporary directory, imports its `results` and
`server` modules in this process and times, on a synthetic list response of --items pets
(about 100 bytes each):
(a) json.dumps of the whole body (the floor: every result is serialised once anyway);
(b) `results.fit_json` cutting it to the default 100,000-character cap;
(c) `server.json_result` end to end (serialise, cut, validate, repair) for a body that matches
    its outputSchema and for one where every item strays (id as a string);
(d) validating the whole uncut body against the outputSchema, which is what the server paid
    before results were capped (validation now runs on the cut value only);
printing the median of --runs and the ratio to (a).
"""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def median_seconds(run: Callable[[], Any], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    logging.disable(logging.WARNING)  # the server logs each straying result

    from mcpgen.api import generate_openapi
    from mcpgen.options import Options

    out = Path(tempfile.mkdtemp()) / "rtlab-mcp"
    generate_openapi(REPO / "tests" / "e2e" / "runtime_lab.yaml", Options(output=out, force=True, name="rtlab", models=False))
    sys.path.insert(0, str(out / "src"))
    results = importlib.import_module("rtlab_mcp.results")
    server = importlib.import_module("rtlab_mcp.server")

    pets = [{"id": n, "name": f"Pet {n}", "status": "available", "tags": ["a", "b"]} for n in range(args.items)]
    body = {"items": pets, "next": "cursor-2"}
    straying = {"items": [{**p, "id": str(p["id"])} for p in pets], "next": "cursor-2"}
    size = len(json.dumps(body, ensure_ascii=False))

    floor = median_seconds(lambda: json.dumps(body, ensure_ascii=False), args.runs)
    fit = median_seconds(lambda: results.fit_json(body, 100_000, True), args.runs)
    matching = median_seconds(lambda: server.json_result("bigList", body, lenient=True), args.runs)
    repaired = median_seconds(lambda: server.json_result("bigList", straying, lenient=True), args.runs)
    whole = median_seconds(lambda: server._errors(server._output_validator("bigList"), body), args.runs)
    shown = server.json_result("bigList", straying, lenient=True)

    print(f"body: {args.items:,} items, {size:,} characters of JSON; cap 100,000")
    print(f"{'step':<44}{'median ms':>10}{'x dumps':>9}")
    for label, seconds in [
        ("(a) json.dumps (floor)", floor),
        ("(b) results.fit_json to the cap", fit),
        ("(c) json_result, matching body", matching),
        ("(c) json_result, every item strays", repaired),
        ("(d) validating the whole body (no cap)", whole),
    ]:
        print(f"{label:<44}{seconds * 1000:>10.1f}{seconds / floor:>9.1f}")
    print(f"straying result: isError={shown.is_error}, text {len(shown.content[0].text):,} chars, "
          f"{len(shown.structured_content['items']):,} items kept in structuredContent")


if __name__ == "__main__":
    main()

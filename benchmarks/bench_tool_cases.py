"""How much of a real spec the generated tests exercise. No assertions.

    python benchmarks/bench_tool_cases.py [--corpus /work/.corpus/node_modules]

For every spec of the public corpus (/work/shared/corpus/public.txt; GitHub and Stripe
left out for time), the tool cases `tests/tool_cases.json` would hold: tools whose
arguments could be synthesised (so the contract tests call them), tools with a canned
upstream answer, tools with rejected arguments, and the time taken. Every synthesised
instance is validated again here with jsonschema: `invalid` must stay 0.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import jsonschema

from mcpgen.api import build_openapi
from mcpgen.options import Options
from mcpgen.rendering.project_tests import tool_cases

LIST = Path("/work/shared/corpus/public.txt")
SKIP = ("api.github.com", "stripe")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", type=Path, default=Path("/work/.corpus/node_modules"))
    args = parser.parse_args()
    tools = called = answered = rejected = invalid = specs = 0
    seconds = 0.0
    for relative in filter(None, LIST.read_text().splitlines()):
        if any(s in relative for s in SKIP):
            continue
        try:
            project, _ = build_openapi(args.corpus / relative, Options(models=False))
        except Exception as exc:  # noqa: BLE001 -- a spec mcpgen refuses is not this benchmark's subject
            print(f"skipped {relative}: {type(exc).__name__}")
            continue
        specs += 1
        start = time.perf_counter()
        cases = tool_cases(project)["tools"]
        seconds += time.perf_counter() - start
        schemas = {t.name: t.input_schema for t in project.tools}
        for case in cases:
            tools += 1
            answered += case["response"] is not None
            rejected += case["invalidArguments"] is not None
            if case["arguments"] is not None:
                called += 1
                invalid += not jsonschema.Draft202012Validator(schemas[case["name"]]).is_valid(case["arguments"])
    print(f"specs {specs}, tools {tools}, case building {seconds:.2f} s ({1000 * seconds / max(tools, 1):.2f} ms/tool)")
    print(f"arguments synthesised {called} ({called / tools:.1%}), invalid {invalid}")
    print(f"canned upstream answer {answered} ({answered / tools:.1%})")
    print(f"rejected arguments found {rejected} ({rejected / tools:.1%})")


if __name__ == "__main__":
    main()

// What the TypeScript SDK 1.x client pays on tools/list for a server's output schemas, and what
// cheaper schema shapes would save. No server, no transport: the work its listTools does.
//
//   node benchmarks/ts_v1_output_schemas.mjs path/to/tools.json
//
// @modelcontextprotocol/sdk 1.x's Client.listTools() calls cacheToolMetadata(), which hands every
// tool's outputSchema to its AjvJsonSchemaValidator (ajv + ajv-formats, allErrors) on every list;
// a schema whose `$id` it has compiled before is looked up instead. Each variant of the schemas
// below runs in a fresh node process (so JIT warm-up does not favour the later ones), after the
// same warm-up compiles; medians of 3 processes. Packages from $MCPGEN_NPM_PREFIX (default .ci/npm).

import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const prefix = process.env.MCPGEN_NPM_PREFIX || resolve(here, "..", ".ci", "npm");
const require = createRequire(join(prefix, "node_modules", "_resolve_from_here.js"));

// Every subschema of a (portable, mcpgen-made) output schema, rewritten by `edit`.
function walk(node, edit) {
  if (Array.isArray(node)) return node.map((item) => walk(item, edit));
  if (!node || typeof node !== "object") return node;
  const out = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "properties" || key === "$defs") {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, walk(sub, edit)]));
    } else if (key === "items" || key === "additionalProperties" || key === "anyOf" || key === "allOf") {
      out[key] = walk(value, edit);
    } else {
      out[key] = value;
    }
  }
  return edit(out);
}

function oneLevel(schema, depth = 0) {
  if (!schema || typeof schema !== "object") return schema;
  const out = { ...schema };
  if (out.properties) {
    out.properties = Object.fromEntries(Object.entries(out.properties).map(([name, sub]) =>
      [name, depth >= 1 ? (sub.type ? { type: sub.type } : {}) : oneLevel(sub, depth + 1)]));
  }
  if (out.items) out.items = depth >= 1 ? {} : oneLevel(out.items, depth + 1);
  delete out.$defs;
  return out;
}

const VARIANTS = {
  "as served": (s) => s,
  "no $id (one compile per tool)": ({ $id, ...rest }) => rest,
  "no description/title": (s) => walk(s, (n) => { delete n.description; delete n.title; return n; }),
  "anyOf of types -> type array": (s) => walk(s, (n) => {
    if (Array.isArray(n.anyOf) && n.anyOf.every((b) => Object.keys(b).length === 1 && typeof b.type === "string")) {
      n.type = n.anyOf.map((b) => b.type);
      delete n.anyOf;
    }
    return n;
  }),
  "result's own properties only": (s) => oneLevel(s),
  "{type: object} (same $id dedupe)": (s) => ({ $id: s.$id, type: "object" }),
};

function compile(file, variant) {
  const { AjvJsonSchemaValidator } = require("@modelcontextprotocol/sdk/validation/ajv");
  const entries = JSON.parse(readFileSync(file, "utf8"));
  const schemas = entries.map((e) => e.tool.outputSchema).filter(Boolean).map(VARIANTS[variant]);
  const validator = new AjvJsonSchemaValidator();
  for (let i = 0; i < 200; i++) {
    validator.getValidator({ type: "object", properties: { [`p${i}`]: { anyOf: [{ type: "string" }, { type: "null" }] } } });
  }
  const start = performance.now();
  for (const schema of schemas) validator.getValidator(schema);
  const ms = performance.now() - start;
  // compilations: one per distinct `$id`, one per schema without one
  const distinct = new Set(schemas.map((s, i) => s.$id ?? i)).size;
  process.stdout.write(JSON.stringify({ ms, schemas: schemas.length, distinct, bytes: JSON.stringify(schemas).length }));
}

function main() {
  const [file, variant] = process.argv.slice(2);
  if (!file) throw new Error("usage: node ts_v1_output_schemas.mjs TOOLS_JSON");
  if (variant) return compile(file, variant);
  console.log(`${"output schemas".padEnd(34)} ${"schemas".padStart(7)} ${"compiled".padStart(8)} ` +
              `${"MB".padStart(5)} ${"compile ms".padStart(10)} ${"x served".padStart(8)}`);
  let served;
  for (const name of Object.keys(VARIANTS)) {
    const runs = [0, 1, 2].map(() => {
      const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), file, name], { encoding: "utf8" });
      if (child.status !== 0) throw new Error(child.stderr);
      return JSON.parse(child.stdout);
    });
    const ms = runs.map((r) => r.ms).sort((a, b) => a - b)[1];
    served ??= ms;
    const { schemas, distinct, bytes } = runs[0];
    console.log(`${name.padEnd(34)} ${String(schemas).padStart(7)} ${String(distinct).padStart(8)} ` +
                `${(bytes / 1e6).toFixed(2).padStart(5)} ${ms.toFixed(0).padStart(10)} ${(ms / served).toFixed(2).padStart(8)}`);
  }
}

main();

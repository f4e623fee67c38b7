// Validates {"schema", "instance"} JSON lines from stdin the way the TypeScript MCP clients
// check a tool result's structuredContent against its outputSchema, and answers one JSON line
// per request: {"v1": {"valid", "errors"}, "v2": {"valid", "errors"}}.
//
// v1: @modelcontextprotocol/sdk 1.x (validation/ajv-provider.js): `new Ajv(...)`, ajv's
//     draft-07 class, even for 2020-12 schemas.
// v2: @modelcontextprotocol/client 2.x (ajvProvider): `Ajv2020` for a schema without a
//     `$schema` (mcpgen never emits one).
// Both: {strict: false, validateFormats: true, validateSchema: false, allErrors: true} and
// ajv-formats, so `format` is asserted. A schema that does not compile is reported invalid with
// the compile error: the client would throw on it before validating anything.
//
// ajv and ajv-formats come from the npm prefix the tests install into (.ci/npm, or
// $MCPGEN_NPM_PREFIX), not from wherever node happens to resolve packages.

import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const prefix = process.env.MCPGEN_NPM_PREFIX || resolve(here, "..", "..", ".ci", "npm");
const require = createRequire(join(prefix, "node_modules", "_resolve_from_here.js"));

const Ajv = require("ajv").default;
const Ajv2020 = require("ajv/dist/2020.js").default;
const addFormats = require("ajv-formats").default;

const OPTIONS = { strict: false, validateFormats: true, validateSchema: false, allErrors: true };
const MAX_ERRORS = 20; // enough to see what failed; a deep mismatch can list thousands

function engine(Class) {
  const ajv = new Class({ ...OPTIONS });
  addFormats(ajv);
  return ajv;
}

const engines = { v1: engine(Ajv), v2: engine(Ajv2020) };

function check(ajv, schema, instance) {
  let validate;
  try {
    validate = ajv.compile(schema);
  } catch (error) {
    return { valid: false, errors: [{ keyword: "compile", message: String(error && error.message) }] };
  }
  try {
    const valid = validate(instance);
    const errors = (validate.errors || []).slice(0, MAX_ERRORS).map((e) => ({
      instancePath: e.instancePath,
      schemaPath: e.schemaPath,
      keyword: e.keyword,
      message: e.message,
      params: e.params,
    }));
    return { valid: Boolean(valid), errors };
  } finally {
    // Compiled schemas are cached by object; this process lives for a whole test module.
    ajv.removeSchema(schema);
  }
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (!line.trim()) continue;
  let answer;
  try {
    const { schema, instance } = JSON.parse(line);
    answer = {
      v1: check(engines.v1, schema, instance),
      v2: check(engines.v2, schema, instance),
    };
  } catch (error) {
    answer = { error: String(error && error.stack ? error.stack : error) };
  }
  process.stdout.write(JSON.stringify(answer) + "\n");
}

// Drive an MCP server with a real TypeScript client and print what that client reported.
//
//   node ts_client.mjs v1|v2 PLAN.json URL
//   node ts_client.mjs v1|v2 PLAN.json -- COMMAND [ARG...]      (stdio; the server gets this process's env)
//
// PLAN.json: {"calls": [{"name": "getPetById", "arguments": {"petId": 1}}, ...], "details": false}
//             (see also "client" below)
// ("details": true adds toolDetails [{name, annotations, icons}], serverInfo, capabilities and
// listPage {ttlMs, cacheScope} to the report)
//   a call with "keepContent": true also reports the result's content blocks as received;
//   "subscribe": [URI, ...] (v1 only) subscribes before the calls and, after them, waits for a
//   notifications/resources/updated of each (reported as `updates`; 60 s, then it gives up).
//   a call with "progress": true asks for progress notifications;
//   "toolsChanged": true counts notifications/tools/list_changed from the start and, after the
//   calls, waits for one (60 s, then it gives up) and lists again: `toolNames` (first listing),
//   `toolsChanged` (notifications heard), `toolNamesAfter`;
//   "client": {"elicit": {"action": "accept", "content": {...}}, "sample": "text", "logLevel": "info"}}
// `client` (optional) declares the elicitation/sampling capabilities and answers with those values;
// `logLevel` asks for log messages (logging/setLevel; the per-request level on 2026-07-28).
// v1 is @modelcontextprotocol/sdk 1.x (Claude Desktop, Cursor, VS Code today), v2 is
// @modelcontextprotocol/client 2.x. Both are used as an application would: default options, so
// structuredContent is validated against outputSchema (ajv + ajv-formats) exactly as they ship.
// The packages are loaded from $MCPGEN_NPM_PREFIX (default: the repo's .ci/npm).
//
// Prints one JSON object on stdout: {sdk, protocolVersion, connectMs, listMs, pages, tools,
// listError, firstCallMs, calls: [{name, ok, isError, error, contentTypes, texts, structured, progress, progressMessages}],
// logs: [data], elicitations: [message], samplings: [text]}.
// A thrown error is reported, never swallowed: `ok: false` with the client's own message.

import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const prefix = process.env.MCPGEN_NPM_PREFIX || resolve(here, "..", "..", ".ci", "npm");
// The packages live outside this file's tree; resolve them from the prefix (CommonJS builds).
const require = createRequire(join(prefix, "node_modules", "_resolve_from_here.js"));

const V1_PAGE_LIMIT = 10000; // 1.x has no cap of its own; stop a server that never ends its pages

function loadSdk(which) {
  if (which === "v1") {
    const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
    const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");
    const { StreamableHTTPClientTransport } = require("@modelcontextprotocol/sdk/client/streamableHttp.js");
    const types = require("@modelcontextprotocol/sdk/types.js");
    // 1.x names requests and notifications by their schemas.
    const methods = {
      "elicitation/create": types.ElicitRequestSchema,
      "sampling/createMessage": types.CreateMessageRequestSchema,
      "notifications/message": types.LoggingMessageNotificationSchema,
      "notifications/tools/list_changed": types.ToolListChangedNotificationSchema,
    };
    const call = (client, params, options) => client.callTool(params, undefined, options);
    return { Client, StdioClientTransport, StreamableHTTPClientTransport, methods, call };
  }
  if (which === "v2") {
    const { Client, StreamableHTTPClientTransport } = require("@modelcontextprotocol/client");
    const { StdioClientTransport } = require("@modelcontextprotocol/client/stdio");
    const methods = { "elicitation/create": "elicitation/create", "sampling/createMessage": "sampling/createMessage",
                      "notifications/message": "notifications/message",
                      "notifications/tools/list_changed": "notifications/tools/list_changed" };
    const call = (client, params, options) => client.callTool(params, options);
    return { Client, StdioClientTransport, StreamableHTTPClientTransport, methods, call };
  }
  throw new Error(`unknown sdk ${which}: use v1 or v2`);
}

function message(error) {
  return error instanceof Error ? error.message : String(error);
}

// Each SDK's own way of getting the whole list: 1.x pages by cursor in the application
// (and keeps the validators of the last page only), 2.x walks every page itself (listMaxPages 64).
async function listAll(sdk, client) {
  if (sdk === "v2") {
    const { tools } = await client.listTools();
    return { tools, pages: null };
  }
  const tools = [];
  let cursor;
  let pages = 0;
  do {
    const page = await client.listTools(cursor === undefined ? undefined : { cursor });
    tools.push(...page.tools);
    cursor = page.nextCursor;
    pages += 1;
  } while (cursor !== undefined && pages < V1_PAGE_LIMIT);
  return { tools, pages };
}

async function main() {
  const [sdk, planPath, ...target] = process.argv.slice(2);
  const plan = JSON.parse(readFileSync(planPath, "utf8"));
  const { Client, StdioClientTransport, StreamableHTTPClientTransport, methods, call: callTool } = loadSdk(sdk);
  const answers = plan.client ?? {};
  let transport;
  if (target[0] === "--") {
    transport = new StdioClientTransport({ command: target[1], args: target.slice(2), env: process.env, stderr: "inherit" });
  } else {
    transport = new StreamableHTTPClientTransport(new URL(target[0]));
  }
  const capabilities = {};
  if (answers.elicit) capabilities.elicitation = { form: {} };
  if (answers.sample) capabilities.sampling = {};
  const client = new Client({ name: "mcpgen-client-matrix", version: "1.0.0" }, { capabilities });
  const report = { sdk, protocolVersion: null, connectMs: null, listMs: null, pages: null, tools: null,
                   listError: null, firstCallMs: null, calls: [], logs: [], elicitations: [], samplings: [] };
  if (answers.elicit) {
    client.setRequestHandler(methods["elicitation/create"], async (request) => {
      report.elicitations.push(request.params.message);
      return answers.elicit;
    });
  }
  if (answers.sample) {
    client.setRequestHandler(methods["sampling/createMessage"], async (request) => {
      report.samplings.push(request.params.messages.map((m) => m.content?.text ?? "").join("\n"));
      return { role: "assistant", content: { type: "text", text: answers.sample }, model: "test-model", stopReason: "endTurn" };
    });
  }
  client.setNotificationHandler(methods["notifications/message"], (notification) => {
    report.logs.push(notification.params.data);
  });
  let start = performance.now();
  await client.connect(transport);
  report.connectMs = performance.now() - start;
  report.protocolVersion = client.getNegotiatedProtocolVersion?.() ?? transport.protocolVersion ?? transport._protocolVersion ?? null;
  if (answers.logLevel) {
    try {
      await client.setLoggingLevel(answers.logLevel);
    } catch (error) {
      report.setLevelError = message(error);
    }
  }
  start = performance.now();
  try {
    const { tools, pages } = await listAll(sdk, client);
    report.tools = tools.length;
    report.pages = pages;
    if (plan.details) {
      // What the application sees of each tool, of the server and of one tools/list page.
      report.toolDetails = tools.map((t) => ({ name: t.name, annotations: t.annotations ?? null, icons: t.icons ?? null }));
      report.serverInfo = client.getServerVersion?.() ?? null;
      report.capabilities = client.getServerCapabilities?.() ?? null;
      const page = await client.listTools();
      report.listPage = { ttlMs: page.ttlMs ?? null, cacheScope: page.cacheScope ?? null };
    }
  } catch (error) {
    report.listError = message(error);
  }
  report.listMs = performance.now() - start;
  let changed = 0;
  if (plan.toolsChanged) {
    client.setNotificationHandler(methods["notifications/tools/list_changed"], () => { changed += 1; });
    report.toolNames = (await listAll(sdk, client)).tools.map((t) => t.name);
  }
  const updates = [];
  if (plan.subscribe?.length) {
    const { ResourceUpdatedNotificationSchema } = require("@modelcontextprotocol/sdk/types.js");
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (note) => updates.push(note.params.uri));
    for (const uri of plan.subscribe) await client.subscribeResource({ uri });
  }
  for (const call of plan.calls ?? []) {
    start = performance.now();
    const entry = { name: call.name, ok: false, isError: null, error: null, contentTypes: [], texts: [], structured: false,
                    progress: [], progressMessages: [] };
    try {
      const options = call.progress
        ? { onprogress: (p) => { entry.progress.push(p.progress); entry.progressMessages.push(p.message ?? null); } }
        : undefined;
      const result = await callTool(client, { name: call.name, arguments: call.arguments ?? {} }, options);
      entry.ok = true;
      entry.isError = result.isError === true;
      entry.contentTypes = (result.content ?? []).map((c) => c.type);
      entry.texts = (result.content ?? []).filter((c) => c.type === "text").map((c) => c.text);
      entry.structured = result.structuredContent !== undefined;
      if (call.keepContent) entry.content = result.content ?? [];
    } catch (error) {
      entry.error = message(error);
    }
    entry.ms = performance.now() - start;
    if (report.firstCallMs === null) report.firstCallMs = entry.ms;
    report.calls.push(entry);
  }
  if (plan.subscribe?.length) {
    const deadline = performance.now() + 60000; // a hang guard: the update comes in milliseconds
    while (!plan.subscribe.every((uri) => updates.includes(uri)) && performance.now() < deadline) {
      await new Promise((done) => setTimeout(done, 20));
    }
    report.updates = updates;
  }
  if (plan.toolsChanged) {
    const deadline = performance.now() + 60000; // a hang guard: the notification comes in milliseconds
    while (changed === 0 && performance.now() < deadline) await new Promise((done) => setTimeout(done, 20));
    report.toolsChanged = changed;
    report.toolNamesAfter = (await listAll(sdk, client)).tools.map((t) => t.name);
  }
  await client.close();
  process.stdout.write(JSON.stringify(report) + "\n");
}

main().then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`ts_client: ${error?.stack ?? error}\n`);
    process.exit(1);
  },
);

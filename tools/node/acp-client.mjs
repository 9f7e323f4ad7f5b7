// acp-client.mjs drives `agentls acp` with the official ACP client library
// (@agentclientprotocol/sdk) for agentls's tests, and checks every message
// agentls sends against the JSON Schema the library ships
// (schema/v1/schema.json).
//
//   node acp-client.mjs PLAN.json
//
// PLAN: {cmd: [argv], env: {...}, fs: {read, write}, buffers: {path: text}, marker,
//        elicitation: {form?: {}, url?: {}} (the client's elicitation capability),
//        elicit: [{action, content?}] (answers to elicitation/create, in order),
//        follow: true (a url-mode elicitation/create is first followed with a
//        GET, redirects included, as the user's browser would),
//        steps: [{op: "initialize"} | {op: "new", cwd, mcpServers}
//               | {op: "new", cwd, mcpServers, additionalDirectories}
//               | {op: "prompt", text, answers: [optionId | "cancelled" | "cancel"], cancelOnText, cancelOnUpdate}
//               | {op: "load", cwd, sessionId?} (the steps after it prompt that session) | {op: "list", cwd}
//               | {op: "waitCommand", text: commandName} | {op: "close"}
//               | {op: "setMode", text: modeId} | {op: "setConfigOption", configId?, text: value}]}
// answers are used in order, one per session/request_permission: an option
// id selects it, "cancelled" answers cancelled, "cancel" sends
// session/cancel and then answers cancelled (as ACP asks of a client);
// cancelOnText sends session/cancel at the prompt's first agent_message_chunk;
// cancelOnUpdate at its first session/update whose JSON contains that text.
// An answer of answersWithChanges, {option, buffers: {path: text}, disk: {path: text}}, is the user
// changing the editor's buffers and files on disk while the card is open,
// then answering option. fs/write_text_file writes the editor's buffer (what
// fs/read_text_file reads back), never the disk.
// Prints one JSON object: every step's result or error, the updates,
// permission requests, fs calls, schema violations and the exit status;
// with a marker, whether a process with it in its command line was alive at
// each permission request and after each step.
import { spawn } from "node:child_process";
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { Readable, Writable } from "node:stream";
import { createRequire } from "node:module";
import * as acp from "@agentclientprotocol/sdk";
import Ajv2020 from "ajv/dist/2020.js";

const require = createRequire(import.meta.url);
const plan = JSON.parse(readFileSync(process.argv[2], "utf8"));
const schema = require("@agentclientprotocol/sdk/schema/v1/schema.json");

// One validator per $defs entry, looked up by method and direction.
const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: false });
ajv.addSchema(schema, "acp");
const defFor = {}; // "params:METHOD" | "result:METHOD" -> def name
for (const [name, def] of Object.entries(schema.$defs)) {
  if (!def["x-method"]) continue;
  const kind = name.endsWith("Response") ? "result" : "params";
  defFor[`${kind}:${def["x-method"]}:${def["x-side"]}`] = name;
}
const validators = {};
function check(direction, method, value) {
  const name = defFor[`${direction}:${method}:${direction === "params" ? "client" : "agent"}`]
    ?? defFor[`${direction}:${method}:protocol`];
  if (!name) return `no schema for ${direction} of ${method}`;
  validators[name] ??= ajv.getSchema(`acp#/$defs/${name}`);
  const v = validators[name];
  return v(value ?? {}) ? null : `${name}: ${ajv.errorsText(v.errors)}`;
}

const out = { steps: [], updates: [], permissions: [], elicitations: [], writes: [], reads: [], violations: [], sent: 0 };
const sentMethods = new Map(); // our request id -> method

function lines(onLine) {
  let buf = "";
  return new TransformStream({
    transform(chunk, ctl) {
      buf += new TextDecoder().decode(chunk, { stream: true });
      let i;
      while ((i = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        if (line.trim()) onLine(line);
      }
      ctl.enqueue(chunk);
    },
  });
}

// Everything agentls writes: an envelope per JSON-RPC 2.0, then its params
// or result against the schema's definition for its method.
function fromAgent(line) {
  out.sent++;
  let m;
  try { m = JSON.parse(line); } catch (e) { out.violations.push(`not JSON: ${line.slice(0, 200)}`); return; }
  if (m.jsonrpc !== "2.0") out.violations.push(`no jsonrpc 2.0: ${line.slice(0, 200)}`);
  let err = null;
  if (m.method) err = check("params", m.method, m.params);
  else if (m.error) err = typeof m.error.code === "number" && typeof m.error.message === "string" ? null : `bad error object: ${line}`;
  else if ("result" in m) err = check("result", sentMethods.get(m.id), m.result);
  else err = "neither request, notification nor response";
  if (err) out.violations.push(`${m.method ?? sentMethods.get(m.id)}: ${err}: ${line.slice(0, 300)}`);
}
function fromClient(line) {
  const m = JSON.parse(line);
  if (m.method && m.id !== undefined) sentMethods.set(m.id, m.method);
}

const child = spawn(plan.cmd[0], plan.cmd.slice(1), {
  env: { ...process.env, ...plan.env }, stdio: ["pipe", "pipe", "inherit"],
});
const exited = new Promise((res) => child.on("exit", (code, signal) => res({ code, signal })));
const input = Readable.toWeb(child.stdout).pipeThrough(lines(fromAgent));
const output = new TransformStream();
output.readable.pipeThrough(lines(fromClient)).pipeTo(Writable.toWeb(child.stdin)).catch(() => {});
const stream = acp.ndJsonStream(output.writable, input);

// markerRunning: is a process whose command line has plan.marker alive?
function markerRunning() {
  if (!plan.marker) return null;
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(plan.marker)) return true;
    } catch { /* gone */ }
  }
  return false;
}

const answers = [];
let cancelOnText = false;
let cancelOnUpdate = "";
const app = acp.client({ name: "agentls-test" })
  .onNotification("session/update", async ({ params, agent }) => {
    out.updates.push(params);
    if (cancelOnText && params.update?.sessionUpdate === "agent_message_chunk") {
      cancelOnText = false;
      await agent.notify("session/cancel", { sessionId: params.sessionId });
    }
    if (cancelOnUpdate && JSON.stringify(params).includes(cancelOnUpdate)) {
      cancelOnUpdate = "";
      await agent.notify("session/cancel", { sessionId: params.sessionId });
    }
  })
  .onRequest("session/request_permission", async ({ params, agent }) => {
    out.permissions.push({ ...params, markerRunning: markerRunning() });
    let a = answers.shift() ?? "cancelled";
    if (typeof a === "object") {
      Object.assign((plan.buffers ??= {}), a.buffers ?? {});
      for (const [path, text] of Object.entries(a.disk ?? {})) writeFileSync(path, text);
      a = a.option;
    }
    if (a === "cancel") {
      await agent.notify("session/cancel", { sessionId: params.sessionId });
      return { outcome: { outcome: "cancelled" } };
    }
    if (a === "cancelled") return { outcome: { outcome: "cancelled" } };
    return { outcome: { outcome: "selected", optionId: a } };
  })
  .onRequest("elicitation/create", async ({ params }) => {
    out.elicitations.push(params);
    if (plan.follow && params.mode === "url") {
      const res = await fetch(params.url);
      out.followed = (out.followed ?? []).concat([{ url: params.url, status: res.status }]);
    }
    return (plan.elicit ?? []).shift() ?? { action: "cancel" };
  })
  .onRequest("fs/write_text_file", ({ params }) => {
    out.writes.push(params);
    (plan.buffers ??= {})[params.path] = params.content;
    return {};
  })
  .onRequest("fs/read_text_file", ({ params }) => {
    out.reads.push(params.path);
    const text = plan.buffers?.[params.path];
    if (text === undefined) throw acp.RequestError.resourceNotFound(params.path);
    return { content: text };
  });

let sessionId = null;
await app.connectWith(stream, async (ctx) => {
  for (const step of plan.steps) {
    const rec = { op: step.op };
    try {
      switch (step.op) {
        case "initialize":
          rec.result = await ctx.request("initialize", {
            protocolVersion: acp.PROTOCOL_VERSION,
            clientCapabilities: { fs: { readTextFile: !!plan.fs?.read, writeTextFile: !!plan.fs?.write }, terminal: false,
              ...(plan.elicitation ? { elicitation: plan.elicitation } : {}) },
            clientInfo: { name: "agentls-test", version: "1" },
          });
          break;
        case "new":
          rec.result = await ctx.request("session/new", {
            cwd: step.cwd, mcpServers: step.mcpServers ?? [],
            ...(step.additionalDirectories ? { additionalDirectories: step.additionalDirectories } : {}),
          });
          sessionId = rec.result.sessionId;
          break;
        case "prompt":
          answers.push(...(step.answers ?? []), ...(step.answersWithChanges ?? []));
          cancelOnText = !!step.cancelOnText;
          cancelOnUpdate = step.cancelOnUpdate ?? "";
          rec.result = await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: step.text }] });
          break;
        case "load":
          rec.result = await ctx.request("session/load", { sessionId: step.sessionId ?? sessionId, cwd: step.cwd, mcpServers: [] });
          sessionId = step.sessionId ?? sessionId; // the steps after it continue the loaded session
          break;
        case "list":
          rec.result = await ctx.request("session/list", { cwd: step.cwd });
          break;
        case "setMode":
          rec.result = await ctx.request("session/set_mode", { sessionId, modeId: step.text });
          break;
        case "setConfigOption":
          rec.result = await ctx.request("session/set_config_option", { sessionId, configId: step.configId ?? "mode", value: step.text });
          break;
        case "waitCommand": {
          // Until an available_commands_update offers step.text (60 s at most).
          const offered = () => out.updates.some((u) => (u.update.availableCommands ?? []).some((c) => c.name === step.text));
          for (let i = 0; i < 600 && !offered(); i++) await new Promise((r) => setTimeout(r, 100));
          rec.result = { offered: offered() };
          break;
        }
        case "close":
          break;
      }
    } catch (e) {
      rec.error = { code: e.code, message: e.message, data: e.data };
    }
    rec.markerRunning = markerRunning();
    out.steps.push(rec);
  }
}).catch((e) => { out.connectionError = String(e?.stack ?? e); });

child.stdin.end();
const timer = setTimeout(() => child.kill("SIGKILL"), 20000);
out.exit = await exited;
clearTimeout(timer);
out.pid = child.pid;
process.stdout.write(JSON.stringify(out) + "\n");

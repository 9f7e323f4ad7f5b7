// LSP client that runs agent/run turns in one session and records what a
// plugin sees: every agent/event and every agent/run result.
//
// It starts `agentls serve` (events on, request-card approvals allowed once),
// runs each prompt of PROMPTS (a JSON array of strings) with agent/run, the
// second and later in the first one's session, then writes
// {results: [...], events: [...]} as JSON to OUT. The Go test checks them.
"use strict";

const { spawn } = require("child_process");
const fs = require("fs");
const rpc = require("vscode-languageserver-protocol/node");

function fail(msg) {
  process.stderr.write(`turns_client: FAIL: ${msg}\n`);
  process.exit(1);
}
const env = (name) => process.env[name] || fail(`environment variable ${name} is not set`);

const workspace = env("WORKSPACE");
const prompts = JSON.parse(env("PROMPTS"));

const proc = spawn(env("AGENTLS_BIN"), ["serve"], { stdio: ["pipe", "pipe", "inherit"] });
const exited = new Promise((resolve) => proc.on("exit", (code, signal) => resolve({ code, signal })));
const conn = rpc.createProtocolConnection(new rpc.StreamMessageReader(proc.stdout), new rpc.StreamMessageWriter(proc.stdin));

conn.onRequest("agent/requestApproval", () => ({ outcome: "selected", optionId: "allow_once" }));
const events = [];
conn.onNotification("agent/event", (e) => events.push(e));

async function main() {
  conn.listen();
  await conn.sendRequest("initialize", {
    processId: process.pid,
    rootUri: "file://" + workspace,
    workspaceFolders: [{ uri: "file://" + workspace, name: "ws" }],
    capabilities: { experimental: { agentls: { approvals: true, events: true } } },
  });
  conn.sendNotification("initialized", {});
  const results = [];
  let sessionId;
  for (const prompt of prompts) {
    const r = await conn.sendRequest("agent/run", sessionId ? { prompt, sessionId } : { prompt });
    results.push(r);
    sessionId = sessionId || r.sessionId;
  }
  // Every event of a task comes before its result; wait for the last done.
  for (let i = 0; i < 100 && events.filter((e) => e.type === "done").length < prompts.length; i++) {
    await new Promise((r) => setTimeout(r, 50));
  }
  fs.writeFileSync(env("OUT"), JSON.stringify({ results, events }));
  await conn.sendRequest("shutdown");
  conn.sendNotification("exit");
  const { code, signal } = await exited;
  if (code !== 0) fail(`agentls exited with ${code} (signal ${signal}), want 0`);
  process.exit(0);
}

const timer = setTimeout(() => fail("timed out after 120 s"), 120000);
timer.unref();
main().catch((err) => fail(err && err.stack ? err.stack : String(err)));

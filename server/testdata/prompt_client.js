// LSP client for agentls's MCP prompts: listed per server, offered as code
// actions when they need no argument, run with agentls.prompt.
//
// It starts `agentls serve` (request-card approvals), waits for SERVER
// (server-everything) to connect and list simple-prompt and args-prompt,
// checks the code actions offer simple-prompt and not args-prompt (it
// needs city), runs simple-prompt from its code action and args-prompt
// with agentls.prompt {city: CITY}, approving each prompts/get card, and
// checks that agentls.prompt without city fails saying so. The Go test
// checks what the model got.
"use strict";

const { spawn } = require("child_process");
const fs = require("fs");
const path = require("path");
const rpc = require("vscode-languageserver-protocol/node");

function fail(msg) {
  process.stderr.write(`prompt_client: FAIL: ${msg}\n`);
  process.exit(1);
}
const env = (name) => process.env[name] || fail(`environment variable ${name} is not set`);
const expect = (cond, msg) => cond || fail(msg);

const workspace = env("WORKSPACE");
const serverName = env("SERVER");

const proc = spawn(env("AGENTLS_BIN"), ["serve"], { stdio: ["pipe", "pipe", "inherit"] });
const exited = new Promise((resolve) => proc.on("exit", (code, signal) => resolve({ code, signal })));
const conn = rpc.createProtocolConnection(new rpc.StreamMessageReader(proc.stdout), new rpc.StreamMessageWriter(proc.stdin));

const approvals = [];
conn.onRequest("agent/requestApproval", (a) => {
  approvals.push(a);
  return { outcome: "selected", optionId: "allow_once" };
});
const shown = [];
conn.onNotification("window/showMessage", (p) => shown.push(p.message));
const begins = [];
conn.onRequest("window/workDoneProgress/create", () => null);
conn.onNotification("$/progress", (p) => { if (p.value.kind === "begin") begins.push(p.value.message); });

async function waitFor(what, cond) {
  for (let i = 0; i < 600; i++) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  fail(`timed out waiting for ${what}`);
}

// waitTask waits until the task of a command ends (its summary message).
async function waitTask(n) {
  await waitFor(`task ${n} to end`, () => shown.filter((m) => m.startsWith("agentls: ")).length >= n);
}

async function main() {
  conn.listen();
  await conn.sendRequest("initialize", {
    processId: process.pid,
    rootUri: "file://" + workspace,
    workspaceFolders: [{ uri: "file://" + workspace, name: "ws" }],
    capabilities: {
      window: { workDoneProgress: true },
      textDocument: { codeAction: { codeActionLiteralSupport: { codeActionKind: { valueSet: ["source", "quickfix"] } } } },
      experimental: { agentls: { approvals: true, events: false } },
    },
  });
  conn.sendNotification("initialized", {});
  const docPath = path.join(workspace, "main.go");
  fs.writeFileSync(docPath, "package main\n");
  const docURI = "file://" + docPath;
  conn.sendNotification("textDocument/didOpen", { textDocument: { uri: docURI, languageId: "go", version: 1, text: "package main\n" } });

  let row;
  await waitFor(`${serverName} to connect`, async () => {
    const { servers } = await conn.sendRequest("agent/mcp/servers", {});
    row = servers.find((s) => s.name === serverName);
    return row && row.state === "connected";
  });
  const prompts = row.prompts || [];
  const args = prompts.find((p) => p.name === "args-prompt");
  expect(prompts.some((p) => p.name === "simple-prompt") && args, `prompts ${JSON.stringify(prompts)}`);
  const city = (args.arguments || []).find((a) => a.name === "city");
  expect(city && city.required === true, `args-prompt arguments ${JSON.stringify(args.arguments)}, want city required`);

  const actions = await conn.sendRequest("textDocument/codeAction", {
    textDocument: { uri: docURI }, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
    context: { diagnostics: [], triggerKind: 1 },
  });
  const titles = actions.map((a) => a.title);
  const simple = actions.find((a) => a.title === `agentls: Prompt ${serverName} · simple-prompt`);
  expect(simple && simple.command.command === "agentls.prompt", `code actions ${JSON.stringify(titles)} lack simple-prompt`);
  expect(!titles.some((t) => t.includes("args-prompt")), `args-prompt (city required) offered as a code action: ${JSON.stringify(titles)}`);

  const r1 = await conn.sendRequest("workspace/executeCommand", simple.command);
  expect(r1 && r1.taskId, `agentls.prompt returned ${JSON.stringify(r1)}`);
  await waitTask(1);

  let refused = null;
  try {
    await conn.sendRequest("workspace/executeCommand", { command: "agentls.prompt", arguments: [{ server: serverName, prompt: "args-prompt" }] });
  } catch (err) {
    refused = err.message;
  }
  expect(refused && refused.includes("needs city"), `agentls.prompt without city: ${refused}`);

  const r2 = await conn.sendRequest("workspace/executeCommand", {
    command: "agentls.prompt", arguments: [{ server: serverName, prompt: "args-prompt", arguments: { city: env("CITY") } }],
  });
  expect(r2 && r2.taskId && r2.taskId !== r1.taskId, `second agentls.prompt returned ${JSON.stringify(r2)}`);
  await waitTask(2);

  expect(approvals.length === 2, `${approvals.length} approval cards, want 2 (one prompts/get each)`);
  approvals.forEach((a) => expect(a.kind === "mcp_call" && a.tool === "prompts/get" && a.server === serverName, `card ${JSON.stringify(a)}`));
  expect(approvals[1].detail.includes(env("CITY")), `the card does not show the arguments: ${approvals[1].detail}`);
  expect(begins[0] === `${serverName} · simple-prompt` && begins[1] === `${serverName} · args-prompt`, `progress begins ${JSON.stringify(begins)}`);
  shown.forEach((m) => expect(!m.includes("error"), `a task failed: ${m}`));

  await conn.sendRequest("shutdown");
  conn.sendNotification("exit");
  const { code, signal } = await exited;
  expect(code === 0, `agentls exited with ${code} (signal ${signal}), want 0`);
  process.exit(0);
}

const timer = setTimeout(() => fail("timed out after 120 s"), 120000);
timer.unref();
main().catch((err) => fail(err && err.stack ? err.stack : String(err)));

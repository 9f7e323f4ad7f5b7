// End-to-end LSP client for agentls, on Microsoft's vscode-languageserver-protocol.
//
// It starts `agentls serve`, announces the capabilities that select one
// approval path (AGENTLS_PATH = 1, 2 or 3; docs/protocol.md section 4), runs one
// agent task whose model calls a real MCP server's tool, approves the call
// through that path and checks the events, the progress and the result.
// Any mismatch exits non-zero with a message saying what was expected.
//
// Environment: AGENTLS_BIN, AGENTLS_PATH, WORKSPACE, TOOL (namespaced tool
// name), SERVER (its server), ECHO (the text the tool must return), ARGS, PROMPT,
// FINAL_TEXT; agentls itself gets AGENTLS_CONFIG, XDG_STATE_HOME, the key.
"use strict";

const { spawn } = require("child_process");
const path = require("path");
const fs = require("fs");
const rpc = require("vscode-languageserver-protocol/node");

const env = (name) => {
  const v = process.env[name];
  if (!v) fail(`environment variable ${name} is not set`);
  return v;
};

function fail(msg) {
  process.stderr.write(`e2e_client: FAIL: ${msg}\n`);
  process.exit(1);
}

function expect(cond, msg) {
  if (!cond) fail(msg);
}

const mode = Number(env("AGENTLS_PATH"));
const workspace = env("WORKSPACE");
const tool = env("TOOL");
const serverName = env("SERVER");
const echo = env("ECHO");
// ARGS (optional): what the approval card's detail must show of the
// arguments; by default the echoed text.
const args = process.env.ARGS ?? echo.replace(/^Echo: /, "");
const prompt = env("PROMPT");
const finalText = env("FINAL_TEXT");

const proc = spawn(env("AGENTLS_BIN"), ["serve"], { stdio: ["pipe", "pipe", "inherit"] });
let exitCode = null;
const exited = new Promise((resolve) => proc.on("exit", (code, signal) => { exitCode = code; resolve({ code, signal }); }));

const conn = rpc.createProtocolConnection(
  new rpc.StreamMessageReader(proc.stdout),
  new rpc.StreamMessageWriter(proc.stdin),
);

const seen = { events: [], progress: [], creates: [], shown: [], logs: [], diagnostics: [], requestApproval: [], showMessageRequest: [] };

conn.onRequest("window/workDoneProgress/create", (p) => { seen.creates.push(p.token); return null; });
conn.onNotification("$/progress", (p) => {
  expect(seen.creates.includes(p.token), `$/progress for token ${p.token} before window/workDoneProgress/create`);
  seen.progress.push(p.value);
});
conn.onNotification("agent/event", (e) => seen.events.push(e));
conn.onNotification("window/showMessage", (p) => seen.shown.push(p.message));
conn.onNotification("window/logMessage", (p) => seen.logs.push(p.message));

// the request card: the plugin's own approval UI.
conn.onRequest("agent/requestApproval", (a) => {
  expect(mode === 1, `agent/requestApproval sent to a client without approvals: true (path ${mode})`);
  seen.requestApproval.push(a);
  return { outcome: "selected", optionId: "allow_once" };
});

// the message card: a plain LSP client with window/showMessageRequest.
conn.onRequest("window/showMessageRequest", (p) => {
  expect(mode === 2, `window/showMessageRequest sent on path ${mode}`);
  seen.showMessageRequest.push(p);
  const allow = (p.actions || []).find((a) => a.title === "Allow once");
  expect(allow, `showMessageRequest actions ${JSON.stringify(p.actions)} lack "Allow once"`);
  return allow;
});

// the code-action card: a client that cannot be asked answers with code actions.
let approvedByCodeAction = false;
conn.onNotification("textDocument/publishDiagnostics", (p) => {
  seen.diagnostics.push(p);
  const mine = p.diagnostics.filter((d) => d.source === "agentls");
  if (mode !== 3 || mine.length === 0 || approvedByCodeAction) return;
  approvedByCodeAction = true;
  conn.sendRequest("textDocument/codeAction", {
    textDocument: { uri: p.uri },
    range: mine[0].range,
    context: { diagnostics: mine, triggerKind: 1 },
  }).then((actions) => {
    const want = `agentls: Allow once: ${serverName} · ${tool.slice(serverName.length + 2)}`;
    expect(actions.length > 0 && actions[0].title === want, `first code action is ${JSON.stringify(actions[0])}, want "${want}"`);
    expect(actions[0].command.command === "agentls.approve", `approval action runs ${actions[0].command.command}`);
    return conn.sendRequest("workspace/executeCommand", actions[0].command);
  }).catch((err) => fail(`approving by code action: ${err.message}`));
});

const docPath = path.join(workspace, "main.go");
const docURI = "file://" + docPath;
fs.writeFileSync(docPath, "package main\n");

async function waitConnected() {
  for (let i = 0; i < 600; i++) {
    const { servers } = await conn.sendRequest("agent/mcp/servers", {});
    const row = servers.find((s) => s.name === serverName);
    expect(row, `agent/mcp/servers lacks ${serverName}: ${JSON.stringify(servers)}`);
    if (row.state === "connected") return row;
    expect(["connecting", "stopped"].includes(row.state), `${serverName} is ${row.state}: ${row.error || ""}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  fail(`${serverName} never connected`);
}

async function main() {
  conn.listen();
  const window = { workDoneProgress: true };
  if (mode === 2) window.showMessage = { messageActionItem: { additionalPropertiesSupport: false } };
  const init = await conn.sendRequest("initialize", {
    processId: process.pid,
    rootUri: "file://" + workspace,
    workspaceFolders: [{ uri: "file://" + workspace, name: "ws" }],
    capabilities: {
      window,
      workspace: { applyEdit: true },
      textDocument: { codeAction: { codeActionLiteralSupport: { codeActionKind: { valueSet: ["source", "quickfix"] } } } },
      experimental: { agentls: { approvals: mode === 1, events: mode === 1 } },
    },
  });
  expect(init.serverInfo && init.serverInfo.name === "agentls", `serverInfo ${JSON.stringify(init.serverInfo)}`);
  expect(init.capabilities.experimental.agentls.version === 1, "experimental.agentls.version is not 1");
  conn.sendNotification("initialized", {});
  conn.sendNotification("textDocument/didOpen", { textDocument: { uri: docURI, languageId: "go", version: 1, text: "package main\n" } });

  const row = await waitConnected();
  const toolRow = row.tools.find((t) => t.name === tool);
  expect(toolRow && toolRow.policy === "ask", `${tool} row ${JSON.stringify(toolRow)}, want policy ask`);

  const result = await conn.sendRequest("agent/run", { prompt, textDocument: { uri: docURI } });
  expect(result.stopReason === "end_turn", `stopReason ${result.stopReason} (${result.error || ""}), want end_turn`);
  expect(result.text === finalText, `text ${JSON.stringify(result.text)}, want ${JSON.stringify(finalText)}`);

  // The approval went through the path this client selects.
  if (mode === 1) {
    expect(seen.requestApproval.length === 1, `${seen.requestApproval.length} agent/requestApproval, want 1`);
    const a = seen.requestApproval[0];
    expect(a.kind === "mcp_call" && a.server === serverName && a.taskId === result.taskId, `approval ${JSON.stringify(a)}`);
    expect(a.detail.includes(args), `approval detail ${JSON.stringify(a.detail)} lacks the arguments`);
  } else if (mode === 2) {
    expect(seen.showMessageRequest.length === 1, `${seen.showMessageRequest.length} showMessageRequest, want 1`);
    expect(seen.showMessageRequest[0].type === 2, "showMessageRequest is not a Warning");
  } else {
    expect(approvedByCodeAction, "no approval diagnostic arrived");
    expect(seen.shown.some((m) => m.startsWith("agentls: approval needed: ")), `showMessage ${JSON.stringify(seen.shown)}`);
    const last = seen.diagnostics.filter((p) => p.uri === docURI).pop();
    expect(last && last.diagnostics.length === 0, "the approval diagnostic was not cleared");
  }

  // Events: only for a client that asked for them.
  if (mode === 1) {
    const types = seen.events.map((e) => e.type);
    seen.events.forEach((e, i) => expect(e.seq === seen.events[0].seq + i, `event seq ${e.seq} at ${i}: not increasing by one`));
    const call = seen.events.find((e) => e.type === "tool_call" && e.tool === tool);
    expect(call, `no tool_call event for ${tool}: ${types}`);
    const approval = seen.events.filter((e) => e.type === "approval").map((e) => e.state).join(",");
    expect(approval === "waiting,resolved", `approval events ${approval}`);
    const res = seen.events.find((e) => e.type === "tool_result");
    expect(res && res.output.includes(echo) && !res.isError, `tool_result ${JSON.stringify(res)}, want output with ${echo}`);
    const done = seen.events[seen.events.length - 1];
    expect(done.type === "done" && done.stopReason === "end_turn" && done.text === finalText, `last event ${JSON.stringify(done)}`);
  } else {
    expect(seen.events.length === 0, `${seen.events.length} agent/event sent without events: true`);
  }

  // Progress, for every client; one without events gets agentls's notices
  // there too (the first turn's: the window in use).
  const kinds = seen.progress.map((v) => v.kind).join(",");
  const progress = mode === 1 ? seen.progress : seen.progress.filter((v, i) => i !== 1);
  if (mode !== 1) {
    expect(kinds === "begin,report,report,end", `progress kinds ${kinds}, want begin,report,report,end`);
    expect(/^the model's context window: \d+ tokens/.test(seen.progress[1].message), `notice ${JSON.stringify(seen.progress[1])}`);
  } else {
    expect(kinds === "begin,report,end", `progress kinds ${kinds}, want begin,report,end`);
  }
  expect(progress[0].title === "agentls" && progress[0].message === prompt.split("\n")[0], `begin ${JSON.stringify(progress[0])}`);
  expect(progress[1].message === `calling ${tool}`, `report ${JSON.stringify(progress[1])}`);
  expect(progress[2].message === finalText, `end ${JSON.stringify(progress[2])}`);

  await conn.sendRequest("shutdown");
  conn.sendNotification("exit");
  const { code, signal } = await exited;
  expect(code === 0, `agentls exited with ${code} (signal ${signal}), want 0 after shutdown and exit`);
  process.stdout.write(JSON.stringify({ path: mode, taskId: result.taskId, events: seen.events.length, progress: kinds }) + "\n");
  process.exit(0);
}

const timer = setTimeout(() => fail("timed out after 120 s"), 120000);
timer.unref();
main().catch((err) => fail(err && err.stack ? err.stack : String(err)));

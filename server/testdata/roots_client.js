// LSP client for agentls's roots: the workspace folders become every MCP
// server's roots, and workspace/didChangeWorkspaceFolders reaches them.
//
// It starts `agentls serve` with WORKSPACE as its only folder, waits until
// SERVER (server-everything, logging at info) has listed its roots once,
// adds WORKSPACE2 and waits for the server to list 2 roots, removes
// WORKSPACE and waits for it to list again, then runs PROMPT (whose model
// calls the server's get-roots-list; the Go test checks what it returned).
// Any mismatch exits non-zero with a message saying what was expected.
"use strict";

const { spawn } = require("child_process");
const rpc = require("vscode-languageserver-protocol/node");

function fail(msg) {
  process.stderr.write(`roots_client: FAIL: ${msg}\n`);
  process.exit(1);
}
const env = (name) => process.env[name] || fail(`environment variable ${name} is not set`);
const expect = (cond, msg) => cond || fail(msg);

const ws1 = env("WORKSPACE");
const ws2 = env("WORKSPACE2");
const serverName = env("SERVER");

const proc = spawn(env("AGENTLS_BIN"), ["serve"], { stdio: ["pipe", "pipe", "inherit"] });
const exited = new Promise((resolve) => proc.on("exit", (code, signal) => resolve({ code, signal })));
const conn = rpc.createProtocolConnection(new rpc.StreamMessageReader(proc.stdout), new rpc.StreamMessageWriter(proc.stdin));

const logs = [];
conn.onNotification("window/logMessage", (p) => logs.push(p.message));

const rootsLogs = (n) => logs.filter((m) => m.includes(`mcp: ${serverName}: [info] everything-server: Roots updated: ${n} root(s)`)).length;

async function waitFor(what, cond) {
  for (let i = 0; i < 600; i++) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  fail(`timed out waiting for ${what}; log: ${JSON.stringify(logs)}`);
}

async function main() {
  conn.listen();
  const init = await conn.sendRequest("initialize", {
    processId: process.pid,
    rootUri: "file://" + ws1,
    workspaceFolders: [{ uri: "file://" + ws1, name: "one" }],
    capabilities: { workspace: { workspaceFolders: true } },
  });
  const wf = init.capabilities.workspace && init.capabilities.workspace.workspaceFolders;
  expect(wf && wf.supported && wf.changeNotifications === true, `workspace.workspaceFolders ${JSON.stringify(wf)}, want supported with changeNotifications`);
  conn.sendNotification("initialized", {});

  await waitFor(`${serverName} to connect`, async () => {
    const { servers } = await conn.sendRequest("agent/mcp/servers", {});
    const row = servers.find((s) => s.name === serverName);
    expect(row && ["connecting", "stopped", "connected"].includes(row.state), `server row ${JSON.stringify(row)}`);
    return row.state === "connected";
  });
  // server-everything lists the roots once, shortly after it initialized.
  await waitFor("the server's first roots/list", () => rootsLogs(1) >= 1);

  conn.sendNotification("workspace/didChangeWorkspaceFolders", { event: { added: [{ uri: "file://" + ws2, name: "two" }], removed: [] } });
  await waitFor("the server to list 2 roots", () => rootsLogs(2) >= 1);

  const before = rootsLogs(1);
  conn.sendNotification("workspace/didChangeWorkspaceFolders", { event: { added: [], removed: [{ uri: "file://" + ws1, name: "one" }] } });
  await waitFor("the server to list 1 root again", () => rootsLogs(1) > before);

  const result = await conn.sendRequest("agent/run", { prompt: env("PROMPT") });
  expect(result.stopReason === "end_turn", `stopReason ${result.stopReason} (${result.error || ""}), want end_turn`);
  expect(result.text === env("FINAL_TEXT"), `text ${JSON.stringify(result.text)}`);

  await conn.sendRequest("shutdown");
  conn.sendNotification("exit");
  const { code, signal } = await exited;
  expect(code === 0, `agentls exited with ${code} (signal ${signal}), want 0`);
  process.exit(0);
}

const timer = setTimeout(() => fail("timed out after 120 s"), 120000);
timer.unref();
main().catch((err) => fail(err && err.stack ? err.stack : String(err)));

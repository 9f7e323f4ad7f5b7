// An LSP client for agentls that plays an editor and a user who keeps
// typing while agentls's edits wait for approval, on Microsoft's
// vscode-languageserver-protocol.
//
// It holds the buffers it opened and applies workspace/applyEdit to them as
// an editor does: a TextDocumentEdit that names a version other than the
// buffer's is refused (applied: false), an applied edit bumps the version
// and is told back with didChange. Three tasks, one file each:
//
//   b.txt  edit_file; the user types a line while the card is open.
//   c.txt  edit_file; the user types a line just as the edit arrives (after
//          agentls compared), so the editor refuses the stale version.
//   d.txt  write_file; the user types a line while the card is open.
//
// The user's line must survive every time; b.txt and c.txt get the agent's
// replacement too, d.txt gets no edit at all. Any mismatch exits non-zero.
//
// Environment: AGENTLS_BIN, WORKSPACE; agentls itself gets AGENTLS_CONFIG,
// XDG_STATE_HOME and the key.
"use strict";

const { spawn } = require("child_process");
const path = require("path");
const fs = require("fs");
const rpc = require("vscode-languageserver-protocol/node");

function fail(msg) {
  process.stderr.write(`stale_edit_client: FAIL: ${msg}\n`);
  process.exit(1);
}
function expect(cond, msg) {
  if (!cond) fail(msg);
}

const workspace = process.env.WORKSPACE;
const proc = spawn(process.env.AGENTLS_BIN, ["serve"], { stdio: ["pipe", "pipe", "inherit"] });
const exited = new Promise((resolve) => proc.on("exit", (code, signal) => resolve({ code, signal })));
const conn = rpc.createProtocolConnection(new rpc.StreamMessageReader(proc.stdout), new rpc.StreamMessageWriter(proc.stdin));

const uriOf = (name) => "file://" + path.join(workspace, name);
const buffers = new Map(); // uri -> {version, text}
const applyEdits = []; // every workspace/applyEdit's params
const refusals = []; // the versions refused as stale

// offsetAt turns an LSP position into an index of text (JS strings count
// UTF-16 code units, as LSP positions do).
function offsetAt(text, pos) {
  let off = 0;
  for (let line = 0; line < pos.line; line++) {
    const nl = text.indexOf("\n", off);
    if (nl < 0) return text.length;
    off = nl + 1;
  }
  const end = text.indexOf("\n", off);
  return Math.min(off + pos.character, end < 0 ? text.length : end);
}

function applyTo(text, edits) {
  const sorted = [...edits].sort((a, b) => offsetAt(text, b.range.start) - offsetAt(text, a.range.start));
  for (const e of sorted) {
    text = text.slice(0, offsetAt(text, e.range.start)) + e.newText + text.slice(offsetAt(text, e.range.end));
  }
  return text;
}

// type is the user changing a buffer: a new version, told with didChange.
function type(uri, text) {
  const b = buffers.get(uri);
  b.version++;
  b.text = text;
  conn.sendNotification("textDocument/didChange", { textDocument: { uri, version: b.version }, contentChanges: [{ text }] });
}

const typed = "typed while the card was open\n";
const typedLate = "typed as the edit arrived\n";
let raced = false;

conn.onRequest("window/workDoneProgress/create", () => null);
conn.onNotification("$/progress", () => {});
conn.onNotification("window/logMessage", () => {});
conn.onNotification("window/showMessage", () => {});
conn.onNotification("textDocument/publishDiagnostics", () => {});
conn.onNotification("agent/event", () => {});

conn.onRequest("agent/requestApproval", (a) => {
  // The user types into the file whose edit is being asked about, then
  // approves it.
  for (const name of ["b.txt", "d.txt"]) {
    if (a.title.includes(name)) type(uriOf(name), buffers.get(uriOf(name)).text + typed);
  }
  return { outcome: "selected", optionId: "allow_once" };
});

conn.onRequest("workspace/applyEdit", ({ edit }) => {
  applyEdits.push(edit);
  expect(!edit.changes, `applyEdit with changes (no version) to a client with documentChanges: ${JSON.stringify(edit)}`);
  for (const dc of edit.documentChanges || []) {
    const uri = dc.textDocument.uri;
    const b = buffers.get(uri);
    expect(b, `an edit of ${uri}, which is not open`);
    if (uri === uriOf("c.txt") && !raced) {
      raced = true;
      type(uri, b.text + typedLate);
    }
    if (dc.textDocument.version !== b.version) {
      refusals.push({ uri, sent: dc.textDocument.version, buffer: b.version });
      return { applied: false, failureReason: `${uri} is at version ${b.version}, the edit is for ${dc.textDocument.version}` };
    }
  }
  for (const dc of edit.documentChanges || []) {
    const b = buffers.get(dc.textDocument.uri);
    type(dc.textDocument.uri, applyTo(b.text, dc.edits));
  }
  return { applied: true };
});

async function main() {
  conn.listen();
  await conn.sendRequest("initialize", {
    processId: process.pid,
    rootUri: "file://" + workspace,
    workspaceFolders: [{ uri: "file://" + workspace, name: "ws" }],
    capabilities: {
      window: { workDoneProgress: true },
      workspace: { applyEdit: true, workspaceEdit: { documentChanges: true } },
      experimental: { agentls: { approvals: true, events: true } },
    },
  });
  conn.sendNotification("initialized", {});
  for (const name of ["b.txt", "c.txt", "d.txt"]) {
    const text = fs.readFileSync(path.join(workspace, name), "utf8");
    buffers.set(uriOf(name), { version: 1, text });
    conn.sendNotification("textDocument/didOpen", { textDocument: { uri: uriOf(name), languageId: "plaintext", version: 1, text } });
  }
  for (const prompt of ["edit b.txt", "edit c.txt", "write d.txt"]) {
    const r = await conn.sendRequest("agent/run", { prompt });
    expect(r.stopReason === "end_turn", `${prompt}: stopReason ${r.stopReason} (${r.error || ""})`);
  }

  const b = buffers.get(uriOf("b.txt")).text;
  expect(b === "alpha\nBETA-BY-AGENT\n" + typed, `b.txt's buffer is ${JSON.stringify(b)}: the user's line or the agent's edit was lost`);
  const c = buffers.get(uriOf("c.txt")).text;
  expect(c === "alpha\nBETA-BY-AGENT\n" + typedLate, `c.txt's buffer is ${JSON.stringify(c)}: the user's late line or the agent's edit was lost`);
  expect(refusals.length === 1 && refusals[0].uri === uriOf("c.txt"), `refused as stale: ${JSON.stringify(refusals)}, want c.txt's first edit alone`);
  const d = buffers.get(uriOf("d.txt")).text;
  expect(d === "alpha\nbeta\n" + typed, `d.txt's buffer is ${JSON.stringify(d)}: write_file overwrote the user's line`);
  expect(!applyEdits.some((e) => JSON.stringify(e).includes("all new")), "write_file's text reached the editor after the user changed the buffer");
  for (const name of ["b.txt", "c.txt", "d.txt"]) {
    const disk = fs.readFileSync(path.join(workspace, name), "utf8");
    expect(disk === "alpha\nbeta\n", `${name} on disk is ${JSON.stringify(disk)}: the edits belong to the buffers`);
  }

  await conn.sendRequest("shutdown");
  conn.sendNotification("exit");
  const { code } = await exited;
  expect(code === 0, `agentls exited with ${code}`);
  process.stdout.write(JSON.stringify({ applyEdits: applyEdits.length, refusals }) + "\n");
  process.exit(0);
}

const timer = setTimeout(() => fail("timed out after 120 s"), 120000);
timer.unref();
main().catch((err) => fail(err && err.stack ? err.stack : String(err)));

'use strict';
// Runs a real agentls for the integration tests and connects the extension's
// code to it through vscode-languageserver-protocol, the protocol layer
// vscode-languageclient is built on (its own dependency, same version). What
// VS Code itself would do for the client (apply workspace edits, accept
// progress tokens, open documents) is done here on in-memory documents.

const { spawn } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const readline = require('readline');
const { createProtocolConnection, StreamMessageReader, StreamMessageWriter } = require('vscode-languageserver-protocol/node');
const { TextDocument } = require('vscode-languageserver-textdocument');
const { announce } = require('../../lib/capabilities');

const BIN = path.resolve(__dirname, '..', '..', '.test-bin');

/** binaries returns {agentls, fakemodel, faultserver}, or skips the test (fails under CI=true) when they were not built. */
function binaries(t) {
  const missing = path.join(BIN, 'missing');
  const agentls = path.join(BIN, 'agentls');
  const fakemodel = path.join(BIN, 'fakemodel');
  const faultserver = path.join(BIN, 'faultserver');
  if (fs.existsSync(missing) || ![agentls, fakemodel, faultserver].every((p) => fs.existsSync(p))) {
    const why = fs.existsSync(missing) ? fs.readFileSync(missing, 'utf8') : 'run `npm test` (its pretest step builds them)';
    if (process.env.CI === 'true') throw new Error(`agentls test binaries are missing (CI=true, so this fails): ${why}`);
    t.skip(`agentls test binaries are missing: ${why}`);
    return null;
  }
  return { agentls, fakemodel, faultserver };
}

/** withTimeout rejects when p has not settled within ms; every wait in these tests is bounded. */
function withTimeout(p, ms, what) {
  let timer;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms); }),
  ]);
}

/** waitUntil polls cond until it returns a truthy value. */
async function waitUntil(cond, ms, what) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await cond();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** processesMatching lists live processes whose command line contains marker (Linux /proc). */
function processesMatching(marker) {
  const out = [];
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      if (state === 'Z' || state === 'X') continue;
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
      if (cmd.includes(marker)) out.push(`${pid}: ${cmd}`);
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/**
 * fakeModel starts test/fakemodel with a script of turns (modeltest.Turn's
 * fields). Returns {url, requests(), close()}.
 */
async function fakeModel(t, bins, turns) {
  const child = spawn(bins.fakemodel, [], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = readline.createInterface({ input: child.stdout });
  const waiting = [];
  lines.on('line', (l) => { const w = waiting.shift(); if (w) w(JSON.parse(l)); });
  const next = (what) => withTimeout(new Promise((resolve) => waiting.push(resolve)), 10000, what);
  child.stdin.write(JSON.stringify(turns) + '\n');
  const { url } = await next('the fake model to listen');
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const close = async () => {
    child.stdin.end();
    await withTimeout(exited, 5000, 'the fake model to exit').catch(() => child.kill('SIGKILL'));
  };
  t.after(close);
  return {
    url,
    async requests() {
      child.stdin.write('requests\n');
      return next('the fake model\'s requests');
    },
    close,
  };
}

/**
 * startAgentls runs agentls serve in a fresh workspace and returns a
 * connection the extension code can use in place of a LanguageClient.
 * files: {relative path: text} written into the workspace (or a function of
 * the workspace's path returning them). modelUrl: the fake
 * model's URL (omit for no model). extraConfig: TOML appended to the
 * user config. setup(conn): called before initialize,
 * as the extension attaches its handlers before the client starts (the
 * server may ask for approvals as soon as it is initialized).
 */
async function startAgentls(t, bins, { files = {}, modelUrl, setup, extraConfig = '' } = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentls-vscode-'));
  const ws = path.join(dir, 'ws');
  fs.mkdirSync(path.join(ws, '.git'), { recursive: true });
  if (typeof files === 'function') files = files(ws);
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(ws, rel)), { recursive: true });
    fs.writeFileSync(path.join(ws, rel), text);
  }
  const config = path.join(dir, 'config.toml');
  fs.writeFileSync(config, (modelUrl
    ? `[model]\nprovider = "openai"\nname = "fake-model"\nbase_url = "${modelUrl}/v1"\napi_key_env = "AGENTLS_TEST_KEY"\n`
    : '') + extraConfig);
  // A link in the test's own folder: every agentls process of this test has
  // dir in its command line, so the leak check can find it.
  const link = path.join(dir, 'agentls');
  fs.symlinkSync(bins.agentls, link);
  const env = {
    PATH: process.env.PATH,
    HOME: path.join(dir, 'home'),
    XDG_CONFIG_HOME: path.join(dir, 'home', '.config'),
    XDG_STATE_HOME: path.join(dir, 'state'),
    AGENTLS_CONFIG: config,
    AGENTLS_TEST_KEY: 'test',
  };
  const child = spawn(link, ['serve'], { cwd: ws, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));

  const conn = createProtocolConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
  const docs = new Map(); // uri -> TextDocument
  const shown = []; // window/showDocument params
  const messages = []; // window/showMessage params
  const edits = []; // workspace/applyEdit params
  conn.onRequest('workspace/applyEdit', ({ edit, label }) => {
    edits.push({ edit, label });
    const changes = edit.changes || {};
    for (const dc of edit.documentChanges || []) changes[dc.textDocument.uri] = dc.edits;
    for (const [uri, textEdits] of Object.entries(changes)) {
      const doc = docs.get(uri);
      if (!doc) return { applied: false, failureReason: `${uri} is not open` };
      const text = TextDocument.applyEdits(doc, textEdits);
      const next = TextDocument.create(uri, doc.languageId, doc.version + 1, text);
      docs.set(uri, next);
      // VS Code tells the server about the change, as any edit of the buffer.
      conn.sendNotification('textDocument/didChange', {
        textDocument: { uri, version: next.version },
        contentChanges: [{ text }],
      });
    }
    return { applied: true };
  });
  conn.onRequest('window/workDoneProgress/create', () => null);
  conn.onRequest('window/showDocument', (params) => { shown.push(params); return { success: true }; });
  conn.onNotification('window/showMessage', (params) => messages.push(params));
  conn.onNotification('window/logMessage', () => {});
  conn.onNotification('$/progress', () => {});
  conn.onNotification('textDocument/publishDiagnostics', () => {});
  if (setup) setup(conn);
  conn.listen();

  const capabilities = announce({
    workspace: { applyEdit: true, workspaceEdit: { documentChanges: true }, workspaceFolders: true },
    window: { workDoneProgress: true, showMessage: { messageActionItem: { additionalPropertiesSupport: true } }, showDocument: { support: true } },
    textDocument: { synchronization: { dynamicRegistration: false } },
  });
  const rootUri = `file://${ws}`;
  const init = await withTimeout(conn.sendRequest('initialize', {
    processId: process.pid, rootUri, capabilities,
    workspaceFolders: [{ uri: rootUri, name: 'ws' }],
    clientInfo: { name: 'agentls-vscode-test' },
  }), 10000, 'initialize');
  conn.sendNotification('initialized', {});

  const open = (rel, languageId = 'go') => {
    const uri = `file://${path.join(ws, rel)}`;
    const doc = TextDocument.create(uri, languageId, 1, fs.readFileSync(path.join(ws, rel), 'utf8'));
    docs.set(uri, doc);
    conn.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId, version: 1, text: doc.getText() } });
    return uri;
  };

  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    try {
      await withTimeout(conn.sendRequest('shutdown'), 5000, 'shutdown');
      conn.sendNotification('exit');
    } catch {
      // the process is gone or stuck; the exit wait below decides
    }
    const how = await withTimeout(exited, 5000, 'agentls to exit after exit').catch(() => {
      child.kill('SIGKILL');
      return { code: null, signal: 'SIGKILL (it did not exit)' };
    });
    conn.dispose();
    return how;
  };
  t.after(async () => {
    await stop();
    const left = await waitUntil(() => processesMatching(dir).length === 0 || null, 5000, 'no process of the test left')
      .then(() => [], () => processesMatching(dir));
    fs.rmSync(dir, { recursive: true, force: true });
    if (left.length) throw new Error(`processes survived agentls's exit:\n${left.join('\n')}`);
  });
  return { conn, init, ws, dir, docs, shown, messages, edits, open, stop, exited, stderr: () => stderr };
}

module.exports = { binaries, fakeModel, startAgentls, withTimeout, waitUntil, processesMatching };

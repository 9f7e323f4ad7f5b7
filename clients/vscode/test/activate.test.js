'use strict';
// extension.js as VS Code runs it: activate() builds the real LanguageClient
// (vscode-languageclient 11), which spawns a real agentls; the vscode module
// is the stub (stub-vscode.js plus the API the client library itself needs,
// stub-host.js). A task run from the palette shows its write in the diff
// editor, streams events into the output view, and deactivate() leaves no
// process behind.

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const Module = require('module');

const { stubVscode, fakeEditor } = require('./support/stub-vscode');
const { textDocument } = require('./support/stub-host');
const { binaries, fakeModel, withTimeout, waitUntil, processesMatching } = require('./support/harness');

const ORIGINAL = 'package main\n\n// agent: add a function Sum\nfunc main() {}\n';

function loadExtension(stub) {
  const load = Module._load;
  Module._load = function (request, parent, isMain) {
    return request === 'vscode' ? stub.vscode : load.call(this, request, parent, isMain);
  };
  try {
    delete require.cache[require.resolve('../extension')];
    return require('../extension');
  } finally {
    Module._load = load;
  }
}

test('activate starts agentls through vscode-languageclient; a write is reviewed in a diff editor, events reach the view', async (t) => {
  const bins = binaries(t);
  if (!bins) return;
  const model = await fakeModel(t, bins, [
    { ToolCalls: [{ ID: 'call_1', Name: 'write_file', Input: JSON.stringify({ path: 'main.go', content: 'package main\n' }) }] },
    { Text: 'Left it as it was.' },
  ]);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentls-activate-'));
  const ws = path.join(dir, 'ws');
  fs.mkdirSync(path.join(ws, '.git'), { recursive: true });
  fs.writeFileSync(path.join(ws, 'main.go'), ORIGINAL);
  fs.writeFileSync(path.join(dir, 'config.toml'),
    `[model]\nprovider = "openai"\nname = "fake-model"\nbase_url = "${model.url}/v1"\napi_key_env = "AGENTLS_TEST_KEY"\n`);
  // agentls inherits the extension host's environment, as in VS Code.
  Object.assign(process.env, {
    AGENTLS_CONFIG: path.join(dir, 'config.toml'),
    XDG_STATE_HOME: path.join(dir, 'state'),
    AGENTLS_TEST_KEY: 'test',
  });
  const link = path.join(dir, 'agentls'); // dir in the command line: the leak check finds it
  fs.symlinkSync(bins.agentls, link);

  const doc = textDocument(path.join(ws, 'main.go'), 'go', ORIGINAL);
  const at = ORIGINAL.indexOf('// agent:');
  const stub = stubVscode({
    config: { 'agentls.path': link },
    host: { folder: ws, documents: [doc] },
    editor: fakeEditor(doc.uri.toString(), 'go', ORIGINAL, at, at),
  });
  stub.setDocuments((u) => (u === doc.uri.toString() ? ORIGINAL : undefined));
  const ext = loadExtension(stub);
  let active = false;
  t.after(async () => {
    if (active) await withTimeout(Promise.resolve(ext.deactivate()), 10000, 'deactivate').catch(() => {});
    const left = await waitUntil(() => processesMatching(dir).length === 0, 5000, 'agentls to exit').then(() => [], () => processesMatching(dir));
    fs.rmSync(dir, { recursive: true, force: true });
    assert.deepEqual(left, [], 'no process survives deactivate');
  });

  const context = { subscriptions: [] };
  await withTimeout(ext.activate(context), 20000, 'activate');
  active = true;
  const errors = stub.calls.filter((c) => c.fn === 'showErrorMessage');
  assert.deepEqual(errors, [], 'activation showed no error');
  await waitUntil(() => processesMatching(link).length > 0, 10000, 'agentls to run');
  // vscode-languageclient registered the server's commands beside the palette's, with no clash.
  for (const id of ['agentls.run', 'agentls.approve', 'agentls.transcript', 'agentls.runSelection', 'agentls.mcpServers',
    'agentls.acceptEdit', 'agentls.rejectEdit']) {
    assert.ok(stub.commands.has(id), `command ${id} is not registered`);
  }

  stub.answers.inputBox = (opts) => opts.value;
  stub.answers.diff = (d) => stub.vscode.commands.executeCommand('agentls.rejectEdit', d.right);
  const result = await withTimeout(stub.vscode.commands.executeCommand('agentls.runSelection'), 30000, 'agentls.runSelection');
  assert.equal(result.stopReason, 'end_turn', JSON.stringify(result));
  assert.equal(result.text, 'Left it as it was.');
  // The write asked through agent/requestApproval, which agentls uses only for
  // clients that announced experimental.agentls.approvals: the capability went out.
  assert.equal(stub.diffs.length, 1, 'one diff editor');
  assert.equal(stub.diffs[0].original, ORIGINAL);
  assert.equal(stub.diffs[0].proposed, 'package main\n');
  assert.match(stub.diffs[0].title, /^main\.go: /);
  assert.deepEqual(stub.calls.filter((c) => c.fn === 'showWarningMessage'), [], 'no modal for the write');
  const reqs = await model.requests();
  assert.equal(reqs.length, 2);
  assert.equal(reqs[0].lastUserText.includes('add a function Sum'), true, reqs[0].lastUserText);
  assert.equal(reqs[1].toolResults[0].IsError, true, 'the denial reached the model');
  // Events were announced too: the output view shows the task.
  await waitUntil(() => /done: end_turn/.test(stub.channels['agentls events'].text), 5000, 'the done event');
  assert.match(stub.channels['agentls events'].text, /tool write_file/);

  await withTimeout(Promise.resolve(ext.deactivate()), 10000, 'deactivate');
  active = false;
  await waitUntil(() => processesMatching(link).length === 0, 10000, 'agentls to exit after deactivate');
});

'use strict';
// lib/editor.js: the agent/editor/* requests an outside MCP agent's calls
// become (docs/protocol.md section 9), answered from the vscode API (the
// stub) with real shells behind the terminals; then the whole way, an MCP
// client (the official TypeScript SDK) over the endpoint a real agentls
// publishes, through the extension's attach() on its connection.

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');

const { stubVscode } = require('./support/stub-vscode');
const { Uri } = require('./support/stub-host');
const { binaries, startAgentls, withTimeout, waitUntil, processesMatching } = require('./support/harness');
const { attach } = require('../lib/attach');
const { registerEditor, OutputRing, taskDetail, lspDiagnostic, OUTPUT_CAP } = require('../lib/editor');

const SDK = path.resolve(__dirname, '..', '..', '..', 'tools', 'node', 'node_modules', '@modelcontextprotocol', 'sdk', 'dist', 'cjs', 'client');

/** fakeClient records the handlers registerEditor puts on it; call(method, params) runs one as the connection would. */
function fakeClient() {
  const handlers = new Map();
  return {
    onRequest(method, fn) {
      if (handlers.has(method)) throw new Error(`a second handler for ${method}`);
      handlers.set(method, fn);
      return { dispose: () => handlers.delete(method) };
    },
    handlers,
    call: async (method, params, token) => {
      const fn = handlers.get(method);
      if (!fn) throw new Error(`no handler for ${method}`);
      return fn(params, token);
    },
  };
}

function editorWorld(t) {
  const stub = stubVscode();
  const client = fakeClient();
  const reg = registerEditor(stub.vscode, client, { shell: '/bin/sh' });
  t.after(() => { for (const d of reg.disposables) d.dispose(); });
  return { stub, client, reg, call: client.call };
}

const fileTab = (p, { dirty = false, active = false, label = path.basename(p) } = {}) =>
  ({ label, isActive: active, isDirty: dirty, input: { uri: Uri.file(p) } });

test('every agent/editor/* request of the protocol has a handler', () => {
  const { client } = editorWorld({ after() {} });
  assert.deepEqual([...client.handlers.keys()].sort(), [
    'agent/editor/closeTab', 'agent/editor/createTerminal', 'agent/editor/diagnostics', 'agent/editor/readTerminal',
    'agent/editor/runTask', 'agent/editor/sendTerminal', 'agent/editor/tabs', 'agent/editor/tasks', 'agent/editor/terminals',
  ]);
  const doc = fs.readFileSync(path.join(__dirname, '..', '..', '..', 'docs', 'protocol.md'), 'utf8');
  const documented = [...new Set([...doc.matchAll(/`(agent\/editor\/[A-Za-z]+)`/g)].map((m) => m[1]))].sort();
  assert.deepEqual([...client.handlers.keys()].sort(), documented, 'the handlers are the table of docs/protocol.md section 9');
});

test('tabs: every tab of every group, "" for one that is not a file, the one focused tab active, dirty as VS Code says', async (t) => {
  const w = editorWorld(t);
  const second = { tabs: [], viewColumn: 2, isActive: false };
  w.stub.vscode.window.tabGroups.all.push(second);
  w.stub.tabGroup.isActive = true;
  w.stub.tabGroup.tabs.push(
    fileTab('/ws/main.go', { active: true }),
    fileTab('/ws/util.go', { dirty: true }),
    { label: 'bash', isActive: false, isDirty: false, input: {} }, // a terminal in the editor area
    { label: 'main.go ↔ proposed', isActive: false, isDirty: false, input: { original: Uri.file('/ws/main.go'), modified: Uri.from({ scheme: 'agentls-proposed', path: '/ws/main.go' }) } },
  );
  second.tabs.push(fileTab('/ws/README.md', { active: true }), { label: 'Untitled-1', isActive: false, isDirty: true, input: { uri: Uri.from({ scheme: 'untitled', path: 'Untitled-1' }) } });
  const { tabs } = await w.call('agent/editor/tabs', {});
  assert.deepEqual(tabs, [
    { path: '/ws/main.go', label: 'main.go', active: true, dirty: false, group: 1 },
    { path: '/ws/util.go', label: 'util.go', active: false, dirty: true, group: 1 },
    { path: '', label: 'bash', active: false, dirty: false, group: 1 },
    { path: '', label: 'main.go ↔ proposed', active: false, dirty: false, group: 1 },
    { path: '/ws/README.md', label: 'README.md', active: false, dirty: false, group: 2 }, // active in a group without focus
    { path: '', label: 'Untitled-1', active: false, dirty: true, group: 2 },
  ]);
});

test('closeTab: a tab with unsaved changes is never closed; a clean one is; a file with no tab says so', async (t) => {
  const w = editorWorld(t);
  w.stub.tabGroup.tabs.push(fileTab('/ws/main.go'), fileTab('/ws/util.go', { dirty: true }));
  const refused = await w.call('agent/editor/closeTab', { path: '/ws/util.go' });
  assert.equal(refused.closed, false);
  assert.match(refused.reason, /\/ws\/util\.go has unsaved changes/);
  assert.equal(w.stub.tabGroup.tabs.length, 2, 'nothing was closed');
  assert.deepEqual(await w.call('agent/editor/closeTab', { path: '/ws/./main.go' }), { closed: true });
  assert.deepEqual(w.stub.tabGroup.tabs.map((x) => x.label), ['util.go']);
  assert.deepEqual(await w.call('agent/editor/closeTab', { path: '/ws/other.go' }), { closed: false, reason: 'no tab of /ws/other.go is open' });
  await assert.rejects(w.call('agent/editor/closeTab', {}), (err) => err.code === -32602 && /path must be a non-empty string/.test(err.message));
});

test('terminals: a shell of agentls in cwd; typed text runs, its output is read back; unknown ids are errors; closing ends the shell', async (t) => {
  const w = editorWorld(t);
  const cwd = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'agentls-term-')));
  t.after(() => fs.rmSync(cwd, { recursive: true, force: true }));
  assert.deepEqual(await w.call('agent/editor/terminals', {}), { terminals: [] }, 'the user\'s own terminals are never listed');
  const { id } = await w.call('agent/editor/createTerminal', { name: 'build', cwd });
  assert.equal(id, 'agentls-1');
  assert.deepEqual(await w.call('agent/editor/terminals', {}), { terminals: [{ id, name: 'build' }] });
  const [rec] = w.stub.terminals;
  assert.equal(rec.options.name, 'build (agentls)', 'the tab says it is agentls\'s');
  assert.equal(rec.shown, 1, 'shown to the user');
  assert.deepEqual(await w.call('agent/editor/readTerminal', { id, maxBytes: 100 }), { text: '' }, 'nothing is typed on creation');

  assert.deepEqual(await w.call('agent/editor/sendTerminal', { id, text: 'echo "out-$((6*7))"; pwd; echo err >&2' }), {});
  const read = () => w.call('agent/editor/readTerminal', { id, maxBytes: OUTPUT_CAP }).then((r) => r.text);
  await waitUntil(async () => /err\n/.test(await read()), 10000, 'the command\'s output');
  assert.equal(await read(), `echo "out-$((6*7))"; pwd; echo err >&2\nout-42\n${cwd}\nerr\n`, 'what was typed, then stdout and stderr');
  await waitUntil(() => rec.output.includes('err\r\n'), 5000, 'the output in the terminal');
  assert.ok(rec.output.includes(`out-42\r\n${cwd}\r\n`), `the terminal shows it with its newlines: ${JSON.stringify(rec.output)}`);
  assert.deepEqual(await w.call('agent/editor/readTerminal', { id, maxBytes: 4 }), { text: 'err\n' }, 'maxBytes from the end');

  // The user types in the same terminal: echoed, sent on Enter, backspace erases.
  rec.typed('echo usx');
  rec.typed('\x7fer\r');
  await waitUntil(async () => /\nuser\n$/.test(await read()), 10000, 'the user\'s command\'s output');
  assert.ok(rec.output.includes('echo usx\b \ber\r\n'), JSON.stringify(rec.output));

  await assert.rejects(w.call('agent/editor/sendTerminal', { id: 'agentls-9', text: 'x' }),
    (err) => err.code === -32803 && err.message === 'no terminal of agentls has the id "agentls-9" (they are: agentls-1)');
  await assert.rejects(w.call('agent/editor/readTerminal', { id: 'x', maxBytes: 1 }), /no terminal of agentls has the id "x"/);
  await assert.rejects(w.call('agent/editor/sendTerminal', { id }), (err) => err.code === -32602 && /text must be a string/.test(err.message));
  await assert.rejects(w.call('agent/editor/createTerminal', { name: 'x', cwd: 'relative' }), /cwd must be an absolute folder/);
  await assert.rejects(w.call('agent/editor/createTerminal', { name: 'x', cwd: path.join(cwd, 'missing') }), /cannot start the shell \/bin\/sh in .*missing/);

  // The shell becomes a long sleep (its length marks it); the user closes the terminal.
  const sleep = `sleep 300.${process.pid}1`;
  await w.call('agent/editor/sendTerminal', { id, text: `exec ${sleep}` });
  await waitUntil(() => processesMatching(sleep).length > 0, 10000, 'the shell to run sleep');
  rec.terminal.dispose();
  assert.deepEqual(await w.call('agent/editor/terminals', {}), { terminals: [] }, 'a closed terminal is gone from the list');
  await waitUntil(() => processesMatching(sleep).length === 0, 10000, 'the shell to end');
});

test('terminals: a shell that exits says so, and typing into it is an error; disposing the extension ends every shell', async (t) => {
  const stub = stubVscode();
  const client = fakeClient();
  const reg = registerEditor(stub.vscode, client, { shell: '/bin/sh' });
  const cwd = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'agentls-term-')));
  t.after(() => fs.rmSync(cwd, { recursive: true, force: true }));
  const a = (await client.call('agent/editor/createTerminal', { name: 'a', cwd })).id;
  const b = (await client.call('agent/editor/createTerminal', { name: '', cwd })).id;
  assert.deepEqual((await client.call('agent/editor/terminals', {})).terminals, [{ id: a, name: 'a' }, { id: b, name: 'agentls' }]);
  await client.call('agent/editor/sendTerminal', { id: a, text: 'exit 3' });
  await waitUntil(async () => /\[the shell exited with code 3\]\n$/.test((await client.call('agent/editor/readTerminal', { id: a, maxBytes: 100 })).text), 10000, 'the exit');
  await assert.rejects(client.call('agent/editor/sendTerminal', { id: a, text: 'x' }), /the shell of terminal agentls-1 has exited/);
  const sleep = `sleep 300.${process.pid}2`;
  await client.call('agent/editor/sendTerminal', { id: b, text: `exec ${sleep}` });
  await waitUntil(() => processesMatching(sleep).length > 0, 10000, 'sleep to run');
  for (const d of reg.disposables) d.dispose();
  assert.equal(stub.terminals.every((r) => r.disposed), true, 'every terminal closed');
  await waitUntil(() => processesMatching(sleep).length === 0, 10000, 'no shell outlives the extension');
});

test('the output ring keeps the latest bytes and never starts inside a character', () => {
  const ring = new OutputRing(8);
  ring.push('abcdef');
  ring.push('ghij');
  assert.equal(ring.text(), 'cdefghij');
  assert.equal(ring.tail(3), 'hij');
  const u = new OutputRing(100);
  u.push('aé€z'); // 1 + 2 + 3 + 1 bytes
  assert.equal(u.tail(4), '€z');
  assert.equal(u.tail(5), '€z', 'a cut inside € skips to the next whole character');
  assert.equal(u.tail(6), 'é€z');
});

test('tasks: each with its command line; runTask answers the exit code, at once for a background task; unknown and ambiguous names are errors', async (t) => {
  const w = editorWorld(t);
  const tasks = [
    { name: 'build', source: 'Workspace', execution: { commandLine: 'go build ./...' }, definition: { type: 'shell' } },
    { name: 'test', source: 'Workspace', execution: { command: 'go', args: ['test', { value: 'a b', quoting: 1 }] }, definition: { type: 'shell' } },
    { name: 'serve', source: 'Workspace', isBackground: true, execution: { process: '/usr/bin/python3', args: ['-m', 'http.server'] }, definition: { type: 'process' } },
    { name: 'build', source: 'npm', execution: { commandLine: 'npm run build' }, definition: { type: 'npm', script: 'build' } },
    { name: 'lint', source: 'custom', definition: { type: 'mylint', strict: true } },
  ];
  w.stub.answers.tasks = tasks;
  assert.deepEqual(await w.call('agent/editor/tasks', {}), { tasks: [
    { name: 'build', source: 'Workspace', detail: 'go build ./...' },
    { name: 'test', source: 'Workspace', detail: 'go test "a b"' },
    { name: 'serve', source: 'Workspace', detail: '/usr/bin/python3 -m http.server' },
    { name: 'build', source: 'npm', detail: 'npm run build' },
    { name: 'lint', source: 'custom', detail: '{"type":"mylint","strict":true}' },
  ] });
  w.stub.answers.runTask = (task) => ({ exitCode: task.name === 'test' ? 2 : 0 });
  assert.deepEqual(await w.call('agent/editor/runTask', { name: 'test', source: '' }), { exitCode: 2 });
  assert.deepEqual(await w.call('agent/editor/runTask', { name: 'build', source: 'npm' }), { exitCode: 0 });
  assert.equal(w.stub.executed.at(-1), tasks[3], 'the source picked the npm task');
  assert.deepEqual(await w.call('agent/editor/runTask', { name: 'serve', source: 'Workspace' }), {}, 'a background task answers at once');
  w.stub.answers.runTask = () => ({}); // VS Code gave no exit code (a terminated task)
  assert.deepEqual(await w.call('agent/editor/runTask', { name: 'lint', source: '' }), {});
  await assert.rejects(w.call('agent/editor/runTask', { name: 'build', source: '' }),
    (err) => err.code === -32803 && err.message === '2 tasks are named "build": give the source, one of Workspace, npm');
  await assert.rejects(w.call('agent/editor/runTask', { name: 'deploy', source: '' }),
    /VS Code has no task "deploy"; its tasks: build \(Workspace\), test \(Workspace\), serve \(Workspace\), build \(npm\), lint \(custom\)/);
  await assert.rejects(w.call('agent/editor/runTask', { source: 'npm' }), /name must be a non-empty string/);
  assert.equal(taskDetail({ definition: undefined }), '{}');
});

test('runTask: a task that ends before VS Code answers executeTask is still heard', async (t) => {
  const w = editorWorld(t);
  const task = { name: 'quick', source: 'Workspace', execution: { commandLine: 'true' } };
  w.stub.answers.tasks = [task];
  const ends = [];
  const done = [];
  w.stub.vscode.tasks.onDidEndTaskProcess((e) => ends.push(e));
  w.stub.vscode.tasks.onDidEndTask((e) => done.push(e));
  // A VS Code whose end event comes first: executeTask's answer after it.
  const orig = w.stub.vscode.tasks.executeTask;
  const { tasks } = w.stub.vscode;
  Object.defineProperty(tasks, 'executeTask', { configurable: true, writable: true, value: async (t2) => {
    const exec = await orig(t2);
    await new Promise((r) => setTimeout(r, 20)); // the end fires meanwhile
    return exec;
  } });
  assert.deepEqual(await w.call('agent/editor/runTask', { name: 'quick', source: '' }), { exitCode: 0 });
  assert.equal(ends.length, 1);
});

test('diagnostics: every file VS Code holds diagnostics for, as LSP objects with paths; one file with path', async (t) => {
  const w = editorWorld(t);
  const range = (a, b, c, d) => ({ start: { line: a, character: b }, end: { line: c, character: d } });
  const go = { range: range(3, 1, 3, 5), severity: 0, message: 'undefined: x', source: 'compiler', code: { value: 'UndeclaredName', target: { toString: () => 'https://pkg.go.dev/x' } } };
  const lint = { range: range(0, 0, 0, 4), severity: 3, message: 'unused', source: 'e2e-lint', code: 7, tags: [1, 9],
    relatedInformation: [{ location: { uri: Uri.file('/ws/b.go'), range: range(1, 0, 1, 1) }, message: 'declared here' }] };
  const all = [
    [Uri.file('/ws/z.go'), [lint]],
    [Uri.file('/ws/a.go'), [go]],
    [Uri.file('/ws/clean.go'), []],
    [Uri.from({ scheme: 'untitled', path: 'Untitled-1' }), [go]],
  ];
  w.stub.answers.diagnostics = (uri) => (uri ? (all.find(([u]) => u.toString() === uri.toString()) || [0, []])[1] : all);
  const goLSP = { range: range(3, 1, 3, 5), severity: 1, message: 'undefined: x', source: 'compiler', code: 'UndeclaredName', codeDescription: { href: 'https://pkg.go.dev/x' } };
  const lintLSP = { range: range(0, 0, 0, 4), severity: 4, message: 'unused', source: 'e2e-lint', code: 7, tags: [1],
    relatedInformation: [{ location: { uri: 'file:///ws/b.go', range: range(1, 0, 1, 1) }, message: 'declared here' }] };
  assert.deepEqual(await w.call('agent/editor/diagnostics', {}), { files: [
    { path: '/ws/a.go', diagnostics: [goLSP] },
    { path: '/ws/z.go', diagnostics: [lintLSP] },
  ] }, 'files with none and documents that are not files are left out; sorted by path');
  assert.deepEqual(await w.call('agent/editor/diagnostics', { path: '/ws/z.go' }), { files: [{ path: '/ws/z.go', diagnostics: [lintLSP] }] });
  assert.deepEqual(await w.call('agent/editor/diagnostics', { path: '/ws/clean.go' }), { files: [{ path: '/ws/clean.go', diagnostics: [] }] });
  await assert.rejects(w.call('agent/editor/diagnostics', { path: 'z.go' }), /path must be absolute/);
  assert.deepEqual(lspDiagnostic({ range: range(0, 0, 0, 0), message: 'm' }), { range: range(0, 0, 0, 0), severity: 1, message: 'm' });
});

// The whole way: agentls with [serve] mcp = true, the extension's attach()
// on its connection (the stub as VS Code), and the TypeScript SDK's client
// as the outside agent over the published endpoint. The cards are the
// extension's modals (answered by the stub).
test('an outside MCP agent drives the extras through agentls and the extension', async (t) => {
  const bins = binaries(t);
  if (!bins) return;
  if (!fs.existsSync(path.join(SDK, 'index.js'))) {
    const why = 'tools/node/node_modules/@modelcontextprotocol/sdk is missing: run scripts/setup.sh';
    if (process.env.CI === 'true') throw new Error(why);
    t.skip(why);
    return;
  }
  const stub = stubVscode();
  const cards = [];
  let answer = 'allow_once';
  stub.answers.warning = (message, options, buttons) => {
    cards.push({ message, detail: options.detail, options: buttons.map((b) => b.optionId) });
    return buttons.find((b) => b.optionId === answer);
  };
  let attached;
  t.after(() => { for (const d of attached.disposables) d.dispose(); }); // as VS Code disposes the subscriptions: the shells end
  const ls = await startAgentls(t, bins, {
    files: { 'main.go': 'package main\n', 'dirty.go': 'package main\n' },
    extraConfig: '[serve]\nmcp = true\n',
    setup: (conn) => { attached = attach(stub.vscode, conn); },
  });
  const ws = ls.ws;
  stub.tabGroup.tabs.push(fileTab(path.join(ws, 'main.go'), { active: true }), fileTab(path.join(ws, 'dirty.go'), { dirty: true }), fileTab('/elsewhere/x.go'));
  stub.answers.tasks = [{ name: 'hello', source: 'Workspace', execution: { commandLine: 'echo hello' } }];
  stub.answers.runTask = () => ({ exitCode: 5 });
  stub.answers.diagnostics = (uri) => {
    const d = [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 7 } }, severity: 1, message: 'from another server', source: 'other-ls' }];
    const all = [[Uri.file(path.join(ws, 'main.go')), d]];
    return uri ? (uri.fsPath === path.join(ws, 'main.go') ? d : []) : all;
  };

  const published = path.join(ls.dir, 'state', 'agentls', 'mcp-serve');
  const file = await waitUntil(() => fs.existsSync(published) && fs.readdirSync(published).find((f) => f.endsWith('.json')), 20000, 'the published endpoint');
  const endpoint = JSON.parse(fs.readFileSync(path.join(published, file), 'utf8'));
  const { Client } = require(path.join(SDK, 'index.js'));
  const { StreamableHTTPClientTransport } = require(path.join(SDK, 'streamableHttp.js'));
  const mcp = new Client({ name: 'unit-agent', version: '1' });
  const token = fs.readFileSync(endpoint.tokenFile, 'utf8').trim();
  await withTimeout(mcp.connect(new StreamableHTTPClientTransport(new URL(endpoint.url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } })), 10000, 'connect');
  t.after(() => mcp.close());
  const call = async (name, args = {}) => {
    const res = await withTimeout(mcp.callTool({ name, arguments: args }), 30000, name);
    return { text: res.content.map((c) => c.text).join(''), isError: Boolean(res.isError) };
  };
  const names = (await mcp.listTools()).tools.map((x) => x.name);
  for (const n of ['list_tabs', 'close_tab', 'list_terminals', 'create_terminal', 'send_to_terminal', 'read_terminal', 'list_tasks', 'run_task', 'get_diagnostics']) {
    assert.ok(names.includes(n), `${n} is listed: ${names}`);
  }

  assert.deepEqual(JSON.parse((await call('list_tabs')).text), [
    { path: path.join(ws, 'main.go'), label: 'main.go', active: true, dirty: false, group: 1 },
    { path: path.join(ws, 'dirty.go'), label: 'dirty.go', active: false, dirty: true, group: 1 },
  ], 'only the workspace\'s tabs');
  const refused = await call('close_tab', { path: 'dirty.go' });
  assert.equal(refused.isError, true);
  assert.match(refused.text, /unsaved changes/);
  assert.deepEqual(await call('close_tab', { path: 'main.go' }), { text: `closed the tab of ${path.join(ws, 'main.go')}`, isError: false });

  const { id } = JSON.parse((await call('create_terminal', { name: 'unit' })).text);
  assert.deepEqual(JSON.parse((await call('list_terminals')).text), [{ id, name: 'unit' }]);
  answer = 'reject_once';
  const declined = await call('send_to_terminal', { id, text: 'echo declined-$((1+1))' });
  assert.equal(declined.isError, true, declined.text);
  assert.equal(cards.length, 1);
  assert.deepEqual(cards[0].options, ['allow_once', 'reject_once'], 'no "always" on a terminal card');
  assert.match(cards[0].detail, /echo declined-\$\(\(1\+1\)\)/);
  answer = 'allow_once';
  assert.equal((await call('send_to_terminal', { id, text: 'echo sent-$((2+3)); pwd' })).isError, false);
  const out = await waitUntil(async () => { const r = await call('read_terminal', { id }); return /sent-5\n/.test(r.text) && r.text; }, 10000, 'the terminal output');
  assert.ok(out.includes(`sent-5\n${ws}\n`), out);
  assert.ok(!out.includes('declined'), 'nothing was typed for the declined card');

  assert.deepEqual(JSON.parse((await call('list_tasks')).text), [{ name: 'hello', source: 'Workspace', detail: 'echo hello' }]);
  const ran = await call('run_task', { name: 'hello' });
  assert.deepEqual(ran, { text: 'the task hello ended with exit code 5', isError: false });
  assert.match(cards.at(-1).detail, /^echo hello/);

  const diags = JSON.parse((await call('get_diagnostics')).text);
  assert.deepEqual(diags, [{ path: path.join(ws, 'main.go'), diagnostics: [
    { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 7 } }, severity: 2, message: 'from another server', source: 'other-ls' }] }]);
});

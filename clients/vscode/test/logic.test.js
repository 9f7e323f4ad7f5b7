'use strict';
// The extension's logic with the vscode module stubbed: approvals, the event
// view, the MCP quick pick's rows and actions, prompts, launch settings.

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');

const { stubVscode } = require('./support/stub-vscode');
const { requestApproval, CANCELLED } = require('../lib/approvals');
const { formatEvent, TaskTracker, eventView } = require('../lib/events');
const { serverItems, actionsFor, shellQuote, toolReport } = require('../lib/mcp');
const { directiveOf, promptFrom, COMMANDS, cancellable } = require('../lib/commands');
const { CHAT_COMMANDS } = require('../lib/chat/panel');
const { serverCommand } = require('../lib/launch');
const { announce, EXPERIMENTAL } = require('../lib/capabilities');
const { diffReviews, ACCEPT, REJECT, SCHEME } = require('../lib/review');

const approval = {
  approvalId: 'a7', taskId: 't3', kind: 'mcp_call',
  title: "Call fs · write_file?", detail: 'fs · write_file\n{"path": "/tmp/x"}',
  options: [
    { optionId: 'allow_once', name: 'Allow once', kind: 'allow_once' },
    { optionId: 'allow_always', name: 'Always allow fs__write_file', kind: 'allow_always' },
    { optionId: 'reject_once', name: 'Deny', kind: 'reject_once' },
  ],
};

test('approvals', async (t) => {
  await t.test('the modal shows the title, the detail verbatim and one button per option', async () => {
    const s = stubVscode();
    s.answers.warning = (message, options, buttons) => buttons[1];
    const result = await requestApproval(s.vscode, approval);
    assert.deepEqual(result, { outcome: 'selected', optionId: 'allow_always' });
    const [message, options, ...buttons] = s.calls.find((c) => c.fn === 'showWarningMessage').args;
    assert.equal(message, approval.title);
    assert.equal(options.modal, true);
    assert.equal(options.detail, approval.detail);
    assert.deepEqual(buttons.map((b) => b.title), ['Allow once', 'Always allow fs__write_file', 'Deny']);
  });
  await t.test('Escape picks the reject option, never an allow', async () => {
    const s = stubVscode();
    let buttons;
    s.answers.warning = (m, o, b) => { buttons = b; return b.find((x) => x.isCloseAffordance); };
    assert.deepEqual(await requestApproval(s.vscode, approval), { outcome: 'selected', optionId: 'reject_once' });
    assert.equal(buttons.filter((b) => b.isCloseAffordance).length, 1);
  });
  await t.test('a dismissed dialog is a denial', async () => {
    const s = stubVscode();
    assert.deepEqual(await requestApproval(s.vscode, approval), CANCELLED);
  });
  await t.test('an approval the server withdrew while the dialog was open is denied', async () => {
    const s = stubVscode();
    s.answers.warning = (m, o, b) => b[0];
    assert.deepEqual(await requestApproval(s.vscode, approval, { isCancellationRequested: true }), CANCELLED);
  });
  for (const [name, bad] of [
    ['no options', { ...approval, options: [] }],
    ['no title', { ...approval, title: '' }],
    ['an option without id', { ...approval, options: [{ name: 'Allow' }] }],
    ['not an object', null],
  ]) {
    await t.test(`a malformed approval (${name}) is denied without asking`, async () => {
      const s = stubVscode();
      s.answers.warning = (m, o, b) => b[0];
      const lines = [];
      assert.deepEqual(await requestApproval(s.vscode, bad, undefined, (l) => lines.push(l)), CANCELLED);
      assert.equal(s.calls.length, 0);
      assert.match(lines[0], /approval refused/);
    });
  }
});

test('write approvals in a diff editor', async (t) => {
  const write = {
    approvalId: 'a9', taskId: 't4', kind: 'write', tool: 'write_file',
    title: 'Overwrite /ws/main.go?', detail: '/ws/main.go\n\n-package main\n+package main\n+\tx',
    diff: { uri: 'file:///ws/main.go', newText: 'package main\n\nfunc f() {\n\treturn\n}\n', exists: true },
    options: [{ optionId: 'allow_once', name: 'Allow once', kind: 'allow_once' }, { optionId: 'reject_once', name: 'Deny', kind: 'reject_once' }],
  };
  const setup = () => {
    const s = stubVscode();
    s.setDocuments((u) => (u === 'file:///ws/main.go' ? 'package main\n' : undefined));
    const reviews = diffReviews(s.vscode);
    return { s, reviews };
  };
  await t.test('the diff shows the buffer against the whole proposed file; Accept allows once', async () => {
    const { s, reviews } = setup();
    const lines = [];
    s.answers.diff = (d) => s.vscode.commands.executeCommand(ACCEPT, d.right);
    const res = await requestApproval(s.vscode, write, undefined, (l) => lines.push(l), reviews);
    assert.deepEqual(res, { outcome: 'selected', optionId: 'allow_once' });
    const [d] = s.diffs;
    assert.equal(d.left.toString(), 'file:///ws/main.go', 'the left side is the file itself: VS Code shows its buffer');
    assert.equal(d.original, 'package main\n');
    assert.equal(d.proposed, write.diff.newText, 'the proposal keeps its tabs and lines');
    assert.equal(d.right.scheme, SCHEME);
    assert.equal(d.options.preview, false);
    assert.deepEqual(s.calls.filter((c) => c.fn === 'showWarningMessage'), []);
    assert.match(lines.join('\n'), /a9: accepted in the diff editor/);
    assert.equal(s.providers.get(SCHEME).provideTextDocumentContent(d.right), '', 'the proposal is dropped once answered');
  });
  await t.test('a new file is diffed against an empty document', async () => {
    const { s, reviews } = setup();
    s.answers.diff = (d) => s.vscode.commands.executeCommand(REJECT, d.right);
    const res = await requestApproval(s.vscode, { ...write, diff: { ...write.diff, exists: false } }, undefined, undefined, reviews);
    assert.deepEqual(res, { outcome: 'selected', optionId: 'reject_once' });
    assert.equal(s.diffs[0].left.scheme, SCHEME);
    assert.equal(s.diffs[0].original, '');
    assert.match(s.diffs[0].title, /new file ↔ proposed by agentls/);
  });
  await t.test('Accept from the palette answers the only open review', async () => {
    const { s, reviews } = setup();
    s.answers.diff = () => s.vscode.commands.executeCommand(ACCEPT);
    assert.deepEqual(await requestApproval(s.vscode, write, undefined, undefined, reviews), { outcome: 'selected', optionId: 'allow_once' });
  });
  await t.test('a withdrawn approval closes the diff and denies', async () => {
    const { s, reviews } = setup();
    const cts = new s.vscode.EventEmitter();
    const token = { isCancellationRequested: false, onCancellationRequested: cts.event };
    s.answers.diff = () => { token.isCancellationRequested = true; cts.fire(); };
    assert.deepEqual(await requestApproval(s.vscode, write, token, undefined, reviews), CANCELLED);
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(s.vscode.window.tabGroups.all[0].tabs, []);
    assert.equal(s.contexts['agentls.reviewing'], false);
  });
  await t.test('when the diff editor cannot open, the modal asks', async () => {
    const { s, reviews } = setup();
    s.answers.diffFails = 'no diff editor here';
    s.answers.warning = (m, o, b) => b.find((x) => x.optionId === 'allow_once');
    const lines = [];
    assert.deepEqual(await requestApproval(s.vscode, write, undefined, (l) => lines.push(l), reviews), { outcome: 'selected', optionId: 'allow_once' });
    assert.match(lines.join('\n'), /did not open \(no diff editor here\); asking with a dialog/);
  });
  await t.test('a write without its proposed file (an older agentls) asks with the modal', async () => {
    const { s, reviews } = setup();
    const { diff, ...old } = write;
    assert.ok(diff);
    assert.deepEqual(await requestApproval(s.vscode, old, undefined, undefined, reviews), CANCELLED);
    assert.equal(s.calls.filter((c) => c.fn === 'showWarningMessage').length, 1);
    assert.equal(s.diffs.length, 0);
  });
  await t.test('Accept and Reject sit in the diff editor title; the palette offers them only during a review', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8'));
    const title = pkg.contributes.menus['editor/title'];
    for (const id of [ACCEPT, REJECT]) {
      assert.ok(title.some((m) => m.command === id && m.when === `resourceScheme == ${SCHEME}` && /^navigation/.test(m.group)), id);
      assert.ok(pkg.contributes.menus.commandPalette.some((m) => m.command === id && m.when === 'agentls.reviewing'), id);
    }
  });
});

test('events', async (t) => {
  await t.test('text deltas concatenate; other events are one line each', () => {
    assert.equal(formatEvent({ taskId: 't1', type: 'text', delta: 'Hel' }) + formatEvent({ taskId: 't1', type: 'text', delta: 'lo' }), 'Hello');
    assert.equal(formatEvent({ taskId: 't1', type: 'tool_call', tool: 'write_file', status: 'awaiting_approval', title: 'write a.go' }), '\n[t1] tool write_file awaiting_approval: write a.go\n');
    assert.equal(formatEvent({ taskId: 't1', type: 'done', stopReason: 'end_turn', usage: { inputTokens: 5, outputTokens: 7 } }), '\n[t1] done: end_turn (5 in, 7 out)\n');
    assert.equal(formatEvent({ taskId: 't1', type: 'done', stopReason: 'refusal', error: 'the model declined to answer', usage: {} }), '\n[t1] done: refusal: the model declined to answer (0 in, 0 out)\n');
  });
  await t.test('reasoning is marked line by line under its own heading, never run into the answer', () => {
    const state = {};
    const out = [
      { taskId: 't1', type: 'reasoning', delta: 'First thought.\nSec' },
      { taskId: 't1', type: 'reasoning', delta: 'ond thought.' },
      { taskId: 't1', type: 'text', delta: 'The answer.' },
    ].map((ev) => formatEvent(ev, state)).join('');
    assert.equal(out, '\n[t1] reasoning:\n┆ First thought.\n┆ Second thought.\nThe answer.');
    const tr = new TaskTracker();
    tr.update({ taskId: 't1', type: 'reasoning', delta: 'x' });
    assert.equal(tr.statusText(), '$(sync~spin) agentls: reasoning');
  });
  await t.test('a long tool result is capped in the view', () => {
    const line = formatEvent({ taskId: 't1', type: 'tool_result', toolCallId: 'c1', status: 'completed', output: 'x'.repeat(10000) });
    assert.ok(line.length < 500, `line is ${line.length} chars`);
  });
  await t.test('the tracker shows the latest task and drops it when done', () => {
    const tr = new TaskTracker();
    assert.equal(tr.statusText(), '$(hubot) agentls');
    tr.update({ taskId: 't1', sessionId: 's1', type: 'status', message: 'starting' });
    tr.update({ taskId: 't1', type: 'tool_call', tool: 'write_file', status: 'awaiting_approval' });
    assert.equal(tr.statusText(), '$(sync~spin) agentls: waiting for approval: write_file');
    tr.update({ taskId: 't2', type: 'text', delta: 'x' });
    assert.equal(tr.statusText(), '$(sync~spin) agentls: writing (+1)');
    tr.update({ taskId: 't2', type: 'done', stopReason: 'end_turn' });
    tr.update({ taskId: 't1', type: 'done', stopReason: 'cancelled' });
    assert.equal(tr.statusText(), '$(hubot) agentls');
  });
  await t.test("the usage item: the last turn's tokens, cache share and cost, then its session's", () => {
    const s = stubVscode();
    const view = eventView(s.vscode);
    assert.equal(s.items[1].visible, false, 'nothing before a turn ended');
    view.onEvent({ taskId: 't1', sessionId: 's1', type: 'done', stopReason: 'end_turn', cost: 0.0091,
      usage: { inputTokens: 2893, outputTokens: 24, cacheReadTokens: 1273, cacheWriteTokens: 0 } });
    view.onEvent({ taskId: 't2', sessionId: 's1', type: 'done', stopReason: 'end_turn', cost: 0.0072,
      usage: { inputTokens: 2130, outputTokens: 12, cacheReadTokens: 0, cacheWriteTokens: 0 } });
    assert.equal(s.items[1].visible, true);
    assert.equal(s.items[1].text, '$(graph) 2,130 in (0% cache) · 12 out · $0.0072 · session 5,023 in, 36 out, $0.016');
    view.onEvent({ taskId: 't3', sessionId: 's2', type: 'done', stopReason: 'end_turn', usage: { inputTokens: 1000, outputTokens: 1, cacheReadTokens: 0 } });
    assert.equal(s.items[1].text, '$(graph) 1,000 in (0% cache) · 1 out · session 1,000 in, 1 out', 'a model without a price: tokens only');
  });
  await t.test('the status bar item cancels while a task runs and shows events when idle', () => {
    const s = stubVscode();
    const view = eventView(s.vscode);
    assert.equal(s.items[0].command, 'agentls.showEvents');
    assert.equal(s.items[0].visible, true);
    view.onEvent({ taskId: 't1', type: 'tool_call', tool: 'read_file', status: 'running' });
    assert.equal(s.items[0].command, 'agentls.cancelTask');
    assert.equal(s.items[0].text, '$(sync~spin) agentls: calling read_file');
    view.onEvent({ taskId: 't1', type: 'done', stopReason: 'end_turn' });
    assert.equal(s.items[0].command, 'agentls.showEvents');
    assert.match(s.channels['agentls events'].text, /done: end_turn/);
  });
});

test('mcp quick pick rows', async (t) => {
  const row = {
    name: 'fs', origin: 'workspace', state: 'needs_approval',
    command: ['npx', '-y', '@modelcontextprotocol/server-filesystem', '/home/me/My Documents'],
    tools: [],
  };
  await t.test('the row shows the literal command line, quoted as a shell would need', () => {
    const [item] = serverItems([row]);
    assert.equal(item.detail, "npx -y @modelcontextprotocol/server-filesystem '/home/me/My Documents'");
    assert.match(item.description, /workspace · needs_approval/);
  });
  await t.test('a connected row says which MCP revision the server speaks', () => {
    const [item] = serverItems([{ ...row, state: 'connected', transport: 'stdio', revision: '2026-07-28' }]);
    assert.equal(item.description, 'workspace · connected · 0 tools · MCP 2026-07-28');
  });
  await t.test('quoting survives quotes and shell metacharacters', () => {
    assert.equal(shellQuote(['sh', '-c', "echo 'hi'; rm -rf ~"]), `sh -c 'echo '\\''hi'\\''; rm -rf ~'`);
  });
  await t.test('a server waiting for consent offers trust and nothing that starts it silently', () => {
    assert.deepEqual(actionsFor(row).map((a) => a.action), ['trust']);
  });
  await t.test('a stale approval asks again, and can be revoked', () => {
    assert.deepEqual(actionsFor({ ...row, state: 'approval_stale' }).map((a) => a.action), ['trust', 'revoke']);
  });
  await t.test('a trusted workspace server can be revoked and restarted; its tools listed', () => {
    const tools = [{ name: 'fs__read_file', policy: 'ask', description: 'Read a file' }];
    assert.deepEqual(actionsFor({ ...row, state: 'connected', tools }).map((a) => a.action), ['revoke', 'restart', 'tools']);
    assert.match(toolReport({ ...row, state: 'connected', tools }), /ask {3}fs__read_file - Read a file/);
  });
  await t.test('a user server is never offered revoke (it was never trusted from a card)', () => {
    assert.deepEqual(actionsFor({ ...row, origin: 'user', state: 'connected' }).map((a) => a.action), ['restart']);
    assert.deepEqual(actionsFor({ ...row, origin: 'user', state: 'failed', url: 'https://mcp.example.com/mcp' }).map((a) => a.action), ['login', 'restart'],
      'a remote server offers a login');
    assert.deepEqual(actionsFor({ ...row, state: 'needs_approval', url: 'https://mcp.example.com/mcp' }).map((a) => a.action), ['trust'],
      'never before its launch is approved');
  });
});

test('prompts', async (t) => {
  for (const [name, line, want] of [
    ['a Go comment directive', '\t// agent: add error handling here', 'add error handling here'],
    ['a Python comment directive', '# agent: write a docstring  ', 'write a docstring'],
    ['a C block comment directive', '/* agent: free the buffer */', 'free the buffer'],
    ['an HTML comment directive', '<!-- agent: add alt text -->', 'add alt text'],
    ['no directive', 'x := agentx(1)', ''],
    ['an empty directive', '// agent:', ''],
  ]) {
    await t.test(`directive: ${name}`, () => assert.equal(directiveOf(line), want));
  }
  await t.test('typed text wins over the selection, which wins over the directive', () => {
    assert.equal(promptFrom(' fix it ', 'sel', '// agent: d'), 'fix it');
    assert.equal(promptFrom('', ' sel ', '// agent: d'), 'sel');
    assert.equal(promptFrom('', '', '// agent: d'), 'd');
  });
  await t.test('every palette command of package.json has a function, and no id clashes with a server command', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8'));
    const declared = pkg.contributes.commands.map((c) => c.command).sort();
    assert.deepEqual([...Object.keys(COMMANDS), ACCEPT, REJECT, ...Object.values(CHAT_COMMANDS)].sort(), declared);
    const serverCommands = ['agentls.run', 'agentls.cancel', 'agentls.approve', 'agentls.deny', 'agentls.newChat',
      'agentls.transcript', 'agentls.mcp.list', 'agentls.mcp.trust', 'agentls.mcp.revoke'];
    for (const id of declared) assert.ok(!serverCommands.includes(id), `${id} is also a server command: vscode-languageclient registers those`);
  });
});

test('launch settings', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentls-launch-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const bin = path.join(dir, 'agentls');
  fs.writeFileSync(bin, '#!/bin/sh\n', { mode: 0o755 });
  const notExec = path.join(dir, 'plain');
  fs.writeFileSync(notExec, '', { mode: 0o644 });

  await t.test('agentls on PATH with ["serve"] by default', () => {
    const s = stubVscode();
    assert.deepEqual(serverCommand(s.vscode, { PATH: `/nonexistent${path.delimiter}${dir}` }), { command: bin, args: ['serve'] });
  });
  await t.test('agentls.path and agentls.args win', () => {
    const s = stubVscode({ config: { 'agentls.path': bin, 'agentls.args': ['serve', '--log', 'debug'] } });
    assert.deepEqual(serverCommand(s.vscode, { PATH: '' }), { command: bin, args: ['serve', '--log', 'debug'] });
  });
  for (const [name, config, env, re] of [
    ['missing from PATH says how to install', {}, { PATH: '/nonexistent' }, /not found on PATH: install it with `go install/],
    ['a relative agentls.path is refused', { 'agentls.path': 'bin/agentls' }, {}, /must be an absolute path/],
    ['a non-executable agentls.path is refused', { 'agentls.path': notExec }, {}, /not an executable file/],
    ['agentls.args must be strings', { 'agentls.args': 'serve' }, { PATH: dir }, /must be a list of strings/],
  ]) {
    await t.test(name, () => assert.throws(() => serverCommand(stubVscode({ config }).vscode, env), re));
  }
  await t.test('the settings cannot come from a workspace (a repo must not pick the binary)', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8'));
    for (const key of ['agentls.path', 'agentls.args']) {
      assert.equal(pkg.contributes.configuration.properties[key].scope, 'machine', key);
    }
  });
  await t.test('the client announces approvals, forms, events, apps and the editor extras, keeping other experimental capabilities', () => {
    const caps = announce({ experimental: { other: 1 } });
    assert.deepEqual(caps, { experimental: { other: 1, agentls: { ...EXPERIMENTAL } } });
    assert.deepEqual(EXPERIMENTAL, { approvals: true, forms: true, events: true, apps: true,
      editor: { tabs: true, terminals: true, tasks: true, diagnostics: true } });
    caps.experimental.agentls.editor.tabs = false; // a copy: the next client announces them all again
    assert.equal(announce({}).experimental.agentls.editor.tabs, true);
  });
});

test('a task waiting for an approval can be picked for cancel (agent/tasks says awaiting_approval)', () => {
  const tasks = [
    { taskId: 't1', state: 'running', prompt: 'a' },
    { taskId: 't2', state: 'awaiting_approval', prompt: 'b' },
    { taskId: 't3', state: 'done', prompt: 'c' },
  ];
  assert.deepEqual(cancellable(tasks).map((t) => t.taskId), ['t1', 't2']);
  assert.deepEqual(cancellable(undefined), []);
});

'use strict';
// The chat view end to end under node: a real agentls (built from this
// repository) and the fake model; the extension's code (attach, the chat
// panel) with the stub vscode; the chat's real page script
// (lib/chat/webview.js) mounted on test/support/fake-dom.js and wired to
// the stub's webview, so each test clicks and types as the user does.
// The browser suite (e2e/) does the same in a real VS Code.

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');

const { stubVscode, fakeEditor } = require('./support/stub-vscode');
const { binaries, fakeModel, startAgentls, waitUntil } = require('./support/harness');
const { chatDocument } = require('./support/fake-dom');
const { attach } = require('../lib/attach');
const { page, VIEW_ID } = require('../lib/chat/panel');
const markdown = require('../lib/chat/markdown');
const conversation = require('../lib/chat/conversation');
const { mount } = require('../lib/chat/webview');

const ORIGINAL = 'package main\n\n// agent: add a function Sum\nfunc main() {}\n';
const REWRITTEN = 'package main\n\n// Sum adds up xs.\nfunc Sum(xs []int) int {\n\ttotal := 0\n\tfor _, x := range xs {\n\t\ttotal += x\n\t}\n\treturn total\n}\n\nfunc main() {}\n';
const FIRST_ANSWER = 'main.go declares an empty main and a directive asking for Sum.';

function pageIds() {
  const ids = {};
  for (const m of page({ csp: 'x', nonce: 'n', uri: (f) => f }).matchAll(/<(\w+)[^>]*\bid="([^"]+)"/g)) ids[m[2]] = m[1];
  return ids;
}

/**
 * chatWorld starts the fake model and agentls, opens main.go with lines
 * 3-4 selected, attaches the extension and opens the chat view with its
 * page mounted. Messages cross between host and page asynchronously, as
 * in a webview.
 */
async function chatWorld(t, turns, { extraConfig = '', selection = [ORIGINAL.indexOf('// agent:'), ORIGINAL.length] } = {}) {
  const bins = binaries(t);
  if (!bins) return null;
  const model = await fakeModel(t, bins, turns);
  if (typeof extraConfig === 'function') extraConfig = extraConfig(model.url);
  const ls = await startAgentls(t, bins, { files: { 'main.go': ORIGINAL }, modelUrl: model.url, extraConfig });
  const uri = ls.open('main.go');
  const stub = stubVscode({ editor: fakeEditor(uri, 'go', ORIGINAL, selection[0], selection[1]) });
  stub.setDocuments((u) => (ls.docs.get(u) ? ls.docs.get(u).getText() : undefined));
  const { ui } = attach(stub.vscode, ls.conn, { extensionUri: stub.vscode.Uri.file(path.resolve(__dirname, '..')) });
  const view = stub.openView(VIEW_ID);
  const doc = chatDocument(pageIds());
  let chat;
  view.onPost((m) => setImmediate(() => chat.onMessage(m)));
  chat = mount(doc, { postMessage: (m) => setImmediate(() => view.receive(m)) }, { markdown, conversation });
  const $ = (id) => doc.getElementById(id);
  const log = $('log');
  const kind = (k) => log.children.filter((e) => e.classList.contains(k));
  /** type types a line into the chat and presses Enter. */
  const type = (text) => {
    $('input').value = text;
    $('input').dispatch('input');
    $('input').dispatch('keydown', { key: 'Enter' });
  };
  /** idle waits for the view to show `users` prompts and no turn running. */
  const idle = (what, users) => waitUntil(() => kind('user').length === users && !chat.conv.busy && $('send').disabled === false, 20000, what);
  const until = (cond, what) => waitUntil(cond, 20000, what);
  await until(() => $('model').textContent !== '', 'the model indicator');
  return { model, ls, uri, stub, ui, view, doc, chat, $, log, kind, type, idle, until };
}

test('a two-turn chat: a tool call, a proposed edit approved in its card, a follow-up the model answers from the first answer', async (t) => {
  const w = await chatWorld(t, [
    { Text: 'Let me read it.', ToolCalls: [{ ID: 'call_1', Name: 'read_file', Input: JSON.stringify({ path: 'main.go' }) }] },
    { Text: FIRST_ANSWER },
    { Text: 'Adding it.', ToolCalls: [{ ID: 'call_2', Name: 'write_file', Input: JSON.stringify({ path: 'main.go', content: REWRITTEN }) }] },
    { Text: 'Added Sum.' },
    { Text: 'First I said: main.go declares an empty main.' },
  ]);
  if (!w) return;
  assert.equal(w.$('model').textContent, 'fake-model (openai-compatible)', 'the provider as the config resolves it');
  assert.equal(w.$('mode').textContent, 'mode: ask');
  assert.match(w.view.webviewView.webview.html, /script-src 'nonce-[A-Za-z0-9]{20,}'/);

  // Turn 1, with the selection attached.
  w.type('What does this do? @selection');
  await w.until(() => w.kind('user').length === 1, 'the prompt in the view');
  assert.deepEqual(w.kind('user')[0].byClass('chip').map((c) => c.textContent), ['selection main.go:3-5']);
  await w.idle('the first turn', 1);
  let reqs = await w.model.requests();
  assert.match(reqs[0].lastUserText, /What does this do\? @selection/);
  assert.match(reqs[0].system, /Selection \(lines 3-5\):[\s\S]*agent: add a function Sum/, 'the selection reached the model');
  const card = w.kind('tool')[0];
  assert.equal(card.byClass('title')[0].textContent.startsWith('read_file'), true, card.textContent);
  assert.equal(card.byClass('status')[0].textContent, 'completed');
  assert.match(card.byClass('result')[0].textContent, /package main/);
  assert.match(card.byClass('duration')[0].textContent, /^\d+ ms$|^\d+\.\d s$/);
  assert.equal(w.kind('assistant').map((a) => a.textContent).join(' | '), `agentlsLet me read it. | agentls${FIRST_ANSWER}`);
  assert.match(w.$('meter').textContent, /tokens/, 'the context meter after the turn');
  const sessionId = w.ui.state.sessionId;
  assert.ok(sessionId, 'the chat has a session');

  // Turn 2: the write asks; its card is in the conversation and the diff editor opens too.
  w.type('Add the function it asks for.');
  await w.until(() => w.kind('approval').length === 1 && w.stub.diffs.length === 1, 'the card and the diff editor');
  const approval = w.kind('approval')[0];
  assert.match(approval.byClass('title')[0].textContent, /main\.go/);
  assert.equal(w.stub.diffs[0].proposed, REWRITTEN, 'the diff editor shows the whole proposal');
  assert.equal(w.stub.calls.filter((c) => c.fn === 'showWarningMessage').length, 0, 'no modal for a chat turn');
  approval.all((e) => e.tagName === 'BUTTON' && e.textContent === 'Allow once')[0].click();
  await w.idle('the second turn', 2);
  assert.equal(w.ls.docs.get(w.uri).getText(), REWRITTEN, 'the edit is in the buffer');
  assert.deepEqual(w.stub.vscode.window.tabGroups.all[0].tabs, [], 'the diff editor closed when the card answered');
  assert.match(w.kind('approval')[0].byClass('outcome')[0].textContent, /^Answered: Allow once \(in the chat\)$/);
  assert.equal(w.kind('tool')[1].byClass('status')[0].textContent, 'completed');

  // Turn 3, a follow-up: the model is sent the first answer with it.
  w.type('What did you say about main.go at first?');
  await w.idle('the third turn', 3);
  reqs = await w.model.requests();
  assert.equal(reqs.length, 5);
  assert.ok(reqs[4].assistantTexts.includes(FIRST_ANSWER), `the follow-up's request shows the model its first answer: ${JSON.stringify(reqs[4].assistantTexts)}`);
  assert.equal(w.kind('assistant').at(-1).byClass('md')[0].textContent, 'First I said: main.go declares an empty main.');
  assert.equal(w.ui.state.sessionId, sessionId, 'one session for the three turns');
});

test('cancel stops the turn; /new starts over; /sessions lists the old session and a click reopens it, with its turns', async (t) => {
  const w = await chatWorld(t, [
    { Text: 'Thinking about it', Hang: true },
    { Text: 'Going on from where we were.' },
  ]);
  if (!w) return;
  w.type('explain the file');
  await w.until(() => w.$('cancel').disabled === false && w.kind('assistant').length === 1, 'the turn to run and stream');
  w.$('cancel').click();
  await w.idle('the cancelled turn', 1);
  assert.equal(w.kind('end')[0].textContent, 'Stopped: cancelled');
  const old = w.ui.state.sessionId;

  w.type('/new');
  await w.until(() => w.ui.state.sessionId !== old, 'a new session');
  await w.until(() => w.kind('notice').some((n) => n.textContent === 'New conversation.'), 'the view emptied');
  assert.equal(w.kind('user').length, 0);

  w.$('sessions').click();
  await w.until(() => w.log.byClass('session').length > 0, 'the list of sessions');
  const row = w.log.all((e) => e.getAttribute('data-session') === old)[0];
  assert.ok(row, `the old session ${old} is listed: ${w.log.textContent}`);
  assert.match(row.textContent, /^explain the file/);
  row.click();
  await w.until(() => w.ui.state.sessionId === old && w.kind('user').length === 1, 'the old session reopened');
  assert.equal(w.kind('user')[0].byClass('plain')[0].textContent, 'explain the file');
  assert.match(w.kind('assistant')[0].textContent, /Thinking/, 'what streamed before the cancel is shown');

  w.type('go on');
  await w.idle('a turn of the reopened session', 2);
  const reqs = await w.model.requests();
  assert.equal(reqs.length, 2);
  assert.equal(reqs[1].lastUserText, 'go on');
  assert.ok(reqs[1].assistantTexts.some((s) => s.includes('Thinking')), `the reopened session continues: ${JSON.stringify(reqs[1].assistantTexts)}`);
  assert.equal(w.kind('assistant').at(-1).byClass('md')[0].textContent, 'Going on from where we were.');
});

test('a command asks in its card; Deny tells the model and nothing runs; what the model writes is shown as text', async (t) => {
  const w = await chatWorld(t, [
    { Text: 'I will run <img src=x onerror="alert(1)"> [this](javascript:alert(2)).',
      ToolCalls: [{ ID: 'call_1', Name: 'run_command', Input: JSON.stringify({ command: 'echo chat-ran-it > ran.txt', shell: true }) }] },
    { Text: 'Understood, not run.' },
  ]);
  if (!w) return;
  w.type('install it');
  await w.until(() => w.kind('approval').length === 1, 'the card');
  const approval = w.kind('approval')[0];
  assert.match(approval.textContent, /echo chat-ran-it/);
  // A page that answers with an option the card does not offer (what a
  // script injected into it would try) is ignored: the card still waits.
  const id = approval.getAttribute('data-approval');
  await w.view.receive({ type: 'answer', approvalId: id, optionId: 'allow_unconfined' });
  await w.view.receive({ type: 'answer', approvalId: id, optionId: { toString: 'allow_once' } });
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(w.kind('approval')[0].byClass('options').length, 1, 'the card still waits');
  assert.match(w.ui.view.channel.text, /which the card does not offer; ignored/);
  approval.all((e) => e.tagName === 'BUTTON' && e.classList.contains('reject'))[0].click();
  await w.idle('the turn', 1);
  const reqs = await w.model.requests();
  assert.equal(reqs[1].toolResults[0].IsError, true, `the model is told: ${reqs[1].toolResults[0].Content}`);
  assert.ok(!fs.existsSync(path.join(w.ls.ws, 'ran.txt')), 'the command did not run');
  assert.match(w.kind('approval')[0].byClass('outcome')[0].textContent, /^Answered: Deny \(in the chat\)$/);
  // agentls may hold the end of a text back past the call's events (a
  // possible secret), so the answer can come in two parts.
  const said = w.kind('assistant').map((a) => a.byClass('md')[0].textContent).join('');
  assert.match(said, /I will run <img src=x onerror="alert\(1\)"> this \(javascript:alert\(2\)\)\./, 'the tag and the link are shown as their characters');
  assert.equal(w.log.all((e) => ['IMG', 'A', 'SCRIPT'].includes(e.tagName)).length, 0);
  assert.equal(w.kind('tool')[0].byClass('status')[0].textContent, 'denied');
});

test('slash commands: /compact, /mcp, an MCP prompt as /SERVER.PROMPT; #diagnostics and @file attach context', async (t) => {
  const bins = binaries(t);
  if (!bins) return;
  const log = path.join(require('os').tmpdir(), `agentls-chat-prompts-${process.pid}-${Date.now()}.log`);
  t.after(() => fs.rmSync(log, { force: true }));
  const w = await chatWorld(t, [
    { Text: 'Hello.' },
    { Text: 'SUMMARY: the user said hello.' },
    { Text: 'Greeted.' },
    { Text: 'Fixed.' },
  ], { extraConfig: `\n[mcp.servers.fault]\ncommand = "${bins.faultserver}"\nargs = ["-prompts-log", "${log}"]\n` });
  if (!w) return;
  w.type('/compact');
  await w.until(() => w.kind('notice').length === 1, 'the notice');
  assert.equal(w.kind('notice')[0].textContent, 'Nothing to compact yet: send a message first.');
  w.type('hello @file');
  await w.idle('a turn', 1);
  assert.deepEqual(w.kind('user')[0].byClass('chip').map((c) => c.textContent), ['file main.go']);
  let reqs = await w.model.requests();
  assert.match(reqs[0].system, /Selection \(lines 1-5\):[\s\S]*func main\(\) \{\}/, 'the whole file reached the model');
  w.type('/compact');
  await w.until(() => w.kind('notice').some((n) => /^Compacted: about \d+ → \d+ tokens/.test(n.textContent)), 'compacted');

  await w.until(async () => {
    const { servers } = await w.ls.conn.sendRequest('agent/mcp/servers', {});
    return servers.some((s) => s.state === 'connected');
  }, 'the MCP server');
  w.type('/mcp');
  await w.until(() => w.kind('notice').some((n) => /^MCP fault \(user\): connected · \d+ tools · 3 prompts/.test(n.textContent)), 'the server listed');

  w.type('/fault.greet');
  await w.until(() => w.kind('notice').some((n) => n.textContent === 'agentls: greet needs name: it takes name (required)'), 'the missing argument said');
  w.type('/fault.greet Ada');
  await w.until(() => w.kind('approval').length === 1, 'the prompts/get card');
  assert.match(w.kind('approval')[0].textContent, /prompts\/get/);
  w.kind('approval')[0].all((e) => e.tagName === 'BUTTON' && e.textContent === 'Allow once')[0].click();
  await w.idle('the prompt turn', 2);
  assert.match(fs.readFileSync(log, 'utf8'), /greet/);
  assert.match(w.kind('assistant').at(-1).textContent, /Greeted\./);

  w.stub.answers.diagnostics = () => [{ range: { start: { line: 3, character: 5 }, end: { line: 3, character: 9 } }, severity: 0, message: 'main redeclared', source: 'compiler' }];
  w.type('fix #diagnostics');
  await w.idle('the fix turn', 3);
  reqs = await w.model.requests();
  assert.match(reqs.at(-1).system, /main redeclared/, 'the diagnostics reached the model');
  assert.deepEqual(w.kind('user').at(-1).byClass('chip').map((c) => c.textContent), ['diagnostics main.go (1)']);
});

test('the page: a strict Content-Security-Policy, scripts by nonce from the extension only, nothing remote', () => {
  const stub = stubVscode();
  const conn = { onRequest: () => ({ dispose() {} }), onNotification: () => ({ dispose() {} }), sendRequest: async () => ({}) };
  attach(stub.vscode, conn, { extensionUri: stub.vscode.Uri.file('/ext') });
  const v = stub.openView(VIEW_ID);
  const { html, options } = v.webviewView.webview;
  const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)[1];
  const nonce = /'nonce-([^']+)'/.exec(csp)[1];
  assert.match(csp, /^default-src 'none'; /);
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|\*|http:|data:|blob:/);
  assert.match(csp, /script-src 'nonce-[A-Za-z0-9]+';/, 'scripts by nonce alone');
  const scripts = [...html.matchAll(/<script([^>]*)>/g)].map((m) => m[1]);
  assert.equal(scripts.length, 3);
  for (const s of scripts) {
    assert.ok(s.includes(`nonce="${nonce}"`), `a script without the nonce: ${s}`);
    assert.match(s, /src="https:\/\/file\+\.vscode-resource\.vscode-cdn\.net\/ext\/lib\/chat\/[a-z]+\.js"/);
  }
  assert.doesNotMatch(html, /<script[^>]*>[^<]/, 'no inline script');
  assert.doesNotMatch(html.replace(/<meta[^>]+>/, ''), / on[a-z]+=|style="/, 'no inline handler or style');
  assert.equal(options.enableScripts, true);
  assert.equal(options.enableCommandUris, false, 'a link in the page cannot run a command');
  assert.deepEqual(options.localResourceRoots.map((u) => u.path), ['/ext/lib/chat']);
  assert.equal(v.options.webviewOptions.retainContextWhenHidden, true);
  const second = stubVscode();
  attach(second.vscode, conn, { extensionUri: second.vscode.Uri.file('/ext') });
  assert.notEqual(/'nonce-([^']+)'/.exec(second.openView(VIEW_ID).webviewView.webview.html)[1], nonce, 'a fresh nonce per page');
});

test('/rewind: the quick pick of the turns, then the file the turn made is gone and the chat says the next message continues from before it', async (t) => {
  const w = await chatWorld(t, [
    { ToolCalls: [{ ID: 'call_1', Name: 'run_command', Input: JSON.stringify({ command: 'touch made.txt' }) }] },
    { Text: 'Made it.' },
  ]);
  if (!w) return;
  w.type('make the file');
  await w.until(() => w.kind('approval').length === 1, 'the card');
  w.kind('approval')[0].all((e) => e.tagName === 'BUTTON' && e.textContent === 'Allow once')[0].click();
  await w.idle('the turn', 1);
  const made = path.join(w.ls.ws, 'made.txt');
  assert.ok(fs.existsSync(made), 'the command ran');
  const picks = [];
  w.stub.answers.quickPick = (items) => { picks.push(items.map((i) => i.label)); return items[0]; };
  w.type('/rewind');
  await w.until(() => w.kind('notice').some((n) => /^Rewound to before turn 1: 1 file\(s\) restored\. What you send next continues from before turn 1/.test(n.textContent)), 'the rewind notice');
  assert.deepEqual(picks, [['1. make the file']]);
  assert.ok(!fs.existsSync(made), 'the file the turn created is gone');
});

test('the model picker: agentls: Choose model switches the chat\'s session to a profile of the config, its header says so, and the next turn goes to that provider\'s wire with the tool turn carried over', async (t) => {
  // The profile points at the same fake model, on Anthropic's wire.
  const w = await chatWorld(t, [
    { ToolCalls: [{ ID: 'call_m1', Name: 'read_file', Input: JSON.stringify({ path: 'main.go' }) }] },
    { Text: FIRST_ANSWER },
    { Text: 'Claude read it too.' },
  ], { extraConfig: (url) => `\n[model.profiles.claude]\nprovider = "anthropic"\nname = "fake-claude"\nbase_url = "${url}"\n` });
  if (!w) return;
  w.type('What does main.go do?');
  await w.idle('the first turn', 1);
  w.stub.answers.quickPick = (items) => {
    w.picked = items.map((i) => `${i.label} ${i.description}`);
    return items.find((i) => i.label === 'claude');
  };
  const set = await waitUntilDone(w.stub.vscode.commands.executeCommand('agentls.chooseModel'));
  assert.equal(set.model.profile, 'claude', JSON.stringify(set));
  assert.deepEqual(w.picked, ['default fake-model (openai-compatible)', 'claude fake-claude (anthropic)']);
  await w.until(() => w.$('model').textContent === 'claude: fake-claude (anthropic)', `the header names the profile (${w.$('model').textContent})`);
  w.type('And you?');
  await w.idle('the second turn', 2);
  const reqs = await w.model.requests();
  assert.equal(reqs.length, 3);
  assert.deepEqual(reqs.map((r) => r.format), ['chat-completions', 'chat-completions', 'anthropic-messages']);
  assert.equal(reqs[2].toolResults.length, 1, JSON.stringify(reqs[2].toolResults));
  assert.match(reqs[2].toolResults[0].Content, /package main/);
  assert.deepEqual(reqs[2].assistantTexts, [FIRST_ANSWER]);
  assert.equal(w.$('model').textContent, 'claude: fake-claude (anthropic)', 'the header after the turn');
});

function waitUntilDone(p) {
  return Promise.race([p, new Promise((_, reject) => setTimeout(() => reject(new Error('agentls.chooseModel did not answer')), 10000))]);
}

test('a call a real 2026-07-28 server runs as a task: its card shows the task\'s status while it works, then its result; Stop cancels a held one on the server', async (t) => {
  const root = path.resolve(__dirname, '..', '..', '..');
  const v2 = path.join(root, 'tools', 'node', 'mcp-v2-server.mjs');
  if (!fs.existsSync(path.join(root, 'tools', 'node', 'node_modules', '@modelcontextprotocol', 'server', 'package.json'))) {
    const why = '@modelcontextprotocol/server is missing: run scripts/setup.sh (npm ci in tools/node)';
    if (process.env.CI === 'true') throw new Error(why);
    t.skip(why);
    return;
  }
  const dir = fs.mkdtempSync(path.join(require('os').tmpdir(), 'agentls-task-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const hold = path.join(dir, 'release');
  const log = path.join(dir, 'requests.log');
  const w = await chatWorld(t, [
    { ToolCalls: [{ ID: 'k1', Name: 'v2__long', Input: JSON.stringify({ steps: 1, hold }) }] },
    { Text: 'It ran.' },
    { ToolCalls: [{ ID: 'k2', Name: 'v2__long', Input: JSON.stringify({ hold: path.join(dir, 'never') }) }] },
    { Text: 'never' },
  ], {
    extraConfig: `\n[mcp.servers.v2]\ncommand = ${JSON.stringify(process.execPath)}\nargs = [${JSON.stringify(v2)}]\nenv = { MCP_V2_LOG = ${JSON.stringify(log)} }\n\n[mcp.policy]\n"v2__*" = "allow"\n`,
  });
  if (!w) return;
  w.type('run it');
  const status = () => {
    const card = w.kind('tool')[0];
    const m = card && card.byClass('message')[0];
    return card ? `${card.byClass('status')[0].textContent} ${m ? m.textContent : ''}` : '';
  };
  await waitUntil(() => status() === `running waiting for ${hold}`, 60000, 'the card running with the task\'s status');
  fs.writeFileSync(hold, '');
  await w.idle('the first turn', 1);
  const card = w.kind('tool')[0];
  assert.equal(card.byClass('status')[0].textContent, 'completed');
  assert.equal(card.byClass('result')[0].textContent, 'finished 1 steps');
  assert.equal(w.kind('assistant').at(-1).byClass('md')[0].textContent, 'It ran.');

  w.type('run a long one');
  await waitUntil(() => {
    const c = w.kind('tool')[1];
    return c && c.byClass('status')[0].textContent === 'running' && c.byClass('message').length > 0;
  }, 60000, 'the second card running');
  w.$('cancel').click();
  await w.idle('the cancelled turn', 2);
  assert.equal(w.kind('end').at(-1).textContent, 'Stopped: cancelled');
  assert.match(fs.readFileSync(log, 'utf8'), /^tasks\/cancel t-2$/m, 'the cancel reached the server');
});

test('hooks: the before_tool hook denies a command without a card, its reason in the tool card and to the model; the after_tool line is added; the turn_end output is a notice in the chat', async (t) => {
  const hooks = `
[[hooks.before_tool]]
command = ["sh", "-c", "case \\"$AGENTLS_HOOK_EVENT\\" in *'rm -rf'*) echo 'hook: rm is not allowed in this repository'; exit 2;; esac"]
tools = ["run_command"]

[[hooks.after_tool]]
command = ["sh", "-c", "echo after-hook saw the call"]
tools = ["read_file"]

[[hooks.turn_end]]
command = ["sh", "-c", "echo turn-end hook ran"]
`;
  const w = await chatWorld(t, [
    { ToolCalls: [
      { ID: 'c1', Name: 'run_command', Input: JSON.stringify({ command: 'rm -rf build' }) },
      { ID: 'r1', Name: 'read_file', Input: JSON.stringify({ path: 'main.go' }) },
    ] },
    { Text: 'The hook stopped me.' },
  ], { extraConfig: hooks });
  if (!w) return;
  fs.mkdirSync(path.join(w.ls.ws, 'build'));
  w.type('clean up');
  await w.idle('the turn', 1);
  assert.equal(w.kind('approval').length, 0, 'a call the hook denied asks nothing');
  const [rm, read] = w.kind('tool');
  assert.equal(rm.byClass('status')[0].textContent, 'denied');
  assert.match(rm.textContent, /hook: rm is not allowed in this repository/);
  assert.match(read.textContent, /after-hook saw the call/);
  const reqs = await w.model.requests();
  const [denied, file] = reqs[1].toolResults;
  assert.ok(denied.IsError && /denied by your before_tool hook[\s\S]*hook: rm is not allowed/.test(denied.Content), `the model reads the hook's reason: ${denied.Content}`);
  assert.ok(!file.IsError && /agent: add a function Sum[\s\S]*after-hook saw the call/.test(file.Content), `the read carries the after_tool line: ${file.Content}`);
  await w.until(() => w.kind('notice').some((n) => /turn_end hook sh -c echo turn-end hook ran \(exit status 0\): turn-end hook ran/.test(n.textContent)), "the turn_end hook's notice");
  assert.ok(fs.existsSync(path.join(w.ls.ws, 'build')), 'the build folder is still there');
});

'use strict';
// The chat view's page logic: conversation.js (the host's messages folded
// into items) and webview.js (the items drawn, the user's clicks and keys
// sent back), run with test/support/fake-dom.js in place of the webview's
// DOM. The messages are the shapes panel.js posts; the events are
// docs/protocol.md section 3's.

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const { chatDocument } = require('./support/fake-dom');
const markdown = require('../lib/chat/markdown');
const conversation = require('../lib/chat/conversation');
const { mount } = require('../lib/chat/webview');
const { page } = require('../lib/chat/panel');

/** IDS are the elements webview.js looks up, with their tags as page() writes them. */
function pageIds() {
  const html = page({ csp: 'vscode-resource:', nonce: 'N', uri: (f) => f });
  const ids = {};
  for (const m of html.matchAll(/<(\w+)[^>]*\bid="([^"]+)"/g)) ids[m[2]] = m[1];
  return ids;
}

function world() {
  const doc = chatDocument(pageIds());
  const sent = [];
  const chat = mount(doc, { postMessage: (m) => sent.push(m) }, { markdown, conversation });
  const log = doc.getElementById('log');
  const items = () => log.children;
  const byKind = (cls) => log.children.filter((e) => e.classList.contains(cls));
  return { doc, sent, chat, log, items, byKind, $: (id) => doc.getElementById(id), on: (m) => chat.onMessage(m) };
}

const ev = (type, fields) => ({ type: 'event', event: { taskId: 't1', sessionId: 's1', seq: 0, type, ...fields }, at: fields.at });

test('every element webview.js uses is on the page panel.js writes', () => {
  const src = fs.readFileSync(path.join(__dirname, '..', 'lib', 'chat', 'webview.js'), 'utf8');
  const used = [...src.matchAll(/\$\('([^']+)'\)/g)].map((m) => m[1]);
  assert.ok(used.length >= 9, `found ${used.length} lookups`);
  const ids = pageIds();
  for (const id of used) assert.ok(ids[id], `page() has no #${id}`);
});

test('the page asks for ready, streams an answer as Markdown, and shows the tool call as a card', () => {
  const w = world();
  assert.deepEqual(w.sent, [{ type: 'ready' }]);
  w.on({ type: 'status', model: { provider: 'openai', name: 'fake-model' }, mode: 'ask' });
  assert.equal(w.$('model').textContent, 'fake-model (openai)');
  assert.equal(w.$('mode').textContent, 'mode: ask');

  w.on({ type: 'user', text: 'What is in **main.go**?', attachments: ['selection main.go:3-4'] });
  assert.equal(w.$('cancel').disabled, false, 'Cancel while a turn runs');
  assert.equal(w.$('send').disabled, true);
  const user = w.byKind('user')[0];
  assert.equal(user.byClass('plain')[0].textContent, 'What is in **main.go**?', "the user's words as typed, not as Markdown");
  assert.deepEqual(user.byClass('chip').map((c) => c.textContent), ['selection main.go:3-4']);

  w.on(ev('reasoning', { delta: 'The user wants ' }));
  w.on(ev('reasoning', { delta: 'the file.' }));
  w.on(ev('text', { delta: 'Reading it with ' }));
  w.on(ev('text', { delta: '`read_file`:' }));
  w.on(ev('tool_call', { toolCallId: 'c1', tool: 'read_file', title: 'read_file main.go', arguments: { path: 'main.go' }, status: 'pending', at: 1000 }));
  w.on(ev('tool_call', { toolCallId: 'c1', tool: 'read_file', title: 'read_file main.go', arguments: { path: 'main.go' }, status: 'running', at: 1100 }));
  let card = w.byKind('tool')[0];
  assert.equal(card.tagName, 'DETAILS', 'a tool call folds');
  assert.equal(card.byClass('status')[0].textContent, 'running');
  assert.equal(card.byClass('duration').length, 0, 'no time while it runs');
  // Progress (a server's, or the status of the task it runs the call as).
  w.on(ev('tool_call', { toolCallId: 'c1', tool: 'read_file', title: 'read_file main.go', arguments: { path: 'main.go' }, status: 'running', message: 'step 1 of 3', at: 1200 }));
  card = w.byKind('tool')[0];
  assert.equal(card.byClass('message')[0].textContent, 'step 1 of 3', 'a running call shows its progress');
  card.open = true; // the user unfolds it
  w.on(ev('tool_call', { toolCallId: 'c1', tool: 'read_file', title: 'read_file main.go', arguments: { path: 'main.go' }, status: 'completed', at: 1420 }));
  w.on(ev('tool_result', { toolCallId: 'c1', status: 'completed', output: 'package main\n', isError: false, at: 1425 }));
  card = w.byKind('tool')[0];
  assert.equal(card.open, true, 'redrawing keeps a card the user opened open');
  assert.equal(card.byClass('title')[0].textContent, 'read_file main.go');
  assert.equal(card.byClass('status')[0].textContent, 'completed');
  assert.equal(card.byClass('duration')[0].textContent, '420 ms');
  assert.equal(card.byClass('arguments')[0].textContent, '{\n  "path": "main.go"\n}');
  assert.equal(card.byClass('result')[0].textContent, 'package main\n');
  w.on(ev('text', { delta: 'It holds `main`.' }));
  w.on(ev('done', { stopReason: 'end_turn', text: '', usage: { inputTokens: 2000, outputTokens: 40, cacheReadTokens: 500, cacheWriteTokens: 0, contextTokens: 2040, contextWindow: 128000 } }));

  assert.deepEqual(w.items().map((e) => e.className.split(' ')[1]), ['user', 'reasoning', 'assistant', 'tool', 'assistant']);
  const reasoning = w.byKind('reasoning')[0];
  assert.equal(reasoning.tagName, 'DETAILS', 'reasoning is folded, apart from the answer');
  assert.equal(reasoning.byClass('plain')[0].textContent, 'The user wants the file.');
  const answer = w.byKind('assistant')[0];
  assert.equal(answer.byClass('md')[0].textContent, 'Reading it with read_file:', 'the deltas make one answer');
  assert.equal(answer.all((e) => e.tagName === 'CODE')[0].textContent, 'read_file');
  assert.equal(w.$('meter').textContent, '2.0k of 128k tokens (2%) · cache 25%', 'no cost for a model without a price');
  // A model with a price: the turn's cost, and the session's summed.
  w.on(ev('done', { stopReason: 'end_turn', text: '', cost: 0.0091, usage: { inputTokens: 2000, outputTokens: 40, cacheReadTokens: 500, cacheWriteTokens: 0, contextTokens: 2040, contextWindow: 128000 } }));
  w.on(ev('done', { stopReason: 'end_turn', text: '', cost: 0.0072, usage: { inputTokens: 2000, outputTokens: 40, cacheReadTokens: 1000, cacheWriteTokens: 0, contextTokens: 2100, contextWindow: 128000 } }));
  assert.equal(w.$('meter').textContent, '2.1k of 128k tokens (2%) · cache 50% · $0.0072 · session $0.016');
  assert.equal(w.$('cancel').disabled, true);
  assert.equal(w.$('send').disabled, false);
});

test('an approval card: its options are buttons that answer, then it says how it was answered', () => {
  const w = world();
  w.on({ type: 'user', text: 'rewrite it', attachments: [] });
  w.on({ type: 'approval', approval: { approvalId: 'a1', taskId: 't1', kind: 'write', title: 'write_file main.go', detail: '--- main.go\n+++ main.go\n+func Sum', options: [
    { optionId: 'allow_once', name: 'Allow once', kind: 'allow_once' }, { optionId: 'reject_once', name: 'Deny', kind: 'reject_once' }] } });
  let card = w.byKind('approval')[0];
  assert.equal(card.byClass('title')[0].textContent, 'write_file main.go');
  assert.equal(card.byClass('detail')[0].textContent, '--- main.go\n+++ main.go\n+func Sum');
  assert.match(card.byClass('hint')[0].textContent, /diff editor/);
  const buttons = card.all((e) => e.tagName === 'BUTTON');
  assert.deepEqual(buttons.map((b) => b.textContent), ['Allow once', 'Deny']);
  buttons[0].click();
  assert.deepEqual(w.sent.at(-1), { type: 'answer', approvalId: 'a1', optionId: 'allow_once' });
  w.on({ type: 'approvalSettled', approvalId: 'a1', optionId: 'allow_once', how: 'in the chat' });
  w.on(ev('approval', { approvalId: 'a1', state: 'resolved', optionId: 'allow_once' }));
  card = w.byKind('approval')[0];
  assert.equal(card.all((e) => e.tagName === 'BUTTON').length, 0, 'an answered card offers nothing more');
  assert.equal(card.byClass('outcome')[0].textContent, 'Answered: Allow once (in the chat)');

  w.on({ type: 'approval', approval: { approvalId: 'a2', kind: 'command', title: 'run_command', options: [{ optionId: 'allow_once', name: 'Allow once', kind: 'allow_once' }] } });
  w.on({ type: 'approvalSettled', approvalId: 'a2', optionId: '', how: 'the server withdrew it' });
  assert.equal(w.byKind('approval')[1].byClass('outcome')[0].textContent, 'Not answered: denied (the server withdrew it)');
});

test('past sessions: /sessions lists them, a click asks to reopen one; a replay draws the stored conversation', () => {
  const w = world();
  w.on({ type: 'sessions', sessions: [
    { sessionId: 's-old', title: 'add a function Sum', updatedAt: '2026-12-03T10:00:00Z', turns: 2, pinned: false },
    { sessionId: 's-older', title: '', updatedAt: '2026-12-02T09:00:00Z', turns: 1, pinned: false }] });
  const rows = w.log.all((e) => e.classList.contains('session'));
  assert.deepEqual(rows.map((r) => r.textContent), ['add a function Sum2 turns · 2026-12-03 10:00', 's-older1 turn · 2026-12-02 09:00']);
  rows[0].click();
  assert.deepEqual(w.sent.at(-1), { type: 'openSession', sessionId: 's-old' });

  w.on({ type: 'replay', sessionId: 's-old', events: [
    { taskId: '', sessionId: 's-old', seq: 1, type: 'prompt', text: 'add a function Sum' },
    { taskId: '', sessionId: 's-old', seq: 2, type: 'text', delta: 'I will add Sum.' },
    { taskId: '', sessionId: 's-old', seq: 3, type: 'tool_call', toolCallId: 'c1', tool: 'write_file', title: 'write_file', arguments: { path: 'main.go' }, status: 'pending' },
    { taskId: '', sessionId: 's-old', seq: 4, type: 'tool_call', toolCallId: 'c1', tool: 'write_file', title: 'write_file', arguments: { path: 'main.go' }, status: 'completed' },
    { taskId: '', sessionId: 's-old', seq: 5, type: 'tool_result', toolCallId: 'c1', status: 'completed', output: 'wrote main.go' },
    { taskId: '', sessionId: 's-old', seq: 6, type: 'text', delta: 'Added Sum.' }] });
  assert.deepEqual(w.items().map((e) => e.className.split(' ')[1]), ['user', 'assistant', 'tool', 'assistant'], 'the list was replaced by the session');
  assert.equal(w.byKind('user')[0].byClass('plain')[0].textContent, 'add a function Sum');
  assert.equal(w.byKind('tool')[0].byClass('result')[0].textContent, 'wrote main.go');

  w.on({ type: 'reset', sessionId: 's-new' });
  assert.equal(w.items().length, 0, '/new empties the view');
});

test('typing: Enter sends, Shift+Enter does not, / lists the commands and a click fills one in', () => {
  const w = world();
  const input = w.$('input');
  w.on({ type: 'commands', commands: [{ name: 'new', description: 'start an empty conversation' }, { name: 'compact', description: 'x' },
    { name: 'fault.greet', description: 'Say hello name=…' }] });
  input.value = '/';
  input.dispatch('input');
  assert.deepEqual(w.$('suggest').children.map((b) => b.byClass('name')[0].textContent), ['/new', '/compact', '/fault.greet']);
  input.value = '/fa';
  input.dispatch('input');
  const [only] = w.$('suggest').children;
  assert.equal(only.textContent, '/fault.greetSay hello name=…');
  only.click();
  assert.equal(input.value, '/fault.greet ');

  input.value = 'line one';
  const shifted = input.dispatch('keydown', { key: 'Enter', shiftKey: true });
  assert.equal(shifted.defaultPrevented, false);
  assert.equal(w.sent.filter((m) => m.type === 'send').length, 0, 'Shift+Enter is a new line');
  const ev = input.dispatch('keydown', { key: 'Enter', shiftKey: false });
  assert.equal(ev.defaultPrevented, true);
  assert.deepEqual(w.sent.at(-1), { type: 'send', text: 'line one' });
  assert.equal(input.value, '');

  w.on({ type: 'user', text: 'line one', attachments: [] });
  input.value = 'while busy';
  input.dispatch('keydown', { key: 'Enter' });
  assert.equal(w.sent.filter((m) => m.type === 'send').length, 1, 'nothing is sent while a turn runs');
  w.$('cancel').click();
  assert.deepEqual(w.sent.at(-1), { type: 'cancel' });
  w.$('new').click();
  assert.deepEqual(w.sent.at(-1), { type: 'send', text: '/new' });
});

test('a cancelled turn: the call it cut short shows cancelled, the end says why', () => {
  const w = world();
  w.on({ type: 'user', text: 'go', attachments: [] });
  w.on(ev('tool_call', { toolCallId: 'c1', tool: 'run_command', title: 'run_command sleep 60', arguments: {}, status: 'running', at: 0 }));
  w.on(ev('done', { stopReason: 'cancelled', text: '', usage: {}, at: 2500 }));
  assert.equal(w.byKind('tool')[0].byClass('status')[0].textContent, 'cancelled');
  assert.equal(w.byKind('tool')[0].byClass('duration')[0].textContent, '2.5 s');
  assert.equal(w.byKind('end')[0].textContent, 'Stopped: cancelled');
});

test('hostile strings from the model and servers are drawn as text in every part of the view', () => {
  const evil = '<img src=x onerror="alert(1)"><script>alert(2)</script>';
  const w = world();
  w.on({ type: 'status', model: { provider: evil, name: evil }, mode: evil });
  w.on({ type: 'user', text: evil, attachments: [evil] });
  w.on(ev('reasoning', { delta: evil }));
  w.on(ev('text', { delta: `${evil} [x](javascript:alert(3))` }));
  w.on(ev('tool_call', { toolCallId: evil, tool: evil, server: evil, title: evil, arguments: { a: evil }, status: evil, message: evil }));
  w.on(ev('tool_result', { toolCallId: evil, status: 'failed', output: evil, isError: true }));
  w.on({ type: 'approval', approval: { approvalId: evil, kind: 'command', title: evil, detail: evil, options: [{ optionId: evil, name: evil, kind: evil }] } });
  w.on(ev('status', { message: evil }));
  w.on({ type: 'sessions', sessions: [{ sessionId: evil, title: evil, updatedAt: evil, turns: 1 }] });
  w.on({ type: 'notice', text: evil, tone: 'error' });
  w.on(ev('done', { stopReason: evil, error: evil }));
  const all = w.doc.body.all();
  for (const e of all) {
    assert.ok(!['IMG', 'SCRIPT', 'IFRAME'].includes(e.tagName), `<${e.tagName}> in the view`);
    for (const k of e.attributes.keys()) assert.ok(!/^on/.test(k), `attribute ${k}`);
  }
  assert.equal(w.log.all((e) => e.tagName === 'A').length, 0, 'the javascript: link is not a link');
  const text = w.doc.body.textContent;
  assert.ok(text.split(evil).length - 1 >= 12, `the string is shown as text everywhere (${text.split(evil).length - 1} times)`);
});

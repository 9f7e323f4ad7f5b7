'use strict';
// The extension's code against a real agentls (built from this repository)
// and the fake model server, through vscode-languageserver-protocol: the
// approval modal, the event view and status bar, the palette commands.

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');

const { stubVscode, fakeEditor } = require('./support/stub-vscode');
const { binaries, fakeModel, startAgentls, withTimeout, waitUntil } = require('./support/harness');
const { attach } = require('../lib/attach');

const ORIGINAL = 'package main\n\n// agent: add a function Sum\nfunc main() {}\n';
const REWRITTEN = 'package main\n\n// Sum adds up xs.\nfunc Sum(xs []int) int {\n\ttotal := 0\n\tfor _, x := range xs {\n\t\ttotal += x\n\t}\n\treturn total\n}\n\nfunc main() {}\n';

const writeTurn = {
  Text: 'I will add Sum.',
  ToolCalls: [{ ID: 'call_1', Name: 'write_file', Input: JSON.stringify({ path: 'main.go', content: REWRITTEN }) }],
};

/** world starts the fake model and agentls, opens main.go, and attaches the extension's code with a stub vscode. */
async function world(t, turns, files = { 'main.go': ORIGINAL }) {
  const bins = binaries(t);
  if (!bins) return null;
  const model = await fakeModel(t, bins, turns);
  // A price for the fake model, so the done events carry a cost.
  const ls = await startAgentls(t, bins, { files, modelUrl: model.url, extraConfig: '\n[prices."fake-model"]\ninput = 3\noutput = 15\ncache_read = 0.3\n' });
  const uri = ls.open('main.go');
  // The cursor on the directive line, nothing selected.
  const line = ORIGINAL.indexOf('// agent:');
  const stub = stubVscode({ editor: fakeEditor(uri, 'go', ls.docs.get(uri).getText(), line, line) });
  stub.setDocuments((u) => (ls.docs.get(u) ? ls.docs.get(u).getText() : undefined)); // the buffer, as VS Code shows it
  const { ui } = attach(stub.vscode, ls.conn);
  return { model, ls, uri, stub, ui, bar: stub.items[0], events: stub.channels['agentls events'] };
}

const run = (w) => withTimeout(w.stub.vscode.commands.executeCommand('agentls.runSelection'), 30000, 'agentls.runSelection');

test('initialize: agentls answers with its version and every command of the protocol', async (t) => {
  const bins = binaries(t);
  if (!bins) return;
  const ls = await startAgentls(t, bins);
  const caps = ls.init.capabilities;
  assert.deepEqual(caps.experimental.agentls, { version: 1 });
  assert.equal(ls.init.serverInfo.name, 'agentls');
  assert.ok(caps.codeActionProvider, 'codeActionProvider');
  for (const c of ['agentls.run', 'agentls.prompt', 'agentls.cancel', 'agentls.approve', 'agentls.deny', 'agentls.newChat',
    'agentls.transcript', 'agentls.mcp.list', 'agentls.mcp.trust', 'agentls.mcp.revoke']) {
    assert.ok(caps.executeCommandProvider.commands.includes(c), `executeCommandProvider lacks ${c}`);
  }
  const how = await ls.stop();
  assert.equal(how.code, 0, `agentls exited ${JSON.stringify(how)} after shutdown/exit; stderr:\n${ls.stderr()}`);
});

test('run on the directive line: the write opens a diff editor, Accept lands the edit in the buffer', async (t) => {
  const w = await world(t, [writeTurn, { Text: 'Added Sum.' }]);
  if (!w) return;
  w.stub.answers.inputBox = (opts) => opts.value; // accept the prefilled directive
  const seen = [];
  w.stub.answers.diff = (d) => {
    seen.push({ title: d.title, original: d.original, proposed: d.proposed, scheme: d.right.scheme,
      reviewing: w.stub.contexts['agentls.reviewing'], tabs: w.stub.vscode.window.tabGroups.all[0].tabs.length });
    // Accept in the editor title: VS Code passes the diff's (modified) resource.
    w.stub.vscode.commands.executeCommand('agentls.acceptEdit', d.right);
  };
  const result = await run(w);

  assert.equal(result.stopReason, 'end_turn', JSON.stringify(result));
  assert.equal(result.text, 'Added Sum.');
  assert.equal(w.ui.state.sessionId, result.sessionId, 'the next run continues this chat');
  assert.equal(seen.length, 1, `one diff editor, got ${JSON.stringify(seen)}`);
  assert.equal(seen[0].original, ORIGINAL, 'the left side is the current buffer');
  assert.equal(seen[0].proposed, REWRITTEN, 'the right side is the whole proposed file, tabs and all');
  assert.equal(seen[0].scheme, 'agentls-proposed');
  assert.match(seen[0].title, /^main\.go: current ↔ proposed by agentls$/);
  assert.equal(seen[0].reviewing, true, 'Accept / Reject show while the review is open');
  assert.equal(seen[0].tabs, 1);
  const modals = w.stub.calls.filter((c) => c.fn === 'showWarningMessage');
  assert.deepEqual(modals, [], 'a write with a diff asks with no modal');
  const note = w.stub.calls.find((c) => c.fn === 'showInformationMessage' && c.args.includes('Accept'));
  assert.ok(note && note.args.includes('Reject'), 'a notification offers Accept and Reject too');

  assert.equal(w.ls.docs.get(w.uri).getText(), REWRITTEN, 'the edit is in the buffer');
  assert.equal(fs.readFileSync(path.join(w.ls.ws, 'main.go'), 'utf8'), ORIGINAL, 'through the editor, not behind its back');
  assert.match(w.ls.edits[0].label, /write_file/);
  assert.deepEqual(w.stub.vscode.window.tabGroups.all[0].tabs, [], 'the diff editor closed after the answer');
  assert.equal(w.stub.contexts['agentls.reviewing'], false);

  const prompt = (await w.model.requests())[0].lastUserText;
  assert.match(prompt, /add a function Sum/);
  const reqs = await w.model.requests();
  assert.equal(reqs.length, 2);
  assert.deepEqual(reqs[1].toolResults.map((r) => [r.ToolUseID, r.IsError]), [['call_1', false]]);

  await waitUntil(() => /done: end_turn/.test(w.events.text), 5000, 'the done event in the view');
  assert.match(w.events.text, /tool write_file/);
  assert.match(w.events.text, /accepted in the diff editor/);
  assert.match(w.events.text, /Added Sum\./);
  await waitUntil(() => w.bar.text === '$(hubot) agentls', 5000, 'the status bar to go idle');
  assert.match(w.stub.items[1].text, /^\$\(graph\) [\d,]+ in \(\d+% cache\) · [\d,]+ out · \$[\d.]+ · session [\d,]+ in, [\d,]+ out, \$[\d.]+$/,
    "the usage item shows the turn's tokens, cache share and cost");
  assert.ok(w.bar.history.some((h) => /^\$\(sync~spin\) agentls: calling write_file/.test(h)),
    `the status bar showed the tool call: ${JSON.stringify(w.bar.history)}`);
});

for (const [how, answer] of [
  ['Reject in the editor title', (w, d) => w.stub.vscode.commands.executeCommand('agentls.rejectEdit', d.right)],
  ['closing the diff editor', (w, d) => d.close()],
  ['Reject in the notification', null],
]) {
  test(`${how} denies the write`, async (t) => {
    const w = await world(t, [writeTurn, { Text: 'Understood, no change.' }]);
    if (!w) return;
    w.stub.answers.inputBox = () => 'add a function Sum';
    if (answer) w.stub.answers.diff = (d) => answer(w, d);
    else w.stub.answers.info = (message, buttons) => (buttons.includes('Reject') ? 'Reject' : undefined);
    const result = await run(w);
    assert.equal(result.stopReason, 'end_turn');
    assert.equal(w.stub.diffs.length, 1, 'the write was shown in a diff editor');
    assert.equal(w.ls.docs.get(w.uri).getText(), ORIGINAL);
    assert.equal(w.ls.edits.length, 0);
    assert.deepEqual(w.stub.vscode.window.tabGroups.all[0].tabs, [], 'no diff editor is left open');
    const reqs = await w.model.requests();
    assert.equal(reqs[1].toolResults.length, 1);
    assert.equal(reqs[1].toolResults[0].IsError, true, `the model is told: ${reqs[1].toolResults[0].Content}`);
  });
}

test('a command still asks with the modal; dismissing it denies', async (t) => {
  const w = await world(t, [
    { ToolCalls: [{ ID: 'call_1', Name: 'run_command', Input: JSON.stringify({ command: 'echo approved-run' }) }] },
    { Text: 'Understood, not run.' },
  ]);
  if (!w) return;
  w.stub.answers.inputBox = () => 'install it';
  const modals = [];
  w.stub.answers.warning = (message, options, buttons) => { modals.push({ message, detail: options.detail }); return undefined; };
  const result = await run(w);
  assert.equal(result.stopReason, 'end_turn');
  assert.equal(modals.length, 1, 'one modal');
  assert.match(modals[0].detail, /echo approved-run/);
  assert.equal(w.stub.diffs.length, 0, 'no diff editor for a command');
  const reqs = await w.model.requests();
  assert.equal(reqs[1].toolResults[0].IsError, true, `the model is told: ${reqs[1].toolResults[0].Content}`);
  assert.doesNotMatch(reqs[1].toolResults[0].Content, /approved-run\n/, 'the command did not run');
});

test('cancel from the palette stops the running task', async (t) => {
  // More than one word: agentls holds back the word still being written
  // (it could be the start of a secret, red-team finding 9), so a stream
  // that stalls after its only word shows no text until it ends.
  const w = await world(t, [{ Text: 'Thinking about it', Hang: true }]);
  if (!w) return;
  w.stub.answers.inputBox = () => 'explain this file';
  const running = run(w);
  await waitUntil(() => w.bar.command === 'agentls.cancelTask', 10000, 'the status bar to show the task');
  const cancelled = await withTimeout(w.stub.vscode.commands.executeCommand('agentls.cancelTask'), 10000, 'agentls.cancelTask');
  assert.match(cancelled, /^t/);
  const result = await running;
  assert.equal(result.stopReason, 'cancelled');
});

test('reasoning is shown marked in the event view, and a refusal ends the task with a warning saying why', async (t) => {
  const w = await world(t, [{ Thinking: 'Weighing the request.', Refusal: "I can't help with that." }]);
  if (!w) return;
  w.stub.answers.inputBox = () => 'do the forbidden thing';
  const result = await run(w);
  assert.equal(result.stopReason, 'refusal');
  assert.equal(result.text, "I can't help with that.");
  await waitUntil(() => /done: refusal/.test(w.events.text), 5000, 'the done event in the view');
  assert.match(w.events.text, /\[t1\] reasoning:\n┆ Weighing the request\.\n/);
  assert.match(w.events.text, /done: refusal: the model declined to answer/);
  const warnings = w.stub.calls.filter((c) => c.fn === 'showWarningMessage').map((c) => c.args[0]);
  assert.ok(warnings.some((m) => m.includes('the task stopped: refusal (the model declined to answer')), `warnings ${JSON.stringify(warnings)}`);
});

test('new chat and transcript: the transcript opens from the state directory, never the workspace', async (t) => {
  const w = await world(t, [{ Text: 'Hello from the model.' }]);
  if (!w) return;
  w.stub.answers.inputBox = () => 'say hello';
  const first = await run(w);
  assert.equal(first.stopReason, 'end_turn');

  const opened = await withTimeout(w.stub.vscode.commands.executeCommand('agentls.openTranscript'), 10000, 'agentls.openTranscript');
  assert.equal(opened, first.sessionId);
  await waitUntil(() => w.ls.shown.length > 0, 5000, 'window/showDocument');
  const file = new URL(w.ls.shown[0].uri).pathname;
  assert.ok(file.startsWith(path.join(w.ls.dir, 'state')), `transcript ${file} is not under XDG_STATE_HOME`);
  assert.ok(!file.startsWith(w.ls.ws), 'a transcript never lands in the workspace');
  const text = fs.readFileSync(file, 'utf8');
  assert.match(text, /say hello/);
  assert.match(text, /Hello from the model\./);

  const fresh = await withTimeout(w.stub.vscode.commands.executeCommand('agentls.startNewChat'), 10000, 'agentls.startNewChat');
  assert.ok(fresh && fresh !== first.sessionId, `new chat ${fresh} after ${first.sessionId}`);
  assert.equal(w.ui.state.sessionId, fresh);
});

test('compact: the palette command compacts the session through agent/compact (the model writes the summary)', async (t) => {
  const w = await world(t, [{ Text: 'Hello from the model.' }, { Text: 'SUMMARY: the user said hello.' }]);
  if (!w) return;
  w.stub.answers.inputBox = () => 'say hello';
  const first = await run(w);
  assert.equal(first.stopReason, 'end_turn');
  w.ui.state.sessionId = first.sessionId;
  const res = await withTimeout(w.stub.vscode.commands.executeCommand('agentls.compactSession'), 10000, 'agentls.compactSession');
  assert.equal(res.sessionId, first.sessionId);
  assert.ok(res.tokensBefore > 0 && res.tokensAfter > 0, `tokens ${res.tokensBefore} -> ${res.tokensAfter}`);
  const infos = w.stub.calls.filter((c) => c.fn === 'showInformationMessage').map((c) => c.args[0]);
  assert.ok(infos.some((m) => /compacted/.test(m)), `no message says it compacted: ${JSON.stringify(infos)}`);
});

test("an MCP server's form: Submit asks each field, what was entered reaches the server", async (t) => {
  const bins = binaries(t);
  if (!bins) return;
  const schema = { type: 'object', required: ['name'], properties: {
    name: { type: 'string', title: 'Your name' }, color: { type: 'string', enum: ['r', 'g'], enumNames: ['Red', 'Green'] } } };
  const model = await fakeModel(t, bins, [
    { ToolCalls: [{ ID: 'call_q', Name: 'q__ask', Input: JSON.stringify({ message: 'Who are you?', schema }) }] },
    { Text: 'Thanks.' },
  ]);
  const extraConfig = `\n[mcp.servers.q]\ncommand = "${bins.faultserver}"\n\n[mcp.policy]\n"q__ask" = "allow"\n`;
  const ls = await startAgentls(t, bins, { modelUrl: model.url, extraConfig, files: { 'main.go': ORIGINAL } });
  const uri = ls.open('main.go');
  const stub = stubVscode({ editor: fakeEditor(uri, 'go', ORIGINAL, 0, ORIGINAL.length) });
  attach(stub.vscode, ls.conn);
  let card;
  stub.answers.warning = (message, options, buttons) => { card = { message, detail: options.detail }; return buttons.find((b) => b.title === 'Submit'); };
  stub.answers.inputBox = (opts) => (opts.title === 'q asks: Your name (name)' ? 'Ada' : opts.value);
  stub.answers.quickPick = (items) => items.find((i) => i.label === 'Green');
  const result = await withTimeout(stub.vscode.commands.executeCommand('agentls.runSelection'), 60000, 'agentls.runSelection');
  assert.equal(result.stopReason, 'end_turn');
  assert.equal(card.message, 'q asks: Who are you?');
  assert.match(card.detail, /^MCP server q asks \(its own words\):\n {2}│ Who are you\?/);
  const reqs = await model.requests();
  assert.equal(reqs[1].toolResults[0].Content, '{"action":"accept","content":{"color":"g","name":"Ada"}}');
});

test('mode and rules: a command card saves its rule, the palette sets plan mode (the status bar says so) and the write is refused without a card, the rule is forgotten', async (t) => {
  const w = await world(t, [
    { ToolCalls: [{ ID: 'c1', Name: 'run_command', Input: JSON.stringify({ command: 'echo vscode-rule' }) }] },
    { Text: 'Ran it.' },
    writeTurn,
    { Text: 'Could not write.' },
  ]);
  if (!w) return;
  const cards = [];
  w.stub.answers.warning = (message, options, buttons) => {
    cards.push({ message, buttons: buttons.map((b) => b.title) });
    return buttons.find((b) => /^Always allow/.test(b.title));
  };
  w.stub.answers.inputBox = () => 'run the check';
  const first = await run(w);
  assert.equal(first.stopReason, 'end_turn', JSON.stringify(first));
  assert.equal(cards.length, 1, JSON.stringify(cards));
  assert.ok(cards[0].buttons.some((b) => b.includes('run `echo vscode-rule` without asking')), `the card names its rule: ${JSON.stringify(cards[0])}`);

  w.stub.answers.quickPick = (items) => items.find((i) => i.label === 'plan');
  const set = await withTimeout(w.stub.vscode.commands.executeCommand('agentls.chooseMode'), 10000, 'agentls.chooseMode');
  assert.equal(set.mode, 'plan');
  assert.equal(w.bar.text, '$(hubot) agentls [plan]');

  w.stub.answers.inputBox = () => 'rewrite it';
  const second = await run(w);
  assert.equal(second.stopReason, 'end_turn', JSON.stringify(second));
  assert.equal(cards.length, 1, 'the write in plan mode showed no card');
  assert.equal(w.ls.docs.get(w.uri).getText(), ORIGINAL, 'the buffer is unchanged');
  assert.equal(w.bar.text, '$(hubot) agentls [plan]', 'done carries the mode');

  w.stub.answers.quickPick = (items) => items.find((i) => i.label === 'command: echo vscode-rule');
  const revoked = await withTimeout(w.stub.vscode.commands.executeCommand('agentls.showRules'), 10000, 'agentls.showRules');
  assert.equal(revoked.revoked.length, 1, JSON.stringify(revoked));
  const left = await w.ls.conn.sendRequest('agent/rules', {});
  assert.deepEqual(left.rules, []);
});

test('rewind: the palette lists the turns, names a file changed outside agentls (kept, then overwritten), and puts the buffer back through the editor', async (t) => {
  const w = await world(t, [
    { ToolCalls: [
      { ID: 'call_1', Name: 'write_file', Input: JSON.stringify({ path: 'main.go', content: REWRITTEN }) },
      { ID: 'c1', Name: 'run_command', Input: JSON.stringify({ command: 'touch made.txt' }) },
    ] },
    { Text: 'Added Sum and made.txt.' },
  ]);
  if (!w) return;
  w.stub.answers.inputBox = () => 'add Sum';
  w.stub.answers.diff = (d) => w.stub.vscode.commands.executeCommand('agentls.acceptEdit', d.right);
  const modals = [];
  let overwrite = false;
  w.stub.answers.warning = (message, options, buttons) => {
    modals.push({ message, detail: options && options.detail, buttons: buttons.map((b) => b.title) });
    return buttons.find((b) => b.title === (overwrite ? 'Overwrite them' : 'Allow once'));
  };
  const first = await run(w);
  assert.equal(first.stopReason, 'end_turn', JSON.stringify(first));
  assert.equal(w.ls.docs.get(w.uri).getText(), REWRITTEN);
  const made = path.join(w.ls.ws, 'made.txt');
  assert.ok(fs.existsSync(made), 'the command ran');
  fs.writeFileSync(made, 'the user wrote this\n');

  const picks = [];
  w.stub.answers.quickPick = (items) => { picks.push(items.map((i) => `${i.label} · ${i.description}`)); return items[0]; };
  const kept = await withTimeout(w.stub.vscode.commands.executeCommand('agentls.rewindSession'), 20000, 'agentls.rewindSession');
  assert.deepEqual(picks[0], ['1. add Sum · 2 file(s)']);
  assert.deepEqual(kept.changed, [made], JSON.stringify(kept));
  assert.equal(modals.length, 2, `the command's card, then the rewind's: ${JSON.stringify(modals)}`);
  assert.match(modals[1].message, /before turn 1 would overwrite 1 file\(s\) changed outside agentls/);
  assert.match(modals[1].detail, /made\.txt/);
  assert.equal(w.ls.docs.get(w.uri).getText(), REWRITTEN, 'keeping the changed file restored nothing');
  assert.equal(fs.readFileSync(made, 'utf8'), 'the user wrote this\n');

  overwrite = true;
  const done = await withTimeout(w.stub.vscode.commands.executeCommand('agentls.rewindSession'), 20000, 'agentls.rewindSession');
  assert.match(done.message, /rewound to before turn 1: 2 file\(s\) restored/, JSON.stringify(done));
  assert.equal(w.ls.docs.get(w.uri).getText(), ORIGINAL, 'the buffer is back as before the turn');
  assert.match(w.ls.edits[w.ls.edits.length - 1].label, /^agentls: rewind .*main\.go$/, 'through workspace/applyEdit, so undo has the agent\'s text');
  assert.equal(fs.readFileSync(path.join(w.ls.ws, 'main.go'), 'utf8'), ORIGINAL, 'main.go on disk was never written');
  assert.ok(!fs.existsSync(made), 'the file the turn created is gone');
  const info = w.stub.calls.filter((c) => c.fn === 'showInformationMessage').map((c) => c.args[0]);
  assert.ok(info.some((m) => /continues from before turn 1/.test(m)), JSON.stringify(info));
});

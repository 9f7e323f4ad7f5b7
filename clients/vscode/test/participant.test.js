'use strict';
// @agentls in VS Code's native chat (lib/chat/participant.js) against a
// real agentls and the fake model, through the stub vscode: a host with
// vscode.chat gets the participant, one without (code-server, VSCodium
// builds with no chat) gets none and the rest works; a turn streams as the
// native chat's parts, its write reviewed in the diff editor, on the chat
// view's session.

const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');

const { stubVscode, fakeEditor } = require('./support/stub-vscode');
const { binaries, fakeModel, startAgentls, withTimeout } = require('./support/harness');
const { attach } = require('../lib/attach');
const { VIEW_ID } = require('../lib/chat/panel');
const { fence, PARTICIPANT_ID } = require('../lib/chat/participant');

const ORIGINAL = 'package main\n\nfunc main() {}\n';
const REWRITTEN = 'package main\n\nfunc Sum() int { return 0 }\n\nfunc main() {}\n';
const EXT = path.resolve(__dirname, '..');

/** recordingStream is a ChatResponseStream that records its parts. */
function recordingStream() {
  const parts = [];
  const stream = {};
  for (const kind of ['markdown', 'progress', 'anchor', 'button', 'reference']) {
    stream[kind] = (...args) => parts.push([kind, ...args]);
  }
  return { stream, parts };
}

const token = () => {
  const listeners = [];
  return { isCancellationRequested: false, onCancellationRequested: (fn) => { listeners.push(fn); return { dispose() {} }; }, cancel() { this.isCancellationRequested = true; listeners.forEach((f) => f()); } };
};

test('without vscode.chat nothing is registered and the chat view still works', () => {
  const stub = stubVscode();
  const conn = { onRequest: () => ({ dispose() {} }), onNotification: () => ({ dispose() {} }), sendRequest: async () => ({}) };
  assert.doesNotThrow(() => attach(stub.vscode, conn, { extensionUri: stub.vscode.Uri.file(EXT) }));
  assert.equal(stub.participants.length, 0);
  assert.ok(stub.openView(VIEW_ID).webviewView.webview.html.includes('id="log"'));
});

test('@agentls: the answer streams as Markdown parts, the tool call as progress and a result line, the edit as an anchor, on the view\'s session', async (t) => {
  const bins = binaries(t);
  if (!bins) return;
  const model = await fakeModel(t, bins, [
    { Text: 'Adding Sum.', ToolCalls: [{ ID: 'call_1', Name: 'write_file', Input: JSON.stringify({ path: 'main.go', content: REWRITTEN }) }] },
    { Text: 'Done: **Sum** is there.' },
    { Text: 'Still here.' },
  ]);
  const ls = await startAgentls(t, bins, { files: { 'main.go': ORIGINAL }, modelUrl: model.url });
  const uri = ls.open('main.go');
  const stub = stubVscode({ chat: true, editor: fakeEditor(uri, 'go', ORIGINAL, 0, 0) });
  stub.setDocuments((u) => (ls.docs.get(u) ? ls.docs.get(u).getText() : undefined));
  stub.answers.diff = (d) => stub.vscode.commands.executeCommand('agentls.acceptEdit', d.right);
  const { ui } = attach(stub.vscode, ls.conn, { extensionUri: stub.vscode.Uri.file(EXT) });
  stub.vscode.workspace.workspaceFolders = [{ uri: stub.vscode.Uri.file(ls.ws), name: 'ws', index: 0 }];
  assert.equal(stub.participants.length, 1);
  const { id, handler, participant } = stub.participants[0];
  assert.equal(id, PARTICIPANT_ID);
  assert.match(participant.iconPath.path, /lib\/chat\/icon\.svg$/);
  const view = stub.openView(VIEW_ID);

  const { stream, parts } = recordingStream();
  const result = await withTimeout(handler({ prompt: 'add Sum', command: undefined, references: [] }, { history: [] }, stream, token()), 30000, 'the turn');
  assert.equal(result.metadata.sessionId, ui.state.sessionId, "the view's session");
  assert.equal(ls.docs.get(uri).getText(), REWRITTEN, 'the write was reviewed in the diff editor and accepted');
  const kinds = parts.map((p) => p[0]);
  assert.deepEqual(parts.filter((p) => p[0] === 'progress').map((p) => p[1]), ['write_file main.go', 'Waiting for your approval: write_file main.go']);
  const md = parts.filter((p) => p[0] === 'markdown').map((p) => p[1]).join('');
  assert.match(md, /Adding Sum\.\n\n✓ `write_file main.go` completed \(\d+\.\d s\)\n/);
  assert.match(md, /Done: \*\*Sum\*\* is there\.$/);
  const anchor = parts.find((p) => p[0] === 'anchor');
  assert.equal(anchor[1].path, path.join(ls.ws, 'main.go'));
  assert.equal(anchor[2], 'main.go');
  assert.ok(kinds.indexOf('anchor') < kinds.lastIndexOf('markdown'));
  // The view shows the turn too.
  const posted = view.posted.map((m) => m.type);
  assert.ok(posted.includes('user') && view.posted.some((m) => m.type === 'event' && m.event.type === 'done'), posted.join(','));

  // /sessions offers a button per session; the next turn continues.
  const s2 = recordingStream();
  await handler({ prompt: '', command: 'sessions' }, { history: [] }, s2.stream, token());
  const buttons = s2.parts.filter((p) => p[0] === 'button');
  assert.equal(buttons.length, 1);
  assert.deepEqual(buttons[0][1].command, 'agentls.reopenSession');
  assert.deepEqual(buttons[0][1].arguments, [ui.state.sessionId]);
  const s3 = recordingStream();
  const again = await handler({ prompt: 'still there?' }, { history: [] }, s3.stream, token());
  assert.equal(again.metadata.sessionId, result.metadata.sessionId);
  const reqs = await model.requests();
  assert.ok(reqs[2].assistantTexts.includes('Done: **Sum** is there.'), JSON.stringify(reqs[2].assistantTexts));
});

test('fence: a tool result with backticks cannot end its code block', () => {
  assert.equal(fence('a ``` b ```` c'), '\n`````\na ``` b ```` c\n`````\n');
  assert.equal(fence('plain'), '\n```\nplain\n```\n');
});

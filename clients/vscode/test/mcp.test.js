'use strict';
// MCP servers from the extension's side, against a real agentls and the real
// server-filesystem from npm, declared by the workspace: agentls asks to start
// it as soon as the workspace opens, the launch card is a modal showing the
// literal command line, nothing runs before consent, and the quick pick
// trusts, lists and revokes.

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');

const { stubVscode } = require('./support/stub-vscode');
const { binaries, startAgentls, withTimeout, waitUntil, processesMatching } = require('./support/harness');
const { attach } = require('../lib/attach');

const FS_SERVER = path.resolve(__dirname, '..', '..', '..', 'tools', 'node', 'node_modules', '.bin', 'mcp-server-filesystem');

/** workspaceWithServer starts agentls on a workspace whose .agentls/config.toml declares server-filesystem as "fs". */
async function workspaceWithServer(t, answerCard) {
  const bins = binaries(t);
  if (!bins) return null;
  if (!fs.existsSync(FS_SERVER)) {
    const why = 'tools/node/node_modules/.bin/mcp-server-filesystem is missing: run scripts/setup.sh';
    if (process.env.CI === 'true') throw new Error(why);
    t.skip(why);
    return null;
  }
  const stub = stubVscode();
  const w = { stub, cards: [] };
  stub.answers.warning = (message, options, buttons) => {
    // Nothing of the server may run while its card waits for an answer.
    w.cards.push({ message, detail: options.detail, buttons, runningWhileAsked: w.running().length });
    return answerCard(buttons, w.cards.length);
  };
  // The server's argument is the workspace path: unique to this test, so the
  // process table tells whether it runs.
  w.ls = await startAgentls(t, bins, {
    files: (ws) => ({ '.agentls/config.toml': `[mcp.servers.fs]\ncommand = "${FS_SERVER}"\nargs = ["${ws}"]\n` }),
    setup: (conn) => attach(stub.vscode, conn),
  });
  w.running = () => processesMatching(`mcp-server-filesystem ${w.ls.ws}`);
  w.state = async () => (await w.ls.conn.sendRequest('agent/mcp/servers', {})).servers.find((s) => s.name === 'fs');
  return w;
}

const mcpServers = (w) => withTimeout(w.stub.vscode.commands.executeCommand('agentls.mcpServers'), 30000, 'agentls.mcpServers');
const allow = (buttons) => buttons.find((b) => b.optionId === 'allow_once');
const infos = (w) => w.stub.calls.filter((c) => c.fn === 'showInformationMessage').map((c) => c.args[0]);

test('the launch card arrives on open as a modal with the literal command line; accepting it starts the server', async (t) => {
  const w = await workspaceWithServer(t, allow);
  if (!w) return;
  const row = await waitUntil(async () => { const r = await w.state(); return r.state === 'connected' && r; }, 20000, 'fs to connect');

  assert.equal(w.cards.length, 1);
  assert.match(w.cards[0].message, /fs/);
  assert.ok(w.cards[0].detail.includes(FS_SERVER) && w.cards[0].detail.includes(w.ls.ws), `the card shows the command line:\n${w.cards[0].detail}`);
  assert.equal(w.cards[0].runningWhileAsked, 0, 'the server ran before consent');
  assert.ok(w.running().length > 0, 'the trusted server runs');
  assert.ok(row.tools.some((tool) => tool.name === 'fs__read_text_file'), row.tools.map((x) => x.name).join(', '));

  // The quick pick shows it connected; revoke forgets consent without killing it.
  const picks = [];
  w.stub.answers.quickPick = (items) => {
    picks.push(items);
    return picks.length === 1 ? items.find((i) => i.server && i.server.name === 'fs') : items.find((i) => i.action === 'revoke');
  };
  await mcpServers(w);
  const item = picks[0].find((i) => i.server && i.server.name === 'fs');
  // server-filesystem is on the v1 SDK: MCP 2025-11-25.
  assert.match(item.description, /^workspace · connected · \d+ tools · MCP 2025-11-25$/);
  assert.equal(item.detail, `${FS_SERVER} ${w.ls.ws}`);
  assert.deepEqual(picks[1].map((i) => i.action), ['revoke', 'restart', 'tools']);
  assert.equal(infos(w).pop(), 'agentls: revoked fs');
  assert.ok(w.running().length > 0, 'revoke never kills a running server');
});

test('a dismissed card leaves the server stopped; the quick pick offers trust and starts it after a second card', async (t) => {
  const w = await workspaceWithServer(t, (buttons, n) => (n === 1 ? undefined : allow(buttons)));
  if (!w) return;
  await waitUntil(() => w.cards.length === 1, 10000, 'the launch card on open');
  assert.equal((await w.state()).state, 'needs_approval');
  assert.equal(w.running().length, 0, 'no consent, no process');

  const picks = [];
  w.stub.answers.quickPick = (items) => {
    picks.push(items);
    return picks.length === 1 ? items.find((i) => i.server && i.server.name === 'fs') : items.find((i) => i.action === 'trust');
  };
  await mcpServers(w);
  const item = picks[0].find((i) => i.server && i.server.name === 'fs');
  assert.match(item.description, /^workspace · needs_approval/);
  assert.deepEqual(picks[1].map((i) => i.action), ['trust'], 'nothing else is offered before consent');
  assert.equal(w.cards.length, 2);
  assert.equal(w.cards[1].runningWhileAsked, 0);
  await waitUntil(async () => (await w.state()).state === 'connected', 20000, 'fs to connect after trust');
  assert.ok(infos(w).some((m) => /^agentls: fs is (connected|connecting)$/.test(m)), infos(w).join('\n'));
  assert.ok(w.running().length > 0);
});

const EVERYTHING = path.resolve(__dirname, '..', '..', '..', 'tools', 'node', 'node_modules', '.bin', 'mcp-server-everything');

test('the quick pick runs a server\'s prompt: its arguments asked one box each, the prompts/get card approved, its message the user\'s turn', async (t) => {
  const bins = binaries(t);
  if (!bins) return;
  if (!fs.existsSync(EVERYTHING)) {
    const why = 'tools/node/node_modules/.bin/mcp-server-everything is missing: run scripts/setup.sh';
    if (process.env.CI === 'true') throw new Error(why);
    t.skip(why);
    return;
  }
  const { fakeModel } = require('./support/harness');
  const model = await fakeModel(t, bins, [{ Text: 'the weather is fine' }]);
  const stub = stubVscode();
  const cards = [];
  stub.answers.warning = (message, options, buttons) => {
    cards.push({ message, detail: options.detail });
    return allow(buttons);
  };
  const ls = await startAgentls(t, bins, {
    modelUrl: model.url,
    extraConfig: `\n[mcp.servers.everything]\ncommand = "${EVERYTHING}"\nargs = ["stdio"]\n`,
    setup: (conn) => attach(stub.vscode, conn),
  });
  await waitUntil(async () => {
    const r = (await ls.conn.sendRequest('agent/mcp/servers', {})).servers.find((s) => s.name === 'everything');
    return r && r.state === 'connected';
  }, 30000, 'everything to connect');

  const picks = [];
  stub.answers.quickPick = (items) => {
    picks.push(items);
    switch (picks.length) {
      case 1: return items.find((i) => i.server && i.server.name === 'everything');
      case 2: return items.find((i) => i.action === 'prompt');
      default: return items.find((i) => i.prompt && i.prompt.name === 'args-prompt');
    }
  };
  const boxes = [];
  stub.answers.inputBox = (opts) => {
    boxes.push(opts);
    return boxes.length === 1 ? 'Lyon' : ''; // city, then leave state out
  };
  await withTimeout(stub.vscode.commands.executeCommand('agentls.mcpServers'), 30000, 'agentls.mcpServers');

  const item = picks[2].find((i) => i.prompt && i.prompt.name === 'args-prompt');
  assert.equal(item.label, 'Arguments Prompt');
  assert.equal(item.description, 'args-prompt city [state]');
  assert.equal(boxes.length, 2, 'one input box per argument');
  assert.match(boxes[0].title, /city$/);
  assert.equal(boxes[0].validateInput(''), 'city is required');
  assert.equal(boxes[0].validateInput('Lyon'), null);
  assert.match(boxes[1].title, /state \(optional\)$/);
  assert.equal(boxes[1].validateInput, undefined);
  assert.match(infos({ stub }).pop(), /^agentls: running the prompt args-prompt of everything \(task t\d+\)$/);

  const reqs = await waitUntil(async () => { const r = await model.requests(); return r.length === 1 && r; }, 30000, 'the model to be asked');
  assert.equal(reqs[0].lastUserText, 'What\'s weather in Lyon?');
  assert.equal(cards.length, 1, 'one prompts/get card');
  assert.ok(cards[0].detail.includes('prompts/get args-prompt') && cards[0].detail.includes('Lyon'), cards[0].detail);
});

test('plain keeps a server\'s text from drawing icons or hiding characters', () => {
  const { plain } = require('../lib/mcp');
  assert.equal(plain('$(shield) Trusted\u202e evil\x1b[2J'), '$\u2060(shield) Trusted  evil [2J');
});

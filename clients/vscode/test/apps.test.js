'use strict';
// MCP Apps (lib/apps.js): the policy an App runs under, and a real App
// server (@modelcontextprotocol/server-basic-vanillajs) through a real
// agentls: the model's call opens the App's panel, the bridge answers the
// App's messages, and the App's own tools/call goes through the card.

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const { stubVscode } = require('./support/stub-vscode');
const { binaries, fakeModel, startAgentls, waitUntil, withTimeout } = require('./support/harness');
const { attach } = require('../lib/attach');
const { appPolicy, appDocument, appPage } = require('../lib/apps');

const BASIC = path.resolve(__dirname, '..', '..', '..', 'tools', 'node', 'node_modules', '.bin', 'mcp-server-basic-vanillajs');
const UI = 'ui://get-time/mcp-app.html';

test('an App gets no network but the origins its resource declares, and nothing can add a directive', () => {
  const none = appPolicy({}, 'n0nce');
  for (const d of ["default-src 'none'", "script-src 'nonce-n0nce'", "connect-src 'none'", "frame-src 'none'", "base-uri 'none'", "form-action 'none'"]) {
    assert.ok(none.split('; ').includes(d), `${d} in ${none}`);
  }
  const some = appPolicy({ connectDomains: ['https://api.example.com', "https://a.example; script-src *"], resourceDomains: ['https://cdn.example'] }, 'x');
  assert.ok(some.includes('connect-src https://api.example.com;'), some);
  assert.ok(some.includes("script-src 'nonce-x' https://cdn.example;"), some);
  assert.ok(!some.includes('a.example'), some);
  const doc = appDocument('<html><head><title>t</title></head><body><script type="module">go()</script></body></html>', none, 'n0nce');
  assert.match(doc, /^<html><head><meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;|^<html><head><meta http-equiv="Content-Security-Policy" content="default-src 'none'/);
  assert.ok(doc.includes('<script nonce="n0nce" type="module">go()</script>'), doc);
  const page = appPage({ html: '<p>"x" & y</p>', csp: {} }, 'basic: get-time');
  assert.ok(page.includes('sandbox="allow-scripts"') && !page.includes('allow-same-origin'), 'the App frame gets an opaque origin');
  assert.ok(page.includes('srcdoc="') && page.includes('&lt;p&gt;&quot;x&quot; &amp; y&lt;/p&gt;'), 'the App is escaped into srcdoc');
});

test('a real App server: the model\'s call opens its App, the bridge serves it, and what the App calls asks on the card', async (t) => {
  const bins = binaries(t);
  if (!bins) return;
  if (!fs.existsSync(BASIC)) {
    const why = 'tools/node/node_modules/.bin/mcp-server-basic-vanillajs is missing: run scripts/setup.sh';
    if (process.env.CI === 'true') throw new Error(why);
    t.skip(why);
    return;
  }
  const model = await fakeModel(t, bins, [
    { ToolCalls: [{ ID: 'call_t', Name: 'basic__get-time', Input: '{}' }] },
    { Text: 'It is shown.' },
  ]);
  const stub = stubVscode();
  const cards = [];
  let answer = 'allow_once';
  stub.answers.warning = (message, options, buttons) => {
    cards.push({ message, detail: options.detail });
    return buttons.find((b) => b.optionId === answer);
  };
  const ls = await startAgentls(t, bins, {
    modelUrl: model.url,
    extraConfig: `\n[mcp.servers.basic]\ncommand = "${BASIC}"\nargs = ["--stdio"]\n`,
    setup: (conn) => attach(stub.vscode, conn),
  });
  await waitUntil(async () => {
    const r = (await ls.conn.sendRequest('agent/mcp/servers', {})).servers.find((s) => s.name === 'basic');
    return r && r.state === 'connected';
  }, 60000, 'basic to connect');

  const run = await withTimeout(ls.conn.sendRequest('agent/run', { prompt: 'what time is it on the server?' }), 60000, 'agent/run');
  assert.equal(run.stopReason, 'end_turn');
  assert.equal(cards.length, 1, 'the model\'s call asked once');
  const panel = await waitUntil(() => stub.webviewPanels[0], 30000, 'the App panel');
  assert.equal(panel.viewType, 'agentls.app');
  assert.equal(panel.title, 'basic: get-time');
  assert.equal(panel.options.enableScripts, true);
  assert.deepEqual(panel.options.localResourceRoots, []);
  assert.equal(panel.options.enableCommandUris, false);
  assert.ok(panel.html.includes('sandbox="allow-scripts"'), 'the App runs in a sandboxed frame');
  assert.ok(panel.html.includes('Get Time App'), 'the App\'s own HTML is in the frame');
  assert.ok(panel.html.includes("connect-src 'none'"), 'the App declares no origin: no network');

  const sent = () => panel.posted.map((m) => m.toApp);
  await panel.receive({ app: { jsonrpc: '2.0', id: 1, method: 'ui/initialize',
    params: { protocolVersion: '2026-01-26', appInfo: { name: 'Get Time App', version: '1' }, appCapabilities: {} } } });
  const init = sent().find((m) => m.id === 1);
  assert.equal(init.result.protocolVersion, '2026-01-26');
  assert.equal(init.result.hostInfo.name, 'agentls');
  assert.equal(init.result.hostContext.toolInfo.tool.name, 'get-time');
  await panel.receive({ app: { jsonrpc: '2.0', method: 'ui/notifications/initialized' } });
  const input = sent().find((m) => m.method === 'ui/notifications/tool-input');
  assert.deepEqual(input.params.arguments, {});
  const result = sent().find((m) => m.method === 'ui/notifications/tool-result');
  assert.match(result.params.structuredContent.time, /^20\d\d-/, 'the App gets the result it renders');
  assert.equal(result.params.content[0].text, result.params.structuredContent.time);

  // The App's Get Server Time button: a tools/call, asked on the card.
  await panel.receive({ app: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get-time', arguments: {} } } });
  const called = await waitUntil(() => sent().find((m) => m.id === 2), 30000, 'the App call\'s answer');
  assert.equal(cards.length, 2, 'the App\'s call asked');
  assert.match(cards[1].message, /^the App ui:\/\/get-time\/mcp-app\.html of basic asks: /);
  assert.equal(called.result.isError, false);
  assert.match(called.result.structuredContent.time, /^20\d\d-/);

  answer = 'reject_once';
  await panel.receive({ app: { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'get-time', arguments: {} } } });
  const denied = await waitUntil(() => sent().find((m) => m.id === 3), 30000, 'the denied call\'s answer');
  assert.equal(cards.length, 3);
  assert.equal(denied.result.isError, true);
  assert.equal(denied.result.structuredContent, undefined);

  // A tool the App's server does not have: refused without a card.
  await panel.receive({ app: { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'run_command', arguments: { command: 'id' } } } });
  const refused = await waitUntil(() => sent().find((m) => m.id === 4), 30000, 'the refused call\'s answer');
  assert.equal(refused.result.isError, true);
  assert.match(refused.result.content[0].text, /may call only that server's tools/);
  assert.equal(cards.length, 3, 'no card for a tool the App may not call');

  await panel.receive({ app: { jsonrpc: '2.0', id: 5, method: 'ui/message', params: { role: 'user', content: [] } } });
  assert.equal(sent().find((m) => m.id === 5).error.code, -32601);
});

'use strict';
// The browser end-to-end suite: the real extension, packaged by `vsce
// package` and installed into code-server 4.100.3 (VS Code 1.100.3 in the
// browser), driven through Debian's chromium by playwright-core. agentls is
// built from this repository; the model is the fake model server
// (../test/fakemodel); the workspace MCP server is internal/faultserver.
// After the palette, code action and diff editor steps, it drives the chat
// view (lib/chat) in its webview: typing, clicking its cards and buttons.
// One screenshot per step goes to e2e/screenshots/ (kept by CI).
//
// Install: ./install.sh (scripts/setup.sh runs it). Without the tools the
// suite skips saying why; with CI=true it fails.

const test = require('node:test');
const assert = require('node:assert/strict');
const { spawn, spawnSync } = require('child_process');
const fs = require('fs');
const net = require('net');
const os = require('os');
const path = require('path');
const readline = require('readline');

const HERE = __dirname;
const EXT = path.resolve(HERE, '..'); // clients/vscode
const ROOT = path.resolve(EXT, '..', '..'); // the Go module
const SHOTS = path.join(HERE, 'screenshots');
const CHROMIUM = process.env.AGENTLS_CHROMIUM || '/usr/bin/chromium';
const CODE_SERVER = path.join(HERE, 'node_modules', '.bin', 'code-server');
const VSCE = path.join(EXT, 'node_modules', '.bin', 'vsce');
const APP_SERVER = path.join(ROOT, 'tools', 'node', 'node_modules', '.bin', 'mcp-server-basic-vanillajs');

const ORIGINAL = 'package main\n\n// agent: add a function Sum\nfunc main() {}\n';
const REWRITTEN = 'package main\n\n// Sum adds up xs.\nfunc Sum(xs []int) int {\n\ttotal := 0\n\tfor _, x := range xs {\n\t\ttotal += x\n\t}\n\treturn total\n}\n\nfunc main() {}\n';
const RENAMED = REWRITTEN.replace(/Sum/g, 'Total');
// The chat's first answer: Markdown with a code block, and a string that
// would be an element if the view parsed it as HTML.
const FIRST_ANSWER = 'main.go has **Sum**, which adds up a slice:\n\n```go\nfunc Sum(xs []int) int\n```\n\nIt renders <img src=x onerror="document.title=1"> as text.';
const DOUBLED = REWRITTEN.replace('total += x', 'total += 2 * x');
// What the outside agent's accepted propose_edit leaves (before the chat's turns).
const OUTSIDE = REWRITTEN.replace('total += x', 'total += x // from outside');
// Exactly the tools this VS Code offers an outside agent: agentls's and the
// extension's extras (tabs, terminals, tasks; docs/protocol.md section 9).
const TOOLS = ['agentls_sessions', 'agentls_transcript', 'close_tab', 'create_terminal', 'find_files', 'get_diagnostics', 'get_selection', 'git_status',
  'list_directory', 'list_open_documents', 'list_tabs', 'list_tasks', 'list_terminals', 'open_file', 'propose_edit', 'read_document', 'read_file', 'read_terminal',
  'run_command', 'run_task', 'search_text', 'send_to_terminal', 'workspace_folders'];
const SDK = path.join(ROOT, 'tools', 'node', 'node_modules', '@modelcontextprotocol', 'sdk', 'dist', 'cjs');
// The task the outside agent runs: it exits 3 and prints a finding its
// problem matcher turns into a diagnostic of VS Code's (source e2e-task).
const TASK_COMMAND = "echo 'main.go:3:1: warning: e2e task finding'; exit 3";
const TASKS_JSON = {
  version: '2.0.0',
  tasks: [{
    label: 'e2e-check',
    type: 'shell',
    command: TASK_COMMAND,
    problemMatcher: {
      owner: 'e2e', source: 'e2e-task', fileLocation: ['relative', '${workspaceFolder}'],
      pattern: { regexp: '^(.*):(\\d+):(\\d+):\\s+(warning|error):\\s+(.*)$', file: 1, line: 2, column: 3, severity: 4, message: 5 },
    },
  }],
};

/** missing says what the suite lacks, or '' when everything is there. */
function missing() {
  const lacks = [];
  if (!fs.existsSync(CHROMIUM)) lacks.push(`${CHROMIUM} (apt-get install chromium)`);
  if (!fs.existsSync(CODE_SERVER)) lacks.push('code-server (run clients/vscode/e2e/install.sh)');
  try { require.resolve('playwright-core'); } catch { lacks.push('playwright-core (run clients/vscode/e2e/install.sh)'); }
  if (!fs.existsSync(VSCE)) lacks.push('vsce (npm ci in clients/vscode)');
  if (!fs.existsSync(APP_SERVER)) lacks.push('mcp-server-basic-vanillajs (npm ci in tools/node)');
  if (spawnSync('go', ['version']).error) lacks.push('go');
  return lacks.join(', ');
}

function withTimeout(p, ms, what) {
  let timer;
  return Promise.race([
    Promise.resolve(p).finally(() => clearTimeout(timer)),
    new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms); }),
  ]);
}

async function waitUntil(cond, ms, what) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await cond();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

/** processesMatching lists live processes whose command line contains marker. */
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

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 300000, ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.error || `exit ${r.status}`}):\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

/** fakeModel starts ../test/fakemodel with the script of turns. */
async function fakeModel(bin, turns) {
  const child = spawn(bin, [], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = readline.createInterface({ input: child.stdout });
  const waiting = [];
  lines.on('line', (l) => { const w = waiting.shift(); if (w) w(JSON.parse(l)); });
  const next = (what) => withTimeout(new Promise((resolve) => waiting.push(resolve)), 10000, what);
  child.stdin.write(JSON.stringify(turns) + '\n');
  const { url } = await next('the fake model to listen');
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return {
    url,
    requests() { child.stdin.write('requests\n'); return next("the fake model's requests"); },
    async close() {
      child.stdin.end();
      await withTimeout(exited, 5000, 'the fake model to exit').catch(() => child.kill('SIGKILL'));
    },
  };
}

test('the extension in a real VS Code (code-server in chromium)', { timeout: 600000 }, async (t) => {
  const lacks = missing();
  if (lacks) {
    if (process.env.CI === 'true') throw new Error(`the browser suite needs ${lacks} (CI=true, so this fails instead of skipping)`);
    t.skip(`the browser suite needs ${lacks}`);
    return;
  }
  const { chromium } = require('playwright-core');
  const started = Date.now();
  const timings = [];
  fs.rmSync(SHOTS, { recursive: true, force: true });
  fs.mkdirSync(SHOTS, { recursive: true });

  // Everything of this run lives under dir: the leak check looks for it.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentls-e2e-'));
  const bin = path.join(dir, 'bin');
  const ws = path.join(dir, 'ws');
  const home = path.join(dir, 'home');
  for (const d of [bin, path.join(ws, '.git'), path.join(ws, '.agentls'), home]) fs.mkdirSync(d, { recursive: true });
  const cleanups = [];
  t.after(async () => {
    for (const f of cleanups.reverse()) await f().catch(() => {});
    const left = await waitUntil(() => processesMatching(dir).length === 0, 10000, 'every process to end')
      .then(() => [], () => processesMatching(dir));
    for (const l of left) process.kill(Number(l.split(':')[0]), 'SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
    console.log(`# e2e timings: ${timings.map(([s, ms]) => `${s} ${(ms / 1000).toFixed(1)}s`).join(', ')}; total ${((Date.now() - started) / 1000).toFixed(1)}s`);
    assert.deepEqual(left, [], 'no process of the run outlives it');
  });
  let steps = 0;
  const shot = (name) => page.screenshot({ path: path.join(SHOTS, `${String(steps).padStart(2, '0')}${name}.png`) });
  const step = async (name, fn) => {
    const t0 = Date.now();
    steps++;
    await t.test(name, async () => {
      try {
        await fn();
      } finally {
        await shot(`-${name.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}`).catch(() => {});
        timings.push([name, Date.now() - t0]);
      }
    });
  };

  // Build: agentls, the fake model, the MCP server, and the .vsix.
  let t0 = Date.now();
  for (const [name, pkg] of [['agentls', './cmd/agentls'], ['fakemodel', './clients/vscode/test/fakemodel'], ['faultserver', './internal/faultserver']]) {
    run('go', ['build', '-o', path.join(bin, name), pkg], { cwd: ROOT });
  }
  const vsix = path.join(dir, 'agentls.vsix');
  run(VSCE, ['package', '--skip-license', '--out', vsix], { cwd: EXT });
  timings.push(['build', Date.now() - t0]);

  const model = await fakeModel(path.join(bin, 'fakemodel'), [
    // 1: the directive's task writes main.go; accepted in the diff editor.
    { Text: 'I will add Sum.', ToolCalls: [{ ID: 'call_1', Name: 'write_file', Input: JSON.stringify({ path: 'main.go', content: REWRITTEN }) }] },
    { Text: 'Added Sum.' },
    // 2: a rename, rejected in the diff editor.
    { ToolCalls: [{ ID: 'call_2', Name: 'write_file', Input: JSON.stringify({ path: 'main.go', content: RENAMED }) }] },
    { Text: 'Understood, left as it is.' },
    // 3: a task that hangs until cancelled (more than one word: agentls
    // holds back the word still being written, red-team finding 9).
    { Text: 'Thinking about it', Hang: true },
    // The chat view (issue 26): a tool call, then the first answer.
    { Text: 'Let me read it.', ToolCalls: [{ ID: 'call_c1', Name: 'read_file', Input: JSON.stringify({ path: 'main.go' }) }] },
    { Text: FIRST_ANSWER },
    // A proposed edit, approved in the chat's card.
    { Text: 'Changing it.', ToolCalls: [{ ID: 'call_c2', Name: 'write_file', Input: JSON.stringify({ path: 'main.go', content: DOUBLED }) }] },
    { Text: 'Sum now doubles each element.' },
    // The follow-up: its request carries the first answer (checked below).
    { Text: 'At first I said main.go has Sum, which adds up a slice.' },
    // Cancelled from the chat.
    { Text: 'Thinking it over', Hang: true },
    // The reopened session's next turn.
    { Text: 'Picking up where we left off.' },
    // Plan mode (issue 27): the model tries to write; refused without a card.
    { ToolCalls: [{ ID: 'call_p1', Name: 'write_file', Input: JSON.stringify({ path: 'main.go', content: RENAMED }) }] },
    { Text: 'Only planned.' },
    // Back in ask mode: a command whose card offers its rule.
    { ToolCalls: [{ ID: 'call_r1', Name: 'run_command', Input: JSON.stringify({ command: 'echo e2e-rule' }) }] },
    { Text: 'Ran the check.' },
    // The model picker: the next turn on the claude profile (Anthropic's wire).
    { Text: 'Claude here, with the history so far.' },
    // Hooks: the before_tool hook denies the command without a card.
    { ToolCalls: [{ ID: 'call_h1', Name: 'run_command', Input: JSON.stringify({ command: 'rm -rf build' }) }] },
    { Text: 'The hook stopped me.' },
    // An MCP App: the real App server's get-time, whose result the App shows.
    { ToolCalls: [{ ID: 'call_app', Name: 'basic__get-time', Input: '{}' }] },
    { Text: 'The App beside shows the server time.' },
  ]);
  cleanups.push(() => model.close());

  fs.writeFileSync(path.join(ws, 'main.go'), ORIGINAL);
  fs.writeFileSync(path.join(ws, 'clean.txt'), 'nothing unsaved\n');
  fs.mkdirSync(path.join(ws, '.vscode'));
  fs.writeFileSync(path.join(ws, '.vscode', 'tasks.json'), JSON.stringify(TASKS_JSON, null, 2));
  fs.writeFileSync(path.join(ws, '.agentls', 'config.toml'),
    `[mcp.servers.fault]\ncommand = "${path.join(bin, 'faultserver')}"\nargs = ["-marker", "${dir}"]\n`);
  const config = path.join(dir, 'config.toml');
  // A user server: the real MCP App server on npm (its args carry dir for the leak check).
  fs.writeFileSync(config,
    `[model]\nprovider = "openai"\nname = "fake-model"\nbase_url = "${model.url}/v1"\napi_key_env = "AGENTLS_TEST_KEY"\n` +
    // The editor is an MCP server for an outside agent too (issue 29).
    '[serve]\nmcp = true\n' +
    // A second model profile for the picker (issue 27 item 4), on the same fake model.
    `\n[model.profiles.claude]\nprovider = "anthropic"\nname = "fake-claude"\nbase_url = "${model.url}"\napi_key_env = "AGENTLS_TEST_KEY"\n` +
    // Hooks (issue 27 item 5): the turn_end hook says something only once
    // the hooks step made .hooks-on, so earlier steps see no notice.
    '\n[[hooks.before_tool]]\ncommand = ["sh", "-c", "case \\"$AGENTLS_HOOK_EVENT\\" in *\'rm -rf\'*) echo \'hook: rm is not allowed in this repository\'; exit 2;; esac"]\ntools = ["run_command"]\n' +
    '\n[[hooks.turn_end]]\ncommand = ["sh", "-c", "if [ -f .hooks-on ]; then echo turn-end hook ran; fi"]\n' +
    `\n[mcp.servers.basic]\ncommand = "${APP_SERVER}"\nargs = ["--stdio", "${dir}"]\n`);
  const userData = path.join(dir, 'user-data');
  const extensions = path.join(dir, 'extensions');
  fs.mkdirSync(path.join(userData, 'User'), { recursive: true });
  // The defaults a new user gets, except what keeps the screen quiet; files.autoSave is left alone.
  fs.writeFileSync(path.join(userData, 'User', 'settings.json'), JSON.stringify({
    'agentls.path': path.join(bin, 'agentls'),
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'security.workspace.trust.enabled': false,
    'telemetry.telemetryLevel': 'off',
    'extensions.autoCheckUpdates': false,
    'extensions.autoUpdate': false,
    'chat.disableAIFeatures': true,
  }, null, 2));
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
    XDG_STATE_HOME: path.join(dir, 'state'),
    AGENTLS_CONFIG: config,
    AGENTLS_TEST_KEY: 'test',
  };
  const csArgs = ['--user-data-dir', userData, '--extensions-dir', extensions];
  t0 = Date.now();
  run(CODE_SERVER, [...csArgs, '--install-extension', vsix], { env });
  assert.ok(fs.readdirSync(extensions).some((d) => d.startsWith('agentls.agentls-')), `the extension is installed: ${fs.readdirSync(extensions)}`);
  timings.push(['install-extension', Date.now() - t0]);

  const port = await freePort();
  const server = spawn(CODE_SERVER, [...csArgs, '--auth', 'none', '--bind-addr', `127.0.0.1:${port}`,
    '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust', '--disable-getting-started-override', ws],
  { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let serverLog = '';
  server.stdout.on('data', (d) => { serverLog += d; });
  server.stderr.on('data', (d) => { serverLog += d; });
  const serverExited = new Promise((resolve) => server.once('exit', resolve));
  cleanups.push(async () => {
    // code-server and everything it started (extension hosts, agentls) share its process group.
    try { process.kill(-server.pid, 'SIGTERM'); } catch { return; }
    await withTimeout(serverExited, 10000, 'code-server to exit').catch(() => { try { process.kill(-server.pid, 'SIGKILL'); } catch { /* gone */ } });
  });
  await waitUntil(() => /HTTP server listening/.test(serverLog), 60000, `code-server to listen:\n${serverLog}`);

  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'], headless: true });
  cleanups.push(() => browser.close());
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  const mod = 'Control';

  /** runCommand runs a palette command by its title. */
  const runCommand = async (title) => {
    await page.keyboard.press('F1');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible' });
    await input.fill(`>${title}`);
    await page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first().waitFor();
    await page.keyboard.press('Enter');
  };
  const dialog = page.locator('.monaco-dialog-box');
  const diffEditor = page.locator('.monaco-diff-editor');
  const titleAction = (label) => page.locator(`.editor-actions .action-label[aria-label^="${label}"]`).first();
  const statusItem = page.locator('.statusbar-item', { hasText: 'agentls' }).first();
  const onDisk = () => fs.readFileSync(path.join(ws, 'main.go'), 'utf8');

  await step('activation', async () => {
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(ws)}`);
    await page.locator('.monaco-workbench').waitFor({ timeout: 90000 });
    await statusItem.waitFor({ timeout: 90000 });
    await waitUntil(() => processesMatching(path.join(bin, 'agentls')).length > 0, 30000, 'agentls serve to run');
  });

  await step('launch card for a workspace MCP server', async () => {
    // The repository's server never starts by itself: its card is a modal with the literal command line.
    await dialog.waitFor({ timeout: 30000 });
    const text = await dialog.innerText();
    assert.match(text, /fault/);
    assert.ok(text.includes(path.join(bin, 'faultserver')), `the card shows the command line: ${text}`);
    assert.deepEqual(processesMatching(`faultserver -marker ${dir}`), [], 'nothing started before the answer');
    await shot('a-launch-card-shown');
    await dialog.locator('.monaco-button', { hasText: 'Trust and start, confined' }).click();
    await waitUntil(() => processesMatching(`faultserver -marker ${dir}`).length > 0, 20000, 'the trusted server to start');
  });

  await step('a task from the directive code action', async () => {
    await page.keyboard.press(`${mod}+P`);
    await page.locator('.quick-input-widget input').fill('main.go');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'main.go' }).first().waitFor();
    await page.keyboard.press('Enter');
    const editor = page.locator('.editor-instance .monaco-editor').first();
    await editor.locator('.view-line', { hasText: 'agent: add a function Sum' }).click();
    // agentls offers the directive as a "source" code action: VS Code lists those under Source Action...
    await runCommand('Source Action...');
    const action = page.locator('.action-widget .monaco-list-row', { hasText: 'agentls: Run' }).first();
    await action.waitFor({ timeout: 20000 });
    await shot('a-code-action-menu');
    assert.match(await action.getAttribute('class'), /focused/, 'the directive is the first action');
    await page.keyboard.press('Enter');
    await diffEditor.waitFor({ timeout: 30000 });
  });

  await step('the write reviewed in the diff editor and accepted', async () => {
    // The diff: the buffer on the left, the whole proposal on the right, Accept / Reject in the title.
    const modified = diffEditor.locator('.editor.modified');
    await modified.locator('.view-line', { hasText: 'func Sum(xs []int) int {' }).waitFor();
    assert.match(await page.locator('.tab.active').innerText(), /main\.go: current ↔ proposed by agentls/);
    await titleAction("Reject the agent's edit").waitFor();
    await shot('a-diff-editor');
    await titleAction("Accept the agent's edit").click();
    await diffEditor.waitFor({ state: 'detached', timeout: 10000 });
    await page.locator('.editor-instance .view-line', { hasText: 'func Sum(xs []int) int {' }).first().waitFor();
    // The web workbench autosaves (files.autoSave "afterDelay"): on disk within about a second, as the README says.
    const t1 = Date.now();
    await waitUntil(() => onDisk() === REWRITTEN, 5000, 'the accepted edit on disk');
    console.log(`# the accepted edit reached disk ${Date.now() - t1} ms after the diff closed`);
    const reqs = await model.requests();
    await waitUntil(async () => (await model.requests()).length >= 2, 10000, 'the second model request');
    assert.ok(reqs[0].lastUserText.includes('add a function Sum'), reqs[0].lastUserText);
  });

  await step('a denial in the diff editor', async () => {
    await runCommand('agentls: Run agent on selection');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible' });
    await input.fill('rename Sum to Total');
    await page.keyboard.press('Enter');
    await diffEditor.waitFor({ timeout: 30000 });
    await diffEditor.locator('.editor.modified .view-line', { hasText: 'func Total(xs []int) int {' }).waitFor();
    await titleAction("Reject the agent's edit").click();
    await diffEditor.waitFor({ state: 'detached', timeout: 10000 });
    const reqs = await waitUntil(async () => { const r = await model.requests(); return r.length >= 4 && r; }, 10000, 'the model to hear the denial');
    assert.equal(reqs[3].toolResults[0].IsError, true, `the model is told: ${reqs[3].toolResults[0].Content}`);
    await new Promise((r) => setTimeout(r, 1500)); // longer than autosave's delay: nothing is written
    assert.equal(onDisk(), REWRITTEN);
    await page.locator('.editor-instance .view-line', { hasText: 'func Sum(xs []int) int {' }).first().waitFor();
    assert.equal(await page.locator('.editor-instance .view-line', { hasText: 'func Total' }).count(), 0, 'the buffer is unchanged');
  });

  await step('the MCP quick pick', async () => {
    await runCommand('agentls: MCP servers');
    const row = page.locator('.quick-input-list .monaco-list-row', { hasText: 'fault' }).first();
    await row.waitFor({ timeout: 10000 });
    const text = await row.innerText();
    assert.match(text, /workspace · connected · \d+ tools/);
    assert.ok(text.includes(path.join(bin, 'faultserver')), `the row shows the literal command: ${text}`);
    await shot('a-mcp-quick-pick');
    await page.keyboard.press('Escape');
  });

  // An outside agent (issue 29): the official MCP TypeScript SDK's client
  // connects to the endpoint this VS Code's agentls published, with its
  // token, and proposes edits that are reviewed in the diff editor.
  /** ok is the text of a call of tool name that must succeed. */
  const ok = async (client, name, args) => {
    const res = await client.callTool({ name, arguments: args });
    assert.ok(!res.isError, `${name}: ${res.content[0].text}`);
    return res.content[0].text;
  };
  /**
   * carded calls tool name and answers the card it shows in VS Code (a
   * modal) with answer ('Allow once' or 'Deny'): the card must name who
   * asks, asker, as a regexp whose group 1 is the connection; returns the
   * card's text, the connection and the call's result.
   */
  const carded = async (client, name, args, asker, answer, shotName) => {
    const call = client.callTool({ name, arguments: args });
    const first = await Promise.race([dialog.waitFor({ timeout: 30000 }).then(() => 'card', (e) => e), call]);
    if (first instanceof Error) throw first;
    assert.equal(first, 'card', `${name} ${JSON.stringify(args)} must ask on a card; it answered without one: ${JSON.stringify(first)}`);
    const card = (await dialog.innerText()).replace(/\u00a0/g, ' ');
    const m = card.match(asker);
    assert.ok(m, `the card of ${name} names ${asker}: ${card}`);
    if (shotName) await shot(shotName);
    await dialog.locator('.monaco-button', { hasText: answer === 'Deny' ? /^Deny$/ : answer }).first().click();
    await dialog.waitFor({ state: 'detached', timeout: 10000 });
    const res = await withTimeout(call, 60000, `the result of ${name}`);
    return { card, connection: m[1], res, text: res.content[0].text };
  };
  // Who asks, as the cards of each outside client name it.
  const byHTTP = /claude-code \(MCP, (HTTP connection \d+)\) asks: /;
  const byStdio = /hermes-agent \(MCP, ([\w ]*connection \d+)\) asks: /;

  let outside;
  let stdio;
  // What each outside client heard: notifications/resources/list_changed
  // (a count) and notifications/resources/updated (the URIs).
  const heard = new Map();
  const listen = (client) => {
    const { ResourceListChangedNotificationSchema, ResourceUpdatedNotificationSchema } = require(path.join(SDK, 'types.js'));
    const h = { listChanged: 0, updated: [] };
    heard.set(client, h);
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => { h.listChanged++; });
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => { h.updated.push(n.params.uri); });
  };
  await step('an outside agent connects over MCP', async () => {
    const { Client } = require(path.join(SDK, 'client', 'index.js'));
    const { StreamableHTTPClientTransport } = require(path.join(SDK, 'client', 'streamableHttp.js'));
    const published = path.join(dir, 'state', 'agentls', 'mcp-serve');
    const file = await waitUntil(() => fs.existsSync(published) && fs.readdirSync(published).find((f) => f.endsWith('.json')), 20000, 'the published MCP endpoint');
    const endpoint = JSON.parse(fs.readFileSync(path.join(published, file), 'utf8'));
    assert.equal((fs.statSync(endpoint.tokenFile).mode & 0o777), 0o600, 'the token file is the user\'s alone');
    const noToken = await fetch(endpoint.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }) });
    assert.equal(noToken.status, 401, 'a request without the token is refused');
    const token = fs.readFileSync(endpoint.tokenFile, 'utf8').trim();
    outside = new Client({ name: 'claude-code', version: '1' });
    listen(outside);
    await outside.connect(new StreamableHTTPClientTransport(new URL(endpoint.url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    cleanups.push(() => outside.close());
    const { tools } = await outside.listTools();
    assert.deepEqual(tools.map((x) => x.name).sort(), TOOLS, 'exactly the tools VS Code offers');
    const docs = await outside.callTool({ name: 'list_open_documents', arguments: {} });
    assert.ok(docs.content[0].text.includes(path.join(ws, 'main.go')), docs.content[0].text);
  });

  await step("an outside agent's edit accepted in the diff editor", async () => {
    const call = outside.callTool({ name: 'propose_edit', arguments: { path: 'main.go', old_text: 'total += x', new_text: 'total += x // from outside' } });
    await diffEditor.waitFor({ timeout: 30000 });
    await diffEditor.locator('.editor.modified .view-line', { hasText: 'total += x // from outside' }).waitFor();
    await page.locator('.notifications-toasts', { hasText: /claude-code \(MCP, HTTP connection \d+\)/ }).first().waitFor({ timeout: 10000 });
    await shot('a-outside-diff');
    await titleAction("Accept the agent's edit").click();
    await diffEditor.waitFor({ state: 'detached', timeout: 10000 });
    const res = await withTimeout(call, 30000, 'the propose_edit result');
    assert.ok(!res.isError, `accepted: ${res.content[0].text}`);
    await page.locator('.editor-instance .view-line', { hasText: 'total += x // from outside' }).first().waitFor();
    await waitUntil(() => onDisk() === OUTSIDE, 5000, "the outside agent's accepted edit on disk (autosave)");
  });

  await step("an outside agent's edit rejected in the diff editor", async () => {
    const before = await outside.callTool({ name: 'read_document', arguments: { path: 'main.go' } });
    const call = outside.callTool({ name: 'propose_edit', arguments: { path: 'main.go', content: 'package gone\n' } });
    await diffEditor.waitFor({ timeout: 30000 });
    await titleAction("Reject the agent's edit").click();
    await diffEditor.waitFor({ state: 'detached', timeout: 10000 });
    const res = await withTimeout(call, 30000, 'the propose_edit result');
    assert.ok(res.isError && /denied/.test(res.content[0].text), `rejected: ${res.content[0].text}`);
    const after = await outside.callTool({ name: 'read_document', arguments: { path: 'main.go' } });
    assert.equal(after.content[0].text, before.content[0].text, 'the buffer is unchanged');
    assert.equal(await page.locator('.editor-instance .view-line', { hasText: 'package gone' }).count(), 0);
  });

  await step('cancel', async () => {
    await runCommand('agentls: Run agent on selection');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible' });
    await input.fill('explain this file');
    await page.keyboard.press('Enter');
    const busy = page.locator('.statusbar-item', { hasText: 'agentls:' }).first();
    await busy.waitFor({ timeout: 20000 });
    await shot('a-task-running');
    await busy.click(); // the status bar item cancels the running task
    await page.locator('.notifications-toasts', { hasText: 'the task stopped: cancelled' }).waitFor({ timeout: 15000 });
    await page.locator('.statusbar-item', { hasText: 'agentls:' }).waitFor({ state: 'detached', timeout: 10000 });
  });

  await step('the event view', async () => {
    await runCommand('agentls: Show event stream');
    await runCommand('View: Toggle Maximized Panel');
    const output = page.locator('.part.panel .monaco-editor').first();
    await output.waitFor({ timeout: 10000 });
    await output.locator('.view-line', { hasText: 'done: cancelled' }).first().waitFor({ timeout: 10000 });
    const text = (await output.innerText()).replace(/\u00a0/g, ' '); // Monaco renders spaces as no-break spaces
    assert.match(text, /tool write_file/);
    assert.match(text, /accepted in the diff editor/);
    assert.match(text, /rejected in the diff editor/);
  });

  // The chat view, as a user goes through it (issue 26 item 1).
  const chat = page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
  const chatInput = chat.locator('#input');
  const say = async (text) => {
    await chatInput.click();
    await chatInput.fill(text);
    await page.keyboard.press('Enter');
  };
  // The n-th prompt is drawn together with the view turning busy (Send
  // disabled), so wait for it first: Send is still enabled between the click
  // and the extension's answer, and a wait for it alone could end before the
  // turn began.
  const turnDone = (n) => waitUntil(async () => (await chat.locator('.item.user').count()) === n, 30000, `${n} prompts in the chat`)
    .then(() => chat.locator('#send:not([disabled])').waitFor({ timeout: 30000 }));
  const requestFor = async (prompt) => (await model.requests()).filter((r) => r.lastUserText === prompt);

  // The same editor over stdio (after the event view, which its calls
  // would scroll): the real `agentls mcp serve`, started in
  // the workspace as Claude Code or Hermes starts it, finds this VS Code's
  // session and passes the TypeScript SDK's client through to it.
  await step('an outside agent over stdio (agentls mcp serve)', async () => {
    const { Client } = require(path.join(SDK, 'client', 'index.js'));
    const { StdioClientTransport } = require(path.join(SDK, 'client', 'stdio.js'));
    stdio = new Client({ name: 'hermes-agent', version: '1' });
    listen(stdio);
    await stdio.connect(new StdioClientTransport({ command: path.join(bin, 'agentls'), args: ['mcp', 'serve'], cwd: ws, env, stderr: 'inherit' }));
    cleanups.push(() => stdio.close());
    const names = (await stdio.listTools()).tools.map((x) => x.name).sort();
    const viaHTTP = (await outside.listTools()).tools.map((x) => x.name).sort();
    assert.deepEqual(names, TOOLS, 'exactly the tools VS Code offers, over stdio too');
    assert.deepEqual(names, viaHTTP, 'stdio lists the session\'s tools');
    // The read tools, over both transports: the same answers from this VS Code.
    for (const [via, client] of [['stdio', stdio], ['HTTP', outside]]) {
      const text = (name, args) => ok(client, name, args);
      assert.equal((await text('workspace_folders', {})).trim(), ws, via);
      const docs = JSON.parse(await text('list_open_documents', {}));
      assert.ok(docs.some((d) => d.path === path.join(ws, 'main.go')), `${via}: ${JSON.stringify(docs)}`);
      assert.ok((await text('read_document', { path: 'main.go' })).includes('total += x // from outside'), `${via}: the buffer the accepted edit changed`);
      assert.match(await text('read_file', { path: 'main.go' }), /^\s*3\D.*\/\/ Sum adds up xs\./m, `${via}: read_file numbers the lines`);
      assert.ok((await text('list_directory', { path: '.' })).includes('main.go'), via);
      assert.ok((await text('find_files', { pattern: '*.go' })).includes('main.go'), via);
      assert.match(await text('search_text', { pattern: 'total \\+= x' }), /main\.go:\d+:.*total \+= x \/\/ from outside/, via);
      JSON.parse(await text('get_diagnostics', {})); // its findings are checked with the task's below
    }
  });

  await step('the chat view opens in the secondary side bar', async () => {
    await runCommand('View: Toggle Maximized Panel');
    await runCommand('View: Toggle Panel Visibility');
    await runCommand('agentls: Open chat');
    await chatInput.waitFor({ timeout: 30000 });
    // VS Code 1.106 and later put it there from package.json; code-server
    // 4.100 (VS Code 1.100) cannot, so the user moves it, as the README says.
    // A webview is drawn over its part, not inside it: the part's title says where the view is.
    const inSecondary = page.locator('.part.auxiliarybar .composite.title', { hasText: /chat/i });
    if (await inSecondary.count() === 0) {
      await shot('a-chat-under-the-explorer');
      // View: Move View, the chat, then where: as a user moves any view.
      const rows = page.locator('.quick-input-list .monaco-list-row');
      const rowTexts = async () => (await rows.allInnerTexts()).map((r) => r.replace(/\s+/g, ' ')).join(' | ');
      await page.keyboard.press('F1');
      await page.locator('.quick-input-widget input').fill('>View: Move View');
      const moveView = rows.filter({ has: page.locator('.label-name', { hasText: /^View: Move View$/ }) }).first();
      await moveView.waitFor({ timeout: 10000 }).catch(async (e) => { throw new Error(`${e.message}; rows: ${await rowTexts()}`); });
      await moveView.click();
      await page.locator('.quick-input-widget input').fill('Chat');
      const view = rows.filter({ hasText: 'Chat' }).first();
      await view.waitFor({ timeout: 10000 }).catch(async (e) => { throw new Error(`${e.message}; rows: ${await rowTexts()}`); });
      await view.click();
      const dest = rows.filter({ hasText: 'New Secondary Side Bar Entry' }).first();
      await dest.waitFor({ timeout: 10000 }).catch(async (e) => { throw new Error(`${e.message}; rows: ${await rowTexts()}`); });
      await shot('a-chat-move-view');
      await dest.click();
      await chatInput.waitFor({ timeout: 30000 });
    }
    await inSecondary.waitFor({ timeout: 10000 });
    await chat.locator('#model', { hasText: 'fake-model' }).waitFor({ timeout: 20000 });
    assert.equal(await chat.locator('#mode').innerText(), 'mode: ask');
    await say('/new');
    await chat.locator('.item.notice', { hasText: 'New conversation.' }).waitFor({ timeout: 10000 });
  });

  await step('chat: a question with the selection attached, answered after a tool call', async () => {
    // The selection in main.go, made as a user does: click a line, shift+click another.
    const editor = page.locator('.editor-instance .monaco-editor').first();
    await editor.locator('.view-line', { hasText: 'func Sum(xs []int) int {' }).click();
    await page.keyboard.press('Home');
    await page.keyboard.press('Shift+ArrowDown');
    await page.keyboard.press('Shift+ArrowDown');
    await say('What does this do? @selection');
    await turnDone(1);
    assert.match(await chat.locator('.item.user .chip').innerText(), /^selection main\.go:\d+-\d+$/);
    const card = chat.locator('details.item.tool').first();
    assert.match(await card.locator('summary').innerText(), /read_file[\s\S]*completed/);
    await card.locator('summary').click(); // unfold: arguments and result
    assert.match(await card.locator('.arguments').innerText(), /"path": "main\.go"/);
    assert.match(await card.locator('.result').innerText(), /package main/);
    const answer = chat.locator('.item.assistant').last();
    assert.equal(await answer.locator('pre code.language-go').innerText(), 'func Sum(xs []int) int');
    assert.match(await answer.innerText(), /It renders <img src=x onerror="document.title=1"> as text\./);
    assert.equal(await chat.locator('.item img').count(), 0, 'no element came out of the answer');
    assert.match(await chat.locator('#meter').innerText(), /tokens \(\d+%\) · cache \d+%|tokens/);
    const [req] = await requestFor('What does this do? @selection');
    assert.match(req.system, /Selection \(lines \d+-\d+\):[\s\S]*func Sum/, 'the selection reached the model');
  });

  await step('chat: a proposed edit approved in its card', async () => {
    await say('Make Sum double each element.');
    const card = chat.locator('.item.approval');
    await card.waitFor({ timeout: 30000 });
    await diffEditor.waitFor({ timeout: 30000 }); // the diff editor opens too
    await diffEditor.locator('.editor.modified .view-line', { hasText: 'total += 2 * x' }).waitFor();
    await shot('a-chat-approval-card-and-diff');
    await card.locator('button', { hasText: 'Allow once' }).click();
    await diffEditor.waitFor({ state: 'detached', timeout: 10000 });
    await turnDone(2);
    assert.match(await card.locator('.outcome').innerText(), /^Answered: Allow once \(in the chat\)$/);
    await page.locator('.editor-instance .view-line', { hasText: 'total += 2 * x' }).first().waitFor();
    await waitUntil(() => onDisk() === DOUBLED, 5000, 'the approved edit on disk (autosave)');
  });

  await step('chat: a follow-up that refers to the first answer', async () => {
    await say('What did you say about main.go at first?');
    await turnDone(3);
    const [req] = await requestFor('What did you say about main.go at first?');
    assert.ok(req.assistantTexts.includes(FIRST_ANSWER), `the model is sent its first answer: ${JSON.stringify(req.assistantTexts)}`);
    assert.equal(await chat.locator('.item.assistant').last().locator('.md').innerText(), 'At first I said main.go has Sum, which adds up a slice.');
  });

  await step('chat: cancel', async () => {
    await say('Think about the tests.');
    await chat.locator('.item.assistant', { hasText: 'Thinking' }).last().waitFor({ timeout: 30000 });
    await shot('a-chat-turn-running');
    await chat.locator('#cancel').click();
    await chat.locator('.item.end', { hasText: 'Stopped: cancelled' }).waitFor({ timeout: 15000 });
    await turnDone(4);
  });

  await step('chat: reopening the session', async () => {
    await chat.locator('#new').click();
    await waitUntil(async () => (await chat.locator('.item.user').count()) === 0, 10000, 'the view emptied');
    await chat.locator('#sessions').click();
    const row = chat.locator('button.session', { hasText: 'What does this do? @selection' });
    await row.waitFor({ timeout: 10000 });
    assert.match(await row.innerText(), /4 turns/);
    await shot('a-chat-sessions');
    await row.click();
    await waitUntil(async () => (await chat.locator('.item.user').count()) === 4, 10000, 'the session drawn again');
    assert.match(await chat.locator('.item.assistant').nth(1).innerText(), /main\.go has Sum, which adds up a slice/);
    await say('Go on.');
    await turnDone(5);
    const [req] = await requestFor('Go on.');
    assert.ok(req.assistantTexts.includes(FIRST_ANSWER), 'the reopened session continues with its history');
    assert.equal(await chat.locator('.item.assistant').last().locator('.md').innerText(), 'Picking up where we left off.');
  });

  // Control over the agent (issue 27): the mode, a saved rule, a rewind.
  await step('plan mode from the palette: the status bar and the chat say so, and a write is refused without a card', async () => {
    await runCommand('agentls: Set mode');
    const plan = page.locator('.quick-input-list .monaco-list-row', { hasText: /^plan/ }).first();
    await plan.waitFor({ timeout: 10000 });
    await shot('a-mode-quick-pick');
    await plan.click();
    await page.locator('.statusbar-item', { hasText: 'agentls [plan]' }).first().waitFor({ timeout: 10000 });
    await chat.locator('#mode', { hasText: 'mode: plan' }).waitFor({ timeout: 10000 });
    const cards = await chat.locator('.item.approval').count();
    await say('Rename Sum to Total.');
    await turnDone(6);
    assert.equal(await chat.locator('.item.approval').count(), cards, 'plan mode shows no card');
    assert.match(await chat.locator('details.item.tool').last().locator('summary').innerText(), /write_file[\s\S]*(denied|failed)/);
    assert.equal(await page.locator('.editor-instance .view-line', { hasText: 'func Total' }).count(), 0, 'the buffer is unchanged');
    assert.equal(onDisk(), DOUBLED);
    await runCommand('agentls: Set mode');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: /^ask/ }).first().click();
    await chat.locator('#mode', { hasText: 'mode: ask' }).waitFor({ timeout: 10000 });
  });

  await step('rules: Always allow on a command card, listed and forgotten from the palette', async () => {
    await say('Run the check.');
    const card = chat.locator('.item.approval').last();
    const always = card.locator('button', { hasText: 'Always allow' });
    await always.waitFor({ timeout: 30000 });
    assert.match(await always.innerText(), /run `echo e2e-rule` without asking/);
    await shot('a-rule-on-the-card');
    await always.click();
    await turnDone(7);
    await runCommand('agentls: Saved always-allow rules');
    const row = page.locator('.quick-input-list .monaco-list-row', { hasText: 'command: echo e2e-rule' }).first();
    await row.waitFor({ timeout: 10000 });
    await shot('a-rules-quick-pick');
    await row.click();
    await page.locator('.notifications-toasts', { hasText: 'forgot the rule command: echo e2e-rule' }).waitFor({ timeout: 10000 });
  });

  await step('rewind from the chat: the turn picked, its edit undone in the buffer, undo brings it back', async () => {
    await say('/rewind');
    const row = page.locator('.quick-input-list .monaco-list-row', { hasText: 'Make Sum double each element.' }).first();
    await row.waitFor({ timeout: 10000 });
    assert.match(await row.innerText(), /1 file\(s\)/);
    await shot('a-rewind-quick-pick');
    await row.click();
    await chat.locator('.item.notice', { hasText: 'Rewound to before turn 2: 1 file(s) restored' }).waitFor({ timeout: 20000 });
    const editor = page.locator('.editor-instance .monaco-editor').first();
    await editor.locator('.view-line', { hasText: 'total += x' }).waitFor({ timeout: 10000 });
    assert.equal(await editor.locator('.view-line', { hasText: 'total += 2 * x' }).count(), 0, 'the buffer is back as before turn 2');
    // Before turn 2 the file was as the outside agent's accepted edit left it.
    await waitUntil(() => onDisk() === OUTSIDE, 5000, 'the rewound buffer on disk (autosave)').catch((e) => { throw new Error(`${e.message}; on disk: ${JSON.stringify(onDisk())}`); });
    // The rewind went through the buffer: undo has the agent's text.
    await editor.locator('.view-line', { hasText: 'total += x' }).click();
    await page.keyboard.press(`${mod}+Z`);
    await editor.locator('.view-line', { hasText: 'total += 2 * x' }).waitFor({ timeout: 10000 });
    await shot('a-rewind-undone');
  });

  await step('the model picker: agentls: Choose model puts the chat on the claude profile, and the next turn goes to Anthropic\'s wire with the history', async () => {
    await runCommand('agentls: Choose model');
    const row = page.locator('.quick-input-list .monaco-list-row', { hasText: /^claude/ }).first();
    await row.waitFor({ timeout: 10000 });
    assert.match(await row.innerText(), /fake-claude \(anthropic\)/);
    await shot('a-model-quick-pick');
    await row.click();
    await chat.locator('#model', { hasText: 'claude: fake-claude (anthropic)' }).waitFor({ timeout: 10000 });
    const n = await chat.locator('.item.user').count();
    await say('And you, Claude?');
    await turnDone(n + 1);
    const [req] = await requestFor('And you, Claude?');
    assert.equal(req.format, 'anthropic-messages');
    assert.ok(req.assistantTexts.length > 0, 'the turn carries the conversation so far');
    assert.equal(await chat.locator('.item.assistant').last().locator('.md').innerText(), 'Claude here, with the history so far.');
    await runCommand('agentls: Choose model');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: /^default/ }).first().click();
    await chat.locator('#model', { hasText: 'fake-model' }).waitFor({ timeout: 10000 });
  });

  await step('hooks: the before_tool hook denies a command without a card, and the turn_end hook\'s output is a notice in the chat', async () => {
    fs.writeFileSync(path.join(ws, '.hooks-on'), '');
    fs.mkdirSync(path.join(ws, 'build'), { recursive: true });
    const cards = await chat.locator('.item.approval').count();
    const n = await chat.locator('.item.user').count();
    await say('Clean up the build.');
    await turnDone(n + 1);
    assert.equal(await chat.locator('.item.approval').count(), cards, 'a call the hook denied shows no card');
    const tool = chat.locator('details.item.tool').last();
    assert.match(await tool.locator('summary').innerText(), /run_command[\s\S]*denied/);
    await chat.locator('.item.notice', { hasText: 'turn-end hook ran' }).waitFor({ timeout: 10000 });
    await shot('a-hooks-notice');
    const [, second] = await requestFor('Clean up the build.');
    assert.match(second.toolResults.at(-1).Content, /hook: rm is not allowed in this repository/, "the model reads the hook's reason (the last tool result)");
    assert.ok(fs.existsSync(path.join(ws, 'build')), 'the build folder is still there');
    fs.rmSync(path.join(ws, '.hooks-on'));
  });

  // MCP Apps: the model calls the real App server's get-time; its App opens
  // beside in a sandboxed panel, shows the result, and its own button's
  // tools/call asks on a card that names the App.
  await step('an MCP App in its sandboxed panel', async () => {
    await say('What time is it on the server?');
    const card = chat.locator('.item.approval').last();
    await card.waitFor({ timeout: 30000 });
    await card.locator('button', { hasText: 'Allow once' }).click();
    // The turn's end: the model asked again after the result (the App's
    // panel is a second webview, so the chat's locator no longer picks one).
    await waitUntil(async () => (await requestFor('What time is it on the server?')).length === 2, 30000, 'the model to get the result');
    const appFrame = async () => {
      for (const f of page.frames()) {
        if (await f.locator('#get-time-btn').count().catch(() => 0)) return f;
      }
      return undefined;
    };
    const app = await waitUntil(appFrame, 30000, 'the App\'s frame');
    const time = app.locator('#server-time');
    await waitUntil(async () => /^20\d\d-/.test(await time.innerText()), 15000, 'the App to show the result');
    const first = await time.innerText();
    // The App's frame is sandboxed: an opaque origin, no VS Code API.
    assert.equal(await app.evaluate(() => String(window.origin)), 'null');
    assert.equal(await app.evaluate(() => typeof acquireVsCodeApi), 'undefined');
    assert.equal(await app.evaluate(() => fetch('https://example.com/').then(() => 'fetched', () => 'blocked')), 'blocked');
    await shot('a-mcp-app-shows-the-result');
    await app.locator('#get-time-btn').click();
    await dialog.waitFor({ timeout: 30000 });
    assert.match(await dialog.innerText(), /the App ui:\/\/get-time\/mcp-app\.html of basic asks/);
    await shot('a-mcp-app-call-card');
    await dialog.locator('.monaco-button', { hasText: 'Allow once' }).first().click();
    await waitUntil(async () => { const t = await time.innerText(); return /^20\d\d-/.test(t) && t !== first; }, 15000, 'the App to show its own call\'s result');
  });

  // The outside agents drive every other tool of this VS Code (issue 29
  // item 2), each call with the card agentls's own agent would get for it,
  // naming the client and its connection.
  const notes = path.join(ws, 'notes.txt');
  const notesURI = `file://${notes}`;
  const clean = path.join(ws, 'clean.txt');
  const resourceURIs = async (client) => (await client.listResources()).resources.map((r) => r.uri);
  const connections = { HTTP: '', stdio: '' }; // as the first card of each named it
  const sameConnection = (via, c) => {
    if (!connections[via]) connections[via] = c;
    assert.equal(c, connections[via], `every card of the ${via} client names its one connection`);
    assert.notEqual(connections.HTTP, connections.stdio, 'the two clients are two connections');
  };

  await step('an outside agent shows a file at a range (open_file), and reads a selection made in the editor (get_selection); the resources follow', async () => {
    // The rest of the suite leaves nothing to autosave: unsaved changes stay (a dirty tab for close_tab).
    fs.writeFileSync(path.join(ws, '.vscode', 'settings.json'), JSON.stringify({ 'files.autoSave': 'off' }));
    fs.writeFileSync(notes, 'first line\nsecond line\nthird line\n');
    const before = [outside, stdio].map((c) => heard.get(c).listChanged);
    assert.equal((await resourceURIs(outside)).includes(notesURI), false, 'notes.txt is not open yet');
    assert.match(await ok(outside, 'open_file', { path: 'notes.txt', range: { start: { line: 1, character: 0 }, end: { line: 1, character: 6 } } }), /^shown in the editor: /);
    await page.locator('.tab.active', { hasText: 'notes.txt' }).waitFor({ timeout: 10000 });
    // The range selected: "second" of line 2, as the status bar says.
    await page.locator('.statusbar-item', { hasText: /Ln 2, Col 7 \(6 selected\)/ }).waitFor({ timeout: 10000 });
    await shot('a-outside-open-file-range');
    // Opening it changed the resource list, over both transports.
    await waitUntil(() => [outside, stdio].every((c, i) => heard.get(c).listChanged > before[i]), 20000, 'notifications/resources/list_changed on both connections');
    for (const c of [outside, stdio]) {
      const uris = await waitUntil(async () => { const u = await resourceURIs(c); return u.includes(notesURI) && u; }, 10000, 'notes.txt among the resources');
      assert.ok(uris.includes(`file://${path.join(ws, 'main.go')}`), `the open documents are the resources: ${uris}`);
      const read = await c.readResource({ uri: notesURI });
      assert.equal(read.contents[0].text, 'first line\nsecond line\nthird line\n');
    }
    // A selection the user makes: the third line.
    const editor = page.locator('.editor-instance .monaco-editor', { has: page.locator('.view-line', { hasText: 'third line' }) }).first();
    await editor.locator('.view-line', { hasText: 'third line' }).click();
    await page.keyboard.press('Home');
    await page.keyboard.press('Shift+End');
    for (const c of [stdio, outside]) {
      const sel = await waitUntil(async () => {
        const t = await ok(c, 'get_selection', {});
        const head = JSON.parse(t.split('\n')[0]);
        return head.path === notes && head.range.start.line === 2 && head.range.end.character === 10 && t;
      }, 20000, 'get_selection to give the third line of notes.txt');
      assert.match(sel, /third line/);
      assert.doesNotMatch(sel, /second line/, 'only the selected line');
    }
  });

  await step('list_tabs and close_tab: a clean tab closed, a dirty one refused; a change to a subscribed document is notified', async () => {
    for (const c of [outside, stdio]) await c.subscribeResource({ uri: notesURI });
    // The user types in notes.txt: unsaved (autosave is off now).
    const editor = page.locator('.editor-instance .monaco-editor', { has: page.locator('.view-line', { hasText: 'third line' }) }).first();
    await editor.locator('.view-line', { hasText: 'first line' }).click();
    await page.keyboard.press('End');
    await page.keyboard.type(' typed');
    await page.locator('.tab.dirty', { hasText: 'notes.txt' }).waitFor({ timeout: 10000 });
    await waitUntil(() => [outside, stdio].every((c) => heard.get(c).updated.includes(notesURI)), 20000, 'notifications/resources/updated of notes.txt on both connections');
    // The resource is the unsaved buffer (each key is a change of its own: wait for the last).
    await waitUntil(async () => (await outside.readResource({ uri: notesURI })).contents[0].text === 'first line typed\nsecond line\nthird line\n', 10000, 'the resource to read the unsaved buffer');
    // A file the user opens (VS Code keeps a document an extension opened,
    // as open_file's, for minutes after its tab closes; the user's closes
    // with its tab), made with the workspace so that quick open knows it.
    await page.keyboard.press(`${mod}+P`);
    await page.locator('.quick-input-widget input').fill('clean.txt');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'clean.txt' }).first().waitFor();
    await page.keyboard.press('Enter');
    await page.locator('.tab.active', { hasText: 'clean.txt' }).waitFor({ timeout: 10000 });
    await waitUntil(async () => (await resourceURIs(stdio)).includes(`file://${clean}`), 20000, 'clean.txt among the resources');
    for (const c of [outside, stdio]) {
      const tabs = JSON.parse(await ok(c, 'list_tabs', {}));
      const of = (p) => tabs.find((t) => t.path === p);
      assert.deepEqual([of(notes) && of(notes).dirty, of(clean) && of(clean).dirty, of(clean) && of(clean).active],
        [true, false, true], `notes.txt unsaved, clean.txt saved and active: ${JSON.stringify(tabs)}`);
      assert.equal(of(clean).label, 'clean.txt');
      assert.ok(of(path.join(ws, 'main.go')), `main.go's tab: ${JSON.stringify(tabs)}`);
      assert.ok(tabs.every((t) => t.path.startsWith(ws + path.sep)), `only files of the workspace: ${JSON.stringify(tabs)}`);
    }
    await shot('a-outside-dirty-tab');
    const refused = await outside.callTool({ name: 'close_tab', arguments: { path: 'notes.txt' } });
    assert.ok(refused.isError, `a dirty tab is not closed: ${refused.content[0].text}`);
    assert.match(refused.content[0].text, /unsaved changes/);
    assert.equal(await page.locator('.tab.dirty', { hasText: 'notes.txt' }).count(), 1, 'its tab is still there, unsaved');
    const before = [outside, stdio].map((c) => heard.get(c).listChanged);
    assert.equal(await ok(stdio, 'close_tab', { path: 'clean.txt' }), `closed the tab of ${clean}`);
    await page.locator('.tab', { hasText: 'clean.txt' }).waitFor({ state: 'detached', timeout: 10000 });
    // Its document closed: the resource list changed and lacks it.
    await waitUntil(() => [outside, stdio].every((c, i) => heard.get(c).listChanged > before[i]), 30000, 'notifications/resources/list_changed after the close');
    await waitUntil(async () => !(await resourceURIs(outside)).includes(`file://${clean}`), 30000, 'clean.txt gone from the resources');
  });

  await step('run_command on its card: allowed once over HTTP, denied over stdio; a secret file asks too', async () => {
    const allowed = await carded(outside, 'run_command', { command: 'echo outside-ran-$((6*7))', shell: true }, byHTTP, 'Allow once', 'a-outside-run-command-card');
    assert.ok(allowed.card.includes('echo outside-ran-$((6*7))'), `the card shows the command: ${allowed.card}`);
    assert.ok(!allowed.res.isError, allowed.text);
    assert.match(allowed.text, /^outside-ran-42$/m);
    sameConnection('HTTP', allowed.connection);
    const denied = await carded(stdio, 'run_command', { command: 'touch denied.txt' }, byStdio, 'Deny');
    assert.ok(denied.card.includes('touch denied.txt'), denied.card);
    assert.ok(denied.res.isError && /denied/i.test(denied.text), `denied: ${denied.text}`);
    assert.equal(fs.existsSync(path.join(ws, 'denied.txt')), false, 'the denied command did not run');
    sameConnection('stdio', denied.connection);
    // A file that usually holds secrets: agentls's own agent gets a card for it, so does an outside one.
    fs.writeFileSync(path.join(ws, '.netrc'), 'machine example.com login e2e password not-for-the-agent\n');
    const secret = await carded(stdio, 'read_document', { path: '.netrc' }, byStdio, 'Deny');
    assert.ok(secret.res.isError, `a denied read is an error: ${secret.text}`);
    assert.doesNotMatch(secret.text, /not-for-the-agent/);
    sameConnection('stdio', secret.connection);
  });

  await step('git_status, agentls_sessions and agentls_transcript on their cards', async () => {
    run('git', ['-c', 'init.defaultBranch=main', 'init', '-q'], { cwd: ws, env });
    const status = await carded(outside, 'git_status', {}, byHTTP, 'Allow once', 'a-outside-git-status-card');
    assert.ok(status.card.includes('git status --porcelain=v1 --branch'), status.card);
    assert.ok(!status.res.isError, status.text);
    assert.match(status.text, /^## No commits yet on main/m);
    assert.match(status.text, /^\?\? main\.go$/m);
    sameConnection('HTTP', status.connection);
    const sessions = await carded(stdio, 'agentls_sessions', {}, byStdio, 'Allow once', 'a-outside-sessions-card');
    assert.ok(!sessions.res.isError, sessions.text);
    sameConnection('stdio', sessions.connection);
    // The chat's first conversation, reopened and continued above.
    const line = sessions.text.split('\n').find((l) => l.split('\t')[1] === 'What does this do? @selection');
    assert.ok(line, `the chat's session is listed: ${sessions.text}`);
    const id = line.split('\t')[0];
    const transcript = await carded(outside, 'agentls_transcript', { sessionId: id }, byHTTP, 'Allow once');
    assert.ok(transcript.card.includes(id), transcript.card);
    assert.ok(!transcript.res.isError, transcript.text);
    assert.ok(transcript.text.includes('What does this do? @selection') && transcript.text.includes('Picking up where we left off.'), transcript.text);
    sameConnection('HTTP', transcript.connection);
  });

  await step('terminals: created, typed into when its card is allowed (stdio) and not when denied (HTTP), read', async () => {
    const { id } = JSON.parse(await ok(outside, 'create_terminal', { name: 'e2e' }));
    assert.match(id, /\S/);
    await page.locator('.part.panel', { hasText: 'e2e (agentls)' }).first().waitFor({ timeout: 20000 });
    for (const c of [outside, stdio]) assert.deepEqual(JSON.parse(await ok(c, 'list_terminals', {})), [{ id, name: 'e2e' }]);
    const typed = await carded(stdio, 'send_to_terminal', { id, text: 'echo term-$((6*7))' }, byStdio, 'Allow once', 'a-outside-terminal-card');
    assert.match(typed.card, /Type into the editor's terminal e2e\?/);
    assert.ok(typed.card.includes('echo term-$((6*7))'), typed.card);
    assert.ok(!typed.res.isError, typed.text);
    sameConnection('stdio', typed.connection);
    // The shell ran it: its output, not only the typed line.
    await waitUntil(async () => /^term-42$/m.test(await ok(outside, 'read_terminal', { id })), 20000, 'the output in read_terminal');
    assert.ok((await ok(stdio, 'read_terminal', { id })).includes('echo term-$((6*7))'));
    await shot('a-outside-terminal-output');
    const denied = await carded(outside, 'send_to_terminal', { id, text: 'echo denied-$((6*7)) > term-denied.txt' }, byHTTP, 'Deny');
    assert.ok(denied.res.isError && /denied/i.test(denied.text), `denied: ${denied.text}`);
    sameConnection('HTTP', denied.connection);
    assert.doesNotMatch(await ok(outside, 'read_terminal', { id }), /denied/, 'nothing was typed');
    assert.equal(fs.existsSync(path.join(ws, 'term-denied.txt')), false);
  });

  await step('tasks: list_tasks, run_task on its card answers the exit code, and get_diagnostics has its problem matcher\'s finding', async () => {
    for (const c of [outside, stdio]) {
      const tasks = JSON.parse(await ok(c, 'list_tasks', {}));
      const task = tasks.find((x) => x.name === 'e2e-check');
      assert.ok(task, `the workspace's task is listed: ${JSON.stringify(tasks)}`);
      assert.equal(task.detail, TASK_COMMAND);
    }
    const ran = await carded(stdio, 'run_task', { name: 'e2e-check' }, byStdio, 'Allow once', 'a-outside-task-card');
    assert.match(ran.card, /Run the editor's task e2e-check \(Workspace\)\?/);
    assert.ok(ran.card.includes(TASK_COMMAND), ran.card);
    assert.equal(ran.text, 'the task e2e-check ended with exit code 3');
    sameConnection('stdio', ran.connection);
    const denied = await carded(outside, 'run_task', { name: 'e2e-check' }, byHTTP, 'Deny');
    assert.ok(denied.res.isError && /denied/i.test(denied.text), `denied: ${denied.text}`);
    sameConnection('HTTP', denied.connection);
    // The problem matcher's finding is VS Code's, not agentls's: get_diagnostics has it.
    const mainGo = path.join(ws, 'main.go');
    for (const [c, args] of [[outside, {}], [stdio, { path: 'main.go' }]]) {
      const files = await waitUntil(async () => {
        const f = JSON.parse(await ok(c, 'get_diagnostics', args));
        const main = f.find((x) => x.path === mainGo);
        return main && main.diagnostics.some((d) => d.source === 'e2e-task') && f;
      }, 20000, 'the task\'s diagnostic in get_diagnostics');
      const d = files.find((x) => x.path === mainGo).diagnostics.find((x) => x.source === 'e2e-task');
      assert.equal(d.message, 'e2e task finding');
      assert.equal(d.severity, 2, 'a warning');
      assert.deepEqual(d.range.start, { line: 2, character: 0 });
      if (args.path) assert.deepEqual(files.map((x) => x.path), [mainGo], 'path narrows to the one file');
    }
    await runCommand('View: Toggle Problems');
    await page.locator('.part.panel', { hasText: 'e2e task finding' }).first().waitFor({ timeout: 10000 });
    await shot('a-outside-task-problem');
  });

});

'use strict';
// `vsce package` produces a .vsix that holds the extension, its runtime
// dependencies and nothing of the tests.

const test = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const HERE = path.resolve(__dirname, '..');

/** zipNames lists the file names in a zip archive's central directory. */
function zipNames(buf) {
  const eocd = buf.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  assert.ok(eocd >= 0, 'not a zip file: no end of central directory');
  const count = buf.readUInt16LE(eocd + 10);
  let p = buf.readUInt32LE(eocd + 16);
  const names = [];
  for (let i = 0; i < count; i++) {
    assert.equal(buf.readUInt32LE(p), 0x02014b50, 'corrupt central directory');
    const nameLen = buf.readUInt16LE(p + 28);
    const extraLen = buf.readUInt16LE(p + 30);
    const commentLen = buf.readUInt16LE(p + 32);
    names.push(buf.toString('utf8', p + 46, p + 46 + nameLen));
    p += 46 + nameLen + extraLen + commentLen;
  }
  return names;
}

test('vsce package builds a .vsix with the extension and its runtime dependencies only', (t) => {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'agentls-vsix-'));
  t.after(() => fs.rmSync(out, { recursive: true, force: true }));
  const vsix = path.join(out, 'agentls.vsix');
  const vsce = path.join(HERE, 'node_modules', '.bin', 'vsce');
  assert.ok(fs.existsSync(vsce), 'node_modules/.bin/vsce is missing: run npm ci');
  const r = spawnSync(vsce, ['package', '--skip-license', '--out', vsix], { cwd: HERE, encoding: 'utf8', timeout: 120000 });
  assert.equal(r.status, 0, `vsce package failed:\n${r.stdout}\n${r.stderr}`);
  assert.ok(fs.statSync(vsix).size > 0, 'the .vsix is empty');

  const names = zipNames(fs.readFileSync(vsix));
  for (const want of ['extension/package.json', 'extension/extension.js', 'extension/readme.md',
    'extension/lib/approvals.js', 'extension/lib/attach.js', 'extension/lib/commands.js', 'extension/lib/events.js',
    'extension/lib/launch.js', 'extension/lib/mcp.js', 'extension/lib/capabilities.js', 'extension/lib/review.js',
    'extension/lib/chat/panel.js', 'extension/lib/chat/participant.js', 'extension/lib/chat/input.js', 'extension/lib/chat/markdown.js',
    'extension/lib/chat/conversation.js', 'extension/lib/chat/webview.js', 'extension/lib/chat/chat.css', 'extension/lib/chat/icon.svg',
    'extension/node_modules/vscode-languageclient/package.json', 'extension/node_modules/vscode-languageserver-protocol/package.json']) {
    assert.ok(names.includes(want), `the .vsix lacks ${want}`);
  }
  for (const name of names) {
    assert.doesNotMatch(name, /^extension\/(test|e2e|\.test-bin)\/|\.go$|node_modules\/@vscode\/vsce/, `the .vsix ships ${name}`);
  }
});

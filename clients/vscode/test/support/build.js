'use strict';
// Builds the Go programs the integration tests run, once per `npm test`:
// agentls itself, the fake model server (test/fakemodel) and the fault MCP server (internal/faultserver). Without Go the
// integration tests skip locally and fail under CI=true.

const { spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const ROOT = path.resolve(__dirname, '..', '..', '..', '..'); // the Go module
const BIN = path.resolve(__dirname, '..', '..', '.test-bin');

const targets = { agentls: './cmd/agentls', fakemodel: './clients/vscode/test/fakemodel', faultserver: './internal/faultserver' };

function main() {
  fs.mkdirSync(BIN, { recursive: true });
  const go = spawnSync('go', ['version'], { encoding: 'utf8' });
  if (go.error) {
    const msg = 'go is not on PATH: the integration tests need it to build agentls (install Go 1.26)';
    if (process.env.CI === 'true') {
      console.error(`${msg} (CI=true, so this fails instead of skipping)`);
      process.exit(1);
    }
    console.error(`${msg}; they will be skipped`);
    fs.writeFileSync(path.join(BIN, 'missing'), msg);
    return;
  }
  fs.rmSync(path.join(BIN, 'missing'), { force: true });
  for (const [name, pkg] of Object.entries(targets)) {
    const r = spawnSync('go', ['build', '-o', path.join(BIN, name), pkg], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'inherit', 'inherit'] });
    if (r.status !== 0) {
      console.error(`go build ${pkg} failed (exit ${r.status})`);
      process.exit(1);
    }
  }
}

main();

'use strict';
// extension.js itself, loaded with the vscode module replaced by the stub
// (the one seam): it loads, and a missing agentls is an error message that
// says how to install it, not an exception.

const test = require('node:test');
const assert = require('node:assert/strict');
const Module = require('module');
const { stubVscode } = require('./support/stub-vscode');

function loadExtension(stub) {
  const load = Module._load;
  Module._load = function (request, parent, isMain) {
    if (request === 'vscode') return stub.vscode;
    return load.call(this, request, parent, isMain);
  };
  try {
    delete require.cache[require.resolve('../extension')];
    return require('../extension');
  } finally {
    Module._load = load;
  }
}

test('extension.js activates with an error message when agentls is missing', async () => {
  const stub = stubVscode({ config: { 'agentls.path': '/nonexistent/agentls' } });
  const ext = loadExtension(stub);
  assert.equal(typeof ext.activate, 'function');
  assert.equal(typeof ext.deactivate, 'function');
  const context = { subscriptions: [] };
  await ext.activate(context);
  const errors = stub.calls.filter((c) => c.fn === 'showErrorMessage').map((c) => c.args[0]);
  assert.equal(errors.length, 1);
  assert.match(errors[0], /agentls\.path is "\/nonexistent\/agentls", which is not an executable file: install it with `go install/);
  assert.equal(context.subscriptions.length, 0, 'nothing was started');
  assert.equal(ext.deactivate(), undefined);
});

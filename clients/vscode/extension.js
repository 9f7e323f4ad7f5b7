'use strict';
// The agentls extension for VS Code: starts `agentls serve` through
// vscode-languageclient, answers its approvals with modal dialogs, shows its
// event stream and running task, and adds palette commands. Plain CommonJS,
// no build step. The logic lives in lib/, which takes the vscode module as an
// argument so tests can run it with a stub.

const vscode = require('vscode');
const { LanguageClient } = require('vscode-languageclient/node');
const { serverCommand } = require('./lib/launch');
const { agentlsFeature } = require('./lib/capabilities');
const { attach } = require('./lib/attach');

let client;

/** activate starts agentls; a missing binary is an error message saying how to install it. */
async function activate(context) {
  let server;
  try {
    server = serverCommand(vscode);
  } catch (err) {
    vscode.window.showErrorMessage(`agentls: ${err.message}`);
    return;
  }
  client = new LanguageClient(
    'agentls',
    'agentls',
    { command: server.command, args: server.args },
    {
      documentSelector: [{ scheme: 'file' }, { scheme: 'untitled' }],
      outputChannelName: 'agentls',
    },
  );
  client.registerFeature(agentlsFeature());
  const { disposables } = attach(vscode, client, { extensionUri: context.extensionUri });
  context.subscriptions.push(...disposables);
  try {
    await client.start();
  } catch (err) {
    vscode.window.showErrorMessage(`agentls: could not start ${server.command}: ${err.message}`);
  }
}

/** deactivate stops agentls (shutdown, exit); it must not outlive the window. */
function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };

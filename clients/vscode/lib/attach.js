'use strict';
// attach connects the extension's views and handlers to an LSP client. The
// extension passes vscode-languageclient's LanguageClient; the tests pass a
// vscode-languageserver-protocol connection to a real agentls. Both have the
// same onRequest/onNotification/sendRequest, so the tests run this code as is.
// A method has one handler, so agent/event goes to the event view and the
// chat from here, and agent/requestApproval to the chat's card when its
// turn asks, else to the modal and diff editor. The agent/editor/* requests
// (an outside MCP agent's tabs, terminals, tasks, diagnostics) go to editor.js.

const { requestApproval } = require('./approvals');
const { eventView } = require('./events');
const { registerCommands } = require('./commands');
const { diffReviews } = require('./review');
const { chatPanel } = require('./chat/panel');
const { registerParticipant } = require('./chat/participant');
const { appPanels } = require('./apps');
const { registerEditor } = require('./editor');
const path = require('path');

/**
 * attach registers the approval handler (diff editor for writes, the chat's
 * card for its own turns), the event stream, the chat view, @agentls where
 * VS Code has a chat, and the palette commands; returns the ui and its
 * disposables. extensionUri is where the chat's page files are.
 */
function attach(vscode, client, { extensionUri } = {}) {
  const view = eventView(vscode);
  const reviews = diffReviews(vscode);
  const ui = { view, reviews, state: { sessionId: undefined } };
  const root = extensionUri || vscode.Uri.file(path.resolve(__dirname, '..'));
  const log = (line) => view.channel.appendLine(line);
  const chat = chatPanel(vscode, client, ui, { reviews, extensionUri: root, log });
  ui.chat = chat;
  const apps = appPanels(vscode, client, { log });
  ui.apps = apps;
  const onApproval = async (approval, token) => {
    if (await chat.owns(approval).catch(() => false)) return chat.ask(approval, token);
    return requestApproval(vscode, approval, token, log, reviews);
  };
  const disposables = [
    ...reviews.disposables,
    client.onRequest('agent/requestApproval', onApproval),
    client.onNotification('agent/event', (ev) => {
      view.onEvent(ev);
      chat.onEvent(ev);
      apps.onEvent(ev);
    }),
    ...chat.disposables,
    ...registerParticipant(vscode, client, chat, root),
    ...registerCommands(vscode, client, ui),
    ...registerEditor(vscode, client).disposables,
    view.channel,
    view.item,
  ];
  return { ui, disposables };
}

module.exports = { attach };

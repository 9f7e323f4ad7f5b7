'use strict';
// attach connects the extension's views and handlers to an LSP client. The
// extension passes vscode-languageclient's LanguageClient; the tests pass a
// vscode-languageserver-protocol connection to a real agentls. Both have the
// same onRequest/onNotification/sendRequest, so the tests run this code as is.

const { requestApproval } = require('./approvals');
const { eventView } = require('./events');
const { registerCommands } = require('./commands');
const { diffReviews } = require('./review');

/** attach registers the approval handler (diff editor for writes), the event stream and the palette commands; returns the ui and its disposables. */
function attach(vscode, client) {
  const view = eventView(vscode);
  const reviews = diffReviews(vscode);
  const ui = { view, reviews, state: { sessionId: undefined } };
  const log = (line) => view.channel.appendLine(line);
  const disposables = [
    ...reviews.disposables,
    client.onRequest('agent/requestApproval', (approval, token) => requestApproval(vscode, approval, token, log, reviews)),
    client.onNotification('agent/event', view.onEvent),
    ...registerCommands(vscode, client, ui),
    view.channel,
    view.item,
  ];
  return { ui, disposables };
}

module.exports = { attach };

'use strict';
// What the extension announces in initialize: it answers agent/requestApproval
// itself (modal dialogs), shows an MCP server's form (elicit.js) and wants
// the agent/event stream, and shows the MCP App a tool result offers
// (apps.js), and answers the editor extras an outside MCP agent gets through
// agentls: tabs, terminals, tasks, diagnostics (editor.js) (docs/protocol.md
// sections 1 and 9).

const { EXTRAS } = require('./editor');

/** EXPERIMENTAL is capabilities.experimental.agentls. */
const EXPERIMENTAL = Object.freeze({ approvals: true, forms: true, events: true, apps: true, editor: EXTRAS });

/** announce adds experimental.agentls to a ClientCapabilities object, keeping what is there. */
function announce(capabilities) {
  capabilities.experimental = Object.assign({}, capabilities.experimental, { agentls: { ...EXPERIMENTAL, editor: { ...EXTRAS } } });
  return capabilities;
}

/** agentlsFeature is a vscode-languageclient StaticFeature that announces EXPERIMENTAL. */
function agentlsFeature() {
  return {
    fillClientCapabilities: announce,
    initialize() {},
    getState() {
      return { kind: 'static' };
    },
    clear() {},
  };
}

module.exports = { EXPERIMENTAL, announce, agentlsFeature };

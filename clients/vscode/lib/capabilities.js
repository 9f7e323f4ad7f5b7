'use strict';
// What the extension announces in initialize: it answers agent/requestApproval
// itself (modal dialogs), shows an MCP server's form (elicit.js) and wants
// the agent/event stream, and shows the MCP App a tool result offers
// (apps.js) (docs/protocol.md section 1).

/** EXPERIMENTAL is capabilities.experimental.agentls. */
const EXPERIMENTAL = Object.freeze({ approvals: true, forms: true, events: true, apps: true });

/** announce adds experimental.agentls to a ClientCapabilities object, keeping what is there. */
function announce(capabilities) {
  capabilities.experimental = Object.assign({}, capabilities.experimental, { agentls: { ...EXPERIMENTAL } });
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

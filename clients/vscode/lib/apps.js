'use strict';
// MCP Apps (docs/protocol.md, MCP Apps): a tool_result whose ui names an
// App opens it in a webview panel. The App's HTML runs in an iframe with
// sandbox="allow-scripts" inside the panel's page (an opaque origin: no
// acquireVsCodeApi, no DOM of the page or of VS Code), under a policy that
// allows no network but the origins its resource declares (the iframe
// inherits the page's policy, and gets the same one in its own <meta>).
// The page only relays the App's postMessage JSON-RPC to the extension
// and back; the extension answers ui/initialize and passes the call's
// input and result itself, and sends the App's tools/call to agentls as
// agent/mcp/appCall, which runs it through the gate and the card.

const crypto = require('crypto');

/** APP_PROTOCOL is the Apps extension revision this host speaks. */
const APP_PROTOCOL = '2026-01-26';

/** sources joins CSP source lists, or 'none' when there is none. */
function sources(...lists) {
  const all = lists.flat().filter((s) => typeof s === 'string' && /^(https?|wss?):\/\/[^\s;,'"]+$/.test(s));
  return all.length ? all.join(' ') : "'none'";
}

/** appPolicy is the content security policy of an App's page and frame. */
function appPolicy(csp = {}, nonce) {
  const res = csp.resourceDomains || [];
  const extra = (list) => (list.length ? ' ' + sources(list) : '');
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'${extra(res)}`,
    `style-src 'unsafe-inline'${extra(res)}`,
    `img-src data: blob:${extra(res)}`,
    `font-src data:${extra(res)}`,
    `media-src data: blob:${extra(res)}`,
    `connect-src ${sources(csp.connectDomains || [])}`,
    `frame-src ${sources(csp.frameDomains || [])}`,
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

function attr(s) {
  return String(s).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** appDocument is the App's HTML with the policy in its head and the nonce on its scripts. */
function appDocument(html, policy, nonce) {
  const meta = `<meta http-equiv="Content-Security-Policy" content="${attr(policy)}">`;
  const withNonce = String(html).replace(/<script\b/gi, `<script nonce="${nonce}"`);
  if (/<head[^>]*>/i.test(withNonce)) return withNonce.replace(/<head[^>]*>/i, (m) => m + meta);
  return meta + withNonce;
}

/** appPage is the panel's HTML: the App in a sandboxed iframe and a relay. */
function appPage(app, title) {
  const nonce = crypto.randomBytes(16).toString('base64');
  const policy = appPolicy(app.csp, nonce);
  const doc = appDocument(app.html, policy, nonce);
  const border = app.prefersBorder === false ? 'none' : '1px solid var(--vscode-panel-border, #8884)';
  return `<!DOCTYPE html>
<html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${attr(policy)}">
<title>${attr(title)}</title>
<style>html,body{margin:0;padding:0;height:100%}iframe{width:100%;height:100%;border:${border};box-sizing:border-box}</style>
</head><body>
<iframe id="app" title="${attr(title)}" sandbox="allow-scripts" srcdoc="${attr(doc)}"></iframe>
<script nonce="${nonce}">
(function () {
  const vscode = acquireVsCodeApi();
  const frame = document.getElementById('app');
  window.addEventListener('message', (e) => {
    if (e.source === frame.contentWindow) { vscode.postMessage({ app: e.data }); return; }
    if (e.data && e.data.toApp) frame.contentWindow.postMessage(e.data.toApp, '*');
  });
})();
</script>
</body></html>`;
}

/** resultFor is what the App gets as a tool result. */
function resultFor(text, isError, structured) {
  const r = { content: [{ type: 'text', text: String(text || '') }], isError: !!isError };
  if (structured !== undefined && structured !== null) r.structuredContent = structured;
  return r;
}

/**
 * appBridge answers the App's JSON-RPC messages. ref is the tool_result's
 * ui; call: {sessionId, input, output, isError}; send(msg) posts to the
 * App; vscode for links, logs and the theme; client for agent/mcp/appCall.
 */
function appBridge({ vscode, client, ref, call, send, log = () => {} }) {
  const reply = (id, result) => send({ jsonrpc: '2.0', id, result });
  const fail = (id, code, message) => send({ jsonrpc: '2.0', id, error: { code, message } });
  const dark = () => {
    const kind = vscode.window.activeColorTheme && vscode.window.activeColorTheme.kind;
    return kind === 2 || kind === 3 ? 'dark' : 'light';
  };
  return async function onAppMessage(msg) {
    if (!msg || msg.jsonrpc !== '2.0' || typeof msg.method !== 'string') return;
    const { id, method } = msg;
    const params = msg.params && typeof msg.params === 'object' ? msg.params : {};
    const isRequest = id !== undefined && id !== null;
    switch (method) {
      case 'ui/initialize':
        return reply(id, {
          protocolVersion: APP_PROTOCOL,
          hostInfo: { name: 'agentls', version: '1' },
          hostCapabilities: { serverTools: {}, logging: {}, openLinks: {} },
          hostContext: { theme: dark(), displayMode: 'inline', availableDisplayModes: ['inline'],
            toolInfo: { tool: { name: ref.tool, inputSchema: { type: 'object' } } } },
        });
      case 'ui/notifications/initialized':
        send({ jsonrpc: '2.0', method: 'ui/notifications/tool-input', params: { arguments: call.input || {} } });
        send({ jsonrpc: '2.0', method: 'ui/notifications/tool-result', params: resultFor(call.output, call.isError, ref.structuredContent) });
        return undefined;
      case 'tools/call': {
        if (typeof params.name !== 'string' || !params.name) return fail(id, -32602, 'tools/call needs a tool name');
        try {
          const r = await client.sendRequest('agent/mcp/appCall', {
            sessionId: call.sessionId, server: ref.server, resourceUri: ref.resourceUri,
            tool: params.name, arguments: params.arguments || {},
          });
          return reply(id, resultFor(r.text, r.isError, r.structuredContent));
        } catch (err) {
          return fail(id, -32603, String(err && err.message ? err.message : err));
        }
      }
      case 'ui/open-link': {
        const url = typeof params.url === 'string' ? params.url : '';
        if (!/^https?:\/\//i.test(url)) return reply(id, { isError: true });
        const open = await vscode.window.showInformationMessage(`The App of ${ref.server} asks to open ${url}`, 'Open');
        if (open !== 'Open') return reply(id, { isError: true });
        await vscode.env.openExternal(vscode.Uri.parse(url));
        return reply(id, {});
      }
      case 'ui/request-display-mode':
        return reply(id, { mode: 'inline' });
      case 'ping':
        return reply(id, {});
      case 'notifications/message':
        log(`[app ${ref.server}] ${typeof params.data === 'string' ? params.data : JSON.stringify(params.data)}`);
        return undefined;
      default:
        if (isRequest) return fail(id, -32601, `agentls does not support ${method} from an App`);
        return undefined;
    }
  };
}

/**
 * appPanels opens the App a tool_result offers (ev.ui) in a webview panel
 * beside the editor. Returns {onEvent, panels}.
 */
function appPanels(vscode, client, { log = () => {} } = {}) {
  const inputs = new Map(); // toolCallId -> arguments of its latest tool_call
  const panels = [];
  async function open(ev, input) {
    const ref = ev.ui;
    let app;
    try {
      app = await client.sendRequest('agent/mcp/app', { server: ref.server, resourceUri: ref.resourceUri });
    } catch (err) {
      log(`agentls: the App ${ref.resourceUri} of ${ref.server} could not be read: ${err.message || err}`);
      return undefined;
    }
    const title = `${ref.server}: ${ref.tool}`;
    const panel = vscode.window.createWebviewPanel('agentls.app', title, { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
      { enableScripts: true, enableForms: false, enableCommandUris: false, localResourceRoots: [], retainContextWhenHidden: true });
    const call = { sessionId: ev.sessionId, input, output: ev.output, isError: ev.isError };
    const send = (msg) => panel.webview.postMessage({ toApp: msg });
    const bridge = appBridge({ vscode, client, ref, call, send, log });
    const sub = panel.webview.onDidReceiveMessage((m) => (m && m.app ? bridge(m.app) : undefined));
    panel.onDidDispose(() => {
      sub.dispose();
      const i = panels.indexOf(panel);
      if (i >= 0) panels.splice(i, 1);
    });
    panel.webview.html = appPage(app, title);
    panels.push(panel);
    return panel;
  }
  function onEvent(ev) {
    if (!ev || typeof ev !== 'object') return undefined;
    if (ev.type === 'tool_call' && ev.toolCallId) inputs.set(ev.toolCallId, ev.arguments);
    if (ev.type !== 'tool_result') return undefined;
    const input = inputs.get(ev.toolCallId);
    inputs.delete(ev.toolCallId);
    if (!(ev.ui && typeof ev.ui.server === 'string' && typeof ev.ui.resourceUri === 'string' && ev.ui.resourceUri.startsWith('ui://'))) {
      return undefined;
    }
    return open(ev, input);
  }
  return { onEvent, panels };
}

module.exports = { APP_PROTOCOL, appPolicy, appDocument, appPage, appBridge, appPanels };

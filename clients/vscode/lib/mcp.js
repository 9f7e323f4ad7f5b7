'use strict';
// The MCP servers quick pick: one row per configured server (agent/mcp/servers),
// then what can be done to it: trust (the server shows its launch card as an
// approval), log in to a remote server (agentls.mcp.login: its OAuth page
// opens in the browser), revoke, restart, list its tools with the policy
// each call gets, run one of its prompts (its arguments asked one input box
// each).

const STATE_ICON = {
  connected: '$(pass-filled)',
  connecting: '$(sync~spin)',
  failed: '$(error)',
  needs_approval: '$(shield)',
  approval_stale: '$(warning)',
  disabled: '$(circle-slash)',
  stopped: '$(debug-stop)',
};

/** shellQuote renders argv so it could be pasted into a shell: what you see is what runs. */
function shellQuote(argv) {
  return (argv || [])
    .map((a) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(a) ? a : `'${String(a).replace(/'/g, `'\\''`)}'`))
    .join(' ');
}

/** serverItems turns agent/mcp/servers rows into quick pick items. */
function serverItems(servers) {
  return servers.map((s) => {
    const tools = Array.isArray(s.tools) ? s.tools.length : 0;
    const why = s.error ? ` · ${s.error}` : '';
    return {
      label: `${STATE_ICON[s.state] || '$(question)'} ${s.name}`,
      // While connected: its tools and the MCP revision it answered with.
      description: `${s.origin} · ${s.state}${s.state === 'connected' ? ` · ${tools} tools` : ''}${s.revision ? ` · MCP ${s.revision}` : ''}${why}`,
      detail: shellQuote(s.command),
      server: s,
    };
  });
}

/** actionsFor lists what the user may do to one server, in the order shown. */
function actionsFor(s) {
  const actions = [];
  if (s.state === 'needs_approval' || s.state === 'approval_stale') {
    actions.push({ label: '$(shield) Trust and start…', description: 'shows the exact command line first', action: 'trust' });
  }
  if (s.url && !['needs_approval', 'approval_stale', 'disabled'].includes(s.state)) {
    actions.push({ label: '$(key) Log in…', description: 'opens its authorization page in your browser', action: 'login' });
  }
  if (s.origin === 'workspace' && s.state !== 'needs_approval') {
    actions.push({ label: '$(circle-slash) Revoke trust', description: 'it will ask again before its next start', action: 'revoke' });
  }
  if (['connected', 'failed', 'stopped'].includes(s.state)) {
    actions.push({ label: '$(debug-restart) Restart', action: 'restart' });
  }
  if (Array.isArray(s.tools) && s.tools.length > 0) {
    actions.push({ label: '$(tools) Show tools and policies', action: 'tools' });
  }
  if (s.state === 'connected' && Array.isArray(s.prompts) && s.prompts.length > 0) {
    actions.push({ label: '$(comment-discussion) Run a prompt…', description: `${s.prompts.length} prompts`, action: 'prompt' });
  }
  return actions;
}

/**
 * plain is a server's text as a quick pick may show it: no control or
 * format characters (escapes, bidi overrides), and no "$(icon)" syntax, so
 * a server cannot draw agentls's own icons.
 */
function plain(text) {
  return String(text || '').replace(/[\p{Cc}\p{Cf}]/gu, ' ').replace(/\$\(/g, '$\u2060(');
}

/** promptItems turns a server's prompts into quick pick items. */
function promptItems(s) {
  return (s.prompts || []).map((p) => {
    const args = (p.arguments || []).map((a) => (a.required ? a.name : `[${a.name}]`)).join(' ');
    return {
      label: plain(p.title || p.name),
      description: plain(p.title ? `${p.name} ${args}` : args).trim(),
      detail: plain(p.description),
      prompt: p,
    };
  });
}

/**
 * askArguments asks each argument of a prompt in an input box: a required
 * one must not be empty, an optional one left empty is left out. null when
 * the user dismissed a box.
 */
async function askArguments(vscode, p) {
  const values = {};
  for (const a of p.arguments || []) {
    const v = await vscode.window.showInputBox({
      title: `agentls: ${plain(p.name)}: ${plain(a.name)}${a.required ? '' : ' (optional)'}`,
      prompt: plain(a.description) || undefined,
      placeHolder: a.required ? `${plain(a.name)} (required)` : 'Enter to leave it out',
      ignoreFocusOut: true,
      validateInput: a.required ? (text) => (String(text || '').trim() ? null : `${plain(a.name)} is required`) : undefined,
    });
    if (v === undefined) return null;
    if (a.required && !String(v).trim()) return null;
    if (String(v) !== '') values[a.name] = v;
  }
  return values;
}

/** runPrompt picks a prompt of server s, asks its arguments and runs it (agentls.prompt). */
async function runPrompt(vscode, client, s) {
  const picked = await vscode.window.showQuickPick(promptItems(s), { title: `agentls: prompts of ${s.name}`, matchOnDescription: true, matchOnDetail: true });
  if (!picked) return;
  const p = picked.prompt;
  const args = await askArguments(vscode, p);
  if (args === null) return;
  const { taskId } = await client.sendRequest('workspace/executeCommand', {
    command: 'agentls.prompt', arguments: [{ server: s.name, prompt: p.name, arguments: args }],
  });
  vscode.window.showInformationMessage(`agentls: running the prompt ${plain(p.name)} of ${s.name} (task ${taskId})`);
}

/** toolReport is the text written for "Show tools": each tool with the policy its calls get. */
function toolReport(s) {
  const lines = [`${s.name} (${s.origin}, ${s.state}): ${shellQuote(s.command)}`];
  for (const t of s.tools || []) {
    lines.push(`  ${t.policy.padEnd(5)} ${t.name}${t.description ? ` - ${t.description.split('\n')[0]}` : ''}`);
  }
  return lines.join('\n') + '\n';
}

/** mcpServers runs the whole quick pick through the injected vscode module and LSP client. */
async function mcpServers(vscode, client, out) {
  const { servers } = await client.sendRequest('agent/mcp/servers', {});
  if (!servers || servers.length === 0) {
    vscode.window.showInformationMessage(
      'agentls: no MCP servers configured. Add [mcp.servers.NAME] to ~/.config/agentls/config.toml.');
    return;
  }
  const items = serverItems(servers);
  items.push({ label: '$(circle-slash) Revoke all trust', description: 'every workspace server asks again', revokeAll: true });
  const picked = await vscode.window.showQuickPick(items, { title: 'agentls: MCP servers', matchOnDescription: true, matchOnDetail: true });
  if (!picked) return;
  if (picked.revokeAll) {
    const sure = await vscode.window.showWarningMessage('Revoke trust in every MCP server?', { modal: true, detail: 'Running servers keep running until they restart; after that each asks again.' }, 'Revoke all');
    if (sure !== 'Revoke all') return;
    const { revoked } = await client.sendRequest('agent/mcp/revoke', { all: true });
    vscode.window.showInformationMessage(`agentls: revoked ${revoked.length ? revoked.join(', ') : 'nothing (no server was trusted)'}`);
    return;
  }
  const s = picked.server;
  const actions = actionsFor(s);
  if (actions.length === 0) {
    vscode.window.showInformationMessage(`agentls: ${s.name} is ${s.state}${s.error ? `: ${s.error}` : ''}`);
    return;
  }
  const action = await vscode.window.showQuickPick(actions, { title: `agentls: ${s.name}` });
  if (!action) return;
  switch (action.action) {
    case 'trust': {
      // The server asks through agent/requestApproval with the launch card: that modal is the consent.
      const { state } = await client.sendRequest('agent/mcp/trust', { server: s.name });
      vscode.window.showInformationMessage(`agentls: ${s.name} is ${state}`);
      return;
    }
    case 'login': {
      // agentls answers at once and sends the user to the page (window/showDocument);
      // a message says how the login ended.
      await client.sendRequest('workspace/executeCommand', { command: 'agentls.mcp.login', arguments: [s.name] });
      vscode.window.showInformationMessage(`agentls: logging in to ${s.name} in your browser…`);
      return;
    }
    case 'revoke': {
      const { revoked } = await client.sendRequest('agent/mcp/revoke', { server: s.name });
      vscode.window.showInformationMessage(revoked.length ? `agentls: revoked ${revoked.join(', ')}` : `agentls: ${s.name} was not trusted`);
      return;
    }
    case 'restart': {
      const { state } = await client.sendRequest('agent/mcp/restart', { server: s.name });
      vscode.window.showInformationMessage(`agentls: ${s.name} is ${state}`);
      return;
    }
    case 'tools':
      out.append(toolReport(s));
      out.show(true);
      return;
    case 'prompt':
      await runPrompt(vscode, client, s);
      return;
    default:
      return;
  }
}

module.exports = { mcpServers, serverItems, actionsFor, toolReport, shellQuote, promptItems, askArguments, plain };

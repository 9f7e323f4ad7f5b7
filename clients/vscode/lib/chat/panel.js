'use strict';
// The chat view on the extension host: a webview view (id agentls.chat)
// whose page is the webview script of this folder under a strict
// Content-Security-Policy (scripts by nonce only, styles and fonts from the
// extension, nothing remote, no inline anything). It speaks the existing
// wire (docs/protocol.md): agent/newChat gives the conversation its
// session, agent/run sends each turn with the context the mentions
// attach, agent/event of that session streams in, agent/cancel stops it,
// agent/sessions and agent/replay list and reopen past sessions,
// agent/compact, agent/mcp/servers and agentls.prompt serve the slash
// commands, agent/status names the model and mode. An approval of a turn
// the chat started is a card in the conversation (a write also opens the
// diff editor of review.js; either answers it); every other approval keeps
// the modal of approvals.js.

const crypto = require('crypto');
const input = require('./input');
const { reviewable } = require('../review');
const { CANCELLED } = require('../approvals');

const VIEW_ID = 'agentls.chat';
const SCRIPTS = ['markdown.js', 'conversation.js', 'webview.js'];
/** COMMANDS are the palette commands the chat registers (package.json). */
const CHAT_COMMANDS = Object.freeze({ open: 'agentls.openChat', reopen: 'agentls.reopenSession' });

/**
 * page is the chat's HTML: only the extension's own markup. csp is
 * webview.cspSource, uri(name) a file of this folder as the webview loads
 * it, nonce the page's script nonce.
 */
function page({ csp, uri, nonce }) {
  const policy = [
    "default-src 'none'",
    `style-src ${csp}`,
    `font-src ${csp}`,
    `img-src ${csp}`,
    `script-src 'nonce-${nonce}'`,
    "connect-src 'none'",
    "frame-src 'none'",
    "form-action 'none'",
    "base-uri 'none'",
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${policy}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="${uri('chat.css')}">
<title>agentls chat</title>
</head>
<body>
<div id="header">
  <span id="model"></span><span id="mode"></span><span id="meter" title="tokens in the model's window after the last answer, of the window; cache: share of the input read from the provider's prompt cache"></span><span id="busy"></span>
  <span class="actions"><button id="sessions" type="button" title="Past sessions (/sessions)">Sessions</button><button id="new" type="button" title="New conversation (/new)">New</button></span>
</div>
<div id="log" role="log" aria-live="polite"></div>
<div id="composer">
  <div id="suggest"></div>
  <textarea id="input" rows="3" aria-label="Message agentls" placeholder="Ask agentls. @selection, @file, @file:PATH and #diagnostics attach context; / for commands. Enter sends, Shift+Enter for a new line."></textarea>
  <div class="row"><button id="send" type="button">Send</button><button id="cancel" type="button" disabled>Cancel</button></div>
</div>
${SCRIPTS.map((s) => `<script nonce="${nonce}" src="${uri(s)}"></script>`).join('\n')}
</body>
</html>`;
}

function lspRange(r) {
  return { start: { line: r.start.line, character: r.start.character }, end: { line: r.end.line, character: r.end.character } };
}

/** lspDiagnostic is a vscode.Diagnostic as LSP sends it (severity 1 is Error). */
function lspDiagnostic(d) {
  const code = d.code && typeof d.code === 'object' ? d.code.value : d.code;
  const out = { range: lspRange(d.range), severity: (d.severity | 0) + 1, message: String(d.message) };
  if (d.source) out.source = String(d.source);
  if (code !== undefined) out.code = code;
  return out;
}

/**
 * chatPanel makes the chat: {provider (a WebviewViewProvider), onEvent,
 * owns, ask, subscribe, send, disposables}. ui.state.sessionId is the
 * conversation's session, shared with the palette commands and the
 * native chat participant; reviews is review.js's diffReviews.
 */
function chatPanel(vscode, client, ui, { reviews, extensionUri, log = () => {} } = {}) {
  let view; // the resolved WebviewView
  let history = []; // what was posted since the last reset, for a view drawn again
  let turn = null; // {taskId} while a turn of the chat runs
  const chatTasks = new Set();
  const cards = new Map(); // approvalId -> {finish(result, how), options: the optionIds it offers}
  const listeners = new Set(); // (event) => void, for the participant

  const post = (msg) => {
    if (msg.type === 'reset' || msg.type === 'replay') history = [];
    history.push(msg);
    if (view) view.webview.postMessage(msg);
  };
  const notice = (text, tone = 'info') => post({ type: 'notice', text, tone });

  async function ensureSession() {
    if (!ui.state.sessionId) {
      const { sessionId } = await client.sendRequest('agent/newChat', {});
      ui.state.sessionId = sessionId;
    }
    return ui.state.sessionId;
  }

  function onEvent(ev) {
    if (!ev || ev.sessionId !== ui.state.sessionId || !ui.state.sessionId) return;
    if (turn && typeof ev.taskId === 'string') {
      if (!turn.taskId) turn.taskId = ev.taskId;
      if (turn.taskId === ev.taskId) chatTasks.add(ev.taskId);
    }
    post({ type: 'event', event: ev, at: Date.now() });
    if (ev.type === 'done' && turn && turn.taskId === ev.taskId) {
      turn = null;
      refreshCommands();
    }
    if (ev.type === 'done') refreshStatus().catch(() => {}); // the session's model, as it is now
    for (const l of listeners) l(ev);
  }

  /** owns tells whether an approval's task is a turn the chat started (and so is answered by a card). */
  async function owns(approval) {
    if (!view || !approval || approval.kind === 'elicitation' || approval.kind === 'mcp_launch') return false;
    if (chatTasks.has(approval.taskId)) return true;
    if (!turn || !approval.taskId) return false;
    const { tasks } = await client.sendRequest('agent/tasks', {});
    const t = (tasks || []).find((x) => x.taskId === approval.taskId);
    if (t && t.sessionId === ui.state.sessionId && (!turn.taskId || turn.taskId === t.taskId)) {
      turn.taskId = t.taskId;
      chatTasks.add(t.taskId);
      return true;
    }
    return false;
  }

  /** ask shows an approval as a card and resolves to the agent/requestApproval result; a write is also reviewed in the diff editor. */
  function ask(approval, token) {
    const id = String(approval.approvalId);
    post({ type: 'approval', approval });
    if (view && view.show) view.show(true);
    return new Promise((resolve) => {
      let done = false;
      const finish = (result, how) => {
        if (done) return;
        done = true;
        cards.delete(id);
        const r = reviews && reviews.pending.get(id);
        if (r) r.finish(null, `answered ${how}`);
        post({ type: 'approvalSettled', approvalId: id, optionId: result.outcome === 'selected' ? result.optionId : '', how });
        log(`approval ${id}: ${result.outcome === 'selected' ? result.optionId : 'denied'} (${how})`);
        resolve(result);
      };
      cards.set(id, { finish, options: approval.options.map((o) => o.optionId) });
      if (token && token.onCancellationRequested) token.onCancellationRequested(() => finish(CANCELLED, 'the server withdrew it'));
      if (token && token.isCancellationRequested) finish(CANCELLED, 'the server withdrew it');
      if (reviews && reviewable(approval)) {
        reviews.review(approval, token, log).then((res) => {
          if (!res) return; // the diff editor did not open: the card alone answers
          const o = approval.options.find((x) => x.optionId === res.optionId);
          finish(res, res.outcome === 'selected' ? `${o ? o.name : res.optionId} in the diff editor` : 'in the diff editor: closed');
        }, () => {});
      }
    });
  }

  /** answer settles a card with the option the page says was clicked: only one the card offers. */
  function answer({ approvalId, optionId }) {
    const card = cards.get(String(approvalId));
    if (!card) return;
    if (!card.options.includes(optionId)) {
      log(`approval ${approvalId}: the chat answered ${JSON.stringify(optionId)}, which the card does not offer; ignored`);
      return;
    }
    card.finish({ outcome: 'selected', optionId }, 'in the chat');
  }

  /** context resolves the mentions to agent/run params and the labels the chat shows. */
  function context(mentions) {
    const editor = vscode.window.activeTextEditor || (vscode.window.visibleTextEditors || [])[0];
    const params = {};
    const attachments = [];
    const name = (uri) => (vscode.workspace.asRelativePath ? vscode.workspace.asRelativePath(uri, false) : uri.path.split('/').pop());
    const need = mentions.selection || mentions.file || mentions.diagnostics;
    if (need && !editor) return { error: 'no editor is open: @selection, @file and #diagnostics attach the active editor\'s' };
    if (mentions.selection) {
      const sel = editor.selection;
      if (sel.isEmpty) return { error: `@selection: nothing is selected in ${name(editor.document.uri)}` };
      params.textDocument = { uri: editor.document.uri.toString() };
      params.range = lspRange(sel);
      attachments.push(`selection ${name(editor.document.uri)}:${sel.start.line + 1}-${sel.end.line + 1}`);
    } else if (mentions.file) {
      params.textDocument = { uri: editor.document.uri.toString() };
      const lastLine = Math.max(0, editor.document.lineCount - 1);
      params.range = { start: { line: 0, character: 0 }, end: { line: lastLine, character: editor.document.lineAt(lastLine).text.length } };
      attachments.push(`file ${name(editor.document.uri)}`);
    }
    if (mentions.diagnostics) {
      const diags = vscode.languages.getDiagnostics(editor.document.uri).map(lspDiagnostic);
      params.textDocument = { uri: editor.document.uri.toString() };
      params.diagnostics = diags;
      attachments.push(`diagnostics ${name(editor.document.uri)} (${diags.length})`);
    }
    for (const f of mentions.files) attachments.push(`file:${f}`);
    return { params, attachments };
  }

  async function runTurn(text, mentions) {
    const ctx = context(mentions);
    if (ctx.error) {
      notice(`agentls: ${ctx.error}`, 'error');
      return;
    }
    let prompt = text;
    if (mentions.files.length) {
      prompt += `\n\nFiles the user mentions (read them with your tools): ${mentions.files.join(', ')}`;
    }
    const sessionId = await ensureSession();
    post({ type: 'user', text, attachments: ctx.attachments });
    turn = { taskId: '' };
    try {
      const result = await client.sendRequest('agent/run', { prompt, sessionId, ...ctx.params });
      if (result && result.sessionId) ui.state.sessionId = result.sessionId;
      if (ui.view && ui.view.tracker.forget(result.taskId)) ui.view.refresh();
    } catch (err) {
      notice(`agentls: ${err && err.message ? err.message : err}`, 'error');
    } finally {
      turn = null;
      post({ type: 'busy', busy: false });
    }
  }

  async function runPrompt(cmd, rest, text) {
    const { servers } = await client.sendRequest('agent/mcp/servers', {});
    const found = input.promptCommands(servers).find((c) => c.name === cmd);
    if (!found) {
      notice(`agentls: /${cmd} is not a prompt of a connected MCP server (/mcp lists them)`, 'error');
      return;
    }
    const parsed = input.promptArguments(found.prompt, rest);
    if (parsed.error) {
      notice(`agentls: ${parsed.error}`, 'error');
      return;
    }
    const sessionId = await ensureSession();
    post({ type: 'user', text, attachments: [`prompt ${found.server} · ${found.prompt.name}`] });
    turn = { taskId: '' };
    try {
      const { taskId } = await client.sendRequest('workspace/executeCommand', {
        command: 'agentls.prompt', arguments: [{ server: found.server, prompt: found.prompt.name, arguments: parsed.args, sessionId }],
      });
      if (turn) turn.taskId = taskId;
      chatTasks.add(taskId);
      post({ type: 'busy', busy: true, taskId });
    } catch (err) {
      turn = null;
      notice(`agentls: ${err && err.message ? err.message : err}`, 'error');
      post({ type: 'busy', busy: false });
    }
  }

  // A mode set from the palette (or a plan accepted in a card) shows here too.
  if (ui.view && ui.view.tracker) ui.view.tracker.onModeChange(() => { refreshStatus().catch(() => {}); });

  const COMMANDS = {
    async new() {
      const params = ui.state.sessionId ? { sessionId: ui.state.sessionId } : {};
      const { sessionId } = await client.sendRequest('agent/newChat', params);
      ui.state.sessionId = sessionId;
      chatTasks.clear();
      post({ type: 'reset', sessionId });
      notice('New conversation.');
    },
    async compact() {
      if (!ui.state.sessionId) {
        notice('Nothing to compact yet: send a message first.');
        return;
      }
      const res = await client.sendRequest('agent/compact', { sessionId: ui.state.sessionId });
      notice(`Compacted: about ${res.tokensBefore} → ${res.tokensAfter} tokens are sent next (the session file keeps everything).`);
    },
    async mcp() {
      const { servers } = await client.sendRequest('agent/mcp/servers', {});
      if (!servers || servers.length === 0) {
        notice('No MCP servers are configured: add [mcp.servers.NAME] to ~/.config/agentls/config.toml.');
        return;
      }
      for (const s of servers) {
        const prompts = (s.prompts || []).length;
        notice(`MCP ${s.name} (${s.origin}): ${s.state} · ${(s.tools || []).length} tools${prompts ? ` · ${prompts} prompts` : ''}${s.error ? ` · ${s.error}` : ''}`);
      }
      notice('agentls: MCP servers (the palette) trusts, revokes and restarts them.');
    },
    async sessions() {
      const { sessions } = await client.sendRequest('agent/sessions', {});
      post({ type: 'sessions', sessions: sessions || [] });
    },
    // /rewind is the palette's agentls: Rewind to before a turn (its quick
    // pick of the turns, its modal for files changed outside agentls).
    async rewind() {
      const res = await vscode.commands.executeCommand('agentls.rewindSession');
      if (!res) return;
      if ((res.changed || []).length > 0 && (res.restored || []).length === 0) {
        notice('Kept the files changed outside agentls: nothing was rewound.');
        return;
      }
      notice(`${res.message[0].toUpperCase()}${res.message.slice(1)}. What you send next continues from before turn ${res.turn} (the conversation above still shows the later turns; the session file keeps them).`);
    },
  };

  async function send(text) {
    const parsed = input.parse(text);
    if (parsed.command) {
      if (turn) {
        notice('agentls: a turn is running: cancel it first.', 'error');
        return;
      }
      if (COMMANDS[parsed.command]) return COMMANDS[parsed.command](parsed.rest);
      return runPrompt(parsed.command, parsed.rest, text);
    }
    if (turn) {
      notice('agentls: a turn is running: wait for it or cancel it.', 'error');
      return;
    }
    return runTurn(parsed.prompt, parsed.mentions);
  }

  async function openSession(sessionId) {
    const res = await client.sendRequest('agent/replay', { sessionId });
    ui.state.sessionId = res.sessionId;
    chatTasks.clear();
    post({ type: 'replay', sessionId: res.sessionId, events: res.events || [] });
    notice('Reopened this session: what you send next continues it.');
  }

  // The status of the chat's session (of the sessions to come before its
  // first turn): the mode set from the palette is that session's.
  async function refreshStatus() {
    const params = { sessionId: ui.state.sessionId || undefined };
    const st = await client.sendRequest('agent/status', params);
    post({ type: 'status', model: st.model, mode: st.mode });
  }

  async function refreshCommands() {
    let prompts = [];
    try {
      const { servers } = await client.sendRequest('agent/mcp/servers', {});
      prompts = input.promptCommands(servers);
    } catch {
      // the list of builtins still helps
    }
    const commands = [...input.BUILTIN, ...prompts.map((p) => ({ name: p.name, description: p.description }))];
    if (view) view.webview.postMessage({ type: 'commands', commands });
  }

  const guard = (fn) => async (...args) => {
    try {
      return await fn(...args);
    } catch (err) {
      notice(`agentls: ${err && err.message ? err.message : err}`, 'error');
      return undefined;
    }
  };

  const onMessage = guard(async (msg) => {
    if (!msg || typeof msg !== 'object') return;
    switch (msg.type) {
      case 'ready':
        for (const m of history) view.webview.postMessage(m);
        await Promise.all([refreshStatus(), refreshCommands()]);
        return;
      case 'send':
        if (typeof msg.text === 'string') await send(msg.text);
        return;
      case 'cancel':
        if (ui.state.sessionId) await client.sendRequest('agent/cancel', { sessionId: ui.state.sessionId });
        return;
      case 'answer':
        answer(msg);
        return;
      case 'openSession':
        if (typeof msg.sessionId === 'string') await openSession(msg.sessionId);
        return;
      case 'copy':
        if (typeof msg.text === 'string') await vscode.env.clipboard.writeText(msg.text);
        return;
      default:
        return;
    }
  });

  const provider = {
    resolveWebviewView(webviewView) {
      view = webviewView;
      const root = vscode.Uri.joinPath(extensionUri, 'lib', 'chat');
      const webview = webviewView.webview;
      webview.options = { enableScripts: true, enableCommandUris: false, localResourceRoots: [root] };
      const nonce = crypto.randomBytes(18).toString('base64').replace(/[^A-Za-z0-9]/g, '');
      webview.html = page({ csp: webview.cspSource, nonce, uri: (f) => webview.asWebviewUri(vscode.Uri.joinPath(root, f)).toString() });
      webview.onDidReceiveMessage(onMessage);
      webviewView.onDidDispose(() => { if (view === webviewView) view = undefined; });
    },
  };

  const disposables = [
    vscode.window.registerWebviewViewProvider(VIEW_ID, provider, { webviewOptions: { retainContextWhenHidden: true } }),
    vscode.commands.registerCommand(CHAT_COMMANDS.open, () => vscode.commands.executeCommand(`${VIEW_ID}.focus`)),
    vscode.commands.registerCommand(CHAT_COMMANDS.reopen, guard(async (sessionId) => {
      await vscode.commands.executeCommand(`${VIEW_ID}.focus`);
      if (typeof sessionId === 'string') await openSession(sessionId);
    })),
    { dispose: () => { for (const c of [...cards.values()]) c.finish(CANCELLED, 'the extension stopped'); } },
  ];

  /** subscribe calls fn with every event of the chat's session until the returned function is called. */
  const subscribe = (fn) => {
    listeners.add(fn);
    return () => listeners.delete(fn);
  };

  return { provider, onEvent, owns, ask, answer, send, openSession, subscribe, post, ensureSession, refreshStatus, sessionId: () => ui.state.sessionId, disposables, VIEW_ID };
}

module.exports = { chatPanel, page, lspDiagnostic, VIEW_ID, SCRIPTS, CHAT_COMMANDS };

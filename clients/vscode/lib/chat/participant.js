'use strict';
// @agentls in VS Code's own chat, where the host has the chat API
// (vscode.chat.createChatParticipant; code-server and VSCodium builds
// without a chat view have none, and then nothing is registered). It talks
// on the chat view's session (panel.js): a turn here is a turn there, and
// the view shows it too. The answer streams as Markdown parts, each tool
// call as a progress part then a line with its status, time and result,
// and each file an edit touched as an anchor; approvals keep the
// extension's modal and diff editor. /new, /compact, /sessions and /mcp
// are its commands (package.json chatParticipants).

const PARTICIPANT_ID = 'agentls.agent';
const EDIT_TOOLS = new Set(['write_file', 'edit_file']);
const PREVIEW = 600;

/** fence returns text in a Markdown code fence longer than any run of backticks in it. */
function fence(text, lang = '') {
  const runs = String(text).match(/`+/g) || [];
  const n = Math.max(3, ...runs.map((r) => r.length + 1));
  return `\n${'`'.repeat(n)}${lang}\n${text}\n${'`'.repeat(n)}\n`;
}

/** code is a name as inline code, with nothing in it that could end the span. */
const code = (s) => `\`${String(s).replace(/[`\n\r]/g, '')}\``;

const MARK = { completed: '✓', failed: '✕', denied: '⊘', cancelled: '■' };

/**
 * toParts turns the chat session's events into calls on a ChatResponseStream.
 * Returns the event handler; files(uri) maps a tool's path argument to a Uri.
 */
function toParts(stream, fileUri) {
  const calls = new Map(); // toolCallId -> {tool, title, args, startedAt}
  let reasoning = false;
  return (ev, at = Date.now()) => {
    switch (ev.type) {
      case 'text':
        reasoning = false;
        if (ev.delta) stream.markdown(ev.delta);
        return;
      case 'reasoning':
        if (!reasoning) stream.progress('Reasoning…');
        reasoning = true;
        return;
      case 'tool_call': {
        reasoning = false;
        let c = calls.get(ev.toolCallId);
        if (!c) {
          c = { tool: ev.tool, title: ev.title || ev.tool, args: ev.arguments, startedAt: at };
          calls.set(ev.toolCallId, c);
          stream.progress(`${c.title}${ev.server ? ` (${ev.server})` : ''}`);
        }
        if (ev.status === 'awaiting_approval') stream.progress(`Waiting for your approval: ${c.title}`);
        return;
      }
      case 'tool_result': {
        const c = calls.get(ev.toolCallId);
        if (!c) return;
        const secs = ((at - c.startedAt) / 1000).toFixed(1);
        const out = String(ev.output || '');
        stream.markdown(`\n\n${MARK[ev.status] || '•'} ${code(c.title)} ${ev.status} (${secs} s)\n`);
        if (out) stream.markdown(fence(out.length > PREVIEW ? `${out.slice(0, PREVIEW)}…` : out));
        const path = c.args && typeof c.args === 'object' ? c.args.path : undefined;
        if (EDIT_TOOLS.has(c.tool) && ev.status === 'completed' && typeof path === 'string') {
          const uri = fileUri(path);
          if (uri) {
            stream.markdown('Edited: ');
            stream.anchor(uri, path);
            stream.markdown('\n');
          }
        }
        return;
      }
      case 'status':
        if (ev.message) stream.markdown(`\n\n_${String(ev.message).replace(/[_*`[\]<>]/g, '\\$&')}_\n`);
        return;
      default:
        return;
    }
  };
}

/**
 * registerParticipant registers @agentls when vscode.chat.createChatParticipant
 * exists; returns its disposables ([] without the API).
 */
function registerParticipant(vscode, client, chat, extensionUri) {
  // 'in' first: a host without the API may not even have the namespace.
  if (!('chat' in vscode) || !vscode.chat || typeof vscode.chat.createChatParticipant !== 'function') return [];
  const fileUri = (p) => {
    if (p.startsWith('/')) return vscode.Uri.file(p);
    const folder = (vscode.workspace.workspaceFolders || [])[0];
    return folder ? vscode.Uri.joinPath(folder.uri, p) : undefined;
  };

  async function handler(request, _context, stream, token) {
    const sessionId = await chat.ensureSession();
    switch (request.command) {
      case 'new':
      case 'compact':
      case 'mcp':
        await chat.send(`/${request.command}`);
        stream.markdown(`Done: /${request.command} (the agentls chat view shows the result).`);
        return { metadata: { sessionId: chat.sessionId() } };
      case 'sessions': {
        const { sessions } = await client.sendRequest('agent/sessions', {});
        if (!sessions || sessions.length === 0) stream.markdown('No past sessions yet.');
        for (const s of (sessions || []).slice(0, 10)) {
          stream.button({ command: 'agentls.reopenSession', arguments: [s.sessionId], title: `${s.title || s.sessionId} (${s.turns} turns)` });
        }
        return { metadata: { sessionId } };
      }
      default:
        break;
    }
    chat.post({ type: 'user', text: request.prompt, attachments: ['from @agentls'] });
    const unsubscribe = chat.subscribe(toParts(stream, fileUri));
    const cancel = token.onCancellationRequested(() => {
      client.sendRequest('agent/cancel', { sessionId }).catch(() => {});
    });
    let result;
    try {
      result = await client.sendRequest('agent/run', { prompt: request.prompt, sessionId });
    } finally {
      unsubscribe();
      cancel.dispose();
      chat.post({ type: 'busy', busy: false });
    }
    if (result.stopReason === 'error') return { errorDetails: { message: result.error || 'the turn failed' }, metadata: { sessionId } };
    if (result.stopReason !== 'end_turn') stream.markdown(`\n\n_Stopped: ${result.stopReason}${result.error ? `: ${result.error}` : ''}_`);
    return { metadata: { sessionId, taskId: result.taskId } };
  }

  const participant = vscode.chat.createChatParticipant(PARTICIPANT_ID, handler);
  participant.iconPath = vscode.Uri.joinPath(extensionUri, 'lib', 'chat', 'icon.svg');
  return [participant];
}

module.exports = { registerParticipant, toParts, fence, PARTICIPANT_ID };

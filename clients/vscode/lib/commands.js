'use strict';
// The palette commands. Each takes the injected vscode module, the LSP client
// (anything with sendRequest: vscode-languageclient's LanguageClient, or a
// protocol connection in tests) and the shared ui {view, state}.

const { mcpServers } = require('./mcp');

const DIRECTIVE = /\bagent:\s*(.*\S)\s*$/;

/** directiveOf returns the prompt of an `agent:` directive on a line ("// agent: add tests"), or ''. */
function directiveOf(line) {
  const m = DIRECTIVE.exec(line || '');
  return m ? m[1].replace(/\s*(\*\/|-->)\s*$/, '') : '';
}

/** promptFrom picks the prompt: what was typed, else the selection, else the line's directive. */
function promptFrom(typed, selected, line) {
  return (typed || '').trim() || (selected || '').trim() || directiveOf(line);
}

function lspRange(sel) {
  return {
    start: { line: sel.start.line, character: sel.start.character },
    end: { line: sel.end.line, character: sel.end.character },
  };
}

/** runSelection asks for a prompt and runs one agent turn on the active editor's selection. */
async function runSelection(vscode, client, ui) {
  const editor = vscode.window.activeTextEditor;
  const selected = editor ? editor.document.getText(editor.selection) : '';
  const line = editor ? editor.document.lineAt(editor.selection.active.line).text : '';
  const directive = directiveOf(line);
  const typed = await vscode.window.showInputBox({
    title: 'agentls',
    prompt: 'What should the agent do?',
    value: directive,
    placeHolder: selected ? 'empty: the selection is the prompt' : 'e.g. add error handling to this function',
  });
  if (typed === undefined) return undefined; // Escape
  const prompt = promptFrom(typed, selected, line);
  if (!prompt) {
    vscode.window.showErrorMessage('agentls: nothing to run: type a prompt, select text, or put an "agent:" directive on the line.');
    return undefined;
  }
  const params = { prompt };
  if (ui.state.sessionId) params.sessionId = ui.state.sessionId;
  if (editor) {
    params.textDocument = { uri: editor.document.uri.toString() };
    params.range = lspRange(editor.selection);
  }
  ui.view.channel.append(`\n> ${prompt}\n`);
  let result;
  try {
    result = await client.sendRequest('agent/run', params);
  } catch (err) {
    vscode.window.showErrorMessage(`agentls: ${err.message}`);
    return undefined;
  }
  ui.state.sessionId = result.sessionId;
  if (ui.view.tracker.forget(result.taskId)) ui.view.refresh();
  if (result.stopReason === 'error') {
    vscode.window.showErrorMessage(`agentls: the task failed: ${result.error || 'unknown error'}`);
  } else if (result.stopReason !== 'end_turn') {
    // max_tokens, refusal, max_iterations: the result's error says why.
    vscode.window.showWarningMessage(`agentls: the task stopped: ${result.stopReason}${result.error ? ` (${result.error})` : ''}`);
  }
  return result;
}

/** cancellable lists the tasks agent/tasks returned that a cancel can still stop: running or awaiting an approval. */
function cancellable(tasks) {
  return (tasks || []).filter((t) => t.state === 'running' || t.state === 'awaiting_approval');
}

/** cancelTask cancels the running task: the one the events show, else the one agent/tasks lists (asking when several). */
async function cancelTask(vscode, client, ui) {
  let taskId = ui.view.tracker.latest() && ui.view.tracker.latest().taskId;
  if (!taskId) {
    const { tasks } = await client.sendRequest('agent/tasks', {});
    const running = cancellable(tasks);
    if (running.length === 0) {
      vscode.window.showInformationMessage('agentls: no task is running.');
      return null;
    }
    if (running.length === 1) {
      taskId = running[0].taskId;
    } else {
      const picked = await vscode.window.showQuickPick(
        running.map((t) => ({ label: t.prompt.split('\n')[0], description: `${t.taskId} · ${t.state}`, taskId: t.taskId })),
        { title: 'agentls: cancel which task?' });
      if (!picked) return null;
      taskId = picked.taskId;
    }
  }
  await client.sendRequest('agent/cancel', { taskId });
  return taskId;
}

/** newChat starts an empty history; the next run continues it. */
async function newChat(vscode, client, ui) {
  const params = ui.state.sessionId ? { sessionId: ui.state.sessionId } : {};
  const { sessionId } = await client.sendRequest('agent/newChat', params);
  ui.state.sessionId = sessionId;
  vscode.window.showInformationMessage(`agentls: new chat ${sessionId}`);
  return sessionId;
}

/**
 * compactSession compacts the current session (agent/compact): old tool
 * results are elided and older turns summarized, so what is sent next fits
 * the model's window; the session file keeps everything.
 */
async function compactSession(vscode, client, ui) {
  let sessionId = ui.state.sessionId;
  if (!sessionId) {
    const { sessions } = await client.sendRequest('agent/sessions', {});
    if (!sessions || sessions.length === 0) {
      vscode.window.showInformationMessage('agentls: nothing to compact yet: run a task first.');
      return null;
    }
    const picked = await vscode.window.showQuickPick(
      sessions.map((s) => ({ label: s.title || s.sessionId, description: `${s.turns} turns · ${s.updatedAt}`, sessionId: s.sessionId })),
      { title: 'agentls: compact which session?' });
    if (!picked) return null;
    sessionId = picked.sessionId;
  }
  const res = await client.sendRequest('agent/compact', { sessionId });
  vscode.window.showInformationMessage(
    `agentls: compacted ${sessionId}: about ${res.tokensBefore} → ${res.tokensAfter} tokens sent next (the session file keeps everything)`);
  return res;
}

/** openTranscript asks the server to open a session's transcript (it sends window/showDocument). */
async function openTranscript(vscode, client, ui) {
  const { sessions } = await client.sendRequest('agent/sessions', {});
  if (!sessions || sessions.length === 0) {
    vscode.window.showInformationMessage('agentls: no transcript yet: run a task first.');
    return null;
  }
  let sessionId = ui.state.sessionId;
  if (!sessionId || !sessions.some((s) => s.sessionId === sessionId)) {
    const picked = await vscode.window.showQuickPick(
      sessions.map((s) => ({ label: s.title || s.sessionId, description: `${s.turns} turns · ${s.updatedAt}`, sessionId: s.sessionId })),
      { title: 'agentls: open which transcript?' });
    if (!picked) return null;
    sessionId = picked.sessionId;
  }
  await client.sendRequest('workspace/executeCommand', { command: 'agentls.transcript', arguments: [sessionId] });
  return sessionId;
}

/** MODES are agentls's modes, as the picker lists them. */
const MODES = [
  { label: 'plan', description: 'read-only: reads and plans, writes nothing; ends with a plan you may accept' },
  { label: 'ask', description: 'every change asks' },
  { label: 'auto-edit', description: 'file edits inside the workspace apply without a card' },
  { label: 'autopilot', description: 'read-only commands run confined without a card' },
];

/** setMode picks a mode and sets it for the current session (agent/setMode; the sessions to come when there is none). */
async function setMode(vscode, client, ui) {
  const now = ui.view.tracker.mode;
  const picked = await vscode.window.showQuickPick(MODES, { title: `agentls: mode (now ${now})` });
  if (!picked) return null;
  const res = await client.sendRequest('agent/setMode', { mode: picked.label, sessionId: ui.state.sessionId });
  if (ui.view.tracker.setMode(res.mode)) ui.view.refresh();
  vscode.window.showInformationMessage(`agentls: mode ${res.mode}`);
  return res;
}

/**
 * chooseModel picks one of the user config's model profiles (agent/status)
 * and switches the current session to it for its next turn (agent/setModel;
 * the sessions to come when there is none); the chat view's header follows.
 */
async function chooseModel(vscode, client, ui) {
  const st = await client.sendRequest('agent/status', { sessionId: ui.state.sessionId });
  const now = (st.model && st.model.profile) || 'default';
  const items = (st.profiles || []).filter((m) => !m.error).map((m) => ({
    label: m.profile, description: `${m.name} (${m.provider})`, detail: m.profile === now ? 'the current model' : undefined }));
  const picked = await vscode.window.showQuickPick(items, { title: `agentls: model for the next turn (now ${now})` });
  if (!picked) return null;
  const res = await client.sendRequest('agent/setModel', { profile: picked.label, sessionId: ui.state.sessionId });
  if (ui.chat && ui.chat.refreshStatus) await ui.chat.refreshStatus();
  vscode.window.showInformationMessage(`agentls: model ${res.model.profile} (${res.model.name}) from the next turn`);
  return res;
}

/** rules lists the saved "always allow" rules (agent/rules) and forgets the one picked (agent/rules/revoke). */
async function rules(vscode, client) {
  const res = await client.sendRequest('agent/rules', {});
  const list = (res && res.rules) || [];
  if (list.length === 0) {
    vscode.window.showInformationMessage('agentls: no saved rules in this workspace (a card\'s "Always allow" saves one).');
    return null;
  }
  const picked = await vscode.window.showQuickPick(
    list.map((r) => ({ label: r.id, description: r.workspace, detail: r.description, rule: r })),
    { title: 'agentls: saved rules (pick one to forget it)' });
  if (!picked) return null;
  const out = await client.sendRequest('agent/rules/revoke', { id: picked.rule.id, workspace: picked.rule.workspace });
  vscode.window.showInformationMessage(`agentls: forgot the rule ${picked.rule.id}`);
  return out;
}

/**
 * rewind goes back to before a turn of the current session: a quick pick of
 * its turns (agent/turns), then agent/rewind, whose files go back through
 * the editor's buffers (so undo keeps the agent's text); files changed
 * outside agentls since are named in a modal and kept unless "Overwrite
 * them" is chosen. The next prompt continues from before that turn.
 */
async function rewind(vscode, client, ui) {
  const sessionId = ui.state.sessionId;
  if (!sessionId) {
    vscode.window.showInformationMessage('agentls: nothing to rewind yet: run a task first.');
    return null;
  }
  const res = await client.sendRequest('agent/turns', { sessionId });
  const turns = (res && res.turns) || [];
  if (turns.length === 0) {
    vscode.window.showInformationMessage(`agentls: no turn to rewind in session ${sessionId}.`);
    return null;
  }
  const picked = await vscode.window.showQuickPick(
    turns.map((t) => ({ label: `${t.turn}. ${t.prompt}`, description: `${(t.files || []).length} file(s)`, detail: (t.files || []).join(', '), turn: t.turn })),
    { title: 'agentls: go back to before which turn?' });
  if (!picked) return null;
  let out = await client.sendRequest('agent/rewind', { sessionId, turn: picked.turn });
  const changed = out.changed || [];
  if (changed.length > 0 && (out.restored || []).length === 0) {
    const overwrite = { title: 'Overwrite them' };
    const choice = await vscode.window.showWarningMessage(
      `agentls: going back to before turn ${picked.turn} would overwrite ${changed.length} file(s) changed outside agentls since.`,
      { modal: true, detail: changed.join('\n') + '\n\nKeep them and nothing is restored.' }, overwrite);
    if (choice !== overwrite) {
      vscode.window.showInformationMessage('agentls: kept the changed files: nothing was rewound.');
      return out;
    }
    out = await client.sendRequest('agent/rewind', { sessionId, turn: picked.turn, force: true });
  }
  const not = (out.notRestored || []).map((f) => `${f.path} (${f.why})`);
  const msg = `agentls: ${out.message}${not.length ? `; not restored: ${not.join(', ')}` : ''}. What you ask next continues from before turn ${picked.turn}.`;
  if (not.length) vscode.window.showWarningMessage(msg);
  else vscode.window.showInformationMessage(msg);
  return out;
}

/** COMMANDS maps the palette command ids of package.json to their functions. */
const COMMANDS = {
  'agentls.runSelection': runSelection,
  'agentls.cancelTask': cancelTask,
  'agentls.mcpServers': (vscode, client, ui) => mcpServers(vscode, client, ui.view.channel),
  'agentls.startNewChat': newChat,
  'agentls.compactSession': compactSession,
  'agentls.openTranscript': openTranscript,
  'agentls.showEvents': (vscode, client, ui) => ui.view.channel.show(true),
  'agentls.chooseMode': setMode,
  'agentls.chooseModel': chooseModel,
  'agentls.showRules': rules,
  'agentls.rewindSession': rewind,
};

/** registerCommands registers COMMANDS; errors become error messages, never unhandled rejections. */
function registerCommands(vscode, client, ui) {
  return Object.entries(COMMANDS).map(([id, fn]) =>
    vscode.commands.registerCommand(id, async () => {
      try {
        return await fn(vscode, client, ui);
      } catch (err) {
        vscode.window.showErrorMessage(`agentls: ${err && err.message ? err.message : err}`);
        return undefined;
      }
    }));
}

module.exports = { registerCommands, COMMANDS, MODES, setMode, chooseModel, rules, rewind, runSelection, cancelTask, cancellable, newChat, compactSession, openTranscript, directiveOf, promptFrom };

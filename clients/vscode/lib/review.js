'use strict';
// Write approvals reviewed in a real diff editor: the current buffer on the
// left, the whole proposed file on the right (a read-only virtual document,
// scheme agentls-proposed), Accept and Reject in the editor title, and a
// notification with the same two buttons. Closing the diff without choosing,
// or the server withdrawing the approval, denies. Approvals of other kinds
// (commands, MCP calls, launch cards) keep the modal of approvals.js.

/** SCHEME is the URI scheme of proposed contents (and of an empty left side for a new file). */
const SCHEME = 'agentls-proposed';
const CONTEXT_KEY = 'agentls.reviewing';
const ACCEPT = 'agentls.acceptEdit';
const REJECT = 'agentls.rejectEdit';

/** reviewable tells whether an approval carries what a diff editor needs. */
function reviewable(approval) {
  const d = approval && approval.diff;
  return approval.kind === 'write' && !!d && typeof d.uri === 'string' && typeof d.newText === 'string' &&
    pick(approval.options, 'allow') !== undefined && pick(approval.options, 'reject') !== undefined;
}

/** pick returns the first option whose kind starts with prefix ("allow", "reject"). */
function pick(options, prefix) {
  return (options || []).find((o) => typeof o.kind === 'string' && o.kind.startsWith(prefix));
}

function baseName(p) {
  const i = p.lastIndexOf('/');
  return i >= 0 ? p.slice(i + 1) : p;
}

/**
 * diffReviews registers the content provider and the Accept / Reject
 * commands through the injected vscode module. Returns {review, pending,
 * disposables}: review(approval, token, log) resolves to the
 * agent/requestApproval result, or to null when the diff editor could not
 * be opened (the caller then asks with the modal).
 */
function diffReviews(vscode) {
  const pending = new Map(); // approvalId -> {approval, left, right, text, finish}
  const changed = new vscode.EventEmitter();
  const provider = {
    onDidChange: changed.event,
    provideTextDocumentContent(uri) {
      const r = pending.get(uri.query.replace(/^(empty-)/, ''));
      if (!r) return '';
      return uri.query.startsWith('empty-') ? '' : r.text;
    },
  };

  const setContext = () => vscode.commands.executeCommand('setContext', CONTEXT_KEY, pending.size > 0);

  /** target finds the review a command means: the diff it was run from, else the active one, else the only one. */
  const target = (uri) => {
    const fromUri = (u) => (u && u.scheme === SCHEME ? pending.get(String(u.query).replace(/^empty-/, '')) : undefined);
    let r = fromUri(uri);
    if (!r) {
      const editor = vscode.window.activeTextEditor;
      r = fromUri(editor && editor.document && editor.document.uri);
    }
    if (!r && pending.size === 1) r = pending.values().next().value;
    return r;
  };
  const answer = (choice) => async (uri) => {
    const r = target(uri);
    if (!r) {
      vscode.window.showInformationMessage('agentls: no edit is waiting for review.');
      return false;
    }
    r.finish(choice, choice === 'allow' ? 'accepted in the diff editor' : 'rejected in the diff editor');
    return true;
  };

  const closeTab = async (right) => {
    const want = right.toString();
    for (const group of vscode.window.tabGroups.all) {
      for (const tab of group.tabs) {
        const input = tab.input;
        if (input instanceof vscode.TabInputTextDiff && input.modified.toString() === want) {
          await vscode.window.tabGroups.close(tab, true);
        }
      }
    }
  };

  // Closing the diff without choosing denies, as a dismissed modal does.
  const tabs = vscode.window.tabGroups.onDidChangeTabs((e) => {
    for (const tab of e.closed || []) {
      const input = tab.input;
      if (!(input instanceof vscode.TabInputTextDiff)) continue;
      for (const r of pending.values()) {
        if (input.modified.toString() === r.right.toString()) r.finish('reject', 'the diff editor was closed; denied');
      }
    }
  });

  async function review(approval, token, log = () => {}) {
    const id = String(approval.approvalId);
    if (pending.has(id)) return null;
    const d = approval.diff;
    const file = vscode.Uri.parse(d.uri);
    const left = d.exists ? file : vscode.Uri.from({ scheme: SCHEME, path: file.path, query: `empty-${id}` });
    const right = vscode.Uri.from({ scheme: SCHEME, path: file.path, query: id });
    let settle;
    const done = new Promise((resolve) => { settle = resolve; });
    const r = { approval, left, right, text: d.newText, finish: undefined };
    let finished = false;
    const subs = [];
    r.finish = (choice, why) => {
      if (finished) return;
      finished = true;
      pending.delete(id);
      subs.forEach((s) => s.dispose());
      setContext();
      log(`approval ${id}: ${why}`);
      const option = choice && pick(approval.options, choice);
      settle(option ? { outcome: 'selected', optionId: option.optionId } : { outcome: 'cancelled' });
      closeTab(right).catch(() => {});
    };
    pending.set(id, r);
    setContext();
    if (token && token.onCancellationRequested) {
      subs.push(token.onCancellationRequested(() => r.finish(null, 'the server withdrew it; denied')));
    }
    const title = `${baseName(file.path)}: ${d.exists ? 'current' : 'new file'} ↔ proposed by agentls`;
    try {
      await vscode.commands.executeCommand('vscode.diff', left, right, title, { preview: false });
    } catch (err) {
      finished = true;
      pending.delete(id);
      subs.forEach((s) => s.dispose());
      setContext();
      log(`approval ${id}: the diff editor did not open (${err && err.message ? err.message : err}); asking with a dialog`);
      return null;
    }
    if (token && token.isCancellationRequested) r.finish(null, 'the server withdrew it; denied');
    // The notification is the fallback for a diff editor out of sight.
    Promise.resolve(vscode.window.showInformationMessage(
      `agentls: ${approval.title} Review the diff, then Accept or Reject.`, 'Accept', 'Reject'))
      .then((b) => {
        if (b === 'Accept') r.finish('allow', 'accepted from the notification');
        else if (b === 'Reject') r.finish('reject', 'rejected from the notification');
      }, () => {});
    return done;
  }

  const disposables = [
    vscode.workspace.registerTextDocumentContentProvider(SCHEME, provider),
    vscode.commands.registerCommand(ACCEPT, answer('allow')),
    vscode.commands.registerCommand(REJECT, answer('reject')),
    tabs,
    changed,
    { dispose: () => { for (const r of [...pending.values()]) r.finish(null, 'the extension stopped; denied'); } },
  ];
  return { review, pending, disposables };
}

module.exports = { diffReviews, reviewable, SCHEME, ACCEPT, REJECT, CONTEXT_KEY };

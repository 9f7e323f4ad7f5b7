'use strict';
// An MCP server's question (an agent/requestApproval of kind "elicitation",
// docs/protocol.md section 4). The modal shows the card as agentls wrote it
// (the server named, its words quoted and escaped) with one button per
// option; "Submit" then asks each field of the form in turn, a quick pick
// for a choice or yes/no, an input box for text and numbers, checked
// against the field. Escape at any step declines: nothing is sent. Every
// string of the server's goes through plain: a quick pick or input box
// would draw its "$(icon)" syntax, and show its control and bidi characters.

const { plain } = require('./mcp');

/** DECLINED is the answer when the user backs out of the form. */
const DECLINED = Object.freeze({ outcome: 'selected', optionId: 'decline' });

/** label names a field as its prompt shows it. */
function label(f) {
  return plain(f.title && f.title !== f.name ? `${f.title} (${f.name})` : f.name);
}

/** defaultOf is a field's default, decoded, or undefined. */
function defaultOf(f) {
  return f.default === undefined || f.default === null ? undefined : f.default;
}

/** check returns why text does not fit field f, or null; '' leaves an optional field out. */
function check(f, text) {
  if (text === '') return f.required && defaultOf(f) === undefined ? 'required' : null;
  if (f.type === 'number' || f.type === 'integer') {
    const n = Number(text);
    if (!Number.isFinite(n)) return 'a number';
    if (f.type === 'integer' && !Number.isInteger(n)) return 'a whole number';
    if ((typeof f.minimum === 'number' && n < f.minimum) || (typeof f.maximum === 'number' && n > f.maximum)) {
      return `between ${f.minimum ?? '…'} and ${f.maximum ?? '…'}`;
    }
    return null;
  }
  const len = [...text].length;
  if ((typeof f.minLength === 'number' && len < f.minLength) || (typeof f.maxLength === 'number' && len > f.maxLength)) {
    return `${f.minLength ?? 0} to ${f.maxLength ?? '…'} characters`;
  }
  return null;
}

/** ask asks one field; it resolves to {value} ({} leaves it out) or null when the user backed out. */
async function ask(vscode, server, f) {
  const title = `${plain(server)} asks: ${label(f)}`;
  const def = defaultOf(f);
  if (f.type === 'boolean' || (Array.isArray(f.choices) && f.choices.length > 0)) {
    const items = f.type === 'boolean'
      ? [{ label: 'Yes', value: true }, { label: 'No', value: false }]
      : f.choices.map((c) => ({ label: plain(c.title || c.value), description: c.title ? plain(c.value) : undefined, value: c.value }));
    if (f.type === 'array') {
      for (const it of items) it.picked = Array.isArray(def) && def.includes(it.value);
    } else if (!f.required || def !== undefined) {
      items.push({ label: def === undefined ? '(leave out)' : plain(`(the default: ${JSON.stringify(def)})`), value: undefined, skip: true });
    }
    const picked = await vscode.window.showQuickPick(items, {
      title, placeHolder: plain(f.description) || label(f), ignoreFocusOut: true, canPickMany: f.type === 'array',
    });
    if (picked === undefined) return null;
    if (f.type === 'array') return { value: picked.map((p) => p.value) };
    return picked.skip ? {} : { value: picked.value };
  }
  const text = await vscode.window.showInputBox({
    title, prompt: plain(f.description) || label(f), value: def === undefined ? '' : String(def), ignoreFocusOut: true,
    validateInput: (s) => { const why = check(f, s); return why ? `expected ${why}` : null; },
  });
  if (text === undefined) return null;
  if (check(f, text)) return null;
  if (text === '') return {};
  return { value: f.type === 'number' || f.type === 'integer' ? Number(text) : text };
}

/**
 * elicit shows an elicitation approval and returns the agent/requestApproval
 * result: the option picked, or for "accept" (Submit) the form's content.
 */
async function elicit(vscode, approval, token, log, buttons) {
  const detail = typeof approval.detail === 'string' ? approval.detail : '';
  const picked = await vscode.window.showWarningMessage(approval.title, { modal: true, detail }, ...buttons(approval.options));
  if (!picked || typeof picked.optionId !== 'string' || (token && token.isCancellationRequested)) {
    log(`question ${approval.approvalId}: dismissed; declined`);
    return DECLINED;
  }
  const e = approval.elicitation || {};
  if (picked.optionId !== 'accept' || e.mode !== 'form') {
    log(`question ${approval.approvalId}: ${picked.title}`);
    return { outcome: 'selected', optionId: picked.optionId };
  }
  const content = {};
  for (const f of Array.isArray(e.fields) ? e.fields : []) {
    const got = await ask(vscode, approval.server || 'the MCP server', f);
    if (got === null || (token && token.isCancellationRequested)) {
      log(`question ${approval.approvalId}: the form was left at ${f.name}; declined`);
      return DECLINED;
    }
    if ('value' in got) content[f.name] = got.value;
  }
  log(`question ${approval.approvalId}: submitted ${Object.keys(content).length} fields`);
  return { outcome: 'selected', optionId: 'accept', content };
}

module.exports = { elicit, check, DECLINED };

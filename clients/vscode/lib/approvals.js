'use strict';
// agent/requestApproval (docs/protocol.md section 4, the request card). A write that carries its
// whole proposed file is reviewed in a diff editor (review.js); every other
// approval (a command, an MCP call, a launch card) is a modal dialog showing
// the server's title and its detail verbatim, one button per option.
// Anything but a click on an option is a denial: a dismissed dialog or a
// closed diff, a malformed request, a task cancelled while it was shown.

const { reviewable } = require('./review');
const { elicit } = require('./elicit');

/** CANCELLED is the answer that denies. */
const CANCELLED = Object.freeze({ outcome: 'cancelled' });

/** validate returns a reason the approval cannot be shown, or null. */
function validate(approval) {
  if (!approval || typeof approval !== 'object') return 'the request has no Approval object';
  if (typeof approval.title !== 'string' || approval.title === '') return 'the approval has no title';
  if (!Array.isArray(approval.options) || approval.options.length === 0) return 'the approval has no options';
  for (const o of approval.options) {
    if (!o || typeof o.optionId !== 'string' || typeof o.name !== 'string') {
      return 'an option lacks optionId or name';
    }
  }
  return null;
}

/** buttons maps options to vscode MessageItems; the first reject option closes the dialog (Escape). */
function buttons(options) {
  let closer = false;
  return options.map((o) => {
    const item = { title: o.name, optionId: o.optionId };
    if (!closer && typeof o.kind === 'string' && o.kind.startsWith('reject')) {
      item.isCloseAffordance = true;
      closer = true;
    }
    return item;
  });
}

/**
 * requestApproval shows one approval and returns the agent/requestApproval
 * result: a write in the diff editor of reviews (diffReviews of review.js)
 * when given, anything else (or a diff editor that would not open) as a
 * modal warning. log receives one line per decision.
 */
async function requestApproval(vscode, approval, token, log = () => {}, reviews = undefined) {
  const problem = validate(approval);
  if (problem) {
    log(`approval refused: ${problem}`);
    return CANCELLED;
  }
  if (approval.kind === 'elicitation') return elicit(vscode, approval, token, log, buttons);
  if (reviews && reviewable(approval)) {
    const res = await reviews.review(approval, token, log);
    if (res) return res;
  }
  const detail = typeof approval.detail === 'string' ? approval.detail : '';
  const picked = await vscode.window.showWarningMessage(approval.title, { modal: true, detail }, ...buttons(approval.options));
  if (token && token.isCancellationRequested) {
    log(`approval ${approval.approvalId}: the server withdrew it; denied`);
    return CANCELLED;
  }
  if (!picked || typeof picked.optionId !== 'string') {
    log(`approval ${approval.approvalId}: dismissed; denied`);
    return CANCELLED;
  }
  log(`approval ${approval.approvalId}: ${picked.title}`);
  return { outcome: 'selected', optionId: picked.optionId };
}

module.exports = { requestApproval, validate, buttons, CANCELLED };

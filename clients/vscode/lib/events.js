'use strict';
// The agent/event stream (docs/protocol.md §3): one line per event in the output
// view, and a tracker of running tasks behind the status bar item.

const MAX_PREVIEW = 400;

function preview(text) {
  const s = typeof text === 'string' ? text : JSON.stringify(text);
  if (s === undefined) return '';
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > MAX_PREVIEW ? one.slice(0, MAX_PREVIEW) + '…' : one;
}

// REASONING_MARK starts every line of the model's reasoning in the view, so it
// never reads as the answer.
const REASONING_MARK = '┆ ';

/**
 * formatEvent returns the output-view text for one event. Text deltas are
 * returned as they are (they concatenate into the answer); reasoning deltas
 * come under a "[task] reasoning:" line with every line marked (state, one per
 * view, remembers whether a reasoning block is open); every other event is
 * one line prefixed by its task.
 */
function formatEvent(ev, state = {}) {
  if (!ev || typeof ev !== 'object') return '';
  const who = `[${ev.taskId || '?'}]`;
  let lead = '';
  if (ev.type !== 'reasoning' && state.reasoning) {
    state.reasoning = undefined;
    lead = '\n';
  }
  return lead + formatOne(ev, who, state);
}

function formatOne(ev, who, state) {
  switch (ev.type) {
    case 'reasoning': {
      if (typeof ev.delta !== 'string' || ev.delta === '') return '';
      let head = '';
      if (state.reasoning !== ev.taskId) {
        head = `${state.reasoning ? '\n' : ''}\n${who} reasoning:\n${REASONING_MARK}`;
        state.reasoning = ev.taskId;
      }
      return head + ev.delta.replace(/\n/g, '\n' + REASONING_MARK);
    }
    case 'text':
      return typeof ev.delta === 'string' ? ev.delta : '';
    case 'tool_call': {
      const server = ev.server ? ` (${ev.server})` : '';
      return `\n${who} tool ${ev.tool}${server} ${ev.status || ''}: ${preview(ev.title || ev.arguments)}\n`;
    }
    case 'tool_result':
      return `${who} result ${ev.toolCallId} ${ev.isError ? 'error' : ev.status || 'ok'}: ${preview(ev.output)}\n`;
    case 'approval':
      return `${who} approval ${ev.approvalId} ${ev.state}${ev.optionId ? ` (${ev.optionId})` : ''}\n`;
    case 'status':
      return `${who} ${preview(ev.message)}\n`;
    case 'done': {
      const u = ev.usage || {};
      const why = ev.error ? `: ${preview(ev.error)}` : '';
      return `\n${who} done: ${ev.stopReason}${why} (${u.inputTokens || 0} in, ${u.outputTokens || 0} out)\n`;
    }
    default:
      return `${who} ${ev.type}: ${preview(ev)}\n`;
  }
}

/** dollars writes a cost as agentls chat does: "$0.0123", "$0.123", "$1.23". */
function dollars(c) {
  if (c < 0.01) return `$${c.toFixed(4)}`;
  if (c < 1) return `$${c.toFixed(3)}`;
  return `$${c.toFixed(2)}`;
}

/** TaskTracker follows which tasks run and what each is doing, from events. */
class TaskTracker {
  constructor() {
    this.tasks = new Map(); // taskId -> {taskId, sessionId, activity}
    this.mode = 'ask'; // the session's mode, as the last status or done event (or agent/setMode) said it
    this.modeListeners = [];
    this.last = null; // the last turn's {usage, cost, sessionId}, from its done event
    this.sessions = new Map(); // sessionId -> {input, output, cost} summed over the done events seen
  }

  /** addUsage records a done event's usage and cost; reports whether it had any. */
  addUsage(ev) {
    const u = ev.usage && typeof ev.usage === 'object' ? ev.usage : null;
    if (!u) return false;
    const n = (v) => (Number.isFinite(v) && v > 0 ? v : 0);
    const cost = Number.isFinite(ev.cost) ? ev.cost : undefined;
    const sid = typeof ev.sessionId === 'string' ? ev.sessionId : '';
    this.last = { usage: u, cost, sessionId: sid };
    const s = this.sessions.get(sid) || { input: 0, output: 0, cost: undefined };
    s.input += n(u.inputTokens);
    s.output += n(u.outputTokens);
    if (cost !== undefined) s.cost = (s.cost || 0) + cost;
    this.sessions.set(sid, s);
    return true;
  }

  /**
   * usageText is the last turn's tokens, cache share and cost, then its
   * session's: "2,893 in (44% cache) · 24 out · $0.0091 · session 5,023 in, 36 out, $0.016"; '' before a turn ended.
   */
  usageText() {
    if (!this.last) return '';
    const u = this.last.usage;
    const n = (v) => (Number.isFinite(v) && v > 0 ? v : 0);
    const th = (v) => Math.floor(n(v)).toLocaleString('en-US');
    let s = `${th(u.inputTokens)} in`;
    if (n(u.inputTokens) > 0) s += ` (${Math.round((100 * n(u.cacheReadTokens)) / n(u.inputTokens))}% cache)`;
    s += ` · ${th(u.outputTokens)} out`;
    if (this.last.cost !== undefined) s += ` · ${dollars(this.last.cost)}`;
    const ses = this.sessions.get(this.last.sessionId);
    s += ` · session ${th(ses.input)} in, ${th(ses.output)} out`;
    if (ses.cost !== undefined) s += `, ${dollars(ses.cost)}`;
    return s;
  }

  /** onModeChange calls fn(mode) whenever the mode changes (the chat view's indicator follows the palette). */
  onModeChange(fn) {
    this.modeListeners.push(fn);
  }

  /** setMode records the mode agent/setMode answered; reports whether it changed. */
  setMode(mode) {
    if (typeof mode !== 'string' || !mode || mode === this.mode) return false;
    this.mode = mode;
    for (const fn of this.modeListeners) fn(mode);
    return true;
  }

  /** update applies one event and reports whether the visible state changed. */
  update(ev) {
    if (!ev || typeof ev.taskId !== 'string') return false;
    const modeChanged = (ev.type === 'status' || ev.type === 'done') && this.setMode(ev.mode);
    if (ev.type === 'done') {
      const used = this.addUsage(ev);
      return this.tasks.delete(ev.taskId) || modeChanged || used;
    }
    const task = this.tasks.get(ev.taskId) || { taskId: ev.taskId, sessionId: ev.sessionId, activity: 'thinking' };
    const before = task.activity;
    switch (ev.type) {
      case 'tool_call':
        task.activity = ev.status === 'awaiting_approval' ? `waiting for approval: ${ev.tool}` : `calling ${ev.tool}`;
        break;
      case 'approval':
        task.activity = ev.state === 'waiting' ? 'waiting for approval' : 'working';
        break;
      case 'status':
        task.activity = preview(ev.message).slice(0, 60);
        break;
      case 'reasoning':
        task.activity = 'reasoning';
        break;
      case 'text':
        task.activity = 'writing';
        break;
      default:
        break;
    }
    const isNew = !this.tasks.has(ev.taskId);
    this.tasks.set(ev.taskId, task);
    return modeChanged || isNew || before !== task.activity;
  }

  /** forget drops a task, e.g. when its agent/run request returned. */
  forget(taskId) {
    return this.tasks.delete(taskId);
  }

  /** latest is the most recently started running task, or undefined. */
  latest() {
    let last;
    for (const t of this.tasks.values()) last = t;
    return last;
  }

  /** statusText is what the status bar item says. */
  statusText() {
    const t = this.latest();
    const name = this.mode && this.mode !== 'ask' ? `agentls [${this.mode}]` : 'agentls';
    if (!t) return `$(hubot) ${name}`;
    const more = this.tasks.size > 1 ? ` (+${this.tasks.size - 1})` : '';
    return `$(sync~spin) ${name}: ${t.activity}${more}`;
  }
}

/**
 * eventView wires the stream to an output channel and a status bar item
 * created through the injected vscode module. Returns {onEvent, tracker, channel, item, refresh}.
 */
function eventView(vscode) {
  const channel = vscode.window.createOutputChannel('agentls events');
  const item = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 10);
  // The last turn's tokens, cache share and cost (and its session's), once a turn ended.
  const usage = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 9);
  const tracker = new TaskTracker();
  const refresh = () => {
    const used = tracker.usageText();
    if (used) {
      usage.text = `$(graph) ${used}`;
      usage.tooltip = 'agentls: the last turn: input tokens (the share read from the provider\'s cache), output tokens and cost at the model\'s price ([prices]); then the session\'s so far';
      usage.command = 'agentls.showEvents';
      usage.show();
    }
    item.text = tracker.statusText();
    const t = tracker.latest();
    item.tooltip = t ? `agentls task ${t.taskId}: ${t.activity} (click to cancel)` : 'agentls: no task running (click for the event stream)';
    item.command = t ? 'agentls.cancelTask' : 'agentls.showEvents';
  };
  refresh();
  item.show();
  const state = {};
  const onEvent = (ev) => {
    const text = formatEvent(ev, state);
    if (text) channel.append(text);
    if (tracker.update(ev)) refresh();
  };
  return { onEvent, tracker, channel, item, usage, refresh };
}

module.exports = { formatEvent, TaskTracker, eventView, preview, REASONING_MARK };

'use strict';
// The chat view's conversation: what the extension host posts (agent/event
// params of the chat's session, the user's own turns, approval cards, the
// session list, agentls's notices) folded into a list of items the webview
// draws. Pure: no DOM, no vscode; each apply() returns the ids of the items
// it changed, so the view redraws only those. The same file runs in the
// webview (window.agentlsConversation) and in node's tests.
//
// Items, each with a stable id:
//   user      {text, attachments}        what the user sent
//   assistant {text, taskId}             the answer's Markdown, streamed
//   reasoning {text, taskId}             the model's reasoning, shown apart
//   tool      {toolCallId, tool, server, title, arguments, status, message,
//              output, isError, startedAt, endedAt}
//   approval  {approvalId, title, detail, approvalKind, options, state, optionId}
//   notice    {text, tone}               agentls's own line (compacted, an error)
//   sessions  {sessions}                 the past sessions to reopen
//   end       {stopReason, error, usage} a turn that stopped short of end_turn

(function (root, factory) {
  if (typeof module === 'object' && module.exports) module.exports = factory();
  else root.agentlsConversation = factory();
}(typeof self !== 'undefined' ? self : this, function () {
  const FINAL = new Set(['completed', 'failed', 'denied', 'cancelled']);

  /** create returns an empty conversation. */
  function create() {
    return {
      items: [],
      byId: new Map(),
      tools: new Map(), // toolCallId -> item
      approvals: new Map(), // approvalId -> item
      sessionId: '',
      busy: false,
      taskId: '',
      meter: null, // {contextTokens, contextWindow, inputTokens, cacheReadTokens, outputTokens, cost?, sessionCost?}
      sessionCost: undefined, // the session's cost so far (the done events' cost), when the model has a price
      model: null, // {provider, name, error}
      mode: '',
      next: 1,
    };
  }

  function add(conv, item) {
    item.id = `i${conv.next++}`;
    conv.items.push(item);
    conv.byId.set(item.id, item);
    return item;
  }

  const str = (v) => (typeof v === 'string' ? v : '');

  /** last is the newest item, or undefined. */
  const last = (conv) => conv.items[conv.items.length - 1];

  /** stream appends a text or reasoning delta to the open block of its kind, or opens one. */
  function stream(conv, kind, ev) {
    const delta = str(ev.delta);
    if (!delta) return [];
    let item = last(conv);
    if (!item || item.kind !== kind || item.taskId !== str(ev.taskId)) {
      item = add(conv, { kind, text: '', taskId: str(ev.taskId) });
    }
    item.text += delta;
    return [item.id];
  }

  function argsText(v) {
    if (v === undefined || v === null) return '';
    if (typeof v === 'string') return v;
    try {
      return JSON.stringify(v, null, 2);
    } catch {
      return String(v);
    }
  }

  /** event applies one agent/event (docs/protocol.md section 3; "prompt" from agent/replay). */
  function event(conv, ev, at) {
    if (!ev || typeof ev !== 'object') return [];
    switch (ev.type) {
      case 'prompt':
        return [add(conv, { kind: 'user', text: str(ev.text), attachments: [] }).id];
      case 'text':
        return stream(conv, 'assistant', ev);
      case 'reasoning':
        return stream(conv, 'reasoning', ev);
      case 'tool_call': {
        const id = str(ev.toolCallId);
        let item = conv.tools.get(id);
        if (!item) {
          item = add(conv, { kind: 'tool', toolCallId: id, tool: str(ev.tool), server: str(ev.server), title: str(ev.title),
            arguments: argsText(ev.arguments), status: '', message: '', output: '', isError: false,
            startedAt: at, endedAt: undefined });
          conv.tools.set(id, item);
        }
        if (ev.title) item.title = str(ev.title);
        if (ev.arguments !== undefined) item.arguments = argsText(ev.arguments);
        if (ev.status) item.status = str(ev.status);
        if (ev.message) item.message = str(ev.message);
        if (FINAL.has(item.status) && item.endedAt === undefined) item.endedAt = at;
        return [item.id];
      }
      case 'tool_result': {
        const item = conv.tools.get(str(ev.toolCallId));
        if (!item) return [];
        item.output = str(ev.output);
        item.isError = !!ev.isError;
        if (ev.status) item.status = str(ev.status);
        if (item.endedAt === undefined) item.endedAt = at;
        return [item.id];
      }
      case 'approval': {
        const item = conv.approvals.get(str(ev.approvalId));
        if (!item || ev.state !== 'resolved') return [];
        if (item.state === 'waiting') item.state = 'resolved';
        if (ev.optionId) item.optionId = str(ev.optionId);
        return [item.id];
      }
      case 'status':
        return ev.message ? [add(conv, { kind: 'notice', text: str(ev.message), tone: 'info' }).id] : [];
      case 'done': {
        conv.busy = false;
        conv.taskId = '';
        const u = ev.usage && typeof ev.usage === 'object' ? ev.usage : null;
        if (u) {
          conv.meter = meterOf(u);
          if (Number.isFinite(ev.cost) && ev.cost >= 0) {
            conv.sessionCost = (conv.sessionCost || 0) + ev.cost;
            conv.meter.cost = ev.cost;
            conv.meter.sessionCost = conv.sessionCost;
          }
        }
        const ids = ['meter'];
        if (ev.stopReason && ev.stopReason !== 'end_turn') {
          ids.push(add(conv, { kind: 'end', stopReason: str(ev.stopReason), error: str(ev.error || ev.message), usage: u }).id);
        }
        // A call the turn left without a result (a cancel) is shown as ended.
        for (const t of conv.tools.values()) {
          if (!FINAL.has(t.status) && t.endedAt === undefined) {
            t.status = 'cancelled';
            t.endedAt = at;
            ids.push(t.id);
          }
        }
        return ids;
      }
      default:
        return [];
    }
  }

  function meterOf(u) {
    const n = (v) => (Number.isFinite(v) && v > 0 ? v : 0);
    return { contextTokens: n(u.contextTokens), contextWindow: n(u.contextWindow), inputTokens: n(u.inputTokens),
      cacheReadTokens: n(u.cacheReadTokens), outputTokens: n(u.outputTokens) };
  }

  /**
   * apply folds one message of the host into conv and returns the ids of
   * the items that changed ('meter' and 'header' name the header's parts).
   * A message: {type: 'event', event, at} | {type: 'user', text, attachments}
   * | {type: 'approval', approval} | {type: 'approvalSettled', approvalId,
   * optionId?, how} | {type: 'reset', sessionId} | {type: 'replay', sessionId,
   * events} | {type: 'sessions', sessions} | {type: 'notice', text, tone}
   * | {type: 'busy', busy, taskId?} | {type: 'status', model, mode}.
   */
  function apply(conv, msg) {
    if (!msg || typeof msg !== 'object') return [];
    switch (msg.type) {
      case 'event':
        return event(conv, msg.event, msg.at);
      case 'user': {
        conv.busy = true;
        const attachments = Array.isArray(msg.attachments) ? msg.attachments.map(str).filter(Boolean) : [];
        return [add(conv, { kind: 'user', text: str(msg.text), attachments }).id, 'header'];
      }
      case 'busy':
        conv.busy = !!msg.busy;
        if (msg.taskId) conv.taskId = str(msg.taskId);
        return ['header'];
      case 'approval': {
        const a = msg.approval || {};
        const id = str(a.approvalId);
        if (!id || conv.approvals.has(id)) return [];
        const options = (Array.isArray(a.options) ? a.options : [])
          .filter((o) => o && typeof o.optionId === 'string')
          .map((o) => ({ optionId: o.optionId, name: str(o.name) || o.optionId, kind: str(o.kind) }));
        const item = add(conv, { kind: 'approval', approvalId: id, title: str(a.title), detail: str(a.detail),
          approvalKind: str(a.kind), options, state: 'waiting', optionId: '', how: '' });
        conv.approvals.set(id, item);
        return [item.id];
      }
      case 'approvalSettled': {
        const item = conv.approvals.get(str(msg.approvalId));
        if (!item) return [];
        item.state = msg.optionId ? 'answered' : 'withdrawn';
        item.optionId = str(msg.optionId);
        item.how = str(msg.how);
        return [item.id];
      }
      case 'reset': {
        const fresh = create();
        for (const k of Object.keys(fresh)) if (k !== 'model' && k !== 'mode' && k !== 'next') conv[k] = fresh[k];
        conv.sessionId = str(msg.sessionId);
        return ['all'];
      }
      case 'replay': {
        apply(conv, { type: 'reset', sessionId: msg.sessionId });
        for (const ev of Array.isArray(msg.events) ? msg.events : []) event(conv, ev, undefined);
        return ['all'];
      }
      case 'sessions':
        return [add(conv, { kind: 'sessions', sessions: (Array.isArray(msg.sessions) ? msg.sessions : []).map((s) => ({
          sessionId: str(s && s.sessionId), title: str(s && s.title), updatedAt: str(s && s.updatedAt),
          turns: s && Number.isFinite(s.turns) ? s.turns : 0 })).filter((s) => s.sessionId) }).id];
      case 'notice':
        return [add(conv, { kind: 'notice', text: str(msg.text), tone: msg.tone === 'error' ? 'error' : 'info' }).id];
      case 'status':
        conv.model = msg.model && typeof msg.model === 'object'
          ? { profile: str(msg.model.profile), provider: str(msg.model.provider), name: str(msg.model.name), error: str(msg.model.error) } : null;
        conv.mode = str(msg.mode);
        return ['header'];
      default:
        return [];
    }
  }

  /**
   * meterText is the context meter's line: "1.2k of 128k tokens (1%) · cache 40%",
   * then the turn's and the session's cost when the model has a price
   * (" · $0.0091 · session $0.016"), or ''.
   */
  function meterText(m) {
    if (!m || !m.contextTokens) return '';
    const k = (n) => (n >= 1000 ? `${(n / 1000).toFixed(n >= 10000 ? 0 : 1)}k` : String(n));
    let s = `${k(m.contextTokens)}`;
    if (m.contextWindow) s += ` of ${k(m.contextWindow)} tokens (${Math.round((100 * m.contextTokens) / m.contextWindow)}%)`;
    else s += ' tokens';
    if (m.inputTokens) s += ` · cache ${Math.round((100 * m.cacheReadTokens) / m.inputTokens)}%`;
    const usd = (c) => (c < 0.01 ? `$${c.toFixed(4)}` : c < 1 ? `$${c.toFixed(3)}` : `$${c.toFixed(2)}`);
    if (Number.isFinite(m.cost)) s += ` · ${usd(m.cost)} · session ${usd(m.sessionCost)}`;
    return s;
  }

  /** duration is a tool card's time, "0.4 s", or '' while it runs or when unknown. */
  function duration(item) {
    if (!Number.isFinite(item.startedAt) || !Number.isFinite(item.endedAt)) return '';
    const ms = Math.max(0, item.endedAt - item.startedAt);
    return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
  }

  return { create, apply, meterText, duration, FINAL };
}));

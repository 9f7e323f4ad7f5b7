'use strict';
// The chat view's script, inside the webview: it draws the conversation
// (conversation.js) with the Markdown renderer (markdown.js) and sends what
// the user does to the extension host with postMessage. The DOM is built
// with createElement, createTextNode and textContent only: nothing here
// ever parses a string as HTML (no innerHTML, outerHTML,
// insertAdjacentHTML or document.write; a test reads this file for them).
// In the webview it mounts itself on the page; node's tests call mount with
// a small DOM of their own.

(function (root, factory) {
  if (typeof module === 'object' && module.exports) module.exports = factory();
  else root.agentlsChat = factory();
}(typeof self !== 'undefined' ? self : this, function () {
  const STATUS_MARK = {
    pending: '○', awaiting_approval: '?', running: '◐', completed: '✓', failed: '✕', denied: '⊘', cancelled: '■',
  };

  function el(doc, tag, cls, text) {
    const e = doc.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== '') e.appendChild(doc.createTextNode(String(text)));
    return e;
  }

  /**
   * mount draws the chat into doc (a Document holding #header, #log and
   * #composer, as panel.js writes the page) and answers messages from the
   * host. api is what acquireVsCodeApi() returns (postMessage); libs:
   * {markdown, conversation, schedule?}. Returns {onMessage, conv}.
   */
  function mount(doc, api, libs) {
    const { markdown, conversation } = libs;
    const schedule = libs.schedule || ((fn) => fn());
    const conv = conversation.create();
    const $ = (id) => doc.getElementById(id);
    const log = $('log');
    const input = $('input');
    const suggest = $('suggest');
    const post = (msg) => api.postMessage(msg);
    const views = new Map(); // item id -> element
    let commands = []; // [{name, description}] for the / list
    let dirty = new Set();
    let pending = false;

    const copy = (text) => post({ type: 'copy', text });

    function renderUser(item) {
      const e = el(doc, 'div', 'item user');
      e.appendChild(el(doc, 'div', 'who', 'You'));
      e.appendChild(el(doc, 'div', 'plain', item.text));
      if (item.attachments.length) {
        const row = el(doc, 'div', 'attachments');
        for (const a of item.attachments) row.appendChild(el(doc, 'span', 'chip', a));
        e.appendChild(row);
      }
      return e;
    }

    function renderAssistant(item) {
      const e = el(doc, 'div', 'item assistant');
      e.appendChild(el(doc, 'div', 'who', 'agentls'));
      e.appendChild(markdown.render(doc, item.text, { onCopy: copy }));
      return e;
    }

    function renderReasoning(item, old) {
      const e = el(doc, 'details', 'item reasoning');
      if (old && old.open) e.open = true;
      e.appendChild(el(doc, 'summary', '', 'Reasoning'));
      e.appendChild(el(doc, 'div', 'plain', item.text));
      return e;
    }

    function renderTool(item, old) {
      const e = el(doc, 'details', `item tool status-${item.status || 'pending'}`);
      e.setAttribute('data-tool-call', item.toolCallId);
      if (old && old.open) e.open = true;
      const sum = el(doc, 'summary');
      sum.appendChild(el(doc, 'span', 'mark', STATUS_MARK[item.status] || '○'));
      sum.appendChild(el(doc, 'span', 'title', item.title || item.tool));
      if (item.server) sum.appendChild(el(doc, 'span', 'server', item.server));
      sum.appendChild(el(doc, 'span', 'status', (item.status || 'pending').replace('_', ' ')));
      const d = conversation.duration(item);
      if (d) sum.appendChild(el(doc, 'span', 'duration', d));
      e.appendChild(sum);
      const body = el(doc, 'div', 'body');
      body.appendChild(el(doc, 'div', 'label', `Tool ${item.tool}${item.server ? ` (${item.server})` : ''}: arguments`));
      body.appendChild(el(doc, 'pre', 'arguments', item.arguments || '{}'));
      if (item.message) body.appendChild(el(doc, 'div', 'message', item.message));
      if (item.output || conversation.FINAL.has(item.status)) {
        body.appendChild(el(doc, 'div', 'label', item.isError ? 'Error' : 'Result'));
        body.appendChild(el(doc, 'pre', item.isError ? 'result error' : 'result', item.output));
      }
      e.appendChild(body);
      return e;
    }

    function renderApproval(item) {
      const e = el(doc, 'div', `item approval state-${item.state}`);
      e.setAttribute('data-approval', item.approvalId);
      e.appendChild(el(doc, 'div', 'title', item.title));
      if (item.detail) e.appendChild(el(doc, 'pre', 'detail', item.detail));
      if (item.state === 'waiting') {
        const row = el(doc, 'div', 'options');
        for (const o of item.options) {
          const b = el(doc, 'button', o.kind.startsWith('reject') ? 'option reject' : 'option allow', o.name);
          b.setAttribute('type', 'button');
          b.addEventListener('click', () => post({ type: 'answer', approvalId: item.approvalId, optionId: o.optionId }));
          row.appendChild(b);
        }
        e.appendChild(row);
        if (item.approvalKind === 'write') e.appendChild(el(doc, 'div', 'hint', 'The diff editor shows the whole change; answer there or here.'));
      } else {
        const chosen = item.options.find((o) => o.optionId === item.optionId);
        const what = item.state === 'withdrawn' ? 'Not answered: denied' : `Answered: ${chosen ? chosen.name : item.optionId}`;
        e.appendChild(el(doc, 'div', 'outcome', `${what}${item.how ? ` (${item.how})` : ''}`));
      }
      return e;
    }

    function renderSessions(item) {
      const e = el(doc, 'div', 'item sessions');
      e.appendChild(el(doc, 'div', 'title', item.sessions.length ? 'Past sessions: click one to reopen it' : 'No past sessions yet.'));
      for (const s of item.sessions) {
        const b = el(doc, 'button', 'session');
        b.setAttribute('type', 'button');
        b.setAttribute('data-session', s.sessionId);
        b.appendChild(el(doc, 'span', 'title', s.title || s.sessionId));
        b.appendChild(el(doc, 'span', 'meta', `${s.turns} turn${s.turns === 1 ? '' : 's'} · ${s.updatedAt.replace('T', ' ').slice(0, 16)}`));
        b.addEventListener('click', () => post({ type: 'openSession', sessionId: s.sessionId }));
        e.appendChild(b);
      }
      return e;
    }

    function renderItem(item, old) {
      switch (item.kind) {
        case 'user': return renderUser(item);
        case 'assistant': return renderAssistant(item);
        case 'reasoning': return renderReasoning(item, old);
        case 'tool': return renderTool(item, old);
        case 'approval': return renderApproval(item);
        case 'sessions': return renderSessions(item);
        case 'end': return el(doc, 'div', 'item end', `Stopped: ${item.stopReason}${item.error ? `: ${item.error}` : ''}`);
        default: return el(doc, 'div', `item notice ${item.tone === 'error' ? 'error' : ''}`, item.text);
      }
    }

    function renderHeader() {
      const m = conv.model;
      const model = $('model');
      // The profile is named when it is not [model] itself.
      const profile = m && m.profile && m.profile !== 'default' ? `${m.profile}: ` : '';
      model.textContent = m ? (m.error ? `no model: ${m.error}` : `${profile}${m.name} (${m.provider})`) : '';
      $('mode').textContent = conv.mode ? `mode: ${conv.mode}` : '';
      $('meter').textContent = conversation.meterText(conv.meter);
      $('busy').textContent = conv.busy ? 'working…' : '';
      $('cancel').disabled = !conv.busy;
      $('send').disabled = conv.busy;
    }

    function flush() {
      pending = false;
      const ids = dirty;
      dirty = new Set();
      const nearBottom = !log.scrollHeight || log.scrollHeight - log.scrollTop - log.clientHeight < 80;
      if (ids.has('all')) {
        while (log.firstChild) log.removeChild(log.firstChild);
        views.clear();
      }
      for (const item of conv.items) {
        if (!ids.has('all') && !ids.has(item.id)) continue;
        const old = views.get(item.id);
        const fresh = renderItem(item, old);
        fresh.setAttribute('data-item', item.id);
        if (old) log.replaceChild(fresh, old);
        else log.appendChild(fresh);
        views.set(item.id, fresh);
      }
      renderHeader();
      if (nearBottom) log.scrollTop = log.scrollHeight;
    }

    function onMessage(msg) {
      if (msg && msg.type === 'commands') {
        commands = (Array.isArray(msg.commands) ? msg.commands : []).filter((c) => c && typeof c.name === 'string');
        showSuggestions();
        return;
      }
      if (msg && msg.type === 'focus') {
        input.focus();
        return;
      }
      for (const id of conversation.apply(conv, msg)) dirty.add(id);
      if (!pending) {
        pending = true;
        schedule(flush);
      }
    }

    function showSuggestions() {
      while (suggest.firstChild) suggest.removeChild(suggest.firstChild);
      const v = input.value;
      if (!v.startsWith('/') || /\s/.test(v)) return;
      for (const c of commands.filter((c) => c.name.startsWith(v.slice(1))).slice(0, 12)) {
        const b = el(doc, 'button', 'suggestion');
        b.setAttribute('type', 'button');
        b.appendChild(el(doc, 'span', 'name', `/${c.name}`));
        if (c.description) b.appendChild(el(doc, 'span', 'description', c.description));
        b.addEventListener('click', () => {
          input.value = `/${c.name} `;
          showSuggestions();
          input.focus();
        });
        suggest.appendChild(b);
      }
    }

    function send() {
      const text = input.value.trim();
      if (!text || conv.busy) return;
      input.value = '';
      showSuggestions();
      post({ type: 'send', text });
    }

    $('send').addEventListener('click', send);
    $('cancel').addEventListener('click', () => post({ type: 'cancel' }));
    $('new').addEventListener('click', () => post({ type: 'send', text: '/new' }));
    $('sessions').addEventListener('click', () => post({ type: 'send', text: '/sessions' }));
    input.addEventListener('input', showSuggestions);
    input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        send();
      }
    });
    renderHeader();
    post({ type: 'ready' });
    return { onMessage, conv, flush };
  }

  // In the webview: mount on the page.
  if (typeof window !== 'undefined' && typeof acquireVsCodeApi === 'function') {
    const chat = mount(document, acquireVsCodeApi(), {
      markdown: window.agentlsMarkdown,
      conversation: window.agentlsConversation,
      schedule: (fn) => window.requestAnimationFrame(fn),
    });
    window.addEventListener('message', (e) => chat.onMessage(e.data));
  }

  return { mount };
}));

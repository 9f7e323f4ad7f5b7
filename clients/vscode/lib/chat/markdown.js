'use strict';
// The chat view's Markdown: a small parser to a tree of plain objects and a
// renderer that turns the tree into DOM nodes with createElement and
// createTextNode only. Every string of the model's or a server's ends up in
// a text node, never parsed as HTML: `<img onerror=...>` shows as those
// characters. A link keeps its href only when it is http or https (a
// `javascript:`, `command:`, `file:` or `data:` link is shown as text), and
// its target is shown as its title. The same file runs in the webview
// (a plain script: window.agentlsMarkdown) and in node's tests (CommonJS).
//
// What it knows: ATX headings, paragraphs, fenced code blocks (``` or ~~~,
// a language word), lists (- * + and 1.), block quotes, rules, and inline
// code, **strong**, *em* / _em_, [links](url), <autolinks> and hard breaks.
// A fence still open (an answer still streaming) is a code block to the end.

(function (root, factory) {
  if (typeof module === 'object' && module.exports) module.exports = factory();
  else root.agentlsMarkdown = factory();
}(typeof self !== 'undefined' ? self : this, function () {
  const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([\w+#.-]*)/;
  const HEADING = /^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
  const RULE = /^ {0,3}([-*_])(\s*\1){2,}\s*$/;
  const BULLET = /^(\s*)([-*+])\s+(.*)$/;
  const ORDERED = /^(\s*)(\d{1,9})[.)]\s+(.*)$/;
  const QUOTE = /^ {0,3}>\s?(.*)$/;

  /** parse turns Markdown into blocks: {t: 'p'|'h'|'code'|'ul'|'ol'|'quote'|'hr', ...}. */
  function parse(md) {
    const lines = String(md == null ? '' : md).replace(/\r\n?/g, '\n').split('\n');
    return blocks(lines);
  }

  function blocks(lines) {
    const out = [];
    let para = [];
    const flush = () => {
      if (para.length) out.push({ t: 'p', inl: inline(para.join('\n')) });
      para = [];
    };
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i];
      let m;
      if ((m = FENCE.exec(line))) {
        flush();
        const mark = m[1];
        const body = [];
        let j = i + 1;
        for (; j < lines.length; j++) {
          const close = lines[j].trim();
          if (close.startsWith(mark[0].repeat(mark.length)) && /^[`~]+$/.test(close)) break;
          body.push(lines[j]);
        }
        out.push({ t: 'code', lang: m[2] || '', text: body.join('\n'), open: j >= lines.length });
        i = j;
      } else if (line.trim() === '') {
        flush();
      } else if ((m = HEADING.exec(line))) {
        flush();
        out.push({ t: 'h', level: m[1].length, inl: inline(m[2]) });
      } else if (RULE.test(line)) {
        flush();
        out.push({ t: 'hr' });
      } else if (QUOTE.test(line)) {
        flush();
        const body = [];
        for (; i < lines.length && (m = QUOTE.exec(lines[i])); i++) body.push(m[1]);
        i--;
        out.push({ t: 'quote', blocks: blocks(body) });
      } else if (BULLET.test(line) || ORDERED.test(line)) {
        flush();
        const ordered = !BULLET.test(line);
        const re = ordered ? ORDERED : BULLET;
        const first = re.exec(line);
        const items = [];
        for (; i < lines.length; i++) {
          const l = lines[i];
          const item = re.exec(l);
          if (item) {
            items.push([item[3]]);
          } else if (l.trim() !== '' && /^\s+/.test(l) && items.length) {
            items[items.length - 1].push(l.trim()); // a continuation line
          } else {
            break;
          }
        }
        i--;
        out.push({ t: ordered ? 'ol' : 'ul', start: ordered ? Number(first[2]) : undefined,
          items: items.map((parts) => inline(parts.join('\n'))) });
      } else {
        para.push(line);
      }
    }
    flush();
    return out;
  }

  /** inline parses a run of text: {t: 'text'|'code'|'strong'|'em'|'a'|'br', v?, c?, href?}. */
  function inline(s) {
    const out = [];
    let text = '';
    const push = (node) => {
      if (text) out.push({ t: 'text', v: text });
      text = '';
      out.push(node);
    };
    for (let i = 0; i < s.length;) {
      const c = s[i];
      const rest = s.slice(i);
      let m;
      if (c === '\\' && i + 1 < s.length && /[\\`*_[\]()<>#!-]/.test(s[i + 1])) {
        text += s[i + 1];
        i += 2;
      } else if (c === '`' && (m = /^(`+)([\s\S]*?[^`])\1(?!`)/.exec(rest))) {
        push({ t: 'code', v: m[2].replace(/^ (.*) $/, '$1') });
        i += m[0].length;
      } else if ((c === '*' || c === '_') && (m = /^(\*\*|__)(?=\S)([\s\S]*?\S)\1/.exec(rest))) {
        push({ t: 'strong', c: inline(m[2]) });
        i += m[0].length;
      } else if ((c === '*' || c === '_') && (m = /^([*_])(?=\S)([\s\S]*?\S)\1(?![*_\w])/.exec(rest)) && (c === '*' || !/\w/.test(s[i - 1] || ''))) {
        push({ t: 'em', c: inline(m[2]) });
        i += m[0].length;
      } else if (c === '[' && (m = /^\[([^\]\n]*)\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/.exec(rest))) {
        const href = safeHref(m[2]);
        if (href) push({ t: 'a', href, c: inline(m[1]) });
        else text += m[1] ? `${m[1]} (${m[2]})` : m[2]; // shown, not linked
        i += m[0].length;
      } else if (c === '<' && (m = /^<(https?:\/\/[^\s<>]+)>/.exec(rest))) {
        const href = safeHref(m[1]);
        if (href) push({ t: 'a', href, c: [{ t: 'text', v: m[1] }] });
        else text += m[0];
        i += m[0].length;
      } else if (c === '\n') {
        if (/ {2,}$|\\$/.test(text)) {
          text = text.replace(/( {2,}|\\)$/, '');
          push({ t: 'br' });
        } else {
          text += '\n';
        }
        i++;
      } else {
        text += c;
        i++;
      }
    }
    if (text) out.push({ t: 'text', v: text });
    return out;
  }

  /** safeHref returns the URL when it is http or https, else '' (the link is shown as text). */
  function safeHref(raw) {
    const s = String(raw || '').trim();
    if (!/^https?:\/\//i.test(s)) return '';
    try {
      const u = new URL(s);
      return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : '';
    } catch {
      return '';
    }
  }

  const BLOCK_TAGS = { p: 'p', hr: 'hr', quote: 'blockquote', ul: 'ul', ol: 'ol' };
  const INLINE_TAGS = { code: 'code', strong: 'strong', em: 'em', a: 'a', br: 'br' };

  /**
   * render builds the DOM of Markdown text under a new <div class="md">
   * with doc (a Document). opts.onCopy(text), when given, adds a Copy button
   * to each code block.
   */
  function render(doc, md, opts = {}) {
    const root = doc.createElement('div');
    root.className = 'md';
    for (const b of parse(md)) root.appendChild(renderBlock(doc, b, opts));
    return root;
  }

  function renderBlock(doc, b, opts) {
    switch (b.t) {
      case 'h': {
        const el = doc.createElement(`h${Math.min(6, Math.max(1, b.level | 0))}`);
        appendInline(doc, el, b.inl);
        return el;
      }
      case 'code': {
        const wrap = doc.createElement('div');
        wrap.className = 'codeblock';
        const head = doc.createElement('div');
        head.className = 'codehead';
        const lang = doc.createElement('span');
        lang.className = 'lang';
        lang.appendChild(doc.createTextNode(b.lang));
        head.appendChild(lang);
        if (opts.onCopy) {
          const copy = doc.createElement('button');
          copy.className = 'copy';
          copy.setAttribute('type', 'button');
          copy.appendChild(doc.createTextNode('Copy'));
          copy.addEventListener('click', () => opts.onCopy(b.text));
          head.appendChild(copy);
        }
        wrap.appendChild(head);
        const pre = doc.createElement('pre');
        const code = doc.createElement('code');
        if (/^[\w+#.-]+$/.test(b.lang)) code.className = `language-${b.lang}`;
        code.appendChild(doc.createTextNode(b.text));
        pre.appendChild(code);
        wrap.appendChild(pre);
        return wrap;
      }
      case 'quote': {
        const el = doc.createElement('blockquote');
        for (const c of b.blocks) el.appendChild(renderBlock(doc, c, opts));
        return el;
      }
      case 'ul':
      case 'ol': {
        const el = doc.createElement(BLOCK_TAGS[b.t]);
        if (b.t === 'ol' && b.start !== 1) el.setAttribute('start', String(b.start | 0));
        for (const item of b.items) {
          const li = doc.createElement('li');
          appendInline(doc, li, item);
          el.appendChild(li);
        }
        return el;
      }
      case 'hr':
        return doc.createElement('hr');
      default: {
        const el = doc.createElement('p');
        appendInline(doc, el, b.inl || []);
        return el;
      }
    }
  }

  function appendInline(doc, parent, nodes) {
    for (const n of nodes) {
      if (n.t === 'text') {
        parent.appendChild(doc.createTextNode(n.v));
        continue;
      }
      const el = doc.createElement(INLINE_TAGS[n.t] || 'span');
      if (n.t === 'code') el.appendChild(doc.createTextNode(n.v));
      if (n.t === 'a') {
        // Checked again here: the tree may not come from parse.
        const href = safeHref(n.href);
        if (!href) {
          appendInline(doc, parent, n.c || []);
          continue;
        }
        el.setAttribute('href', href);
        el.setAttribute('title', href);
      }
      if (n.c) appendInline(doc, el, n.c);
      parent.appendChild(el);
    }
  }

  return { parse, inline, render, safeHref };
}));

'use strict';
// A small DOM for running the chat's webview script (lib/chat/webview.js)
// and Markdown renderer under node: elements, text nodes, attributes,
// events. It has no HTML parser at all, and innerHTML, outerHTML,
// insertAdjacentHTML and document.write throw, so code that would parse a
// string as HTML fails its test instead of passing unnoticed.

class Node {
  constructor(doc) { this.ownerDocument = doc; this.parentNode = null; this.childNodes = []; }
  get firstChild() { return this.childNodes[0] || null; }
  appendChild(n) {
    if (n.parentNode) n.parentNode.removeChild(n);
    n.parentNode = this;
    this.childNodes.push(n);
    return n;
  }
  removeChild(n) {
    const i = this.childNodes.indexOf(n);
    if (i < 0) throw new Error('removeChild: not a child');
    this.childNodes.splice(i, 1);
    n.parentNode = null;
    return n;
  }
  replaceChild(fresh, old) {
    const i = this.childNodes.indexOf(old);
    if (i < 0) throw new Error('replaceChild: not a child');
    if (fresh.parentNode) fresh.parentNode.removeChild(fresh);
    this.childNodes[i] = fresh;
    fresh.parentNode = this;
    old.parentNode = null;
    return old;
  }
  get textContent() { return this.childNodes.map((c) => c.textContent).join(''); }
  set textContent(v) {
    for (const c of this.childNodes) c.parentNode = null;
    this.childNodes = [];
    if (v !== '' && v !== null && v !== undefined) this.appendChild(this.ownerDocument.createTextNode(String(v)));
  }
}

class Text extends Node {
  constructor(doc, data) { super(doc); this.nodeType = 3; this.data = data; }
  get textContent() { return this.data; }
  set textContent(v) { this.data = String(v); }
}

const refuse = (what) => () => { throw new Error(`${what} parses HTML: the chat must build nodes (createElement, createTextNode)`); };

class Element extends Node {
  constructor(doc, tag) {
    super(doc);
    this.nodeType = 1;
    this.tagName = tag.toUpperCase();
    this.attributes = new Map();
    this.listeners = new Map();
    this.value = '';
    this.disabled = false;
    this.open = false;
    this.scrollTop = 0;
    this.scrollHeight = 0;
    this.clientHeight = 0;
  }
  get className() { return this.attributes.get('class') || ''; }
  set className(v) { this.attributes.set('class', String(v)); }
  get id() { return this.attributes.get('id') || ''; }
  set id(v) { this.attributes.set('id', String(v)); }
  get classList() {
    const el = this;
    return { contains: (c) => el.className.split(/\s+/).includes(c) };
  }
  setAttribute(k, v) {
    if (/^on/i.test(k)) throw new Error(`setAttribute(${k}): an event handler attribute runs a string as code`);
    this.attributes.set(String(k).toLowerCase(), String(v));
  }
  getAttribute(k) { return this.attributes.has(k) ? this.attributes.get(k) : null; }
  addEventListener(type, fn) {
    if (!this.listeners.has(type)) this.listeners.set(type, []);
    this.listeners.get(type).push(fn);
  }
  dispatch(type, props = {}) {
    const ev = { type, target: this, defaultPrevented: false, preventDefault() { this.defaultPrevented = true; }, ...props };
    for (const fn of this.listeners.get(type) || []) fn(ev);
    return ev;
  }
  click() { if (!this.disabled) this.dispatch('click'); }
  focus() { this.ownerDocument.activeElement = this; }
  get children() { return this.childNodes.filter((c) => c.nodeType === 1); }
  /** all returns every element under this one (itself included) that pred accepts. */
  all(pred = () => true) {
    const out = [];
    const walk = (n) => {
      if (n.nodeType !== 1) return;
      if (pred(n)) out.push(n);
      n.childNodes.forEach(walk);
    };
    walk(this);
    return out;
  }
  /** byClass returns the elements under this one with class c. */
  byClass(c) { return this.all((e) => e.classList.contains(c)); }
}
for (const k of ['innerHTML', 'outerHTML']) {
  Object.defineProperty(Element.prototype, k, { get: refuse(k), set: refuse(k) });
}
Element.prototype.insertAdjacentHTML = refuse('insertAdjacentHTML');

class Document {
  constructor() {
    this.activeElement = null;
    this.body = new Element(this, 'body');
  }
  createElement(tag) {
    if (!/^[a-z][a-z0-9]*$/.test(tag)) throw new Error(`createElement(${JSON.stringify(tag)}): not a tag name`);
    return new Element(this, tag);
  }
  createTextNode(data) { return new Text(this, String(data)); }
  getElementById(id) { return this.body.all((e) => e.id === id)[0] || null; }
}
Document.prototype.write = refuse('document.write');

/**
 * chatDocument is a Document with the elements panel.js's page gives the
 * webview script (ids: tag), created empty.
 */
function chatDocument(ids) {
  const doc = new Document();
  for (const [id, tag] of Object.entries(ids)) {
    const e = doc.createElement(tag);
    e.id = id;
    doc.body.appendChild(e);
  }
  return doc;
}

module.exports = { Document, Element, Text, chatDocument };

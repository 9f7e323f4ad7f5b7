'use strict';
// The part of the vscode API that vscode-languageclient itself needs to start
// a client (events, URIs, documents, output channels, diagnostics): enough for
// extension.js to run the real LanguageClient against a real agentls in
// test/activate.test.js. It is merged into the stub of stub-vscode.js, whose
// strict proxy still rejects anything missing from both.

const { URL, fileURLToPath, pathToFileURL } = require('url');

class EventEmitter {
  constructor() {
    this.listeners = new Set();
    this.event = (fn, thisArg, disposables) => {
      const f = fn.bind(thisArg);
      this.listeners.add(f);
      const d = { dispose: () => this.listeners.delete(f) };
      if (Array.isArray(disposables)) disposables.push(d);
      return d;
    };
  }
  fire(e) { for (const f of [...this.listeners]) f(e); }
  dispose() { this.listeners.clear(); }
}

class Disposable {
  constructor(fn) { this.fn = fn; }
  static from(...ds) { return new Disposable(() => ds.forEach((d) => d && d.dispose && d.dispose())); }
  dispose() { if (this.fn) { const f = this.fn; this.fn = undefined; f(); } }
}

class Uri {
  constructor(scheme, path, query = '') { this.scheme = scheme; this.path = path; this.query = query; }
  static parse(s) {
    const u = new URL(s);
    return new Uri(u.protocol.replace(/:$/, ''), decodeURIComponent(u.pathname), u.search.replace(/^\?/, ''));
  }
  static file(p) { return new Uri('file', p); }
  static from({ scheme, path = '', query = '' }) { return new Uri(scheme, path, query); }
  static joinPath(base, ...parts) { return new Uri(base.scheme, require('path').posix.join(base.path, ...parts), ''); }
  get fsPath() { return this.path; }
  toString() {
    const q = this.query ? `?${this.query}` : '';
    return this.scheme === 'file' ? pathToFileURL(this.path).href + q : `${this.scheme}:${this.path}${q}`;
  }
  toJSON() { return this.toString(); }
}

class Position { constructor(line, character) { this.line = line; this.character = character; } }
class Range {
  constructor(a, b, c, d) {
    if (typeof a === 'number') { this.start = new Position(a, b); this.end = new Position(c, d); } else { this.start = a; this.end = b; }
  }
}

class CancellationTokenSource {
  constructor() {
    const emitter = new EventEmitter();
    this.token = { isCancellationRequested: false, onCancellationRequested: emitter.event };
    this.cancel = () => { if (!this.token.isCancellationRequested) { this.token.isCancellationRequested = true; emitter.fire(); } };
  }
  dispose() {}
}

/** textDocument is a vscode.TextDocument over a file's text. */
function textDocument(file, languageId, text) {
  const uri = Uri.file(file);
  return { uri, fileName: file, languageId, version: 1, isClosed: false, isDirty: false, isUntitled: false, getText: () => text, lineCount: text.split('\n').length };
}

function logChannel(name, channels) {
  const ch = { name, text: '', logLevel: 3, onDidChangeLogLevel: new EventEmitter().event };
  for (const level of ['trace', 'debug', 'info', 'warn', 'error']) ch[level] = (m) => { ch.text += `[${level}] ${m}\n`; };
  Object.assign(ch, { append(s) { ch.text += s; }, appendLine(s) { ch.text += s + '\n'; }, replace(s) { ch.text = s; }, clear() { ch.text = ''; }, show() {}, hide() {}, dispose() {} });
  channels[name] = ch;
  return ch;
}

class CodeActionKind {
  constructor(value) { this.value = value; }
  append(part) { return new CodeActionKind(this.value ? `${this.value}.${part}` : part); }
  contains(other) { return this.value === '' || other.value === this.value || other.value.startsWith(this.value + '.'); }
  intersects(other) { return this.contains(other) || other.contains(this); }
}
for (const [k, v] of Object.entries({ Empty: '', QuickFix: 'quickfix', Refactor: 'refactor', RefactorExtract: 'refactor.extract',
  RefactorInline: 'refactor.inline', RefactorMove: 'refactor.move', RefactorRewrite: 'refactor.rewrite', Source: 'source',
  SourceOrganizeImports: 'source.organizeImports', SourceFixAll: 'source.fixAll', Notebook: 'notebook' })) {
  CodeActionKind[k] = new CodeActionKind(v);
}

/** hostApi returns the API to merge into the stub; folder is the workspace folder, documents the open ones. */
function hostApi({ folder, documents = [], channels }) {
  const never = new EventEmitter().event;
  const uri = Uri.file(folder);
  return {
    version: '1.91.0',
    EventEmitter, Disposable, Uri, Position, Range, CancellationTokenSource, CodeActionKind,
    LogLevel: { Off: 0, Trace: 1, Debug: 2, Info: 3, Warning: 4, Error: 5 },
    ProgressLocation: { SourceControl: 1, Window: 10, Notification: 15 },
    TabInputText: class {}, TabInputNotebook: class {}, TabInputCustom: class {}, // TabInputTextDiff: stub-vscode.js
    env: { language: 'en', appName: 'agentls-test-host', openExternal: async () => true },
    workspace: {
      workspaceFolders: [{ uri, name: 'ws', index: 0 }],
      textDocuments: documents,
      notebookDocuments: [],
      onDidOpenTextDocument: never, onDidCloseTextDocument: never, onDidChangeTextDocument: never,
      onDidSaveTextDocument: never, onWillSaveTextDocument: never, onDidChangeConfiguration: never,
      onDidChangeWorkspaceFolders: never,
      onDidCreateFiles: never, onDidRenameFiles: never, onDidDeleteFiles: never,
      onWillCreateFiles: never, onWillRenameFiles: never, onWillDeleteFiles: never,
      onDidOpenNotebookDocument: never, onDidChangeNotebookDocument: never,
      onDidSaveNotebookDocument: never, onDidCloseNotebookDocument: never,
      getWorkspaceFolder: () => ({ uri, name: 'ws', index: 0 }),
    },
    window: {
      visibleTextEditors: [],
      onDidChangeVisibleTextEditors: never, onDidChangeActiveTextEditor: never,
      createOutputChannel: (name) => logChannel(name, channels),
      withProgress: (options, task) => task({ report() {} }, new CancellationTokenSource().token),
    },
    languages: {
      match: (selector, doc) => ([].concat(selector).some((s) => s.scheme === doc.uri.scheme) ? 10 : 0),
      createDiagnosticCollection: () => ({ set() {}, delete() {}, clear() {}, forEach() {}, get: () => [], has: () => false, dispose() {} }),
      registerCodeActionsProvider: () => new Disposable(() => {}),
    },
  };
}

module.exports = { hostApi, textDocument, Uri, EventEmitter, fileURLToPath };

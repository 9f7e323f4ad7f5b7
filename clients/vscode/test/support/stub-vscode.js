'use strict';
// A stand-in for the `vscode` module: the one seam the extension's logic is
// tested through. It records what the extension shows and answers dialogs
// with scripted functions. Only the API that lib/ uses is here; anything else
// throws, so a new use of the API cannot pass unnoticed.

const { TextDocument } = require('vscode-languageserver-textdocument');
const { Uri, EventEmitter } = require('./stub-host');

/** TabInputTextDiff is the input of a diff editor's tab. */
class TabInputTextDiff {
  constructor(original, modified) { this.original = original; this.modified = modified; }
}

/** fakeEditor is an active text editor over text, with a selection given by offsets. */
function fakeEditor(uri, languageId, text, selStart, selEnd) {
  const doc = TextDocument.create(uri, languageId, 1, text);
  const start = doc.positionAt(selStart);
  const end = doc.positionAt(selEnd === undefined ? selStart : selEnd);
  return {
    document: {
      uri: Uri.parse(uri),
      getText: (range) => (range ? doc.getText(range) : doc.getText()),
      lineCount: doc.lineCount,
      lineAt: (line) => ({ text: doc.getText({ start: { line, character: 0 }, end: { line: line + 1, character: 0 } }).replace(/\r?\n$/, '') }),
    },
    selection: { start, end, active: end, isEmpty: selStart === selEnd },
  };
}

/**
 * stubVscode returns {vscode, calls, answers, channels, items, commands, diffs, providers, contexts}.
 * host: {folder, documents} adds the API vscode-languageclient needs itself.
 * answers.warning(message, options, items), answers.quickPick(items, options),
 * answers.inputBox(options), answers.info(message, buttons) (a
 * notification's button, or undefined) and answers.diff(diff) (called once
 * the diff editor is open; diff: {left, right, title, original, proposed,
 * close()}) script the user's choices. `vscode.diff` opens a tab in
 * tabGroups; closing it fires onDidChangeTabs as VS Code does.
 * answers.tasks and answers.runTask(task) script vscode.tasks; terminals
 * are the Pseudoterminals window.createTerminal made.
 */
function stubVscode({ config = {}, editor, host, chat = false } = {}) {
  const calls = [];
  const channels = {};
  const items = [];
  const commands = new Map();
  const diffs = []; // every diff editor opened: {left, right, title, original, proposed, close}
  const providers = new Map(); // scheme -> TextDocumentContentProvider
  const contexts = {}; // setContext keys
  const answers = {
    warning: () => undefined,
    quickPick: () => undefined,
    inputBox: () => undefined,
    info: () => undefined,
    diff: () => {},
    diffFails: '', // set: vscode.diff throws this message
    diagnostics: () => [], // languages.getDiagnostics(uri); uri undefined: every [uri, diagnostics] pair
    tasks: [], // what tasks.fetchTasks answers
    runTask: () => ({ exitCode: 0 }), // tasks.executeTask(task): the end of its process ({exitCode}, or {} for none)
  };
  const webviewProviders = new Map(); // view id -> WebviewViewProvider
  // Every webview panel created: {viewType, title, show, options, html,
  // posted, receive(msg), disposed}.
  const webviewPanels = [];
  const participants = []; // {id, handler, participant} of vscode.chat.createChatParticipant
  const clipboard = [];
  const tabsChanged = new EventEmitter();
  const group = { tabs: [], viewColumn: 1, isActive: true };
  const terminals = []; // every terminal created: {options, shown, disposed, typed(data), output}
  const taskEnds = new EventEmitter(); // tasks.onDidEndTaskProcess
  const taskDone = new EventEmitter(); // tasks.onDidEndTask
  const executed = []; // every task executeTask ran
  const tabGroups = {
    all: [group],
    onDidChangeTabs: tabsChanged.event,
    onDidChangeTabGroups: new EventEmitter().event,
    async close(tabOrTabs) { // a tab or a list of them, as VS Code takes
      const list = Array.isArray(tabOrTabs) ? tabOrTabs : [tabOrTabs];
      const closed = [];
      for (const tab of list) {
        for (const g of tabGroups.all) {
          const i = g.tabs.indexOf(tab);
          if (i >= 0) { g.tabs.splice(i, 1); closed.push(tab); }
        }
      }
      if (closed.length === 0) return false;
      tabsChanged.fire({ opened: [], closed, changed: [] });
      return true;
    },
  };
  /** content reads a document as VS Code would: a virtual one from its provider, a file from the host's documents. */
  const content = (uri) => {
    const p = providers.get(uri.scheme);
    if (p) return p.provideTextDocumentContent(uri, { isCancellationRequested: false });
    const doc = docOf ? docOf(uri.toString()) : undefined;
    return doc === undefined ? undefined : doc;
  };
  let docOf; // set by setDocuments: uri string -> current text
  const builtins = {
    async 'vscode.diff'(left, right, title, options) {
      if (answers.diffFails) throw new Error(answers.diffFails);
      const tab = { label: title, input: new TabInputTextDiff(left, right), options };
      const d = {
        left, right, title, options, tab,
        original: await content(left),
        proposed: await content(right),
        close: () => tabGroups.close(tab),
      };
      group.tabs.push(tab);
      diffs.push(d);
      tabsChanged.fire({ opened: [tab], closed: [], changed: [] });
      setImmediate(() => answers.diff(d));
    },
    setContext(key, value) { contexts[key] = value; },
  };
  const record = (fn) => (...args) => {
    calls.push({ fn, args });
    return Promise.resolve(undefined);
  };
  const disposable = () => ({ dispose() {} });
  const vscode = {
    ...importTimeClasses(),
    StatusBarAlignment: { Left: 1, Right: 2 },
    ViewColumn: { Active: -1, Beside: -2, One: 1 },
    Uri, EventEmitter, TabInputTextDiff,
    workspace: {
      getConfiguration(section) {
        return { get: (key) => config[`${section}.${key}`] };
      },
      workspaceFolders: undefined,
      asRelativePath(uri) { return String(uri.path || uri).split('/').pop(); },
      registerTextDocumentContentProvider(scheme, provider) {
        if (providers.has(scheme)) throw new Error(`a provider for ${scheme} is registered already`);
        providers.set(scheme, provider);
        return { dispose: () => providers.delete(scheme) };
      },
    },
    languages: { getDiagnostics: (uri) => answers.diagnostics(uri) },
    tasks: {
      fetchTasks: async () => answers.tasks,
      async executeTask(task) {
        const execution = { task, terminate() {} };
        executed.push(task);
        if (!task.isBackground) {
          setImmediate(() => {
            const end = answers.runTask(task);
            taskEnds.fire({ execution, exitCode: end.exitCode });
            taskDone.fire({ execution });
          });
        }
        return execution;
      },
      onDidEndTaskProcess: taskEnds.event,
      onDidEndTask: taskDone.event,
    },
    env: { clipboard: { async writeText(t) { clipboard.push(t); } } },
    window: {
      activeColorTheme: { kind: 2 },
      createWebviewPanel(viewType, title, show, options) {
        const receivers = [];
        const disposers = [];
        const rec = { viewType, title, show, options, posted: [], disposed: false };
        rec.panel = {
          webview: {
            html: '',
            postMessage(msg) { rec.posted.push(JSON.parse(JSON.stringify(msg))); return Promise.resolve(true); },
            onDidReceiveMessage(fn) { receivers.push(fn); return disposable(); },
          },
          onDidDispose(fn) { disposers.push(fn); return disposable(); },
          dispose() { rec.disposed = true; for (const fn of disposers) fn(); },
        };
        Object.defineProperty(rec, 'html', { get: () => rec.panel.webview.html });
        rec.receive = (msg) => Promise.all(receivers.map((fn) => fn(JSON.parse(JSON.stringify(msg)))));
        webviewPanels.push(rec);
        return rec.panel;
      },
      activeTextEditor: editor,
      visibleTextEditors: editor ? [editor] : [],
      registerWebviewViewProvider(id, provider, options) {
        if (webviewProviders.has(id)) throw new Error(`a webview view provider for ${id} is registered already`);
        webviewProviders.set(id, { provider, options });
        return { dispose: () => webviewProviders.delete(id) };
      },
      showWarningMessage(message, options, ...rest) {
        calls.push({ fn: 'showWarningMessage', args: [message, options, ...rest] });
        if (options && options.modal) return Promise.resolve(answers.warning(message, options, rest));
        return Promise.resolve(undefined);
      },
      showInformationMessage(message, ...rest) {
        calls.push({ fn: 'showInformationMessage', args: [message, ...rest] });
        return Promise.resolve(rest.length && typeof rest[0] === 'string' ? answers.info(message, rest) : undefined);
      },
      tabGroups,
      // A terminal with a Pseudoterminal: opened a tick later, as VS Code
      // does once it shows it; output is what the pty wrote, typed(data) is
      // the user typing.
      createTerminal(options) {
        const rec = { options, shown: 0, disposed: false, output: '' };
        const pty = options.pty;
        pty.onDidWrite((d) => { rec.output += d; });
        rec.typed = (data) => pty.handleInput(data);
        rec.terminal = {
          name: options.name,
          show() { rec.shown++; },
          dispose() { rec.disposed = true; pty.close(); },
        };
        terminals.push(rec);
        setImmediate(() => pty.open({ columns: 80, rows: 24 }));
        return rec.terminal;
      },
      showErrorMessage: record('showErrorMessage'),
      showQuickPick(list, options) {
        calls.push({ fn: 'showQuickPick', args: [list, options] });
        return Promise.resolve(list).then((l) => answers.quickPick(l, options));
      },
      showInputBox(options) {
        calls.push({ fn: 'showInputBox', args: [options] });
        return Promise.resolve(answers.inputBox(options));
      },
      createOutputChannel(name) {
        const ch = {
          name,
          text: '',
          shown: false,
          append(s) { ch.text += s; },
          appendLine(s) { ch.text += s + '\n'; },
          show() { ch.shown = true; },
          dispose() {},
        };
        channels[name] = ch;
        return ch;
      },
      createStatusBarItem(alignment, priority) {
        let text = '';
        const item = {
          alignment, priority, tooltip: '', command: undefined, visible: false, history: [],
          get text() { return text; },
          set text(v) { text = v; item.history.push(v); },
          show() { item.visible = true; },
          dispose() {},
        };
        items.push(item);
        return item;
      },
    },
    commands: {
      registerCommand(id, fn) {
        if (commands.has(id)) throw new Error(`command '${id}' already exists`);
        commands.set(id, fn);
        return disposable();
      },
      executeCommand(id, ...args) {
        calls.push({ fn: 'executeCommand', args: [id, ...args] });
        if (builtins[id]) return Promise.resolve(builtins[id](...args));
        const fn = commands.get(id);
        if (!fn) return Promise.reject(new Error(`command '${id}' not found`));
        return Promise.resolve(fn(...args));
      },
    },
  };
  if (chat) {
    vscode.chat = {
      createChatParticipant(id, handler) {
        const participant = { id, iconPath: undefined, dispose() {} };
        participants.push({ id, handler, participant });
        return participant;
      },
    };
  }
  if (host) {
    // test/support/stub-host.js: what vscode-languageclient needs to run.
    const api = require('./stub-host').hostApi({ ...host, channels });
    for (const [k, v] of Object.entries(api)) {
      vscode[k] = v && typeof v === 'object' && vscode[k] && typeof vscode[k] === 'object' ? Object.assign(vscode[k], v) : v;
    }
  }
  /** setDocuments tells vscode.diff where a file's current text comes from: a function of the URI string. */
  const setDocuments = (fn) => { docOf = fn; };
  /**
   * openView resolves the webview view registered as id, as VS Code does
   * when the user opens it. Returns {webviewView, posted (every message the
   * extension posted), receive(msg) (a message from the page, awaited),
   * onPost(fn) (called with each posted message)}.
   */
  const openView = (id) => {
    const reg = webviewProviders.get(id);
    if (!reg) throw new Error(`no webview view provider for ${id}`);
    const posted = [];
    const receivers = [];
    const watchers = [];
    const webviewView = {
      visible: true,
      shown: 0,
      show() { webviewView.shown++; },
      onDidDispose: () => disposable(),
      webview: {
        options: {},
        html: '',
        cspSource: 'https://file+.vscode-resource.vscode-cdn.net',
        asWebviewUri: (u) => ({ toString: () => `https://file+.vscode-resource.vscode-cdn.net${u.path}` }),
        postMessage(msg) {
          const copy = JSON.parse(JSON.stringify(msg)); // what crosses to the page is JSON
          posted.push(copy);
          for (const w of watchers) w(copy);
          return Promise.resolve(true);
        },
        onDidReceiveMessage(fn) { receivers.push(fn); return disposable(); },
      },
    };
    reg.provider.resolveWebviewView(webviewView, {}, { isCancellationRequested: false });
    return {
      webviewView, posted, options: reg.options,
      receive: (msg) => Promise.all(receivers.map((fn) => fn(JSON.parse(JSON.stringify(msg))))),
      onPost: (fn) => watchers.push(fn),
    };
  };
  return { vscode: strict(vscode, 'vscode'), calls, answers, channels, items, commands, diffs, providers, contexts, setDocuments, webviewPanels,
    openView, participants, clipboard, terminals, executed, tabGroup: group };
}

// importTimeClasses are the classes vscode-languageclient extends when it is
// loaded (extension.js requires it); lib/ uses none of them.
function importTimeClasses() {
  const out = {};
  for (const name of ['CallHierarchyItem', 'CodeLens', 'CompletionItem', 'DocumentLink', 'InlayHint',
    'SymbolInformation', 'TypeHierarchyItem', 'CodeAction', 'Diagnostic']) {
    out[name] = class {};
  }
  out.CancellationError = class extends Error {};
  return out;
}

// strict makes a read of an API the stub lacks throw instead of returning undefined.
function strict(obj, name) {
  return new Proxy(obj, {
    get(target, prop) {
      if (typeof prop === 'symbol' || prop === 'then' || prop === '__esModule' || prop in target) {
        const v = target[prop];
        return v && typeof v === 'object' && !Array.isArray(v) && prop !== 'activeTextEditor' ? strict(v, `${name}.${String(prop)}`) : v;
      }
      throw new Error(`the vscode stub has no ${name}.${String(prop)}: add it to test/stub-vscode.js if the extension now needs it`);
    },
  });
}

module.exports = { stubVscode, fakeEditor };

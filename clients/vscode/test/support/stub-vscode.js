'use strict';
// A stand-in for the `vscode` module: the one seam the extension's logic is
// tested through. It records what the extension shows and answers dialogs
// with scripted functions. Only the API that lib/ uses is here; anything else
// throws, so a new use of the API cannot pass unnoticed.

const { TextDocument } = require('vscode-languageserver-textdocument');

/** fakeEditor is an active text editor over text, with a selection given by offsets. */
function fakeEditor(uri, languageId, text, selStart, selEnd) {
  const doc = TextDocument.create(uri, languageId, 1, text);
  const start = doc.positionAt(selStart);
  const end = doc.positionAt(selEnd === undefined ? selStart : selEnd);
  return {
    document: {
      uri: { toString: () => uri },
      getText: (range) => (range ? doc.getText(range) : doc.getText()),
      lineAt: (line) => ({ text: doc.getText({ start: { line, character: 0 }, end: { line: line + 1, character: 0 } }).replace(/\r?\n$/, '') }),
    },
    selection: { start, end, active: end, isEmpty: selStart === selEnd },
  };
}

/**
 * stubVscode returns {vscode, calls, answers, channels, items, commands}.
 * host: {folder, documents} adds the API vscode-languageclient needs itself.
 * answers.warning(message, options, items), answers.quickPick(items, options)
 * and answers.inputBox(options) script the user's choices.
 */
function stubVscode({ config = {}, editor, host } = {}) {
  const calls = [];
  const channels = {};
  const items = [];
  const commands = new Map();
  const answers = {
    warning: () => undefined,
    quickPick: () => undefined,
    inputBox: () => undefined,
  };
  const record = (fn) => (...args) => {
    calls.push({ fn, args });
    return Promise.resolve(undefined);
  };
  const disposable = () => ({ dispose() {} });
  const vscode = {
    ...importTimeClasses(),
    StatusBarAlignment: { Left: 1, Right: 2 },
    workspace: {
      getConfiguration(section) {
        return { get: (key) => config[`${section}.${key}`] };
      },
    },
    window: {
      activeTextEditor: editor,
      showWarningMessage(message, options, ...rest) {
        calls.push({ fn: 'showWarningMessage', args: [message, options, ...rest] });
        if (options && options.modal) return Promise.resolve(answers.warning(message, options, rest));
        return Promise.resolve(undefined);
      },
      showInformationMessage: record('showInformationMessage'),
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
        const fn = commands.get(id);
        if (!fn) return Promise.reject(new Error(`command '${id}' not found`));
        return Promise.resolve(fn(...args));
      },
    },
  };
  if (host) {
    // test/support/stub-host.js: what vscode-languageclient needs to run.
    const api = require('./stub-host').hostApi({ ...host, channels });
    for (const [k, v] of Object.entries(api)) {
      vscode[k] = v && typeof v === 'object' && vscode[k] && typeof vscode[k] === 'object' ? Object.assign(vscode[k], v) : v;
    }
  }
  return { vscode: strict(vscode, 'vscode'), calls, answers, channels, items, commands };
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

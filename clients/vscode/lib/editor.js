'use strict';
// The editor extras (docs/protocol.md sections 1 and 9): what this VS Code
// offers an outside MCP agent through agentls besides its documents. agentls
// sends the agent/editor/* requests only for an outside agent's call (and
// asks the user first where the call runs something: send_to_terminal,
// run_task); this file answers them from the vscode API:
//
// - tabs: vscode.window.tabGroups (closeTab never closes a tab with unsaved
//   changes);
// - terminals: only the ones agentls created, each a Pseudoterminal over a
//   shell of its own (a child process with pipes, no pty), so the extension
//   sees its output and keeps the latest of it for readTerminal; a user's own
//   terminal is never listed, read or written;
// - tasks: vscode.tasks (fetchTasks, executeTask, the end of its process);
// - diagnostics: every diagnostic VS Code holds (vscode.languages), as LSP
//   Diagnostic objects, of all its language servers and extensions.
//
// Paths are absolute file-system paths, never URIs. A request this editor
// cannot answer (an unknown terminal or task) is a JSON-RPC error saying so.

const { spawn } = require('child_process');
const path = require('path');
const { StringDecoder } = require('string_decoder');

/** EXTRAS is capabilities.experimental.agentls.editor: every extra this file answers. */
const EXTRAS = Object.freeze({ tabs: true, terminals: true, tasks: true, diagnostics: true });

/** OUTPUT_CAP is how much of a terminal's latest output is kept: the most read_terminal gives (1 MiB). */
const OUTPUT_CAP = 1 << 20;

/** INVALID_PARAMS and REQUEST_FAILED are the JSON-RPC error codes of a bad request and of one that cannot be done. */
const INVALID_PARAMS = -32602;
const REQUEST_FAILED = -32803; // LSP's RequestFailed

let ResponseError;
try {
  ({ ResponseError } = require('vscode-jsonrpc'));
} catch {
  ResponseError = undefined;
}

/** rpcError is the error a handler throws: a JSON-RPC error with code and message, as is. */
function rpcError(code, message) {
  if (ResponseError) return new ResponseError(code, message);
  const err = new Error(message);
  err.code = code;
  return err;
}

/** needString returns params[key] when it is a non-empty string, else throws a clear error. */
function needString(method, params, key, example) {
  const v = params && params[key];
  if (typeof v !== 'string' || v === '') {
    throw rpcError(INVALID_PARAMS, `${method}: ${key} must be a non-empty string (${example}); it is ${JSON.stringify(v)}`);
  }
  return v;
}

/** samePath says whether two absolute paths name the same file (case-insensitively on Windows and macOS). */
function samePath(a, b, platform = process.platform) {
  const na = path.normalize(a);
  const nb = path.normalize(b);
  return platform === 'win32' || platform === 'darwin' ? na.toLowerCase() === nb.toLowerCase() : na === nb;
}

/** tabUri is the document a tab shows: a text, custom or notebook editor's, a diff's modified side; undefined for the rest. */
function tabUri(tab) {
  const input = tab && tab.input;
  if (!input || typeof input !== 'object') return undefined;
  return input.uri || input.modified || undefined;
}

/** tabPath is the file of a tab, "" when it is not a file (a terminal, a webview, an untitled buffer, a virtual document). */
function tabPath(tab) {
  const uri = tabUri(tab);
  return uri && uri.scheme === 'file' ? uri.fsPath : '';
}

/** listTabs is agent/editor/tabs's result: every tab of every group; active is the one tab with focus. */
function listTabs(vscode) {
  const tabs = [];
  for (const group of vscode.window.tabGroups.all) {
    for (const tab of group.tabs) {
      tabs.push({
        path: tabPath(tab),
        label: String(tab.label),
        active: Boolean(tab.isActive && group.isActive),
        dirty: Boolean(tab.isDirty),
        group: typeof group.viewColumn === 'number' ? group.viewColumn : 0,
      });
    }
  }
  return { tabs };
}

/** closeTab closes every tab of the file at path, unless one has unsaved changes (then none). */
async function closeTab(vscode, params) {
  const file = needString('agent/editor/closeTab', params, 'path', 'the absolute path of a file');
  const tabs = [];
  for (const group of vscode.window.tabGroups.all) {
    for (const tab of group.tabs) {
      const p = tabPath(tab);
      if (p && samePath(p, file)) tabs.push(tab);
    }
  }
  if (tabs.length === 0) return { closed: false, reason: `no tab of ${file} is open` };
  if (tabs.some((t) => t.isDirty)) {
    return { closed: false, reason: `${file} has unsaved changes in VS Code: the user saves or reverts them first, so the tab stays open` };
  }
  const ok = await vscode.window.tabGroups.close(tabs, true);
  return ok === false ? { closed: false, reason: `VS Code did not close the tab of ${file}` } : { closed: true };
}

/** shellOf is the shell an agentls terminal runs: $SHELL (else /bin/sh), or %ComSpec% on Windows. */
function shellOf(platform = process.platform, env = process.env) {
  if (platform === 'win32') return env.ComSpec || 'cmd.exe';
  return env.SHELL || '/bin/sh';
}

/** OutputRing keeps the latest cap bytes of a terminal's output. */
class OutputRing {
  constructor(cap = OUTPUT_CAP) {
    this.cap = cap;
    this.chunks = [];
    this.size = 0;
  }

  push(data) {
    const b = Buffer.isBuffer(data) ? data : Buffer.from(String(data), 'utf8');
    if (b.length === 0) return;
    this.chunks.push(b);
    this.size += b.length;
    while (this.size > this.cap) {
      const over = this.size - this.cap;
      const first = this.chunks[0];
      if (first.length <= over) {
        this.chunks.shift();
        this.size -= first.length;
      } else {
        this.chunks[0] = first.subarray(over);
        this.size -= over;
      }
    }
  }

  /** tail is the last maxBytes bytes as text, starting at a whole character. */
  tail(maxBytes) {
    const all = Buffer.concat(this.chunks, this.size);
    let start = Math.max(0, all.length - maxBytes);
    while (start < all.length && (all[start] & 0xc0) === 0x80) start++; // inside a character
    return all.subarray(start).toString('utf8');
  }

  text() { return this.tail(this.size); }
}

/** crlf turns the shell's newlines into the terminal's. */
const crlf = (s) => s.replace(/\r?\n/g, '\r\n');

/**
 * agentlsTerminal makes a terminal of agentls: a shell (a child process
 * with pipes) in cwd behind a Pseudoterminal. What the shell prints and what
 * is typed goes to the terminal and to its ring of output. A user can type
 * in it too (a line is sent on Enter). Resolves once the shell started;
 * rejects when it cannot start.
 */
async function agentlsTerminal(vscode, { id, name, cwd, shell, onGone }) {
  const out = new OutputRing();
  const write = new vscode.EventEmitter();
  const done = new vscode.EventEmitter();
  let opened = false;
  let exited = false;
  let line = ''; // what the user typed since the last Enter
  const show = (text) => {
    out.push(text);
    if (opened) write.fire(crlf(text));
  };
  const env = { ...process.env, TERM: 'dumb' };
  delete env.ELECTRON_RUN_AS_NODE; // VS Code's own, not for the shell's programs
  const child = spawn(shell, [], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true });
  child.stdin.on('error', () => {}); // a shell that exited: sendTerminal says so
  for (const stream of [child.stdout, child.stderr]) {
    const dec = new StringDecoder('utf8');
    stream.on('data', (d) => show(dec.write(d)));
  }
  await new Promise((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', (err) => reject(rpcError(REQUEST_FAILED, `cannot start the shell ${shell} in ${cwd}: ${err.message}`)));
  });
  child.once('exit', (code, signal) => {
    exited = true;
    show(`\n[the shell exited${signal ? ` on ${signal}` : ` with code ${code}`}]\n`);
  });
  const pty = {
    onDidWrite: write.event,
    onDidClose: done.event,
    open() {
      opened = true;
      const before = out.text();
      if (before) write.fire(crlf(before)); // what came before VS Code showed it
    },
    close() { // the user closed the terminal
      stop();
      onGone(id);
    },
    handleInput(data) {
      for (const ch of data) {
        if (ch === '\r') {
          const typed = line;
          line = '';
          write.fire('\r\n');
          out.push(typed + '\n');
          if (!exited) child.stdin.write(typed + '\n');
        } else if (ch === '\x7f' || ch === '\b') {
          if (line) {
            line = line.slice(0, -1);
            write.fire('\b \b');
          }
        } else if (ch === '\x03') {
          line = '';
          write.fire('^C\r\n');
        } else if (ch >= ' ' && ch !== '\x7f') {
          line += ch;
          write.fire(ch);
        }
      }
    },
  };
  const terminal = vscode.window.createTerminal({ name, pty });
  const stop = () => {
    opened = false;
    if (!exited) {
      child.stdin.end();
      child.kill();
    }
    write.dispose();
    done.dispose();
  };
  return {
    id, name, terminal,
    send(text) {
      if (exited) throw rpcError(REQUEST_FAILED, `the shell of terminal ${id} has exited: create_terminal makes a new one`);
      show(text + '\n');
      child.stdin.write(text + '\n');
    },
    read: (maxBytes) => out.tail(maxBytes),
    dispose() {
      stop();
      terminal.dispose();
    },
  };
}

/** taskDetail is a task's command line (its shell or process execution), else its definition as JSON. */
function taskDetail(task) {
  const quote = (a) => {
    const s = a && typeof a === 'object' ? String(a.value) : String(a);
    return /[\s"']/.test(s) || s === '' ? JSON.stringify(s) : s;
  };
  const ex = task.execution;
  if (ex && typeof ex.commandLine === 'string' && ex.commandLine) return ex.commandLine;
  if (ex && ex.command !== undefined) return [quote(ex.command), ...(ex.args || []).map(quote)].join(' ');
  if (ex && typeof ex.process === 'string') return [quote(ex.process), ...(ex.args || []).map(quote)].join(' ');
  return JSON.stringify(task.definition || {});
}

/** findTask is the one task of tasks named name (of source, when given), or a clear error. */
function findTask(tasks, name, source) {
  const found = tasks.filter((t) => t.name === name && (!source || t.source === source));
  if (found.length === 1) return found[0];
  if (found.length === 0) {
    const all = tasks.map((t) => `${t.name} (${t.source})`).join(', ') || 'none';
    throw rpcError(REQUEST_FAILED, `VS Code has no task ${JSON.stringify(name)}${source ? ` of ${source}` : ''}; its tasks: ${all}`);
  }
  throw rpcError(REQUEST_FAILED, `${found.length} tasks are named ${JSON.stringify(name)}: give the source, one of ${found.map((t) => t.source).join(', ')}`);
}

/**
 * runTask runs the named task in VS Code's task runner and resolves when its
 * process ends: {exitCode}, or {} when VS Code gives none (a custom
 * execution, a terminated task) and at once for a background task.
 */
async function runTask(vscode, params, token) {
  const name = needString('agent/editor/runTask', params, 'name', 'a task of agent/editor/tasks');
  const source = typeof params.source === 'string' ? params.source : '';
  const task = findTask(await vscode.tasks.fetchTasks(), name, source);
  const subs = [];
  let exec;
  const seen = []; // ends heard before executeTask answered
  let finish;
  const ended = new Promise((resolve, reject) => {
    finish = (res, err) => {
      for (const s of subs.splice(0)) s.dispose();
      if (err) reject(err); else resolve(res);
    };
  });
  const mine = (e) => e.execution === exec;
  const onEnd = (e, res) => {
    if (!exec) seen.push([e, res]);
    else if (mine(e)) finish(res);
  };
  subs.push(vscode.tasks.onDidEndTaskProcess((e) => onEnd(e, typeof e.exitCode === 'number' ? { exitCode: e.exitCode } : {})));
  subs.push(vscode.tasks.onDidEndTask((e) => onEnd(e, {})));
  if (token && token.onCancellationRequested) {
    subs.push(token.onCancellationRequested(() => finish(undefined, rpcError(-32800, `the run of the task ${name} was cancelled; the task goes on in VS Code`))));
  }
  try {
    exec = await vscode.tasks.executeTask(task);
  } catch (err) {
    finish(undefined, rpcError(REQUEST_FAILED, `VS Code could not run the task ${name} (${task.source}): ${err.message}`));
    return ended;
  }
  if (task.isBackground) {
    finish({});
    return ended;
  }
  for (const [e, res] of seen) if (mine(e)) finish(res);
  return ended;
}

/** lspRange is a vscode Range as LSP sends it. */
function lspRange(r) {
  return {
    start: { line: r.start.line, character: r.start.character },
    end: { line: r.end.line, character: r.end.character },
  };
}

/** lspDiagnostic is a vscode.Diagnostic as an LSP Diagnostic (severity 1 is Error; related locations keep their URIs, as LSP's do). */
function lspDiagnostic(d) {
  const out = { range: lspRange(d.range), severity: typeof d.severity === 'number' ? d.severity + 1 : 1, message: String(d.message) };
  if (d.code !== undefined && d.code !== null && d.code !== '') {
    if (typeof d.code === 'object') {
      out.code = d.code.value;
      if (d.code.target) out.codeDescription = { href: String(d.code.target) };
    } else {
      out.code = d.code;
    }
  }
  if (d.source) out.source = String(d.source);
  const tags = (d.tags || []).filter((t) => t === 1 || t === 2); // Unnecessary, Deprecated: the same numbers in LSP
  if (tags.length) out.tags = tags;
  if (Array.isArray(d.relatedInformation) && d.relatedInformation.length) {
    out.relatedInformation = d.relatedInformation.map((ri) => ({
      location: { uri: String(ri.location.uri), range: lspRange(ri.location.range) },
      message: String(ri.message),
    }));
  }
  return out;
}

/** diagnostics is agent/editor/diagnostics's result: every file's (or path's) diagnostics VS Code holds. */
function diagnostics(vscode, params) {
  const want = params && typeof params.path === 'string' ? params.path : '';
  if (want) {
    if (!path.isAbsolute(want)) throw rpcError(INVALID_PARAMS, `agent/editor/diagnostics: path must be absolute; it is ${JSON.stringify(want)}`);
    return { files: [{ path: want, diagnostics: vscode.languages.getDiagnostics(vscode.Uri.file(want)).map(lspDiagnostic) }] };
  }
  const files = [];
  for (const [uri, list] of vscode.languages.getDiagnostics()) {
    if (uri.scheme !== 'file' || list.length === 0) continue;
    files.push({ path: uri.fsPath, diagnostics: list.map(lspDiagnostic) });
  }
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { files };
}

/**
 * registerEditor answers every agent/editor/* request on client (anything
 * with onRequest: vscode-languageclient's LanguageClient, or a protocol
 * connection in tests). Returns {terminals (id -> terminal), disposables};
 * disposing ends the shells of agentls's terminals. shell overrides the
 * terminals' shell (tests).
 */
function registerEditor(vscode, client, { shell } = {}) {
  const terminals = new Map();
  let seq = 0;
  const terminal = (method, params) => {
    const id = needString(method, params, 'id', 'a terminal of agent/editor/terminals');
    const t = terminals.get(id);
    if (!t) {
      const ids = [...terminals.keys()].join(', ') || 'none';
      throw rpcError(REQUEST_FAILED, `no terminal of agentls has the id ${JSON.stringify(id)} (they are: ${ids})`);
    }
    return t;
  };
  const handlers = {
    'agent/editor/tabs': () => listTabs(vscode),
    'agent/editor/closeTab': (p) => closeTab(vscode, p),
    'agent/editor/terminals': () => ({ terminals: [...terminals.values()].map((t) => ({ id: t.id, name: t.name })) }),
    'agent/editor/createTerminal': async (p) => {
      const cwd = needString('agent/editor/createTerminal', p, 'cwd', 'an absolute folder');
      if (!path.isAbsolute(cwd)) throw rpcError(INVALID_PARAMS, `agent/editor/createTerminal: cwd must be an absolute folder; it is ${JSON.stringify(cwd)}`);
      const name = typeof p.name === 'string' && p.name ? p.name : 'agentls';
      const id = `agentls-${++seq}`;
      const t = await agentlsTerminal(vscode, {
        id, name: `${name} (agentls)`, cwd, shell: shell || shellOf(),
        onGone: (gone) => terminals.delete(gone),
      });
      t.name = name;
      terminals.set(id, t);
      t.terminal.show(true); // the user sees what the agent types; the focus stays
      return { id };
    },
    'agent/editor/sendTerminal': (p) => {
      const t = terminal('agent/editor/sendTerminal', p);
      if (typeof p.text !== 'string') throw rpcError(INVALID_PARAMS, `agent/editor/sendTerminal: text must be a string; it is ${JSON.stringify(p.text)}`);
      t.send(p.text);
      return {};
    },
    'agent/editor/readTerminal': (p) => {
      const t = terminal('agent/editor/readTerminal', p);
      const max = Number.isInteger(p.maxBytes) && p.maxBytes > 0 ? Math.min(p.maxBytes, OUTPUT_CAP) : OUTPUT_CAP;
      return { text: t.read(max) };
    },
    'agent/editor/tasks': async () => ({
      tasks: (await vscode.tasks.fetchTasks()).map((t) => ({ name: t.name, source: t.source, detail: taskDetail(t) })),
    }),
    'agent/editor/runTask': (p, token) => runTask(vscode, p || {}, token),
    'agent/editor/diagnostics': (p) => diagnostics(vscode, p),
  };
  const disposables = Object.entries(handlers).map(([method, fn]) => client.onRequest(method, (params, token) => fn(params || {}, token)));
  disposables.push({
    dispose() {
      for (const t of terminals.values()) t.dispose();
      terminals.clear();
    },
  });
  return { terminals, handlers, disposables };
}

module.exports = { EXTRAS, OUTPUT_CAP, registerEditor, listTabs, closeTab, tabPath, taskDetail, findTask, runTask, lspDiagnostic, diagnostics, OutputRing, shellOf, samePath };

'use strict';
// What the user typed in the chat, read: a slash command (/new, /compact,
// /mcp, /sessions, /rewind, /SERVER.PROMPT for an MCP server's prompt), or a prompt
// with mentions that attach context: @selection (the active editor's
// selection), @file (the active editor's file), @file:PATH (a workspace
// file, for the model to read) and #diagnostics (the active file's
// problems). Pure: the panel resolves the mentions through vscode.

const BUILTIN = Object.freeze([
  { name: 'new', description: 'start an empty conversation' },
  { name: 'compact', description: "summarize older turns to fit the model's window" },
  { name: 'mcp', description: 'the MCP servers: state, tools, trust' },
  { name: 'sessions', description: 'past sessions to reopen' },
  { name: 'rewind', description: 'go back to before a turn: its files and later ones put back' },
]);

// A prompt command's name: /SERVER.PROMPT, as ACP offers them.
const PROMPT_NAME = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_.-]{1,64}$/;
const MENTION = /(^|\s)(@selection|@file(?::("[^"]+"|\S+))?|#diagnostics)(?=$|\s|[,.;:!?])/g;

/**
 * parse reads one line of input. Returns {command, rest} for a slash
 * command (command is a builtin's name or SERVER.PROMPT), else {prompt,
 * mentions: {selection, file, diagnostics, files: [PATH]}}.
 */
function parse(text) {
  const s = String(text || '').trim();
  const m = /^\/(\S+)(?:\s+([\s\S]*))?$/.exec(s);
  if (m && (BUILTIN.some((b) => b.name === m[1]) || PROMPT_NAME.test(m[1]))) {
    return { command: m[1], rest: (m[2] || '').trim() };
  }
  const mentions = { selection: false, file: false, diagnostics: false, files: [] };
  for (const x of s.matchAll(MENTION)) {
    const word = x[2];
    if (word === '@selection') mentions.selection = true;
    else if (word === '#diagnostics') mentions.diagnostics = true;
    else if (x[3]) mentions.files.push(x[3].replace(/^"(.*)"$/, '$1'));
    else mentions.file = true;
  }
  return { prompt: s, mentions };
}

/** promptCommands lists the /SERVER.PROMPT commands of agent/mcp/servers' rows. */
function promptCommands(servers) {
  const out = [];
  for (const s of servers || []) {
    if (!s || s.state !== 'connected') continue;
    for (const p of s.prompts || []) {
      const name = `${s.name}.${p.name}`;
      if (!PROMPT_NAME.test(name)) continue;
      const args = (p.arguments || []).map((a) => (a.required ? `${a.name}=…` : `[${a.name}=…]`)).join(' ');
      out.push({ name, server: s.name, prompt: p, description: [p.description || p.title || '', args].filter(Boolean).join(' ') });
    }
  }
  return out;
}

/**
 * promptArguments reads the text after /SERVER.PROMPT: name=value pairs
 * ("quoted" for spaces), or without a '=', the value of the prompt's
 * first required argument. Returns {args} or {error} saying what the
 * prompt takes.
 */
function promptArguments(prompt, rest) {
  const spec = prompt.arguments || [];
  const takes = () => (spec.length
    ? `it takes ${spec.map((a) => `${a.name}${a.required ? ' (required)' : ''}`).join(', ')}`
    : 'it takes no arguments');
  const args = {};
  const text = String(rest || '').trim();
  if (text && !/^[\w.-]+=/.test(text)) {
    const first = spec.find((a) => a.required) || spec[0];
    if (!first) return { error: `${prompt.name} takes no arguments` };
    args[first.name] = text.replace(/^"(.*)"$/, '$1');
  } else {
    for (const m of text.matchAll(/([\w.-]+)=("([^"]*)"|\S*)/g)) {
      if (!spec.some((a) => a.name === m[1])) return { error: `${prompt.name} has no argument ${m[1]}: ${takes()}` };
      args[m[1]] = m[3] !== undefined ? m[3] : m[2];
    }
  }
  for (const a of spec) {
    if (a.required && !(a.name in args)) return { error: `${prompt.name} needs ${a.name}: ${takes()}` };
  }
  return { args };
}

module.exports = { parse, promptCommands, promptArguments, BUILTIN };

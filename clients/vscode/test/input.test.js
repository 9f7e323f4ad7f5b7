'use strict';
// What the chat reads in a line (lib/chat/input.js): slash commands,
// mentions, and an MCP prompt's arguments.

const test = require('node:test');
const assert = require('node:assert/strict');
const { parse, promptCommands, promptArguments } = require('../lib/chat/input');

const none = { selection: false, file: false, diagnostics: false, files: [] };

test('parse: slash commands and mentions', () => {
  for (const [line, want] of [
    ['/new', { command: 'new', rest: '' }],
    ['  /compact  ', { command: 'compact', rest: '' }],
    ['/fault.greet name=Ada', { command: 'fault.greet', rest: 'name=Ada' }],
    ['/sessions', { command: 'sessions', rest: '' }],
    ['/rewind', { command: 'rewind', rest: '' }],
    // Not a command: a path, an unknown word. The model gets it as typed.
    ['/usr/bin is odd', { prompt: '/usr/bin is odd', mentions: none }],
    ['/unknown', { prompt: '/unknown', mentions: none }],
    ['fix this @selection', { prompt: 'fix this @selection', mentions: { ...none, selection: true } }],
    ['explain @file, please', { prompt: 'explain @file, please', mentions: { ...none, file: true } }],
    ['compare @file:lib/a.js and @file:"my dir/b.js"', { prompt: 'compare @file:lib/a.js and @file:"my dir/b.js"', mentions: { ...none, files: ['lib/a.js', 'my dir/b.js'] } }],
    ['#diagnostics only', { prompt: '#diagnostics only', mentions: { ...none, diagnostics: true } }],
    // A mention is a word of its own: an address or a tag is not one.
    ['mail me@selection.org about issue#diagnostics', { prompt: 'mail me@selection.org about issue#diagnostics', mentions: none }],
  ]) {
    assert.deepEqual(parse(line), want, line);
  }
});

test('promptCommands: the prompts of connected servers, named as ACP names them', () => {
  const servers = [
    { name: 'fault', state: 'connected', prompts: [{ name: 'greet', description: 'Greets someone.', arguments: [{ name: 'name', required: true }] },
      { name: 'bad name!', description: 'x' }] },
    { name: 'off', state: 'failed', prompts: [{ name: 'p' }] },
  ];
  assert.deepEqual(promptCommands(servers).map((c) => [c.name, c.description]), [['fault.greet', 'Greets someone. name=…']]);
});

test('promptArguments: name=value pairs, a bare value for the first required one, and what is wrong said', () => {
  const p = { name: 'greet', arguments: [{ name: 'name', required: true }, { name: 'tone' }] };
  assert.deepEqual(promptArguments(p, 'Ada'), { args: { name: 'Ada' } });
  assert.deepEqual(promptArguments(p, '"Ada Lovelace"'), { args: { name: 'Ada Lovelace' } });
  assert.deepEqual(promptArguments(p, 'name="Ada L" tone=warm'), { args: { name: 'Ada L', tone: 'warm' } });
  assert.deepEqual(promptArguments(p, ''), { error: 'greet needs name: it takes name (required), tone' });
  assert.deepEqual(promptArguments(p, 'colour=red'), { error: 'greet has no argument colour: it takes name (required), tone' });
  assert.deepEqual(promptArguments({ name: 'x' }, 'y'), { error: 'x takes no arguments' });
});

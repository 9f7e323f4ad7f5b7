'use strict';
// An MCP server's question (lib/elicit.js) with the vscode module stubbed:
// the card's modal, then the form field by field.

const test = require('node:test');
const assert = require('node:assert/strict');

const { stubVscode } = require('./support/stub-vscode');
const { requestApproval } = require('../lib/approvals');
const { check, DECLINED } = require('../lib/elicit');

const question = {
  approvalId: 'a9', kind: 'elicitation', server: 'github',
  title: 'github asks: Where to?', detail: 'MCP server github asks (its own words):\n  │ Where to?',
  elicitation: {
    mode: 'form', message: 'Where to?',
    fields: [
      { name: 'name', type: 'string', required: true },
      { name: 'age', title: 'Age', type: 'integer', minimum: 1, maximum: 120, default: 30 },
      { name: 'color', type: 'string', choices: [{ value: 'r', title: 'Red' }, { value: 'g' }] },
      { name: 'agree', type: 'boolean', required: true },
      { name: 'tags', type: 'array', choices: [{ value: 'a' }, { value: 'b' }], default: ['a'] },
    ],
  },
  options: [
    { optionId: 'accept', name: 'Submit', kind: 'allow_once' },
    { optionId: 'decline', name: 'Decline', kind: 'reject_once' },
  ],
};

test('elicitation', async (t) => {
  await t.test('Submit asks each field and sends what was entered', async () => {
    const s = stubVscode();
    s.answers.warning = (m, o, b) => b[0];
    const inputs = { name: 'Ada', age: '36' };
    s.answers.inputBox = (opts) => {
      const field = opts.title.includes('Age') ? 'age' : 'name';
      assert.equal(opts.validateInput(''), field === 'name' ? 'expected required' : null);
      return inputs[field];
    };
    s.answers.quickPick = (items, opts) => {
      if (opts.canPickMany) return items.filter((i) => i.value === 'b');
      if (items[0].label === 'Yes') return items[0];
      return items.find((i) => i.label === 'Red');
    };
    const res = await requestApproval(s.vscode, question);
    assert.deepEqual(res, { outcome: 'selected', optionId: 'accept', content: { name: 'Ada', age: 36, color: 'r', agree: true, tags: ['b'] } });
    const boxes = s.calls.filter((c) => c.fn === 'showInputBox').map((c) => c.args[0]);
    assert.equal(boxes[0].title, 'github asks: name');
    assert.equal(boxes[1].value, '30', 'the default is prefilled');
    const [message, options] = s.calls.find((c) => c.fn === 'showWarningMessage').args;
    assert.equal(message, question.title);
    assert.equal(options.detail, question.detail);
  });
  await t.test('an optional field can be left out', async () => {
    const s = stubVscode();
    s.answers.warning = (m, o, b) => b[0];
    s.answers.inputBox = (opts) => (opts.title.includes('Age') ? '' : 'Ada');
    s.answers.quickPick = (items, opts) => (opts.canPickMany ? [] : items.find((i) => i.skip) || items[1]);
    const res = await requestApproval(s.vscode, question);
    assert.deepEqual(res, { outcome: 'selected', optionId: 'accept', content: { name: 'Ada', agree: false, tags: [] } });
  });
  await t.test('Escape in the middle of the form declines', async () => {
    const s = stubVscode();
    s.answers.warning = (m, o, b) => b[0];
    s.answers.inputBox = () => 'Ada';
    s.answers.quickPick = () => undefined;
    assert.deepEqual(await requestApproval(s.vscode, question), DECLINED);
  });
  await t.test('Decline, or a dismissed card, declines', async () => {
    const s = stubVscode();
    s.answers.warning = (m, o, b) => b[1];
    assert.deepEqual(await requestApproval(s.vscode, question), DECLINED);
    const s2 = stubVscode();
    assert.deepEqual(await requestApproval(s2.vscode, question), DECLINED);
  });
  await t.test('a URL question returns the option picked; the server opens it', async () => {
    const s = stubVscode();
    s.answers.warning = (m, o, b) => b[0];
    const url = { ...question, elicitation: { mode: 'url', message: 'Sign in', url: 'https://example.com/x' },
      options: [{ optionId: 'accept', name: 'Open example.com', kind: 'allow_once' }, question.options[1]] };
    assert.deepEqual(await requestApproval(s.vscode, url), { outcome: 'selected', optionId: 'accept' });
  });
  await t.test('a hostile form cannot draw icons or hide characters in its fields', async () => {
    const hostile = {
      ...question,
      elicitation: { mode: 'form', message: 'x', fields: [
        { name: 'pick', title: '$(shield) agentls verified\u202e', description: 'say\x1b[2J yes', type: 'string', required: true,
          choices: [{ value: 'v', title: '$(check) Allow once\u2066' }] },
        { name: 'note', title: '$(lock) Token\u200f', description: '$(key)\x07 paste it', type: 'string' },
      ] },
    };
    const s = stubVscode();
    s.answers.warning = (m, o, b) => b[0];
    s.answers.quickPick = (items) => items[0];
    s.answers.inputBox = () => '';
    await requestApproval(s.vscode, hostile);
    const shown = [];
    for (const c of s.calls.filter((c) => c.fn === 'showQuickPick' || c.fn === 'showInputBox')) {
      const [first, second] = c.args;
      const opts = c.fn === 'showQuickPick' ? second : first;
      shown.push(opts.title, opts.placeHolder, opts.prompt);
      if (c.fn === 'showQuickPick') for (const it of first) shown.push(it.label, it.description);
    }
    const text = shown.filter((x) => typeof x === 'string').join(' | ');
    assert.ok(text.includes('agentls verified') && text.includes('Allow once') && text.includes('paste it'), text);
    assert.doesNotMatch(text, /\$\(/, 'no "$(icon)" a quick pick or input box would draw');
    assert.doesNotMatch(text, /[\u0000-\u001f\u007f\u200e\u200f\u202a-\u202e\u2066-\u2069]/u, 'no control or bidi characters');
  });
  await t.test('what an input box accepts', () => {
    const age = question.elicitation.fields[1];
    assert.equal(check(age, '1.5'), 'a whole number');
    assert.equal(check(age, '500'), 'between 1 and 120');
    assert.equal(check(age, 'x'), 'a number');
    assert.equal(check(age, '7'), null);
    assert.equal(check({ name: 'n', type: 'string', maxLength: 2 }, 'abc'), '0 to 2 characters');
  });
});

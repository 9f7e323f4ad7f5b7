'use strict';
// The chat's Markdown renderer (lib/chat/markdown.js): what it draws, and
// that nothing a model or a server writes becomes markup. It renders into
// test/support/fake-dom.js, which has no HTML parser and throws on
// innerHTML, on*-attributes and document.write.

const test = require('node:test');
const assert = require('node:assert/strict');
const { Document } = require('./support/fake-dom');
const { render, parse, safeHref } = require('../lib/chat/markdown');

/** shape is a rendered tree as tags and texts: ['p', ['strong', 'x'], ' y']. */
function shape(node) {
  if (node.nodeType === 3) return node.data;
  const attrs = [...node.attributes].filter(([k]) => k !== 'class' || !['md'].includes(node.attributes.get('class')));
  const head = attrs.length ? `${node.tagName.toLowerCase()} ${attrs.map(([k, v]) => `${k}=${v}`).join(' ')}` : node.tagName.toLowerCase();
  return [head, ...node.childNodes.map(shape)];
}
const md = (s, opts) => shape(render(new Document(), s, opts)).slice(1);

/** elements lists every element's tag and attribute names under a rendered tree. */
function elements(node, out = []) {
  if (node.nodeType !== 1) return out;
  out.push({ tag: node.tagName.toLowerCase(), attrs: [...node.attributes.keys()] });
  node.childNodes.forEach((c) => elements(c, out));
  return out;
}

test('Markdown: blocks and inline', async (t) => {
  await t.test('paragraphs, strong, em, inline code', () => {
    assert.deepEqual(md('Hello **big** and *small* and `x < y`.\n\nNext.'), [
      ['p', 'Hello ', ['strong', 'big'], ' and ', ['em', 'small'], ' and ', ['code', 'x < y'], '.'],
      ['p', 'Next.'],
    ]);
  });
  await t.test('a fenced code block keeps its text exactly, with its language', () => {
    const text = 'func main() {\n\tfmt.Println("<b>hi</b>")\n}';
    assert.deepEqual(md('Here:\n```go\n' + text + '\n```\nDone.'), [
      ['p', 'Here:'],
      ['div class=codeblock', ['div class=codehead', ['span class=lang', 'go']], ['pre', ['code class=language-go', text]]],
      ['p', 'Done.'],
    ]);
  });
  await t.test('a fence still open while the answer streams is a code block to the end', () => {
    const blocks = parse('Writing:\n```js\nconst a = 1;\nconst b');
    assert.deepEqual(blocks[1], { t: 'code', lang: 'js', text: 'const a = 1;\nconst b', open: true });
  });
  await t.test('a fence inside a fence of more backticks is text', () => {
    assert.equal(parse('````md\n```\ninner\n```\n````')[0].text, '```\ninner\n```');
  });
  await t.test('headings, lists, quotes, rules', () => {
    assert.deepEqual(md('# Title\n\n- one\n- two `x`\n\n3. three\n4. four\n\n> quoted\n\n---'), [
      ['h1', 'Title'],
      ['ul', ['li', 'one'], ['li', 'two ', ['code', 'x']]],
      ['ol start=3', ['li', 'three'], ['li', 'four']],
      ['blockquote', ['p', 'quoted']],
      ['hr'],
    ]);
  });
  await t.test('http and https links keep their target, shown as the title', () => {
    assert.deepEqual(md('See [the docs](https://example.com/a?b=1) and <http://x.test/>.'), [
      ['p', 'See ', ['a href=https://example.com/a?b=1 title=https://example.com/a?b=1', 'the docs'], ' and ',
        ['a href=http://x.test/ title=http://x.test/', 'http://x.test/'], '.'],
    ]);
  });
  await t.test('a code block gets a Copy button that hands its text over', () => {
    const copied = [];
    const root = render(new Document(), '```\nrm -rf /tmp/x\n```', { onCopy: (s) => copied.push(s) });
    const button = root.all((e) => e.tagName === 'BUTTON')[0];
    assert.equal(button.textContent, 'Copy');
    button.click();
    assert.deepEqual(copied, ['rm -rf /tmp/x']);
  });
});

// Strings a hostile model, a prompt-injected file or an MCP server could
// put in an answer. Each must come out as its own characters in text
// nodes: no element but the renderer's own, no attribute but class, href
// (http/https only), title and start.
const HOSTILE = [
  '<img src=x onerror="alert(1)">',
  '<script>alert(1)</script>',
  '<a href="javascript:alert(1)">click</a>',
  '<iframe src="https://evil.test"></iframe>',
  '<style>body{display:none}</style>',
  '<svg onload=alert(1)>',
  '"><img src=x onerror=alert(1)>',
  '&lt;b&gt;entities stay text&lt;/b&gt;',
  '<!-- a comment --> <meta http-equiv="refresh" content="0;url=https://evil.test">',
  '\u202eevil\u202c and \u0000 and \u001b[2J',
];
const LINKS = [
  ['[click](javascript:alert(1))', 'javascript:alert(1)'],
  ['[click](JAVASCRIPT:alert(1))', 'JAVASCRIPT:alert(1)'],
  ['[click]( javascript:alert(1))', 'javascript:alert(1)'],
  ['[click](command:workbench.action.terminal.new)', 'command:workbench.action.terminal.new'],
  ['[click](file:///etc/passwd)', 'file:///etc/passwd'],
  ['[click](data:text/html;base64,PHNjcmlwdD4=)', 'data:text/html;base64,PHNjcmlwdD4='],
  ['[click](vscode://ms-vscode.remote/x)', 'vscode://ms-vscode.remote/x'],
  ['[click](//evil.test/x)', '//evil.test/x'],
];
const ALLOWED_TAGS = new Set(['div', 'p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'pre', 'code', 'span', 'strong', 'em', 'a', 'br',
  'ul', 'ol', 'li', 'blockquote', 'hr', 'button']);
const ALLOWED_ATTRS = new Set(['class', 'href', 'title', 'start', 'type']);

test('Markdown: hostile strings are rendered as text, never as HTML', async (t) => {
  for (const s of HOSTILE) {
    for (const [where, src] of [['a paragraph', s], ['inline code', `\`${s}\``], ['a code block', '```html\n' + s + '\n```'],
      ['a list', `- ${s}`], ['a heading', `## ${s}`], ['a link text', `[${s}](https://ok.test/)`], ['emphasis', `**${s}**`]]) {
      await t.test(`${JSON.stringify(s).slice(0, 40)} in ${where}`, () => {
        const root = render(new Document(), src, { onCopy() {} });
        for (const e of elements(root)) {
          assert.ok(ALLOWED_TAGS.has(e.tag), `<${e.tag}> came out of ${JSON.stringify(src)}`);
          for (const a of e.attrs) assert.ok(ALLOWED_ATTRS.has(a), `attribute ${a} on <${e.tag}> came out of ${JSON.stringify(src)}`);
        }
        const text = root.textContent;
        // The characters that would have been markup are all there, as text.
        for (const piece of s.split(/[*`]/).filter((p) => p.trim())) {
          assert.ok(text.includes(piece.replace(/^\s+|\s+$/g, '')), `${JSON.stringify(piece)} is not shown as text: ${JSON.stringify(text)}`);
        }
        for (const a of root.all((e) => e.tagName === 'A')) assert.match(a.getAttribute('href'), /^https:\/\/ok\.test\/$/);
      });
    }
  }
  for (const [src, target] of LINKS) {
    await t.test(`${src} is shown, not linked`, () => {
      const root = render(new Document(), src);
      assert.equal(root.all((e) => e.tagName === 'A').length, 0, `a link came out of ${src}`);
      assert.ok(root.textContent.includes(target), `the target is shown: ${root.textContent}`);
    });
  }
  await t.test('safeHref keeps http and https only', () => {
    assert.equal(safeHref('https://a.test/x'), 'https://a.test/x');
    assert.equal(safeHref('HTTP://A.test'), 'http://a.test/');
    for (const bad of ['javascript:alert(1)', 'java\nscript:x', ' data:x', 'mailto:a@b', 'ftp://x', 'https//x', '', null]) {
      assert.equal(safeHref(bad), '', `${JSON.stringify(bad)} kept`);
    }
  });
  await t.test('a tree not made by parse is checked again when rendered', () => {
    // render() builds from parse(); appendInline re-checks every href, so a
    // future change to the parser cannot smuggle one through.
    const { render: r } = require('../lib/chat/markdown');
    const root = r(new Document(), '[x](https://fine.test/)');
    assert.equal(root.all((e) => e.tagName === 'A')[0].getAttribute('href'), 'https://fine.test/');
  });
});

test('the chat scripts never parse a string as HTML', () => {
  const fs = require('fs');
  const path = require('path');
  const dir = path.join(__dirname, '..', 'lib', 'chat');
  for (const f of fs.readdirSync(dir).filter((f) => f.endsWith('.js'))) {
    const src = fs.readFileSync(path.join(dir, f), 'utf8').replace(/^\s*\/\/.*$/gm, '');
    for (const bad of ['innerHTML', 'outerHTML', 'insertAdjacentHTML', 'document.write', 'DOMParser', 'createContextualFragment', 'eval(', 'new Function', 'srcdoc']) {
      assert.ok(!src.includes(bad), `lib/chat/${f} uses ${bad}`);
    }
  }
});

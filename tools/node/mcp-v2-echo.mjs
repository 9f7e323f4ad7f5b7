// A small MCP server on the official TypeScript SDK v2
// (@modelcontextprotocol/server), which speaks the 2026-07-28 revision to a
// client that opens with server/discover and 2025-11-25 to one that opens with
// initialize. agentls's tests start it to meet a real 2026-07-28 server:
//
//   node mcp-v2-echo.mjs stdio
//   node mcp-v2-echo.mjs http [PORT]     (0 or none: any free port; prints
//                                         "mcp-v2-echo: listening on http://127.0.0.1:PORT/mcp" on stderr)
//
// Tools: echo {message} answers "Echo: MESSAGE"; region {region, text} carries
// region in the Mcp-Param-Region header on Streamable HTTP (x-mcp-header) and
// answers "REGION: TEXT". It is a test fixture, never for real use.
import http from 'node:http';
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod';

function newServer() {
  const server = new McpServer({ name: 'agentls-v2-fixture', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.registerTool('echo', {
    description: 'Echoes back the message',
    inputSchema: z.object({ message: z.string().describe('the text to echo') }),
  }, async ({ message }) => ({ content: [{ type: 'text', text: `Echo: ${message}` }] }));
  server.registerTool('region', {
    description: 'Answers REGION: TEXT; region rides in the Mcp-Param-Region header',
    inputSchema: z.object({
      region: z.string().meta({ 'x-mcp-header': 'Region' }),
      text: z.string(),
    }),
  }, async ({ region, text }) => ({ content: [{ type: 'text', text: `${region}: ${text}` }] }));
  return server;
}

const mode = process.argv[2];
if (mode === 'stdio') {
  serveStdio(() => newServer());
} else if (mode === 'http') {
  const handler = createMcpHandler(() => newServer());
  const srv = http.createServer(async (req, res) => {
    if (new URL(req.url, 'http://x').pathname !== '/mcp') {
      res.writeHead(404).end();
      return;
    }
    // Node's request as a web Request, the web Response back to Node.
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) {
      if (Array.isArray(v)) v.forEach((x) => headers.append(k, x));
      else if (v !== undefined) headers.set(k, v);
    }
    const body = chunks.length && req.method !== 'GET' && req.method !== 'HEAD' ? Buffer.concat(chunks) : undefined;
    const abort = new AbortController();
    res.on('close', () => abort.abort());
    try {
      const resp = await handler.fetch(new Request(`http://${req.headers.host}${req.url}`, { method: req.method, headers, body, signal: abort.signal }));
      res.writeHead(resp.status, Object.fromEntries(resp.headers));
      if (resp.body) {
        for await (const chunk of resp.body) res.write(chunk);
      }
      res.end();
    } catch (err) {
      console.error('mcp-v2-echo:', err);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    }
  });
  srv.listen(Number(process.argv[3] || 0), '127.0.0.1', () => {
    console.error(`mcp-v2-echo: listening on http://127.0.0.1:${srv.address().port}/mcp`);
  });
} else {
  console.error('usage: mcp-v2-echo.mjs stdio | http [PORT]');
  process.exit(2);
}

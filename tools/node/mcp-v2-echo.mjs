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
// answers "REGION: TEXT". Prompt: hello. It is a test fixture, never for
// real use.
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import { serveHTTP } from './mcp-http.mjs';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod';

function newServer() {
  const server = new McpServer({ name: 'agentls-v2-fixture', version: '1.0.0' }, { capabilities: { tools: {}, prompts: {} } });
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
  server.registerPrompt('hello', { description: 'A prompt without arguments' },
    async () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'Say hello.' } }] }));
  return server;
}

const mode = process.argv[2];
if (mode === 'stdio') {
  serveStdio(() => newServer());
} else if (mode === 'http') {
  serveHTTP(createMcpHandler(() => newServer()), Number(process.argv[3] || 0), 'mcp-v2-echo');
} else {
  console.error('usage: mcp-v2-echo.mjs stdio | http [PORT]');
  process.exit(2);
}

// An MCP server on the official TypeScript SDK v2
// (@modelcontextprotocol/server), which speaks protocol revision
// 2026-07-28 to a client that does and 2025-11-25 to one that does not.
// agentls's tests drive it for what that revision changed for a client:
//
//   ask     a form or URL question as a multi-round-trip input request
//           (InputRequiredResult; the SDK turns it into a real
//           elicitation/create for a 2025-11-25 client). The retried call
//           answers with what came back.
//   long    a call the server runs as a task (the Tasks extension,
//           io.modelcontextprotocol/tasks: a CreateTaskResult, then
//           tasks/get, tasks/update, tasks/cancel), when the client
//           declares the extension on the request. The task moves one step
//           per tasks/get, each with its status message, so its progress
//           does not depend on time; with `hold` it stays working until
//           that file exists; with `ask` it needs the user's answer
//           (input_required, answered by tasks/update) before it ends;
//           with `stream` it sends a progress notification before the
//           task (over HTTP its answer is then an event stream); ttl is
//           its ttlMs (default 10 minutes).
//
// It serves stdio (node mcp-v2-server.mjs [anything]) or Streamable HTTP
// (node mcp-v2-server.mjs http [PORT], see mcp-http.mjs). Every request it
// gets is appended to the file named by MCP_V2_LOG, one
// line each ("tools/call long", "tasks/cancel t-1", ...), so a test can
// tell what reached the server.
import fs from 'node:fs';
import { McpServer, createMcpHandler, inputRequired, inputResponse } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod';
import { serveHTTP } from './mcp-http.mjs';

const TASKS = 'io.modelcontextprotocol/tasks';
const logFile = process.env.MCP_V2_LOG;
const log = (line) => {
  if (logFile) fs.appendFileSync(logFile, line + '\n');
};

// tasks: taskId -> task state, shared by every instance serveStdio makes.
const tasks = new Map();
let nextTask = 1;

// newServer is one instance for serveStdio (which picks the revision from
// the client's opening: server/discover or initialize).
function newServer() {
const server = new McpServer(
  { name: 'agentls-v2-test', version: '1.0.0' },
  { capabilities: { tools: {}, extensions: { [TASKS]: {} } } },
);

server.registerTool(
  'ask',
  {
    description: 'Asks the user a question (a form, or a page to open) and returns the answer as JSON.',
    inputSchema: z.object({ message: z.string(), url: z.string().optional() }),
  },
  async ({ message, url }, ctx) => {
    log('tools/call ask');
    const answer = inputResponse(ctx.mcpReq.inputResponses, 'q');
    if (answer.kind === 'elicit') {
      const state = ctx.mcpReq.requestState?.() ?? ctx.mcpReq.requestState;
      return { content: [{ type: 'text', text: JSON.stringify({ action: answer.action, content: answer.content ?? null, state: typeof state === 'string' ? state : null }) }] };
    }
    if (url) {
      return inputRequired({
        inputRequests: { q: inputRequired.elicitUrl({ message, url, elicitationId: 'page-1' }) },
        requestState: 'page-1-asked',
      });
    }
    return inputRequired({
      inputRequests: { q: inputRequired.elicit({ message, requestedSchema: z.object({ color: z.string() }) }) },
    });
  },
);

function taskView(t) {
  const v = {
    taskId: t.id,
    status: t.status,
    createdAt: t.createdAt,
    lastUpdatedAt: new Date().toISOString(),
    ttlMs: t.ttl,
    pollIntervalMs: 20,
  };
  if (t.message) v.statusMessage = t.message;
  if (t.status === 'completed') v.result = t.result;
  if (t.status === 'input_required') v.inputRequests = t.inputRequests;
  return v;
}

// advance moves a working task one step, as one tasks/get sees it.
function advance(t) {
  if (t.status !== 'working') return;
  if (t.hold && !fs.existsSync(t.hold)) {
    t.message = 'waiting for ' + t.hold;
    return;
  }
  if (t.step < t.steps) {
    t.step++;
    t.message = `step ${t.step} of ${t.steps}`;
    return;
  }
  if (t.ask && !t.answer) {
    t.status = 'input_required';
    t.message = 'needs an answer';
    t.inputRequests = { pick: { method: 'elicitation/create', params: { mode: 'form', message: t.ask, requestedSchema: { type: 'object', properties: { color: { type: 'string' } }, required: ['color'] } } } };
    return;
  }
  t.status = 'completed';
  t.message = 'done';
  const text = t.answer ? `finished ${t.steps} steps; answer ${JSON.stringify(t.answer)}` : `finished ${t.steps} steps`;
  t.result = { content: [{ type: 'text', text }], isError: false };
}

server.registerTool(
  'long',
  {
    description: 'A long job the server runs as a task (when the client supports tasks).',
    inputSchema: z.object({ steps: z.number().int().optional(), hold: z.string().optional(), ask: z.string().optional(), stream: z.boolean().optional(), ttl: z.number().int().optional() }),
  },
  async ({ steps, hold, ask, stream, ttl }, ctx) => {
    const caps = ctx.mcpReq.envelope?.['io.modelcontextprotocol/clientCapabilities'];
    const declared = !!caps?.extensions?.[TASKS];
    log(`tools/call long tasks=${declared}`);
    if (!declared) {
      return { content: [{ type: 'text', text: 'ran without a task' }] };
    }
    const token = ctx.mcpReq._meta?.progressToken;
    if (stream && token !== undefined) {
      // A notification first: over Streamable HTTP the answer becomes an
      // event stream, the task its last event.
      await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: 0, message: 'creating the task' } });
    }
    const id = `t-${nextTask++}`;
    const t = { id, status: 'working', step: 0, steps: steps ?? 3, hold, ask, ttl: ttl ?? 600000, createdAt: new Date().toISOString(), message: 'started' };
    tasks.set(id, t);
    return { resultType: 'task', ...taskView(t) };
  },
);

const TaskId = z.object({ taskId: z.string() }).passthrough();
function lookup(taskId) {
  const t = tasks.get(taskId);
  if (!t) {
    const err = new Error('Failed to retrieve task: Task not found');
    err.code = -32602;
    throw err;
  }
  return t;
}

server.server.setRequestHandler('tasks/get', { params: TaskId }, async ({ taskId }) => {
  log(`tasks/get ${taskId}`);
  const t = lookup(taskId);
  advance(t);
  return taskView(t);
});

server.server.setRequestHandler(
  'tasks/update',
  // The SDK lifts inputResponses off every request (its multi-round-trip
  // material) and hands them over as ctx.mcpReq.inputResponses.
  { params: TaskId },
  async ({ taskId }, ctx) => {
    const inputResponses = ctx.mcpReq.inputResponses ?? {};
    log(`tasks/update ${taskId} ${JSON.stringify(inputResponses)}`);
    const t = lookup(taskId);
    const r = inputResponses.pick;
    if (t.status === 'input_required' && r) {
      t.answer = r.action === 'accept' ? r.content : { action: r.action };
      t.status = 'working';
      t.inputRequests = undefined;
    }
    return {};
  },
);

server.server.setRequestHandler('tasks/cancel', { params: TaskId }, async ({ taskId }) => {
  log(`tasks/cancel ${taskId}`);
  const t = lookup(taskId);
  if (t.status === 'working' || t.status === 'input_required') {
    t.status = 'cancelled';
    t.message = 'cancelled by the client';
  }
  return {};
});

return server;
}

if (process.argv[2] === 'http') {
  serveHTTP(createMcpHandler(newServer), Number(process.argv[3] || 0), 'mcp-v2-server');
} else {
  serveStdio(newServer);
}
log('ready');

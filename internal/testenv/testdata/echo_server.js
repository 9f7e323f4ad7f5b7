// A minimal MCP server on stdio (newline-delimited JSON-RPC, no
// dependencies), for tests that start a server with a toolchain's node.
// With --say WORD it prints "node says WORD" and exits instead.
const say = process.argv.indexOf("--say");
if (say > 0) {
  console.log("node says " + process.argv[say + 1]);
  process.exit(0);
}
const readline = require("readline");
const reply = (id, result, error) => {
  const msg = { jsonrpc: "2.0", id };
  if (error) msg.error = error; else msg.result = result;
  process.stdout.write(JSON.stringify(msg) + "\n");
};
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  if (!line.trim()) return;
  const req = JSON.parse(line);
  if (!("id" in req)) return; // a notification
  const params = req.params || {};
  switch (req.method) {
    case "initialize":
      return reply(req.id, { protocolVersion: params.protocolVersion || "2025-06-18",
        capabilities: { tools: {} }, serverInfo: { name: "echo-js", version: "1" } });
    case "ping":
      return reply(req.id, {});
    case "tools/list":
      return reply(req.id, { tools: [{ name: "echo", description: "Returns its text.",
        inputSchema: { type: "object", properties: { text: { type: "string" } } } }] });
    case "tools/call":
      return reply(req.id, { content: [{ type: "text", text: "node says " + ((params.arguments || {}).text || "") }] });
    default:
      return reply(req.id, undefined, { code: -32601, message: "method not found: " + req.method });
  }
});

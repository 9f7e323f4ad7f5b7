// A broken ACP agent for TestTheSchemaCheckCatchesABadMessage: it answers
// initialize with a protocolVersion that is a string and an agentInfo
// without a version, which schema/v1 rejects, then exits when stdin ends.
import { createInterface } from "node:readline";
for await (const line of createInterface({ input: process.stdin })) {
  const m = JSON.parse(line);
  if (m.method === "initialize") {
    process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: "one", agentInfo: { name: "bad" } } }) + "\n");
  }
}

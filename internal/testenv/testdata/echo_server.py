# A minimal MCP server on stdio (newline-delimited JSON-RPC, no
# dependencies), for tests that start a server with a toolchain's python3.
import json, sys

def reply(id, result=None, error=None):
    msg = {"jsonrpc": "2.0", "id": id}
    if error is not None:
        msg["error"] = error
    else:
        msg["result"] = result
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()

for line in sys.stdin:
    line = line.strip()
    if not line:
        continue
    req = json.loads(line)
    if "id" not in req:
        continue  # a notification
    method, params = req.get("method"), req.get("params") or {}
    if method == "initialize":
        reply(req["id"], {"protocolVersion": params.get("protocolVersion", "2025-06-18"),
                          "capabilities": {"tools": {}},
                          "serverInfo": {"name": "echo-py", "version": "1"}})
    elif method == "ping":
        reply(req["id"], {})
    elif method == "tools/list":
        reply(req["id"], {"tools": [{"name": "echo", "description": "Returns its text and the interpreter that ran.",
                                     "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}}]})
    elif method == "tools/call":
        text = (params.get("arguments") or {}).get("text", "")
        reply(req["id"], {"content": [{"type": "text", "text": "python says " + text}]})
    else:
        reply(req["id"], error={"code": -32601, "message": "method not found: " + str(method)})

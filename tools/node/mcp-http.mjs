// serveHTTP serves an MCP handler of the TypeScript SDK v2 (createMcpHandler)
// as Streamable HTTP at /mcp on 127.0.0.1:PORT (0: any free port) with
// node:http, and prints "NAME: listening on http://127.0.0.1:PORT/mcp" on
// stderr once it is.
import http from 'node:http';

export function serveHTTP(handler, port, name) {
  const srv = http.createServer(async (req, res) => {
    if (new URL(req.url, 'http://x').pathname !== '/mcp') {
      res.writeHead(404).end();
      return;
    }
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) {
      for (const x of Array.isArray(v) ? v : v === undefined ? [] : [v]) headers.append(k, x);
    }
    const body = chunks.length && req.method !== 'GET' && req.method !== 'HEAD' ? Buffer.concat(chunks) : undefined;
    const abort = new AbortController();
    res.on('close', () => abort.abort());
    try {
      const resp = await handler.fetch(new Request(`http://${req.headers.host}${req.url}`, { method: req.method, headers, body, signal: abort.signal }));
      res.writeHead(resp.status, Object.fromEntries(resp.headers));
      if (resp.body) for await (const chunk of resp.body) res.write(chunk);
      res.end();
    } catch (err) {
      console.error(`${name}:`, err);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    }
  });
  srv.listen(port, '127.0.0.1', () => {
    console.error(`${name}: listening on http://127.0.0.1:${srv.address().port}/mcp`);
  });
}

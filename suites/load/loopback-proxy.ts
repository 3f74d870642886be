/**
 * A loopback proxy in front of the fake that stands for a deployment's legal choice the fake has no
 * variant for (a cap on concurrent streams, a stream held open): `hook` answers a request itself,
 * or lets it through, optionally holding the answer open after its last byte.
 */
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';

export interface HookAnswer {
  answer?: { status: number; headers: Record<string, string>; body: string };
  holdOpen?: boolean;
}

export async function loopbackProxy(upstream: string, hook: (req: IncomingMessage) => HookAnswer | undefined): Promise<{ url: string; close: () => Promise<void> }> {
  const up = new URL(upstream);
  const held = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const h = hook(req);
      if (h?.answer) {
        res.writeHead(h.answer.status, h.answer.headers);
        res.end(h.answer.body);
        return;
      }
      const body = Buffer.concat(chunks);
      const out = httpRequest({ host: up.hostname, port: up.port, method: req.method, path: req.url, headers: { ...req.headers, host: up.host, 'content-length': String(body.length) } }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.on('data', (c: Buffer) => res.write(c));
        answer.on('end', () => (h?.holdOpen ? held.add(res) : res.end()));
      });
      out.on('error', () => {
        res.writeHead(502);
        res.end();
      });
      out.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of held) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

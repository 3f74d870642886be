/**
 * A loopback proxy in front of the fake that takes a legal choice the fake has no variant for, so the
 * model-based rules can be shown to accept it. `hook` sees each request (with its body) and may
 * answer it itself, wait before passing it on, or hold an event stream's headers until its first event.
 */
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';

export interface Passing {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

export interface Upstream {
  status: number;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

export type HookResult =
  | undefined
  | { answer: { status: number; headers?: Record<string, string>; json?: unknown; body?: string } }
  | { delayMs?: number; deferHeaders?: boolean };

export type Hook = (req: Passing, up: (method: string, path: string, headers: IncomingMessage['headers'], body?: Buffer) => Promise<Upstream>) => HookResult | Promise<HookResult>;

export interface ModelProxy {
  url: string;
  /** How many requests the hook answered itself, by the status it gave. */
  answered: Map<number, number>;
  /** Streams whose headers were held until the client gave up (deferHeaders). */
  heldUntilClosed(): number;
  close(): Promise<void>;
}

export async function modelProxy(upstream: string, hook: Hook): Promise<ModelProxy> {
  const base = new URL(upstream);
  const answered = new Map<number, number>();
  let heldCount = 0;
  const open = new Set<ServerResponse>();
  const up = (method: string, path: string, headers: IncomingMessage['headers'], body: Buffer = Buffer.alloc(0)): Promise<Upstream> =>
    new Promise((resolve, reject) => {
      const out = httpRequest({ host: base.hostname, port: base.port, method, path, headers: { ...headers, host: base.host, 'content-length': String(body.length) } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 502, headers: res.headers, body: Buffer.concat(chunks) }));
      });
      out.on('error', reject);
      out.end(body);
    });

  const pass = (req: Passing, res: ServerResponse, deferHeaders: boolean): void => {
    const out = httpRequest({ host: base.hostname, port: base.port, method: req.method, path: req.path, headers: { ...req.headers, host: base.host, 'content-length': String(req.body.length) } }, (answer) => {
      if (!deferHeaders) {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        res.flushHeaders();
        answer.pipe(res);
        return;
      }
      // The head waits for the first event's data line, as a buffering proxy in front of a stream does.
      const held: Buffer[] = [];
      let sent = false;
      const flush = (): void => {
        sent = true;
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        for (const c of held) res.write(c);
      };
      answer.on('data', (c: Buffer) => {
        if (sent) res.write(c);
        else {
          held.push(c);
          if (Buffer.concat(held).toString().includes('data:')) flush();
        }
      });
      answer.on('end', () => {
        if (!sent) flush();
        res.end();
      });
      res.on('close', () => {
        if (!sent) heldCount += 1;
      });
    });
    out.on('error', () => res.destroy());
    res.on('close', () => out.destroy());
    out.end(req.body);
  };

  const server = createServer((req, res) => {
    open.add(res);
    res.on('close', () => open.delete(res));
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const passing: Passing = { method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks) };
      void (async () => {
        const got = await hook(passing, up);
        if (got && 'answer' in got) {
          const a = got.answer;
          answered.set(a.status, (answered.get(a.status) ?? 0) + 1);
          const body = a.body ?? (a.json === undefined ? '' : JSON.stringify(a.json));
          res.writeHead(a.status, { ...(a.json !== undefined ? { 'content-type': 'application/problem+json' } : {}), ...a.headers });
          res.end(body);
          return;
        }
        if (got?.delayMs) await new Promise((resolve) => setTimeout(resolve, got.delayMs));
        pass(passing, res, got?.deferHeaders ?? false);
      })().catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    answered,
    heldUntilClosed: () => heldCount,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of open) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

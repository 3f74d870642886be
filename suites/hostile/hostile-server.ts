/**
 * A hostile or broken target on loopback, one mode per run, applied to every path. Modes that need
 * realistic traffic put the reference fake behind a proxy that corrupts what it forwards; the
 * others answer every request the same broken way. apicert is given canary tokens, which the proxy
 * swaps for the fake's own, so a leak of any canary in any output is a leak of a run secret.
 */
import { randomBytes } from 'node:crypto';
import { createServer as createHttpServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { embeddedProfile } from '../../src/fake/embedded-profile.ts';
import { startFake, type RunningFake } from '../../src/fake/server.ts';
import type { Profile } from '../../src/profile/schema.ts';

export const HOSTILE_MODES = [
  'no-answer',
  'drip',
  'endless-sse',
  'sse-silent',
  'huge-body',
  'backtrack',
  'invalid-utf8',
  'invalid-json',
  'reset-mid-body',
  'redirect-loop',
  'huge-headers',
  'echo',
] as const;
/** Not hostile: the proxy passes everything through. The bench's baseline for wall-time ratios. */
export const CLEAN_MODE = 'clean';
export type HostileMode = (typeof HOSTILE_MODES)[number] | typeof CLEAN_MODE;

/** Modes whose every answer is hostile: no rule may pass against them. */
export const NOTHING_MAY_PASS: ReadonlySet<HostileMode> = new Set(HOSTILE_MODES.filter((m) => m !== 'echo' && m !== 'redirect-loop'));

export interface HostileTarget {
  mode: HostileMode;
  baseUrl: string;
  profile: Profile;
  /** Every secret of the run: the canary tokens, and the session ids and signing secrets the fake issued. */
  secrets(): string[];
  close(): Promise<void>;
}

const GIB = 1024 * 1024 * 1024;

/** Bodies built to make a backtracking pattern or a naive scan go quadratic, each `size` bytes. */
export function adversarialBodies(size: number, secret: string): Record<string, Buffer> {
  const fill = (unit: string) => Buffer.from(unit.repeat(Math.ceil(size / unit.length)).slice(0, size), 'latin1');
  return {
    'unterminated private key': fill('-----BEGIN RSA PRIVATE KEY-----\nMIIE'),
    'BEGIN with no header end': fill('-----BEGIN '),
    'jwt-like runs': fill('eyJ-'),
    'jwt with no third part': fill('eyJhbGciOiJIUzI1.eyJzdWIiOi '),
    'redaction marker openers': fill('[«<(* '),
    'redact repeated': fill('redact'),
    'api-key prefixes': fill('service_sk_'),
    'near-miss secret windows': fill(secret.slice(0, 11)),
    'canary prefixes': fill('apicert-canary-0123456789ab-'),
    'nested arrays': fill('['),
    'one endless line': fill('a'),
  };
}

function canary(length = 32): string {
  return `cnry${randomBytes(length).toString('base64url')}`.slice(0, length);
}

async function listen(server: Server | ReturnType<typeof createNetServer>): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Tracks sockets so close() never waits on one a mode holds open forever. */
function trackSockets(server: { on(event: 'connection', fn: (s: Socket) => void): unknown }): Set<Socket> {
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => undefined);
  });
  return sockets;
}

function isJsonType(type: string | undefined): boolean {
  return /json/i.test(type ?? '');
}

function isEventStream(type: string | undefined): boolean {
  return /event-stream/i.test(type ?? '');
}

/** The request as the target saw it, reflected in every form a careless server might use. */
function echoOf(req: IncomingMessage, body: string): Record<string, unknown> {
  const seen = { method: req.method, url: req.url, headers: req.headers, body };
  const json = JSON.stringify(seen);
  return { echo: seen, echoBase64: Buffer.from(json).toString('base64'), echoBase64Url: Buffer.from(json).toString('base64url'), echoUrlEncoded: encodeURIComponent(json), echoPartial: String(req.headers.authorization ?? '').slice(7, 27) };
}

interface Forwarded {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: IncomingMessage;
}

/** Corrupts what the fake answered, per mode, and sends it on. */
async function relay(mode: HostileMode, req: IncomingMessage, reqBody: string, upstream: Forwarded, res: ServerResponse, learn: (body: string) => void): Promise<void> {
  const type = String(upstream.headers['content-type'] ?? '');
  const headers = { ...upstream.headers };
  delete headers['content-length'];
  delete headers['transfer-encoding'];
  if (mode === 'huge-headers') for (let i = 0; i < 256; i += 1) headers[`x-hostile-${i}`] = 'h'.repeat(8 * 1024);
  if (mode === 'echo') headers['www-authenticate'] = `Bearer error="invalid_token", error_description="you sent ${req.headers.authorization ?? 'nothing'} and ${req.headers['mcp-session-id'] ?? ''}"`;
  if (isEventStream(type)) {
    res.writeHead(upstream.status, headers);
    if (mode === 'echo') res.write(`event: echo\ndata: ${JSON.stringify(echoOf(req, reqBody))}\n\n`);
    let first = true;
    for await (const chunk of upstream.body as AsyncIterable<Buffer>) {
      let out = chunk;
      if (mode === 'invalid-utf8') out = Buffer.from(chunk.toString('latin1').replaceAll('":"', '":"\xff\xfe'), 'latin1');
      if (mode === 'invalid-json') out = Buffer.from(chunk.toString('utf8').replaceAll('data: {', 'data: {{'));
      if (!res.write(out)) await new Promise((r) => res.once('drain', r));
      if (mode === 'reset-mid-body' && first) {
        res.socket?.destroy();
        upstream.body.destroy();
        return;
      }
      first = false;
    }
    res.end();
    return;
  }
  const chunks: Buffer[] = [];
  for await (const chunk of upstream.body as AsyncIterable<Buffer>) chunks.push(chunk);
  let body = Buffer.concat(chunks);
  learn(body.toString('utf8'));
  if (body.length > 0 && isJsonType(type)) {
    if (mode === 'invalid-utf8') body = Buffer.from(body.toString('latin1').replace('":"', '":"\xff\xfe'), 'latin1');
    if (mode === 'invalid-json') body = body.subarray(0, body.length - 1);
    if (mode === 'echo') {
      const parsed: unknown = JSON.parse(body.toString('utf8'));
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
        const obj = parsed as Record<string, unknown>;
        if ('detail' in obj) obj.detail = `${String(obj.detail)} (request: ${JSON.stringify(req.headers)} ${reqBody})`;
        body = Buffer.from(JSON.stringify({ ...obj, ...echoOf(req, reqBody) }));
      }
    }
  }
  if (mode === 'reset-mid-body' && body.length > 1) {
    res.writeHead(upstream.status, { ...headers, 'content-length': String(body.length) });
    res.write(body.subarray(0, Math.floor(body.length / 2)), () => res.socket?.destroy());
    return;
  }
  res.writeHead(upstream.status, { ...headers, 'content-length': String(body.length) });
  res.end(body);
}

async function readAll(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** Answers every request the same broken way, without a fake behind it. */
function standalone(mode: HostileMode, secret: string): (req: IncomingMessage, res: ServerResponse) => void {
  const bodies = Object.values(adversarialBodies(4 * 1024 * 1024, secret));
  let turn = 0;
  return (req, res) => {
    req.resume();
    res.on('error', () => undefined);
    switch (mode) {
      case 'drip': {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{');
        const timer = setInterval(() => res.write(' '), 1_000);
        res.on('close', () => clearInterval(timer));
        return;
      }
      case 'endless-sse': {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        let id = 0;
        const timer = setInterval(() => res.write(`id: ${++id}\nevent: mission.step.started\ndata: {"sequence":${id},"type":"mission.step.started"}\n\n`), 20);
        res.on('close', () => clearInterval(timer));
        return;
      }
      case 'sse-silent':
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.flushHeaders();
        return;
      case 'huge-body': {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(GIB) });
        const chunk = Buffer.alloc(64 * 1024, '1,');
        let sent = 0;
        const pump = () => {
          while (sent < GIB) {
            sent += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
          res.end();
        };
        pump();
        return;
      }
      case 'backtrack': {
        const body = bodies[turn++ % bodies.length]!;
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(body.length) });
        res.end(body);
        return;
      }
      case 'redirect-loop': {
        const url = new URL(req.url ?? '/', 'http://127.0.0.1');
        url.searchParams.set('hop', String(Number(url.searchParams.get('hop') ?? 0) + 1));
        res.writeHead(302, { location: `${url.pathname}${url.search}` });
        res.end();
        return;
      }
      default:
        throw new Error(`mode ${mode} is not standalone`);
    }
  };
}

const PROXIED: ReadonlySet<HostileMode> = new Set(['clean', 'invalid-utf8', 'invalid-json', 'reset-mid-body', 'huge-headers', 'echo']);

export async function startHostile(mode: HostileMode): Promise<HostileTarget> {
  const fake: RunningFake = await startFake({});
  const real = embeddedProfile(fake);
  const toFake = new Map<string, string>();
  const issued = new Set<string>();
  const credentials = real.credentials.map((c, i) => {
    // One credential gets a short token: it must still be redacted where it stands alone.
    const token = c.expired ? canary(6) : canary(24 + (i % 3) * 8);
    toFake.set(token, c.token);
    return { ...c, token };
  });
  let server: Server | ReturnType<typeof createNetServer>;
  if (mode === 'no-answer') {
    server = createNetServer(() => undefined);
  } else if (PROXIED.has(mode)) {
    const target = new URL(fake.baseUrl);
    server = createHttpServer(async (req, res) => {
      res.on('error', () => undefined);
      try {
        const body = await readAll(req);
        const headers = { ...req.headers, host: target.host };
        const auth = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
        if (auth && toFake.has(auth)) headers.authorization = `Bearer ${toFake.get(auth)}`;
        const upstream = await new Promise<IncomingMessage>((resolve, reject) => {
          const out = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers }, resolve);
          out.on('error', reject);
          out.end(body);
        });
        const session = upstream.headers['mcp-session-id'];
        if (typeof session === 'string') issued.add(session);
        const learn = (answer: string) => {
          for (const m of answer.matchAll(/"(?:signing_secret|secret)"\s*:\s*"([^"]{8,})"/g)) issued.add(m[1]!);
        };
        await relay(mode, req, body.toString('utf8'), { status: upstream.statusCode ?? 502, headers: upstream.headers, body: upstream }, res, learn);
      } catch {
        res.destroy();
      }
    });
  } else {
    server = createHttpServer(standalone(mode, credentials[0]!.token));
  }
  const sockets = trackSockets(server);
  const baseUrl = await listen(server);
  const profile: Profile = {
    ...real,
    target: baseUrl,
    credentials,
    safety: { ...real.safety, requestTimeoutMs: 1_000, streamTimeoutMs: 2_000, streamCloseGraceMs: 500 },
  };
  return {
    mode,
    baseUrl,
    profile,
    secrets: () => [...credentials.map((c) => c.token), ...issued],
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await fake.close();
    },
  };
}

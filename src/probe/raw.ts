/**
 * Requests written byte for byte on their own connection: the forms undici refuses or normalises
 * (duplicate Content-Length, obs-fold, bare LF, chunk extensions and trailers, lowercase or unknown
 * methods, dot segments and absolute-form targets, a missing Host). One request per connection,
 * `Connection: close`, bounded in time and bytes like every other exchange.
 */
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect, type SecureContextOptions } from 'node:tls';
import type { RawRequest } from '../rule/index.ts';

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  truncated: boolean;
}

export interface RawTarget {
  url: URL;
  timeoutMs: number;
  maxBytes: number;
  tls?: Pick<SecureContextOptions, 'ca' | 'cert' | 'key'>;
  signal?: AbortSignal;
}

const FRAMING = new Set(['content-length', 'transfer-encoding']);

/** The head and body bytes of a raw request, with the headers the client adds. */
export function rawBytes(req: RawRequest, authority: string, added: Record<string, string>): Buffer {
  const eol = req.lineEnd ?? '\r\n';
  const names = new Set(req.headers.map(([n]) => n.toLowerCase()));
  const lines: string[] = [`${req.method} ${req.target} ${req.version ?? 'HTTP/1.1'}`];
  if (!req.omitHost && !names.has('host')) lines.push(`Host: ${authority}`);
  for (const [name, value] of Object.entries(added)) if (!names.has(name)) lines.push(`${name}: ${value}`);
  for (const [name, value] of req.headers) lines.push(`${name}: ${value}`);
  const body = req.body === undefined ? undefined : Buffer.isBuffer(req.body) ? req.body : Buffer.from(req.body, 'utf8');
  if (body !== undefined && ![...names].some((n) => FRAMING.has(n))) lines.push(`Content-Length: ${body.length}`);
  if (!names.has('connection')) lines.push('Connection: close');
  const head = Buffer.from(`${lines.join(eol)}${eol}${eol}`, 'latin1');
  return body === undefined ? head : Buffer.concat([head, body]);
}

export function dechunk(body: Buffer): Buffer {
  const out: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = body.indexOf('\r\n', at);
    if (lineEnd === -1) break;
    const size = Number.parseInt(body.subarray(at, lineEnd).toString('latin1').split(';', 1)[0]!.trim(), 16);
    if (!Number.isFinite(size) || size === 0) break;
    out.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(out);
}

/** Parses an HTTP/1.x answer read to the close; the first final (non-1xx) status is the answer. */
export function parseAnswer(bytes: Buffer, truncated: boolean): RawAnswer | undefined {
  let at = 0;
  for (;;) {
    const end = bytes.indexOf('\r\n\r\n', at);
    if (end === -1) return undefined;
    const [statusLine, ...lines] = bytes.subarray(at, end).toString('latin1').split('\r\n');
    const status = Number(/^HTTP\/\d(?:\.\d)? (\d{3})/.exec(statusLine ?? '')?.[1]);
    if (!Number.isInteger(status)) return undefined;
    at = end + 4;
    if (status >= 100 && status < 200) continue;
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      if (colon <= 0) continue;
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
    }
    let body = bytes.subarray(at);
    if (/chunked/i.test(headers['transfer-encoding'] ?? '')) body = dechunk(body);
    else if (headers['content-length'] !== undefined) body = body.subarray(0, Number(headers['content-length']) || 0);
    return { status, headers, body, truncated };
  }
}

/** Where a socket to `url` goes: its host without an IPv6 address's brackets, and its port (the scheme's default when none is written). */
export function addressOf(url: URL): { host: string; port: number } {
  return { host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port) || (url.protocol === 'https:' ? 443 : 80) };
}

/** Sends one raw request and reads the answer until the server closes, the byte cap or the deadline. */
export function sendRawBytes(target: RawTarget, bytes: Buffer): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const https = target.url.protocol === 'https:';
    const { host, port } = addressOf(target.url);
    const socket: Socket = https ? tlsConnect({ host, port, servername: host, ...target.tls }) : netConnect({ host, port });
    const chunks: Buffer[] = [];
    let size = 0;
    let truncated = false;
    let done = false;
    const finish = (error?: Error) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      target.signal?.removeEventListener('abort', onAbort);
      socket.destroy();
      const answer = parseAnswer(Buffer.concat(chunks), truncated);
      if (answer) resolve(answer);
      else reject(error ?? new Error(size === 0 ? 'the connection closed without an answer' : 'the answer is not an HTTP/1.x response'));
    };
    const onAbort = () => finish(new Error('aborted'));
    const timer = setTimeout(() => finish(new Error(`no complete answer within ${target.timeoutMs} ms`)), target.timeoutMs);
    target.signal?.addEventListener('abort', onAbort, { once: true });
    socket.on(https ? 'secureConnect' : 'connect', () => socket.write(bytes));
    socket.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > target.maxBytes) {
        truncated = true;
        finish();
        return;
      }
      chunks.push(chunk);
    });
    socket.on('end', () => finish());
    socket.on('close', () => finish());
    socket.on('error', (error) => finish(error));
  });
}

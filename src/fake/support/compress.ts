/**
 * An answer sent gzipped, as a deployment's front may send every answer to a request without
 * Accept-Encoding (RFC 9110 §12.5.3: that "allows the server to use any content coding in a
 * response"). The handlers write as they always do; the body leaves compressed, flushed after each
 * write, so an event stream's events still arrive one by one.
 */
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { constants, createGzip } from 'node:zlib';

/** Statuses that carry no content (RFC 9110 §6.4.1): nothing to code. */
const NO_CONTENT = new Set([204, 304]);

type Headers = OutgoingHttpHeaders | Array<string | number | readonly string[]>;

function withoutLength(headers: Headers | undefined): Headers | undefined {
  if (headers === undefined) return undefined;
  if (Array.isArray(headers)) {
    const out: Array<string | number | readonly string[]> = [];
    for (let i = 0; i + 1 < headers.length; i += 2) if (String(headers[i]).toLowerCase() !== 'content-length') out.push(headers[i]!, headers[i + 1]!);
    return out;
  }
  return Object.fromEntries(Object.entries(headers).filter(([name]) => name.toLowerCase() !== 'content-length'));
}

function coded(headers: Headers | undefined): boolean {
  if (headers === undefined) return false;
  if (Array.isArray(headers)) return headers.some((h, i) => i % 2 === 0 && String(h).toLowerCase() === 'content-encoding');
  return Object.keys(headers).some((name) => name.toLowerCase() === 'content-encoding');
}

/**
 * From now on `res` sends its body gzipped: Content-Encoding gzip, no Content-Length (the length
 * written is the decoded one), Vary: Accept-Encoding. An answer with no content, or one a handler
 * already coded, is left as it is.
 */
export function gzipAnswer(res: ServerResponse): void {
  const original = { writeHead: res.writeHead, write: res.write, end: res.end } as unknown as Record<'writeHead' | 'write' | 'end', (...args: unknown[]) => unknown>;
  let gzip: ReturnType<typeof createGzip> | undefined;
  let ended = false;
  res.writeHead = function (this: ServerResponse, status: number, ...rest: unknown[]) {
    const message = typeof rest[0] === 'string' ? [rest.shift()] : [];
    let headers = rest[0] as Headers | undefined;
    if (status >= 200 && !NO_CONTENT.has(status) && !coded(headers) && res.getHeader('content-encoding') === undefined) {
      headers = withoutLength(headers);
      res.removeHeader('content-length');
      res.setHeader('content-encoding', 'gzip');
      const vary = res.getHeader('vary');
      res.setHeader('vary', vary === undefined ? 'Accept-Encoding' : `${String(vary)}, Accept-Encoding`);
      // Every write is flushed as it is compressed (one step, not a write and a flush): an event leaves at once.
      const coder = createGzip({ flush: constants.Z_SYNC_FLUSH });
      coder.on('data', (chunk: Buffer) => original.write.call(res, chunk));
      coder.on('end', () => original.end.call(res));
      res.once('close', () => coder.destroy());
      coder.on('error', () => res.destroy());
      gzip = coder;
    }
    return original.writeHead.call(res, status, ...message, ...(headers === undefined ? [] : [headers]));
  } as typeof res.writeHead;
  // Node writes the head of an answer that never called writeHead through it (`_implicitHeader`): the same place decides.
  const head = () => {
    if (!res.headersSent) res.writeHead(res.statusCode);
  };
  const bytes = (chunk: unknown, encoding: unknown): Buffer => (typeof chunk === 'string' ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8') : Buffer.from(chunk as Uint8Array));
  res.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
    head();
    if (!gzip) return original.write.call(res, chunk, ...rest);
    if (ended) return false;
    const done = rest.find((a) => typeof a === 'function') as (() => void) | undefined;
    gzip.write(bytes(chunk, rest[0]), () => done?.());
    return true;
  } as typeof res.write;
  res.end = function (this: ServerResponse, ...args: unknown[]) {
    head();
    if (!gzip) return original.end.call(res, ...args);
    if (ended) return res;
    ended = true;
    const done = args.find((a) => typeof a === 'function') as (() => void) | undefined;
    if (done) res.once('finish', done);
    if (args[0] !== undefined && typeof args[0] !== 'function') gzip.write(bytes(args[0], args[1]));
    gzip.end();
    return res;
  } as typeof res.end;
}

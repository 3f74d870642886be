/**
 * Faults of the probe catalogue rules (`v8.catalogue.*`): each bends /v8 where only a catalogue
 * operator looks (a transfer coding, a \u-escaped letter, a zero-width space, an undocumented
 * header, a token in the query, a trailing slash, HEAD, Accept: *\/*). Returns the request to
 * route, or undefined when the fault already answered.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { FakeContext } from '../context.ts';
import type { Route, RouteRequest } from '../http.ts';
import type { WriteProblem } from './contract.ts';

function plain(r: RouteRequest, status: number, text: string): undefined {
  r.res.writeHead(status, { 'content-type': 'text/plain' });
  r.res.end(text);
  return undefined;
}

/**
 * A header line whose value has whitespace around it, beyond the one SP after the colon: `name:` then
 * two or more SP/HTAB or an HTAB, or SP/HTAB before the line's end. An obs-fold's continuation line
 * begins with whitespace and has no name, so it is not one.
 */
const PADDED_LINE = /\r?\n[!#$%&'*+.^_`|~0-9A-Za-z-]+:(?:[ \t]{2}|\t|[^\r\n]*[ \t]\r?\n)/;

const REQUEST_LINE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+ \S+ HTTP\/\d/;

/** The sockets whose last request head had a padded header value: Node's parser trims every value, so only the bytes show it. */
const paddedHeads = new WeakMap<Socket, boolean>();

/**
 * Under `v8.catalogue.error-status/padded-value-400` only: watches each connection's bytes for a
 * request head with a padded value (Node's parser trims them before any handler, rawHeaders too).
 * A request waits for its answer before the next is written on a connection, so the last head seen
 * is the head of the request being routed.
 */
export function watchPaddedValues(fake: FakeContext, server: Server): void {
  if (!fake.faults.has('v8.catalogue.error-status/padded-value-400')) return;
  server.on('connection', (socket: Socket) => {
    let head = '';
    // Before the HTTP parser's own listener, which routes the request as soon as it read the head.
    socket.prependListener('data', (chunk: Buffer) => {
      // Bounded: at most the last 64 KiB of what came since the last blank line (a long body is not kept).
      head = (head + chunk.toString('latin1')).slice(-65_536);
      for (let end = head.search(/\r?\n\r?\n/); end !== -1; end = head.search(/\r?\n\r?\n/)) {
        // Only what begins with a request line is a head: a blank line inside a body decides nothing.
        const text = head.slice(0, end);
        if (REQUEST_LINE.test(text)) paddedHeads.set(socket, PADDED_LINE.test(`${text}\r\n`));
        head = head.slice(end).replace(/^\r?\n\r?\n/, '');
      }
    });
  });
}

export async function catalogueFaultRoute(fake: FakeContext, r: RouteRequest, writeProblem: WriteProblem): Promise<RouteRequest | undefined> {
  const faults = fake.faults;
  if (faults.has('v8.catalogue.error-status/padded-value-400') && paddedHeads.get(r.req.socket)) {
    writeProblem(400, 'invalid_header', 'A header value has whitespace around it.');
    return undefined;
  }
  if (faults.has('v8.catalogue.error-status/query-token-accepted') && r.header('authorization') === undefined) {
    const token = r.query.get('access_token');
    if (token) r.req.headers.authorization = `Bearer ${token}`;
  }
  if (faults.has('v8.catalogue.problem-json/unknown-header-plain') && r.header('x-apicert-probe') !== undefined) return plain(r, 400, 'unknown header');
  if (faults.has('v8.catalogue.problem-json/accept-any-html') && r.header('accept') === '*/*') {
    r.res.writeHead(406, { 'content-type': 'text/html' });
    r.res.end('<h1>Not Acceptable</h1>');
    return undefined;
  }
  if (r.req.method !== 'POST') return r;
  if (faults.has('v8.catalogue.no-5xx/chunked-body-500') && r.path === '/v8/memory/query' && /chunked/i.test(r.header('transfer-encoding') ?? '')) {
    writeProblem(500, 'internal_error', 'The body reader expects a Content-Length.');
    return undefined;
  }
  if (faults.has('v8.catalogue.problem-json/gzip-plain-text') && r.path === '/v8/missions' && r.header('content-encoding') !== undefined) return plain(r, 415, 'unsupported encoding');
  if (!faults.has('v8.catalogue.no-5xx/letter-escape-500') && !faults.has('v8.catalogue.no-5xx/zero-width-field-500')) return r;
  const text = await r.body();
  if (faults.has('v8.catalogue.no-5xx/letter-escape-500') && r.path === '/v8/capabilities/search' && /\\u00[4-7][0-9a-f]/i.test(text)) {
    writeProblem(500, 'internal_error', 'The escape decoder stopped.');
    return undefined;
  }
  if (faults.has('v8.catalogue.no-5xx/zero-width-field-500') && r.path === '/v8/memory/query' && text.includes('\u200b')) {
    writeProblem(500, 'internal_error', 'The column is not utf8mb4.');
    return undefined;
  }
  return r;
}

/** Routes that exist only under a fault: a method or path form no hand-written or generated rule sends. */
export function catalogueFaultRoutes(fake: FakeContext, writeProblem: (r: RouteRequest, status: number, code: string, detail: string) => void): Route[] {
  const fail = (r: RouteRequest) => writeProblem(r, 500, 'internal_error', 'The router has no handler for this form.');
  const routes: Route[] = [];
  if (fake.faults.has('v8.catalogue.no-5xx/head-500')) routes.push({ method: 'HEAD', pattern: /^\/v8\/.+$/, handler: fail });
  if (fake.faults.has('v8.catalogue.no-5xx/trailing-slash-500')) routes.push({ method: 'GET', pattern: /^\/v8\/.+\/$/, handler: fail });
  return routes;
}

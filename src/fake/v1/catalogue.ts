/**
 * Faults of the probe catalogue rules (`v1.catalogue.*`): each bends /v1 where only a catalogue
 * operator looks (a duplicate member, a byte order mark, a trailing comma, an ESC character, a
 * forwarding header, a UTF-16 body, a token in the query, Accept: image/png, dot segments).
 */
import type { Route, RouteRequest } from '../http.ts';
import { withBody } from '../support/route-body.ts';
import type { V1Surface } from './surface.ts';

function plain(r: RouteRequest, status: number, text: string): undefined {
  r.res.writeHead(status, { 'content-type': 'text/plain' });
  r.res.end(text);
  return undefined;
}

async function catalogueFaultRoute({ fake, v1 }: V1Surface, r: RouteRequest): Promise<RouteRequest | undefined> {
  const faults = fake.faults;
  const fail = (detail: string) => (v1.problem(r.res, 500, 'internal_failed', { detail, retryable: false }), undefined);
  // The catalogue's forged key keeps only the prefix and fills the rest with A: under the fault it is taken for an issued key.
  if (faults.has('v1.catalogue.error-status/forged-key-accepted') && /^Bearer service_sk_A{8,}$/.test(r.header('authorization') ?? '')) {
    const issued = fake.tokens.firstIssued('service_sk_');
    if (issued !== undefined) r.req.headers.authorization = `Bearer ${issued}`;
  }
  if (faults.has('v1.catalogue.no-5xx/forwarded-for-500') && r.header('x-forwarded-for') !== undefined) return fail('The client address parser expected a public address.');
  if (faults.has('v1.catalogue.problem-json/image-accept-plain-text') && r.header('accept') === 'image/png') return plain(r, 406, 'not acceptable');
  if (r.req.method !== 'POST') return r;
  if (faults.has('v1.catalogue.no-5xx/utf16-body-500') && /charset=utf-16/i.test(r.header('content-type') ?? '')) return fail('No decoder for this charset.');
  const watched = ['v1.catalogue.no-5xx/duplicate-member-500', 'v1.catalogue.problem-json/deep-nesting-plain-text', 'v1.catalogue.no-5xx/escape-character-500'] as const;
  if (!watched.some((id) => faults.has(id))) return r;
  const text = await r.body();
  if (faults.has('v1.catalogue.problem-json/deep-nesting-plain-text') && text.includes('['.repeat(1000))) return plain(r, 400, 'nesting too deep');
  if (faults.has('v1.catalogue.no-5xx/duplicate-member-500') && r.path === '/v1/execute' && /^\{("[^"]+":)("(?:[^"\\]|\\.)*"|[^,{}[\]]*),\1/.test(text)) return fail('Duplicate key in the request map.');
  if (faults.has('v1.catalogue.no-5xx/escape-character-500') && text.includes('\\u001b')) return fail('The log writer choked on an escape character.');
  return r;
}

/** Every /v1 route behind the catalogue faults, and the routes that exist only under one. */
export function withCatalogueFaults(surface: V1Surface, routes: Route[]): Route[] {
  const wrapped: Route[] = routes.map((route) => ({
    ...route,
    handler: async (r: RouteRequest) => {
      const routed = await catalogueFaultRoute(surface, r);
      if (routed) await route.handler(routed);
    },
  }));
  const faults = surface.fake.faults;
  if (faults.has('v1.catalogue.no-5xx/dot-segment-500')) {
    const fail = (r: RouteRequest) => surface.v1.problem(r.res, 500, 'internal_failed', { detail: 'The path resolver stepped outside its root.', retryable: false });
    for (const method of ['GET', 'POST']) wrapped.push({ method, pattern: /^\/v1\/(?:.*\/)?(?:\.|%2e%2e)(?:\/.*)?$/i, handler: fail });
  }
  return wrapped;
}

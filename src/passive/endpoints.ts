/**
 * Which operation of which API a recorded exchange is, from its method and path alone. Minimal on
 * purpose: only the operations the passive rules judge. (A catalogue of every endpoint in
 * src/contract/ could replace these patterns later.)
 */
import { pathOnly, type TrafficExchange } from './exchange.ts';

export type Operation =
  | 'v8.missions.create'
  | 'v8.missions.get'
  | 'v8.missions.events'
  | 'v8.other'
  | 'v1.execute'
  | 'v1.runs.get'
  | 'v1.runs.events'
  | 'v1.webhooks.create'
  | 'v1.other'
  | 'mcp'
  | 'webhook.delivery'
  | 'unknown';

const SEGMENT = '[^/]+';
const PATTERNS: ReadonlyArray<[string, RegExp, Operation]> = [
  ['POST', /^\/v8\/missions\/?$/, 'v8.missions.create'],
  ['GET', new RegExp(`^/v8/missions/${SEGMENT}/events/?$`), 'v8.missions.events'],
  ['GET', new RegExp(`^/v8/missions/${SEGMENT}/?$`), 'v8.missions.get'],
  ['POST', /^\/v1\/execute\/?$/, 'v1.execute'],
  ['GET', new RegExp(`^/v1/runs/${SEGMENT}/events/?$`), 'v1.runs.events'],
  ['GET', new RegExp(`^/v1/runs/${SEGMENT}/?$`), 'v1.runs.get'],
  ['POST', /^\/v1\/webhooks\/?$/, 'v1.webhooks.create'],
];

/** The path's segment after `prefix` (a mission or run id). */
export function idAfter(ex: TrafficExchange, prefix: string): string | undefined {
  const path = pathOnly(ex);
  if (!path.startsWith(prefix)) return undefined;
  const id = path.slice(prefix.length).split('/', 1)[0];
  return id ? decodeURIComponent(id) : undefined;
}

export function operationOf(ex: TrafficExchange): Operation {
  // A delivery recorded at a receiver is known by its signature, wherever the receiver listens.
  if (ex.requestHeaders['service-webhook-signature'] !== undefined) return 'webhook.delivery';
  const path = pathOnly(ex);
  for (const [method, pattern, op] of PATTERNS) if (ex.method === method && pattern.test(path)) return op;
  if (path === '/mcp' || path.startsWith('/mcp/')) return 'mcp';
  if (path.startsWith('/v8/')) return 'v8.other';
  if (path.startsWith('/v1/')) return 'v1.other';
  return 'unknown';
}

export function onSurface(ex: TrafficExchange, surface: 'v8' | 'v1' | 'mcp'): boolean {
  const op = operationOf(ex);
  return op.startsWith(`${surface}.`) || op === surface;
}

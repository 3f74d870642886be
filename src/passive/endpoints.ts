/**
 * Which operation of which API a recorded exchange is, from its method and path alone: the
 * contract's endpoint catalogue finds the endpoint, and the operations the passive rules judge are
 * named here by its path template.
 */
import { endpointOf } from '../contract/endpoints.ts';
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

/** The catalogue's endpoints (method and path template) that the passive rules judge by operation. */
const OPERATIONS: Readonly<Record<string, Operation>> = {
  'POST /v8/missions': 'v8.missions.create',
  'GET /v8/missions/{runId}/events': 'v8.missions.events',
  'GET /v8/missions/{runId}': 'v8.missions.get',
  'POST /v1/execute': 'v1.execute',
  'GET /v1/runs/{id}/events': 'v1.runs.events',
  'GET /v1/runs/{id}': 'v1.runs.get',
  'POST /v1/webhooks': 'v1.webhooks.create',
};

/** The path's segment after `prefix` (a mission or run id). */
export function idAfter(ex: TrafficExchange, prefix: string): string | undefined {
  const path = pathOnly(ex);
  if (!path.startsWith(prefix)) return undefined;
  const id = path.slice(prefix.length).split('/', 1)[0];
  return id ? decodeURIComponent(id) : undefined;
}

const operations = new WeakMap<object, Operation>();

/** The exchange's operation, found once per exchange (every rule asks of every exchange). */
export function operationOf(ex: TrafficExchange): Operation {
  let op = operations.get(ex);
  if (op === undefined) {
    op = findOperation(ex);
    operations.set(ex, op);
  }
  return op;
}

function findOperation(ex: TrafficExchange): Operation {
  // A delivery recorded at a receiver is known by its signature, wherever the receiver listens.
  if (ex.requestHeaders['service-webhook-signature'] !== undefined) return 'webhook.delivery';
  const path = pathOnly(ex);
  // Recorders keep a trailing slash a client sent; the catalogue's templates have none.
  const endpoint = endpointOf(ex.method, path.length > 1 ? path.replace(/\/$/, '') : path);
  const op = endpoint && OPERATIONS[`${endpoint.method} ${endpoint.path}`];
  if (op) return op;
  if (path === '/mcp' || path.startsWith('/mcp/')) return 'mcp';
  if (path.startsWith('/v8/')) return 'v8.other';
  if (path.startsWith('/v1/')) return 'v1.other';
  return 'unknown';
}

export function onSurface(ex: TrafficExchange, surface: 'v8' | 'v1' | 'mcp'): boolean {
  const op = operationOf(ex);
  return op.startsWith(`${surface}.`) || op === surface;
}

/**
 * Faults of the probe catalogue rules (`mcp.catalogue.*`): each bends /mcp where only a catalogue
 * operator looks (a fractional id, the method `apicert/unknown`, a JSON text with \u-escaped
 * letters, arguments that are a string, the session id `apicert-never-issued-session`, an unknown
 * envelope member, the cursor `apicert-not-a-cursor`).
 */
import { isRecord } from '../../util/json.ts';
import type { FakeContext } from '../context.ts';
import type { Route, RouteRequest } from '../http.ts';
import { writeJson } from './respond.ts';

const FAULTS = [
  'mcp.catalogue.no-5xx/fractional-id-500',
  'mcp.catalogue.no-5xx/unknown-session-500',
  'mcp.catalogue.no-5xx/cursor-500',
  'mcp.catalogue.error-status/unknown-method-result',
  'mcp.catalogue.error-status/string-arguments-accepted',
  'mcp.catalogue.accepts-valid/escaped-text-parse-error',
  'mcp.catalogue.problem-json/extra-member-string-code',
] as const;

/** Answers the request when a fault bends it; false when the transport should go on. */
async function bent(fake: FakeContext, r: RouteRequest): Promise<boolean> {
  const has = (id: (typeof FAULTS)[number]) => fake.faults.has(id);
  const serverError = () => (writeJson(r.res, 500, { jsonrpc: '2.0', id: null, error: { code: -32603, message: 'Internal error' } }), true);
  if (has('mcp.catalogue.no-5xx/unknown-session-500') && r.header('mcp-session-id') === 'apicert-never-issued-session') return serverError();
  const text = await r.body();
  if (has('mcp.catalogue.accepts-valid/escaped-text-parse-error') && /\\u00[4-7][0-9a-f]/i.test(text)) return (writeJson(r.res, 200, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }), true);
  let m: unknown;
  try {
    m = JSON.parse(text);
  } catch {
    return false;
  }
  if (!isRecord(m)) return false;
  const params = isRecord(m.params) ? m.params : {};
  if (has('mcp.catalogue.no-5xx/fractional-id-500') && typeof m.id === 'number' && !Number.isInteger(m.id)) return serverError();
  if (has('mcp.catalogue.no-5xx/cursor-500') && m.method === 'tools/list' && params.cursor === 'apicert-not-a-cursor') return serverError();
  if (has('mcp.catalogue.error-status/unknown-method-result') && m.method === 'apicert/unknown') return (writeJson(r.res, 200, { jsonrpc: '2.0', id: m.id, result: {} }), true);
  if (has('mcp.catalogue.error-status/string-arguments-accepted') && m.method === 'tools/call' && typeof params.arguments === 'string') return (writeJson(r.res, 200, { jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: 'done' }] } }), true);
  if (has('mcp.catalogue.problem-json/extra-member-string-code') && 'apicert' in m) return (writeJson(r.res, 200, { jsonrpc: '2.0', id: m.id, error: { code: 'unknown_member', message: 'Unknown member apicert.' } }), true);
  return false;
}

/** The transport's POST behind the catalogue faults. */
export function withCatalogueFaults(fake: FakeContext, routes: Route[]): Route[] {
  if (!FAULTS.some((id) => fake.faults.has(id))) return routes;
  return routes.map((route) => (route.method !== 'POST' ? route : { ...route, handler: async (r: RouteRequest) => ((await bent(fake, r)) ? undefined : route.handler(r)) }));
}

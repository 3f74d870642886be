/** Authentication: 401 for a missing or expired token, 403 for a missing scope, on every missions endpoint. */
import { endpointOf, type Endpoint } from '../../../contract/endpoints.ts';
import { type CheckContext, type Exchange, type Judge, section } from '../../../rule/index.ts';
import { journalFact, operation, requestBodyMissing } from '../../../traffic/read.ts';
import type { Credential } from '../../../profile/schema.ts';
import { createMission, fixture, newKey, MISSIONS } from '../support/missions.ts';
import { otherCauseOfRefusal } from '../support/ordinary.ts';
import { limiterRefused } from '../support/limiter.ts';

const rule = section({ destructive: 'mutate', surface: 'v8', document: 'v8-integration-gateway.md', needs: { credentials: ['v8:holding:missions:write+missions:read'], fixtures: ['v8.missions.succeeds', 'v8.missions.waits'] } });

interface Call {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  json?: unknown;
  scope: string;
  stream?: boolean;
}

/** One request per missions endpoint against a real mission, so only auth can refuse it. */
async function missionCalls(ctx: CheckContext): Promise<Call[]> {
  const mission = await createMission(ctx, 'waits');
  const base = `${MISSIONS}/${mission.runId}`;
  return [
    { name: 'create', method: 'POST', path: MISSIONS, json: fixture(ctx, 'succeeds'), scope: 'missions:write' },
    { name: 'get', method: 'GET', path: base, scope: 'missions:read' },
    { name: 'events', method: 'GET', path: `${base}/events`, scope: 'missions:read', stream: true },
    { name: 'signals', method: 'POST', path: `${base}/signals`, json: { signal: 'apicert.auth-probe', payload: { n: 1 } }, scope: 'missions:write' },
  ];
}

async function call(ctx: CheckContext, c: Call, credential: Credential | null, label: string): Promise<number> {
  const headers: Record<string, string> = c.method === 'POST' ? { 'idempotency-key': newKey() } : {};
  if (c.stream) {
    // Bounded: a stream that is (wrongly) opened is dropped after its first event.
    const res = await ctx.http.stream({ method: 'GET', path: c.path, credential, label, headers, maxMs: 2_000, onEvent: () => 'disconnect' });
    return res.status;
  }
  const request: Parameters<typeof ctx.http.send>[0] = { method: c.method, path: c.path, credential, headers, label };
  if (c.json !== undefined) request.json = c.json;
  return (await ctx.http.send(request)).status;
}

/**
 * Every request to a missions endpoint the catalogue names, with its endpoint, that only its
 * credential can refuse: the requests these rules judge. One that also carries another cause (a
 * malformed body, no Idempotency-Key, ...) may be refused for that cause first: no sentence orders them.
 */
function missionsRequests(j: Judge, each: (ex: Exchange, endpoint: Endpoint) => void): void {
  for (const r of journalFact(j.exchanges, missionsRequestsIn)) {
    if (r.missing !== undefined) j.lacks(r.ex, `the request's body: ${r.missing}`);
    else each(r.ex, r.endpoint);
  }
}

/**
 * `missionsRequests`' walk, once per journal for the three rules taking it (journalFact): each
 * answered missions request with its endpoint, and what of its body is missing, in journal order.
 */
function missionsRequestsIn(exchanges: readonly Exchange[]): ReadonlyArray<{ ex: Exchange; endpoint: Endpoint; missing?: string }> {
  const out: Array<{ ex: Exchange; endpoint: Endpoint; missing?: string }> = [];
  for (const ex of exchanges) {
    if (ex.status === undefined || !operation(ex).startsWith('v8.missions.')) continue;
    const endpoint = endpointOf(ex.method, ex.path);
    if (!endpoint) continue;
    const missing = endpoint.bodies.length > 0 ? requestBodyMissing(ex) : undefined;
    if (missing !== undefined) out.push({ ex, endpoint, missing });
    else if (otherCauseOfRefusal(ex, endpoint) === undefined) out.push({ ex, endpoint });
  }
  return out;
}

export const missingToken = rule({
  id: 'v8.missions.auth.missing-token-401',
  title: 'Every missions endpoint answers 401 without a token',
  level: 'required',
  spec: { section: 'Authentication', quote: 'A missing or expired token gives `401`.' },
  judgement: {
    record: 'a request to a /v8/missions endpoint sent without an Authorization header, carrying no other cause of refusal (a body of the contract\'s shape, its required headers, well-formed path parameters)',
    judge(j) {
      missionsRequests(j, (ex) => {
        if (ex.requestHeaders.authorization !== undefined) return;
        j.check(ex, ex.status === 401, `without a token answered ${ex.status}, expected 401`);
      });
    },
  },
  async provoke(ctx) {
    for (const c of await missionCalls(ctx)) await call(ctx, c, null, `${c.name} without a token`);
  },
});

export const expiredToken = rule({
  id: 'v8.missions.auth.expired-token-401',
  title: 'Every missions endpoint answers 401 to an expired token',
  level: 'required',
  needs: { credentials: ['v8:expired'] },
  spec: { section: 'Authentication', quote: 'A missing or expired token gives `401`.' },
  judgement: {
    record: 'a request to a /v8/missions endpoint carrying a credential the profile marks expired and no other cause of refusal',
    judge(j) {
      // Whether a token has expired is not in the traffic: the profile says it (`expired: true`).
      missionsRequests(j, (ex) => {
        if (ex.requestHeaders.authorization === undefined || !j.credentialOf(ex)?.expired) return;
        j.check(ex, ex.status === 401, `with an expired token answered ${ex.status}, expected 401`);
      });
    },
  },
  async provoke(ctx) {
    const expired = ctx.expired('v8');
    for (const c of await missionCalls(ctx)) await call(ctx, c, expired, `${c.name} with an expired token`);
  },
});

export const scope403 = rule({
  id: 'v8.missions.auth.scope-403',
  title: 'Each missions endpoint answers 403 to a token without its scope',
  level: 'required',
  needs: { credentials: ['v8:lacking:missions:read', 'v8:lacking:missions:write'] },
  spec: { section: 'Authentication', quote: 'A token without the scope required for the endpoint gives `403`.' },
  judgement: {
    record: 'a request to a /v8/missions endpoint whose scope is shown, carrying a valid credential the profile says lacks that scope and no other cause of refusal',
    judge(j) {
      // Which scopes a token holds is not in the traffic: the profile's credentials say it.
      missionsRequests(j, (ex, endpoint) => {
        if (endpoint.scope === undefined || ex.requestHeaders.authorization === undefined) return;
        const credential = j.credentialOf(ex);
        // A valid principal may meet its rate limit first: no sentence orders the limiter and the scope check.
        if (!credential || credential.expired || credential.scopes.includes(endpoint.scope) || limiterRefused(j, ex)) return;
        j.check(ex, ex.status === 403, `with a token lacking ${endpoint.scope} answered ${ex.status}, expected 403`);
      });
    },
  },
  async provoke(ctx) {
    const calls = await missionCalls(ctx);
    for (const c of calls) await call(ctx, c, ctx.lacking('v8', c.scope), `${c.name} without ${c.scope}`);
    // "Scopes required for cancel ... not shown": record what the target asks for.
    const cancelTarget = await createMission(ctx, 'waits');
    const withoutWrite = ctx.lacking('v8', 'missions:write');
    const res = await ctx.http.send({
      method: 'POST',
      path: `${MISSIONS}/${cancelTarget.runId}/cancel`,
      credential: withoutWrite,
      headers: { 'idempotency-key': newKey() },
      label: 'cancel without missions:write',
    });
    ctx.observe('cancel with a token lacking missions:write', res.status, 'the seed does not show the scope cancel needs');
  },
});

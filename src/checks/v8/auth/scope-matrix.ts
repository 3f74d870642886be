/**
 * Authentication: every /v8 endpoint against every credential of the profile (and none), each
 * outcome predicted from the scope table, the caller's principal and the token's expiry.
 */
import { type CheckContext, section, Untestable } from '../../../rule/index.ts';
import type { Credential } from '../../../profile/schema.ts';
import { createMission, fixture, newKey, MISSIONS } from '../support/missions.ts';
import { capabilitySearchBody, PATHS, someTrace } from '../support/read.ts';

const rule = section({ destructive: 'mutate', surface: 'v8', document: 'v8-integration-gateway.md', needs: { credentials: ['v8:holding:missions:write+missions:read', 'v8:primary'] } });

interface Endpoint {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  /** The scope of the Endpoints table; undefined where the seed does not show it (cancel). */
  scope: string | undefined;
  /** A resource of the primary principal: another principal must get 404. */
  owned: boolean;
  /** The outcome for another principal also depends on its own permissions (memory purposes). */
  principalDependent?: boolean;
  json?: unknown;
  mutating?: boolean;
  stream?: boolean;
}

/** `2xx` stands for any success: which one is the endpoint rules' to judge, the matrix judges access. */
type Outcome = 401 | 403 | 404 | '2xx';

interface Prediction {
  outcomes: Outcome[];
  why: string;
}

function outcomeOf(status: number): Outcome | number {
  return status >= 200 && status < 300 ? '2xx' : status;
}

function predict(e: Endpoint, c: Credential | null, primaryPrincipal: string): Prediction | undefined {
  if (c === null) return { outcomes: [401], why: 'no token' };
  if (c.expired) return { outcomes: [401], why: 'expired token' };
  const foreign = c.principal !== primaryPrincipal;
  if (e.scope === undefined) return foreign ? { outcomes: [403, 404], why: "another principal's mission (scope not shown)" } : undefined;
  if (!c.scopes.includes(e.scope)) return foreign && e.owned ? { outcomes: [403, 404], why: `lacks ${e.scope}, another principal` } : { outcomes: [403], why: `lacks ${e.scope}` };
  if (foreign && e.owned) return { outcomes: [404], why: "another principal's resource" };
  if (foreign && e.principalDependent) return { outcomes: ['2xx', 403], why: 'another principal (its own purposes)' };
  return { outcomes: ['2xx'], why: `holds ${e.scope}` };
}

/**
 * Runs a setup step; when it is untestable (a missing fixture), the rows that need it are listed
 * as skipped and the rest of the matrix still runs.
 */
async function optional<T>(step: () => Promise<T> | T, rows: string[], skipped: Record<string, string>): Promise<T | undefined> {
  try {
    return await step();
  } catch (error) {
    if (!(error instanceof Untestable)) throw error;
    for (const row of rows) skipped[row] = error.message;
    return undefined;
  }
}

const MISSION_ROWS = {
  create: 'POST /v8/missions',
  get: 'GET /v8/missions/{runId}',
  events: 'GET /v8/missions/{runId}/events',
  signals: 'POST /v8/missions/{runId}/signals',
  cancel: 'POST /v8/missions/{runId}/cancel',
} as const;

/** The endpoints and the resources they are probed with; rows whose fixture is missing are listed as skipped. */
async function endpoints(ctx: CheckContext, skipped: Record<string, string>): Promise<Endpoint[]> {
  const rows: Endpoint[] = [];
  const createBody = await optional(() => fixture(ctx, 'succeeds'), [MISSION_ROWS.create], skipped);
  if (createBody) rows.push({ name: MISSION_ROWS.create, method: 'POST', path: MISSIONS, scope: 'missions:write', owned: false, json: createBody, mutating: true });
  const waiting = await optional(() => createMission(ctx, 'waits'), [MISSION_ROWS.get, MISSION_ROWS.events, MISSION_ROWS.signals, MISSION_ROWS.cancel], skipped);
  const run = waiting && `${MISSIONS}/${waiting.runId}`;
  if (run) {
    rows.push(
      { name: MISSION_ROWS.get, method: 'GET', path: run, scope: 'missions:read', owned: true },
      { name: MISSION_ROWS.events, method: 'GET', path: `${run}/events`, scope: 'missions:read', owned: true, stream: true },
      { name: MISSION_ROWS.signals, method: 'POST', path: `${run}/signals`, scope: 'missions:write', owned: true, json: { signal: 'apicert.matrix', payload: { probe: true } }, mutating: true },
    );
  }
  rows.push({ name: 'POST /v8/capabilities/search', method: 'POST', path: PATHS.capabilities, scope: 'capabilities:read', owned: false, json: capabilitySearchBody(ctx) });
  const memory = ctx.profile.fixtures.v8.memory;
  if (memory.compartment && memory.purpose) {
    const json = { compartment: memory.compartment, purpose: memory.purpose, queryText: 'apicert scope matrix', classes: memory.classes ?? ['note'] };
    rows.push({ name: 'POST /v8/memory/query', method: 'POST', path: PATHS.memory, scope: 'memory:read', owned: false, principalDependent: true, json });
  } else skipped['POST /v8/memory/query'] = 'no fixtures.v8.memory compartment and purpose';
  const skillId = ctx.profile.fixtures.v8.skillId;
  if (skillId) rows.push({ name: 'GET /v8/skills/{skillId}', method: 'GET', path: `${PATHS.skills}/${encodeURIComponent(skillId)}`, scope: 'skills:read', owned: true });
  else skipped['GET /v8/skills/{skillId}'] = 'no fixtures.v8.skillId';
  const trace = await optional(() => someTrace(ctx), ['GET /v8/traces/{traceId}'], skipped);
  if (trace) rows.push({ name: 'GET /v8/traces/{traceId}', method: 'GET', path: `${PATHS.traces}/${encodeURIComponent(trace.traceId)}`, scope: 'traces:read', owned: true });
  rows.push(
    { name: 'GET /v8/context-twin/goals', method: 'GET', path: PATHS.goals, scope: 'context:read', owned: false },
    { name: 'GET /v8/world-model/certificates', method: 'GET', path: PATHS.certificates, scope: 'world:read', owned: false },
    { name: 'GET /v8/coverage', method: 'GET', path: PATHS.coverage, scope: 'coverage:read', owned: false },
  );
  // Last: a wrongly accepted cancel ends the mission the rows above probe.
  if (run) rows.push({ name: MISSION_ROWS.cancel, method: 'POST', path: `${run}/cancel`, scope: undefined, owned: true, mutating: true });
  return rows;
}

async function probe(ctx: CheckContext, e: Endpoint, credential: Credential | null, label: string): Promise<number> {
  const headers: Record<string, string> = e.mutating ? { 'idempotency-key': newKey() } : {};
  if (e.stream) {
    // Bounded: an opened stream is dropped after its first event.
    const res = await ctx.http.stream({ method: 'GET', path: e.path, credential, headers, label, maxMs: 2_000, onEvent: () => 'disconnect' });
    return res.status;
  }
  const request: Parameters<typeof ctx.http.send>[0] = { method: e.method, path: e.path, credential, headers, label };
  if (e.json !== undefined) request.json = e.json;
  return (await ctx.http.send(request)).status;
}

export const scopeMatrix = rule({
  id: 'v8.auth.scope-matrix',
  title: "Every /v8 endpoint answers every credential as the scope table predicts: 401 without or with an expired token, 403 without the endpoint's scope, 404 for another principal's mission, trace or skill, else 2xx",
  level: 'required',
  spec: {
    section: 'Authentication; Endpoints',
    quote:
      "A missing or expired token gives `401`. A token without the scope required for the endpoint gives `403`. … Mission, trace and skill lookups are limited to the caller's principal and policy scope; a resource outside it gives `404`.",
  },
  async check(ctx: CheckContext) {
    const primary = ctx.primary('v8');
    const skipped: Record<string, string> = {};
    const rows = await endpoints(ctx, skipped);
    // The rate-limit probe is burst to its limit by v8.missions.rate-limit-429: its answers would say nothing of access.
    const rateProbe = ctx.profile.fixtures.v8.rateLimitCredential;
    const credentials: Array<Credential | null> = [null, ...ctx.profile.credentials.filter((c) => c.surfaces.includes('v8') && c.name !== rateProbe)];
    const columns = credentials.map((c) => c?.name ?? '(no token)');
    const matrix: Record<string, string[]> = {};
    const failures: string[] = [];
    let cells = 0;
    for (const e of rows) {
      const row: string[] = [];
      for (const c of credentials) {
        const column = c?.name ?? '(no token)';
        const expected = predict(e, c, primary.principal);
        if (!expected) {
          row.push('-');
          continue;
        }
        const status = await probe(ctx, e, c, `${e.name} as ${column}`);
        cells += 1;
        const ok = (expected.outcomes as Array<Outcome | number>).includes(outcomeOf(status));
        row.push(ok ? `${status}` : `${status}≠${expected.outcomes.join('/')}`);
        if (!ok) failures.push(`${e.name} × ${column}: ${status}, expected ${expected.outcomes.join(' or ')} (${expected.why})`);
      }
      matrix[e.name] = row;
    }
    ctx.observe('scope matrix', { columns, rows: matrix }, `${cells} cells probed; a cell reads "status" or "status≠expected"; "-" is not probed: the seed shows no scope for cancel`);
    if (Object.keys(skipped).length > 0) ctx.observe('rows skipped', skipped);
    ctx.expect(failures.length === 0, `${failures.length} of ${cells} cells differ from the scope table: ${failures.slice(0, 15).join('; ')}${failures.length > 15 ? ` (+${failures.length - 15} more)` : ''}`);
  },
});

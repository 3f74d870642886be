/**
 * Authentication: every /v8 endpoint against every credential of the profile (and none), each
 * outcome predicted from the scope table, the caller's principal and the token's expiry.
 */
import { type CheckContext, credentialIn, type Exchange, type Judge, section, Untestable } from '../../../rule/index.ts';
import { endpointOf, type Endpoint as EndpointSpec } from '../../../contract/endpoints.ts';
import { conditionalForm, eventsOf, operation, requestJson } from '../../../traffic/read.ts';
import { sharesKeyInFlight } from '../../../traffic/shared-keys.ts';
import { isRecord } from '../../../util/json.ts';
import { callerOf, createdMission, lastSegment, missionOf, pastIndexBound, primaryPrincipal } from '../support/traffic.ts';
import { otherCauseOfRefusal } from '../support/ordinary.ts';
import { stepTraces } from '../../../traffic/trace-naming.ts';
import type { Credential } from '../../../profile/schema.ts';
import { createMission, fixture, newKey, MISSIONS } from '../support/missions.ts';
import { capabilitySearchBody, PATHS, someTrace } from '../support/read.ts';

/** Operations on a resource of one principal: another principal gets 404 (a skill: see CATALOGUED). */
const OWNED = new Set(['v8.missions.get', 'v8.missions.events', 'v8.missions.signals', 'v8.missions.cancel', 'v8.traces.get', 'v8.skills.get']);

/**
 * Lookups of catalogue entries: "Mission, trace and skill lookups are limited to the caller's principal
 * and policy scope; a resource outside it gives `404`." A skill belongs to no mission, and whether
 * another principal's policy scope includes the primary principal's skill is not stated: a shared
 * catalogue (2xx) is as legal as a per-principal one (404).
 */
const CATALOGUED = new Set(['v8.skills.get']);

const rule = section({ destructive: 'mutate', surface: 'v8', document: 'v8-integration-gateway.md', needs: { credentials: ['v8:holding:missions:write+missions:read', 'v8:primary'] } });

interface Endpoint {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  /** The scope of the Endpoints table; undefined where the seed does not show it (cancel). */
  scope: string | undefined;
  /** A resource of the primary principal: another principal must get 404. */
  owned: boolean;
  /** A catalogue entry the primary principal may read: another principal may read it too, or get 404. */
  catalogued?: boolean;
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
  if (foreign && e.owned) return e.catalogued ? { outcomes: ['2xx', 404], why: "a skill the primary principal may read (another principal's policy scope is not stated)" } : { outcomes: [404], why: "another principal's resource" };
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

/** The answer to one cell; the response itself names the exchange when the cell fails. */
async function probe(ctx: CheckContext, e: Endpoint, credential: Credential | null, label: string): Promise<{ status: number }> {
  const headers: Record<string, string> = e.mutating ? { 'idempotency-key': newKey() } : {};
  if (e.stream) {
    // Bounded: an opened stream is dropped after its first event.
    return ctx.http.stream({ method: 'GET', path: e.path, credential, headers, label, maxMs: 2_000, onEvent: () => 'disconnect' });
  }
  const request: Parameters<typeof ctx.http.send>[0] = { method: e.method, path: e.path, credential, headers, label };
  if (e.json !== undefined) request.json = e.json;
  return ctx.http.send(request);
}

/**
 * The credential a request carried: `null` when it carried no Authorization header, undefined when
 * the profile does not know it. A 2xx without one may be a recorder's stripping (the HAR reader
 * says so): it counts as "no token" only when other requests of the recording kept theirs.
 */
function callerCredential(j: Judge, ex: Exchange, recorderKeepsCredentials: boolean): Credential | null | undefined {
  if (ex.requestHeaders.authorization === undefined) return ex.headersMissing?.authorization === undefined || recorderKeepsCredentials ? null : undefined;
  return j.credentialOf(ex);
}

/**
 * A request the matrix may predict: to a /v8 endpoint of the catalogue, with well-formed path
 * parameters, every required header of the endpoint (the credential aside), a body of the
 * contract's shape naming no principalId, no query, no foreign Origin, an Accept any JSON or stream
 * answer satisfies. Anything else may be refused for its form first, which is another rule's.
 */
function ordinary(ex: Exchange, e: EndpointSpec): boolean {
  if (e.surface !== 'v8' || otherCauseOfRefusal(ex, e) !== undefined) return false;
  // A body naming a principal asks for another principal's resources: 403 or 404, not the scope's answer.
  const body = requestJson(ex);
  return !(isRecord(body) && 'principalId' in body);
}

/** Who owns what the recording shows: missions by their create, traces by the stream that named them, the skill fixture by the primary principal. */
class Owners {
  private readonly missions = new Map<string, string>();
  private readonly traces = new Map<string, string>();
  /** The stream that named each trace. */
  private readonly named = new Map<string, Exchange>();
  private readonly skill: { id: string | undefined; principal: string | undefined };
  constructor(skill: { id: string | undefined; principal: string | undefined }) {
    this.skill = skill;
  }

  of(ex: Exchange): string | undefined {
    switch (operation(ex)) {
      case 'v8.missions.get':
      case 'v8.missions.events':
      case 'v8.missions.signals':
      case 'v8.missions.cancel':
        return this.missions.get(missionOf(ex) ?? '');
      case 'v8.traces.get':
        return this.traces.get(lastSegment(ex));
      case 'v8.skills.get':
        return lastSegment(ex) === this.skill.id ? this.skill.principal : undefined;
      default:
        return undefined;
    }
  }

  /** Whether `note` may learn from the exchange: a create answered 202, or a stream answered 200. */
  learnsFrom(ex: Exchange): boolean {
    return ex.status === 202 ? operation(ex) === 'v8.missions.create' : ex.status === 200 && operation(ex) === 'v8.missions.events';
  }

  note(ex: Exchange, principal: string | undefined): void {
    if (principal === undefined) return;
    const made = createdMission(ex);
    if (made && !this.missions.has(made.runId)) this.missions.set(made.runId, principal);
    if (operation(ex) === 'v8.missions.events' && ex.status === 200) {
      for (const t of stepTraces(eventsOf(ex) ?? [])) {
        if (this.traces.has(t.traceId)) continue;
        this.traces.set(t.traceId, this.missions.get(missionOf(ex) ?? '') ?? principal);
        this.named.set(t.traceId, ex);
      }
    }
  }

  /**
   * A 404 to a trace read that may have come before the trace was indexed: not past the bound after
   * the stream that named it (pastIndexBound, as the traces rules judge it: "can be read" says not
   * when), or when the journal kept no time to tell. Such an answer says nothing of the caller's access.
   */
  maybeNotYetIndexed(ex: Exchange): boolean {
    if (operation(ex) !== 'v8.traces.get' || ex.status !== 404) return false;
    const named = this.named.get(lastSegment(ex));
    return named === undefined || pastIndexBound(ex, named) !== true;
  }
}

/** Operations whose success the matrix may predict from the request: reads, and a create under a fresh key (a signal or cancel also depends on the mission's state). */
const PREDICTS_SUCCESS = new Set(['v8.missions.get', 'v8.missions.events', 'v8.capabilities.search', 'v8.memory.query', 'v8.skills.get', 'v8.traces.get', 'v8.goals.list', 'v8.certificates.list', 'v8.coverage.get', 'v8.missions.create']);

export const scopeMatrix = rule({
  id: 'v8.auth.scope-matrix',
  title: "Every /v8 endpoint answers every credential as the scope table predicts: 401 without or with an expired token, 403 without the endpoint's scope, 404 for another principal's mission or trace (2xx or 404 for the primary principal's skill), else 2xx",
  level: 'required',
  spec: {
    section: 'Authentication; Endpoints',
    quote:
      "A missing or expired token gives `401`. A token without the scope required for the endpoint gives `403`. … Mission, trace and skill lookups are limited to the caller's principal and policy scope; a resource outside it gives `404`.",
  },
  judgement: {
    record: "an ordinary request (well-formed, a body of the contract's shape) to a /v8 endpoint, without a token or with a credential of the profile",
    judge(j) {
      // Which scopes, principal and expiry a token has is not in the traffic: the profile says, asked
      // (`j.credentialOf`) once a request carrying a token is to be judged; a request without one is judged without it.
      const memory = j.profile?.fixtures.v8.memory;
      const rateProbe = j.profile?.fixtures.v8.rateLimitCredential;
      const primary = primaryPrincipal(j);
      const owners = new Owners({ id: j.profile?.fixtures.v8.skillId, principal: primary });
      const keys = new Set<string>();
      const keepsCredentials = j.exchanges.some((ex) => ex.requestHeaders.authorization !== undefined);
      const matrix: Record<string, Record<string, string>> = {};
      for (const ex of j.exchanges) {
        const e = endpointOf(ex.method, ex.path);
        const credential = e && ordinary(ex, e) ? callerCredential(j, ex, keepsCredentials) : undefined;
        const op = operation(ex);
        const key = ex.requestHeaders['idempotency-key'];
        // A key sent before, or on another request in flight at once (either may have been taken first), is no fresh key.
        const fresh = key === undefined || !(keys.has(`${callerOf(ex)}\n${op}\n${key}`) || sharesKeyInFlight(j.exchanges, ex));
        if (key !== undefined) keys.add(`${callerOf(ex)}\n${op}\n${key}`);
        if (e && credential !== undefined && ex.status !== undefined && ex.status !== 429 && (credential === null || credential.name !== rateProbe)) {
          const owner = owners.of(ex);
          const owned = OWNED.has(op);
          let expected = predict({ name: op, method: e.method as 'GET' | 'POST', path: e.path, scope: e.scope, owned, catalogued: CATALOGUED.has(op), principalDependent: op === 'v8.memory.query' }, credential, owner ?? credential?.principal ?? '');
          // Whose a resource is, when nothing before showed it: another principal's (404) or no one's (404) is as likely as the caller's.
          if (expected && owned && owner === undefined && credential !== null && !credential.expired) expected = expected.outcomes.includes(403) ? { outcomes: [403, 404], why: expected.why } : undefined;
          if (expected?.outcomes.includes('2xx')) {
            const body = requestJson(ex);
            const memoryOpen = op === 'v8.memory.query' && !(isRecord(body) && body.compartment === memory?.compartment && body.purpose === memory?.purpose && credential?.principal === primary);
            // A precondition or a range may turn the success into a 304, 412 or 206 (RFC 9110 §13.2.2, §14.2): no success is predicted.
            if (!PREDICTS_SUCCESS.has(op) || !fresh || ex.requestHeaders['last-event-id'] !== undefined || conditionalForm(ex) !== undefined || owners.maybeNotYetIndexed(ex)) expected = undefined;
            else if (memoryOpen) expected = { outcomes: ['2xx', 403], why: 'a purpose or compartment the principal may not use (its own purposes)' };
          }
          if (expected) {
            const column = credential?.name ?? '(no token)';
            const ok = j.check(ex, (expected.outcomes as Array<Outcome | number>).includes(outcomeOf(ex.status)), `${e.method} ${e.path} × ${column}: ${ex.status}, expected ${expected.outcomes.join(' or ')} (${expected.why})`);
            (matrix[`${e.method} ${e.path}`] ??= {})[column] = ok ? `${ex.status}` : `${ex.status}≠${expected.outcomes.join('/')}`;
          }
        }
        // Whose credential it carried is looked up only where the exchange can teach the owners anything.
        if (owners.learnsFrom(ex)) owners.note(ex, credentialIn(ex, j.profile?.credentials ?? [])?.principal);
      }
      if (Object.keys(matrix).length > 0) j.observe('scope matrix', matrix, 'a cell reads "status" or "status≠expected" (the last exchange of that cell)');
    },
  },
  async provoke(ctx: CheckContext) {
    const skipped: Record<string, string> = {};
    const rows = await endpoints(ctx, skipped);
    // The rate-limit probe is burst to its limit by v8.missions.rate-limit-429: its answers would say nothing of access.
    const rateProbe = ctx.profile.fixtures.v8.rateLimitCredential;
    const credentials: Array<Credential | null> = [null, ...ctx.profile.credentials.filter((c) => c.surfaces.includes('v8') && c.name !== rateProbe)];
    const primary = ctx.primary('v8');
    for (const e of rows) {
      for (const c of credentials) {
        if (!predict(e, c, primary.principal)) continue;
        await probe(ctx, e, c, `${e.name} as ${c?.name ?? '(no token)'}`);
      }
    }
    if (Object.keys(skipped).length > 0) ctx.observe('rows skipped', skipped);
  },
});

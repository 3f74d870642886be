/** Authentication: bearer `service_sk_` API keys; refusals name one of the related errors. */
import { randomBytes } from 'node:crypto';
import { type CheckContext, type Exchange, type Judge, mediaType, pathOnly, section } from '../../../rule/index.ts';
import { onSurface, operation, recordOf, responseJson, wholeBody } from '../../../traffic/read.ts';
import { limiterRefused } from '../support/traffic.ts';
import { orOtherRefusals, otherCauses } from '../errors/other-causes.ts';
import { API_KEY_PREFIX } from '../../../contract/v1/common.ts';
import { operationOf } from '../../../contract/endpoints.ts';
import type { Credential } from '../../../profile/schema.ts';
import { approveDecision, EXECUTE, isProblem, newKey, primaryKey, problemCode, runPath, startRun, taskBody } from '../support/fabric.ts';
import { MARKER_START } from '../../../redact/redactor.ts';
import { scopeRefusal } from '../../../traffic/scope-refusal.ts';
import { DELIVERIES, publicUrl, WEBHOOKS } from '../webhooks/support.ts';

const rule = section({ destructive: 'mutate', surface: 'v1', document: 'v1-execution-fabric.md', needs: { credentials: ['v1:key'], fixtures: ['v1.tasks.completes'] } });

interface Call {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  json?: unknown;
  stream?: boolean;
}

interface Answer {
  status: number;
  contentType: string;
  json: unknown;
}

/**
 * One request per /v1 endpoint against a real run, so only authentication can refuse it. The
 * delivery listing's query parameters are "not shown": it is called only when the primary key's
 * same request was served, so a listing that needs a query cannot refuse for want of one.
 */
async function endpointCalls(ctx: CheckContext): Promise<Call[]> {
  const runId = await startRun(ctx, 'completes');
  const calls: Call[] = [
    { name: 'execute', method: 'POST', path: EXECUTE, json: taskBody(ctx, 'completes') },
    { name: 'get run', method: 'GET', path: runPath(runId) },
    { name: 'run events', method: 'GET', path: runPath(runId, '/events'), stream: true },
    { name: 'approve', method: 'POST', path: runPath(runId, '/approve'), json: { action_digest: 'apicert-auth-probe', decision: approveDecision(ctx) } },
    { name: 'cancel', method: 'POST', path: runPath(runId, '/cancel') },
    { name: 'usage', method: 'GET', path: '/v1/usage' },
    // A public URL nobody answers: a registration wrongly accepted delivers nowhere.
    { name: 'register webhook', method: 'POST', path: WEBHOOKS, json: { url: publicUrl() } },
  ];
  const listing = await ctx.http.send({ method: 'GET', path: DELIVERIES, credential: primaryKey(ctx), label: 'list deliveries with the primary key (is it served without a query?)' });
  if (listing.status >= 200 && listing.status < 300) calls.push({ name: 'list deliveries', method: 'GET', path: DELIVERIES });
  return calls;
}

async function call(ctx: CheckContext, c: Call, credential: Credential | null, label: string): Promise<Answer> {
  if (c.stream) {
    // Bounded: a stream that is (wrongly) opened is dropped after its first event.
    const res = await ctx.http.stream({ method: 'GET', path: c.path, credential, label, maxMs: 2_000, onEvent: () => 'disconnect' });
    return { status: res.status, contentType: res.contentType, json: res.json };
  }
  const request: Parameters<typeof ctx.http.send>[0] = { method: c.method, path: c.path, credential, label, headers: c.method === 'POST' ? { 'idempotency-key': newKey() } : {} };
  if (c.json !== undefined) request.json = c.json;
  const res = await ctx.http.send(request);
  return { status: res.status, contentType: res.contentType, json: res.json };
}

/**
 * "Related errors: `authentication_failed`, `authorization_failed`, `entitlement_failed`." is all the
 * seed says of a key it cannot serve: no sentence maps a missing, never-issued, expired or
 * unprefixed key to one of them (and "Mapping of each `code` to an HTTP status: not shown."). Any of
 * the three is a reading; which one a deployment took is recorded.
 */
const RELATED_ERRORS: readonly unknown[] = ['authentication_failed', 'authorization_failed', 'entitlement_failed'];
const RELATED = 'authentication_failed, authorization_failed or entitlement_failed';

/** The codes of the related errors a rule saw taken, recorded once: the seed leaves the choice open. */
function codesTaken(): { add(code: unknown): void; observe(on: Pick<Judge, 'observe'>, subject: string): void } {
  const taken = new Set<string>();
  return {
    add(code) {
      if (code !== undefined) taken.add(String(code));
    },
    observe(on, subject) {
      if (taken.size > 0) on.observe(subject, [...taken].sort(), 'no sentence maps this case to one of the related errors');
    },
  };
}

/** One case per request: judged on the answer just received, and the check goes on to the next endpoint. */
function expectRelatedError(ctx: CheckContext, what: string, a: Answer): unknown {
  if (!ctx.check(a.status >= 400 && a.status < 500, `${what} answered ${a.status}, expected a 4xx refusal`)) return undefined;
  ctx.check(isProblem(a), `${what} was refused with content-type "${a.contentType}", expected application/problem+json`);
  const code = problemCode(a);
  return ctx.check(RELATED_ERRORS.includes(code), `${what} was refused with code "${code}", expected ${RELATED}`) ? code : undefined;
}

/**
 * A /v1 request of an operation the description lists (a delivery at a receiver is none): of other
 * paths and methods ("All paths are relative to {base_url}" lists the endpoints) nothing is said, so
 * a 404 for an unknown path or a 204 to a CORS preflight OPTIONS, before any key is read, is legal.
 */
function onV1(ex: Exchange): boolean {
  if (!onSurface(ex, 'v1') || operation(ex) === 'webhook.delivery') return false;
  // "The HEAD method is identical to GET except that the server MUST NOT send content" (RFC 9110 9.3.2): a HEAD of a listed GET is that operation.
  return operation(ex) !== 'v1.other' || (ex.method === 'HEAD' && operationOf('GET', pathOnly(ex)) !== undefined);
}

/**
 * The same judgement as expectRelatedError, over an exchange: a 4xx problem with one of the related
 * errors' codes, the one taken recorded. No sentence orders a deployment's checks: a request that also carries
 * another cause of refusal (a malformed body, a run it was not shown, `otherCauses`) may be refused
 * for that cause instead. `principal`: whom the key names, for the runs within its reach.
 */
function judgeRelatedError(j: Judge, ex: Exchange, what: string, principal?: string): unknown {
  const others = otherCauses(j, ex, principal);
  if (others.some((c) => c.refuses(ex))) {
    j.check(ex, true, `${what} was refused for another cause it carries`);
    return undefined;
  }
  const or = orOtherRefusals(others);
  if (!j.check(ex, ex.status! >= 400 && ex.status! < 500, `${what} answered ${ex.status}, expected a 4xx refusal`)) return undefined;
  const type = mediaType(ex.responseHeaders);
  // An answer to HEAD has no content (RFC 9110 9.3.2: "The server MUST NOT send content in the
  // response"): its status and, when it sends one, its content-type are all there is to judge.
  if (ex.method === 'HEAD' && type === '') return undefined;
  if (!j.check(ex, type === 'application/problem+json', `${what} was refused with content-type "${type}", expected application/problem+json`)) return undefined;
  if (ex.method === 'HEAD') return undefined;
  if (wholeBody(j, ex) === undefined) return undefined;
  const code = recordOf(responseJson(ex))?.code;
  return j.check(ex, RELATED_ERRORS.includes(code), `${what} was refused with code ${JSON.stringify(code)}, expected ${RELATED}${or}`) ? code : undefined;
}

/**
 * The token a request presented, as far as the exchange shows it: a recorder that hid it left a
 * marker, which the profile resolves; undefined when nothing can say what was sent (the profile is
 * the recording's own facts, which name the credential and hold only its marker).
 */
function presentedToken(j: Judge, ex: Exchange): string | undefined {
  const auth = ex.requestHeaders.authorization;
  if (auth === undefined) return undefined;
  const token = auth.replace(/^Bearer\s+/i, '').trim();
  if (!token.startsWith(MARKER_START)) return token;
  // A recorder's marker for a part of a credential (a key sent without its prefix, or cut short): what was sent is some part of that key, whose prefix it may or may not hold.
  const part = PART_MARKER.exec(token);
  if (part) {
    j.lacks(ex, `the token: the recording hid it as a part of the credential ${part[1]}, so whether it carried the ${API_KEY_PREFIX} prefix is not shown`);
    return undefined;
  }
  const resolved = (j.profile?.credentials.length ?? 0) > 0 ? j.credentialOf(ex)?.token : undefined;
  return resolved?.startsWith(MARKER_START) ? undefined : resolved;
}

const PART_MARKER = /^«redacted:part-of-token:(.+)»$/;

/** One unexpired credential of each other surface whose token lacks the API key prefix. */
function otherSurfaceTokens(credentials: readonly Credential[]): Credential[] {
  const picked = new Map<string, Credential>();
  for (const c of credentials) {
    if (c.expired || c.surfaces.includes('v1') || c.token.startsWith(API_KEY_PREFIX)) continue;
    const surface = c.surfaces.join('/');
    if (!picked.has(surface)) picked.set(surface, c);
  }
  return [...picked.values()];
}

/** A key of the documented format that the target never issued. */
function unknownKey(): Credential {
  return { name: 'never-issued', token: `${API_KEY_PREFIX}apicert_never_issued_${randomBytes(12).toString('hex')}`, surfaces: ['v1'], scopes: [], principal: 'nobody', expired: false };
}

export const unauthenticated = rule({
  id: 'v1.auth.unauthenticated',
  title: 'Every /v1 endpoint refuses a request without an API key, or with a key it never issued, with a 4xx problem naming one of the related errors (authentication_failed, authorization_failed, entitlement_failed)',
  level: 'required',
  spec: {
    section: 'Authentication',
    quote: 'Scheme: HTTP bearer. The token is an API key whose format has the prefix `service_sk_`. … Related errors: `authentication_failed`, `authorization_failed`, `entitlement_failed`.',
  },
  judgement: {
    record: 'a /v1 request sent without an Authorization header',
    judge(j) {
      const codes = codesTaken();
      for (const ex of j.exchanges) {
        if (!onV1(ex) || ex.status === undefined || ex.requestHeaders.authorization !== undefined || limiterRefused(ex)) continue;
        codes.add(judgeRelatedError(j, ex, `${ex.method} ${pathOnly(ex)} without an API key`));
      }
      codes.observe(j, 'code of the refusals without an API key');
    },
  },
  async provoke(ctx) {
    const statuses: Record<string, number> = {};
    const codes = codesTaken();
    for (const c of await endpointCalls(ctx)) {
      statuses[c.name] = (await call(ctx, c, null, `${c.name} without an API key`)).status;
      // Only apicert knows the key it made up was never issued: this half stays the provocation's own judgement.
      codes.add(expectRelatedError(ctx, `${c.name} with a never-issued service_sk_ key`, await call(ctx, c, unknownKey(), `${c.name} with a never-issued key`)));
    }
    codes.observe(ctx, 'code of the refusals of a never-issued key');
    // "Mapping of each `code` to an HTTP status: not shown."
    ctx.observe('HTTP status of a request without an API key', [...new Set(Object.values(statuses))], 'the spec maps no code to a status');
  },
});

export const expiredKey = rule({
  id: 'v1.auth.expired-key',
  title: 'Every /v1 endpoint refuses an expired API key with a 4xx problem naming one of the related errors (authentication_failed, authorization_failed, entitlement_failed)',
  level: 'required',
  needs: { credentials: ['v1:expired'] },
  spec: { section: 'Authentication', quote: 'Each key carries scopes, an expiry, a last-used timestamp and a rate-limit tier. … Related errors: `authentication_failed`, `authorization_failed`, `entitlement_failed`.' },
  judgement: {
    record: 'a /v1 request carrying a key the profile marks expired',
    judge(j) {
      const codes = codesTaken();
      for (const ex of j.exchanges) {
        if (!onV1(ex) || ex.status === undefined || ex.requestHeaders.authorization === undefined || limiterRefused(ex)) continue;
        // Which key has expired is not in the traffic: the profile says (untestable without one).
        const key = j.credentialOf(ex);
        if (!key?.expired || !key.surfaces.includes('v1')) continue;
        codes.add(judgeRelatedError(j, ex, `${ex.method} ${pathOnly(ex)} with the expired key ${key.name}`, key.principal));
      }
      codes.observe(j, 'code of the refusals of an expired key');
    },
  },
  async provoke(ctx) {
    const expired = ctx.expired('v1');
    for (const c of await endpointCalls(ctx)) await call(ctx, c, expired, `${c.name} with an expired key`);
  },
});

export const scopesObserved = rule({
  id: 'v1.auth.scopes',
  title: 'Which scopes each /v1 endpoint asks for (not shown by the spec)',
  level: 'observation',
  activeOnly: 'an observation of what keys lacking a scope are answered, per endpoint apicert calls',
  spec: { section: 'Authentication', quote: 'Scopes required by the other `/v1` endpoints: not shown.' },
  async check(ctx) {
    const primary = primaryKey(ctx);
    const lesser = ctx.profile.credentials.filter(
      (c) => c.surfaces.includes('v1') && !c.expired && c.principal === primary.principal && !['runs:read', 'runs:write'].every((s) => c.scopes.includes(s)),
    );
    if (lesser.length === 0) {
      // Keys lacking a scope may be in the profile for another principal: their answers would mix the scope with whose key it is.
      const elsewhere = ctx.profile.credentials.filter((c) => c.surfaces.includes('v1') && !c.expired && c.principal !== primary.principal && !['runs:read', 'runs:write'].every((s) => c.scopes.includes(s)));
      const remedy = elsewhere.length === 0
        ? 'add one (e.g. read-only, no scopes)'
        : `such keys exist for another principal (${elsewhere.map((c) => `${c.name} of ${c.principal}`).join(', ')}), not for ${primary.principal}, the principal of the primary key ${primary.name}: label one with principal ${primary.principal} if the deployment issued it to that principal, or add one (e.g. read-only, no scopes)`;
      ctx.untestable({ need: 'credential', role: 'v1 key of the primary principal lacking runs:read or runs:write', remedy });
    }
    const calls = await endpointCalls(ctx);
    // A refusal of a lesser key is about scope only where the primary key is served the same call: the run
    // endpointCalls approves and cancels has completed, so a state refusal (409) answers every key alike.
    // The registration is not repeated: an endpoint the primary key registers would be sent every later delivery.
    const primaryStatus = new Map<string, number>();
    for (const c of calls) if (c.path !== WEBHOOKS) primaryStatus.set(c.name, (await call(ctx, c, primary, `${c.name} with the primary key (is it served?)`)).status);
    for (const key of lesser) {
      for (const c of calls) {
        const a = await call(ctx, c, key, `${c.name} with scopes [${key.scopes.join(', ')}]`);
        ctx.check(a.status > 0, `${c.name} gave no answer`);
        ctx.observe(`${c.name} with scopes [${key.scopes.join(', ')}]`, { status: a.status, code: problemCode(a) ?? null });
        if (a.status >= 400 && a.status < 500) {
          const code = problemCode(a);
          const served = primaryStatus.get(c.name);
          if (code === 'authorization_failed' || code === 'entitlement_failed') continue;
          if (served === undefined || (served >= 200 && served < 300)) ctx.observe(`${c.name}: refusal code of a valid key`, code ?? null, 'expected authorization_failed or entitlement_failed for a valid key lacking a scope');
          else ctx.observe(`${c.name}: refusal code of a valid key`, code ?? null, `the primary key ${primary.name} was answered ${served} on this call too: the refusal need not be about scope`);
        }
      }
    }
  },
});

export const keyPrefix = rule({
  id: 'v1.auth.key-prefix',
  title: 'A key is a service_sk_ key: the same secret presented without the prefix, or under another prefix, and the tokens the deployment issued for /v8 and /mcp, are refused with a 4xx problem naming one of the related errors',
  level: 'required',
  spec: { section: 'Authentication', quote: 'The token is an API key whose format has the prefix `service_sk_`. … Related errors: `authentication_failed`, `authorization_failed`, `entitlement_failed`.' },
  judgement: {
    record: 'a /v1 request carrying a bearer token without the service_sk_ prefix',
    judge(j) {
      const codes = codesTaken();
      for (const ex of j.exchanges) {
        if (!onV1(ex) || ex.status === undefined || limiterRefused(ex)) continue;
        const token = presentedToken(j, ex);
        if (token === undefined || token.startsWith(API_KEY_PREFIX)) continue;
        codes.add(judgeRelatedError(j, ex, `${ex.method} ${pathOnly(ex)} with a token without the ${API_KEY_PREFIX} prefix`));
      }
      codes.observe(j, `code of the refusals of a token without the ${API_KEY_PREFIX} prefix`);
    },
  },
  async provoke(ctx) {
    const key = primaryKey(ctx);
    ctx.expect(key.token.startsWith(API_KEY_PREFIX), `the target issued the key "${key.name}" without the ${API_KEY_PREFIX} prefix`);
    // The endpoint the bent tokens are sent to: one the issued key is answered 200 on. Usage first (it
    // changes nothing); "Scopes required by the other `/v1` endpoints: not shown.", so a deployment may
    // refuse the key there for a scope, and a run of its own is read instead.
    let usage: Call = { name: 'usage', method: 'GET', path: '/v1/usage' };
    let control = await call(ctx, usage, key, 'usage with the issued key');
    if (scopeRefusal(control)) {
      ctx.observe('usage refused the issued key for a scope the description does not show', { status: control.status, code: problemCode(control) ?? null }, 'the bent tokens are sent to a read of its own run instead');
      const runId = await startRun(ctx, 'completes', { credential: key, label: 'setup: a run of the issued key, to read back' });
      usage = { name: 'run read', method: 'GET', path: runPath(runId) };
      control = await call(ctx, usage, key, 'run read with the issued key');
    }
    if (control.status !== 200) ctx.inconclusive(`setup failed: ${usage.name} with the issued key answered ${control.status}, not 200`);
    const secret = key.token.slice(API_KEY_PREFIX.length);
    // The variants carry the key's secret part under another prefix: it is a secret of its own.
    ctx.registerSecret(secret, `${key.name}-secret-part`);
    const variants: Array<[string, string]> = [
      ['without its service_sk_ prefix', secret],
      ['under the prefix live_sk_', `live_sk_${secret}`],
      ['under the prefix SERVICE_SK_', `SERVICE_SK_${secret}`],
    ];
    for (const [what, token] of variants) {
      const bent: Credential = { ...key, name: `${key.name}-prefix-variant`, token };
      await call(ctx, usage, bent, `${usage.name} with the issued key ${what}`);
    }
    // Credentials the deployment really issued, for another surface, without the prefix: a live
    // secret is no API key of /v1 unless it has the prefix.
    const foreign = otherSurfaceTokens(ctx.profile.credentials);
    for (const other of foreign) await call(ctx, usage, other, `${usage.name} with the ${other.surfaces.join('/')} credential "${other.name}" (no ${API_KEY_PREFIX} prefix)`);
    ctx.observe('issued credentials of other surfaces presented', foreign.map((c) => c.name));
  },
});

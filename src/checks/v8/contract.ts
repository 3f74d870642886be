/** Versioning (contract header) and Errors (problem+json), judged over a battery of /v8 exchanges. */
import { defineRule } from '../../catalog/define.ts';
import { CONTRACT_HEADER, CONTRACT_VERSION } from '../../contract/v8/common.ts';
import { PROBLEM_CONTENT_TYPE, v8Problem } from '../../contract/v8/problem.ts';
import type { CheckContext } from '../../runner/context.ts';
import { uuidv7 } from '../../util/uuid.ts';
import { createMission, fixture, newKey, writer, MISSIONS } from './missions/support.ts';

interface Observed {
  what: string;
  status: number;
  headers: Record<string, string>;
  json: unknown;
  contentType: string;
}

/**
 * Error responses every /v8 deployment can be made to produce without fixtures beyond one mission.
 * Later surfaces add their own entries here so both rules cover them.
 */
async function errorBattery(ctx: CheckContext): Promise<Observed[]> {
  const full = writer(ctx);
  const out: Observed[] = [];
  const record = (what: string, res: Omit<Observed, 'what'>) => out.push({ what, ...res });
  record('get unknown mission (404)', await ctx.http.send({ method: 'GET', path: `${MISSIONS}/${uuidv7()}`, credential: full, label: 'get unknown mission' }));
  record('get without token (401)', await ctx.http.send({ method: 'GET', path: `${MISSIONS}/${uuidv7()}`, credential: null, label: 'get without token' }));
  record(
    'create with malformed JSON (400)',
    await ctx.http.send({ method: 'POST', path: MISSIONS, credential: full, headers: { 'idempotency-key': newKey() }, rawBody: '{"goalSpec":', label: 'create with malformed JSON' }),
  );
  record(
    'create with an empty budget (400)',
    await ctx.http.send({
      method: 'POST',
      path: MISSIONS,
      credential: full,
      headers: { 'idempotency-key': newKey() },
      json: { goalSpec: fixture(ctx, 'succeeds').goalSpec, resourceBudget: {} },
      label: 'create with an empty budget',
    }),
  );
  const noWrite = ctx.profile.credentials.find((c) => c.surfaces.includes('v8') && !c.expired && !c.scopes.includes('missions:write'));
  if (noWrite) {
    record(
      'create without missions:write (403)',
      await ctx.http.send({ method: 'POST', path: MISSIONS, credential: noWrite, headers: { 'idempotency-key': newKey() }, json: fixture(ctx, 'succeeds'), label: 'create without missions:write' }),
    );
  }
  return out;
}

export const versionHeader = defineRule({
  id: 'v8.contract.version-header',
  surface: 'v8',
  title: 'Every /v8 response, success, stream or error, carries x-service-contract-version: service-integration-gateway-v8.1',
  level: 'required',
  destructive: 'mutate',
  spec: {
    document: 'v8-integration-gateway.md',
    section: 'Versioning',
    quote: 'Every response carries header `x-service-contract-version` with the value `service-integration-gateway-v8.1`.',
  },
  async check(ctx) {
    const mission = await createMission(ctx, 'succeeds');
    const observed = await errorBattery(ctx);
    const get = await ctx.http.send({ method: 'GET', path: `${MISSIONS}/${mission.runId}`, credential: writer(ctx), label: 'get mission' });
    observed.push({ what: 'get mission (200)', ...get });
    const stream = await ctx.http.stream({ method: 'GET', path: `${MISSIONS}/${mission.runId}/events`, credential: writer(ctx), label: 'event stream', onEvent: () => 'disconnect' });
    observed.push({ what: 'event stream (200)', status: stream.status, headers: stream.headers, json: undefined, contentType: stream.contentType });
    for (const o of observed) {
      const value = o.headers[CONTRACT_HEADER];
      ctx.expect(value === CONTRACT_VERSION, `${o.what}: ${CONTRACT_HEADER} is ${value === undefined ? 'missing' : `"${value}"`}, expected "${CONTRACT_VERSION}"`);
    }
  },
});

export const problemShape = defineRule({
  id: 'v8.errors.problem-shape',
  surface: 'v8',
  title: 'Every /v8 error is application/problem+json with type, title, status (equal to the HTTP status), detail, code and a UUID requestId',
  level: 'required',
  destructive: 'mutate',
  spec: {
    document: 'v8-integration-gateway.md',
    section: 'Errors',
    quote:
      'Failures are `application/problem+json` (RFC 9457) with fields `type` (URI string), `title`, `status` (integer), `detail`, `code` (machine-readable string), `requestId` (UUID string).',
  },
  async check(ctx) {
    for (const o of await errorBattery(ctx)) {
      ctx.expect(o.status >= 400, `${o.what}: answered ${o.status}, so it produced no error to judge`);
      ctx.expect(o.contentType.startsWith(PROBLEM_CONTENT_TYPE), `${o.what}: content-type is "${o.contentType}", expected ${PROBLEM_CONTENT_TYPE}`);
      const problem = ctx.expectShape(v8Problem, o.json, `${o.what}: the problem body`);
      ctx.expect(problem.status === o.status, `${o.what}: the body says status ${problem.status}, the HTTP status is ${o.status}`);
    }
  },
});

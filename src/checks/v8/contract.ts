/** Versioning (contract header) and Errors (problem+json), judged over a battery of /v8 exchanges. */
import { defineRule } from '../../catalog/define.ts';
import { CONTRACT_HEADER, CONTRACT_VERSION } from '../../contract/v8/common.ts';
import { PROBLEM_CONTENT_TYPE, v8Problem } from '../../contract/v8/problem.ts';
import type { CheckContext } from '../../runner/context.ts';
import { uuidv7 } from '../../util/uuid.ts';
import { createMission, fixture, newKey, writer, MISSIONS } from './missions/support.ts';
import { capabilitySearchBody, PATHS, randomSuffix } from './read/support.ts';

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
  for (const [what, res] of await readSurfaceErrors(ctx)) record(what, res);
  return out;
}

/**
 * One error per read surface, none of which needs a fixture. Each is a cause no read-surface
 * fault bends, so a fault there stays the failure of its own rule.
 */
async function readSurfaceErrors(ctx: CheckContext): Promise<Array<[string, Omit<Observed, 'what'>]>> {
  const full = ctx.primary('v8');
  const out: Array<[string, Omit<Observed, 'what'>]> = [];
  const send = async (what: string, request: Parameters<typeof ctx.http.send>[0]) => {
    out.push([what, await ctx.http.send({ ...request, label: what })]);
  };
  await send('capability search with an empty actionFamily (400)', { method: 'POST', path: PATHS.capabilities, credential: full, json: { ...capabilitySearchBody(ctx), actionFamily: '' } });
  await send('memory query with empty classes (400)', { method: 'POST', path: PATHS.memory, credential: full, json: { compartment: 'apicert', purpose: 'apicert', queryText: 'apicert', classes: [] } });
  await send('memory query with malformed JSON (400)', { method: 'POST', path: PATHS.memory, credential: full, rawBody: '{"compartment":' });
  await send('unknown skill (404)', { method: 'GET', path: `${PATHS.skills}/apicert-unknown-${randomSuffix()}`, credential: full });
  await send('unknown trace (404)', { method: 'GET', path: `${PATHS.traces}/apicert-unknown-${randomSuffix()}`, credential: full });
  await send('context goals without token (401)', { method: 'GET', path: PATHS.goals, credential: null });
  await send('coverage without token (401)', { method: 'GET', path: PATHS.coverage, credential: null });
  const expired = ctx.profile.credentials.find((c) => c.surfaces.includes('v8') && c.expired);
  if (expired) await send('context goals with an expired token (401)', { method: 'GET', path: PATHS.goals, credential: expired });
  const noWorld = ctx.profile.credentials.find((c) => c.surfaces.includes('v8') && !c.expired && !c.scopes.includes('world:read'));
  if (noWorld) await send('world certificates without world:read (403)', { method: 'GET', path: PATHS.certificates, credential: noWorld });
  return out;
}

/** Successful reads of the surfaces that need no fixture, for the header rule. */
async function readSurfaceSuccesses(ctx: CheckContext): Promise<Observed[]> {
  const full = ctx.primary('v8');
  const out: Observed[] = [];
  for (const [what, path] of [
    ['context goals (200)', PATHS.goals],
    ['world certificates (200)', PATHS.certificates],
    ['coverage report (200)', PATHS.coverage],
  ] as const) {
    out.push({ what, ...(await ctx.http.send({ method: 'GET', path, credential: full, label: what })) });
  }
  out.push({ what: 'capability search (200)', ...(await ctx.http.send({ method: 'POST', path: PATHS.capabilities, credential: full, json: capabilitySearchBody(ctx), label: 'capability search' })) });
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
    observed.push(...(await readSurfaceSuccesses(ctx)));
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

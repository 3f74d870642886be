/** Error and success exchanges every /v8 deployment can be made to produce: judged by the contract and errors rules. */
import { CONTRACT_HEADER, CONTRACT_VERSION } from '../../../contract/v8/common.ts';
import type { CheckContext } from '../../../rule/index.ts';
import { uuidv7 } from '../../../util/uuid.ts';
import { createMission, fixture, newKey, writer, MISSIONS } from './missions.ts';
import { capabilitySearchBody, PATHS, randomSuffix } from './read.ts';

export interface Observed {
  what: string;
  status: number;
  headers: Record<string, string>;
  json: unknown;
  contentType: string;
  /** The exchange that produced it, so a case judged later names its own request. */
  exchange?: number | undefined;
}

/**
 * Error responses every /v8 deployment can be made to produce without fixtures beyond one mission.
 * Later surfaces add their own entries here so both rules cover them.
 */
export async function errorBattery(ctx: CheckContext): Promise<Observed[]> {
  const full = writer(ctx);
  const out: Observed[] = [];
  const record = (what: string, res: Omit<Observed, 'what'>) => out.push({ what, ...res, exchange: ctx.http.exchangeOf(res) });
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
export async function readSurfaceSuccesses(ctx: CheckContext): Promise<Observed[]> {
  const full = ctx.primary('v8');
  const out: Observed[] = [];
  for (const [what, path] of [
    ['context goals (200)', PATHS.goals],
    ['world certificates (200)', PATHS.certificates],
    ['coverage report (200)', PATHS.coverage],
  ] as const) {
    const res = await ctx.http.send({ method: 'GET', path, credential: full, label: what });
    out.push({ what, ...res, exchange: ctx.http.exchangeOf(res) });
  }
  const search = await ctx.http.send({ method: 'POST', path: PATHS.capabilities, credential: full, json: capabilitySearchBody(ctx), label: 'capability search' });
  out.push({ what: 'capability search (200)', ...search, exchange: ctx.http.exchangeOf(search) });
  return out;
}

/** What the /v8 read-surface checks share: paths, fixtures, requests and lenient readers. */
import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import { defaultCapabilitySearch } from '../../../../scenarios/v8/capabilities.ts';
import type { CapabilitySearchRequest } from '../../../contract/v8/capabilities.ts';
import type { CheckContext, ProbeResponse } from '../../../rule/index.ts';
import type { Credential } from '../../../profile/schema.ts';
import { admitted } from './limiter.ts';
import { createMission, followToTerminal, type MissionFixture } from './missions.ts';
import { stepTraces, type StepTrace } from '../../../traffic/trace-naming.ts';

export const PATHS = {
  capabilities: '/v8/capabilities/search',
  memory: '/v8/memory/query',
  skills: '/v8/skills',
  traces: '/v8/traces',
  goals: '/v8/context-twin/goals',
  certificates: '/v8/world-model/certificates',
  coverage: '/v8/coverage',
  intents: '/v8/intents',
} as const;

/** A short random suffix, so ids a check invents never collide with real ones or with another run's. */
export function randomSuffix(bytes = 6): string {
  return randomBytes(bytes).toString('hex');
}

/** The primary principal's credential holding `scope`. */
export function holder(ctx: CheckContext, scope: string): Credential {
  return ctx.holding('v8', [scope]);
}

export function capabilitySearchBody(ctx: CheckContext): CapabilitySearchRequest {
  return ctx.profile.fixtures.v8.capabilitySearch ?? { ...defaultCapabilitySearch };
}

export interface MemoryBase {
  compartment: string;
  purpose: string;
  queryText: string;
  classes: string[];
}

/** A memory query the primary principal may send; untestable without a compartment and a permitted purpose. */
export function memoryBase(ctx: CheckContext): MemoryBase {
  const m = ctx.profile.fixtures.v8.memory;
  if (!m.compartment || !m.purpose) {
    ctx.untestable({ need: 'fixture', path: 'v8.memory', problem: 'has no compartment and purpose', remedy: 'give a compartment and a purpose the primary principal may query' });
  }
  return { compartment: m.compartment, purpose: m.purpose, queryText: 'apicert memory probe: supplier contract renewal', classes: m.classes ?? ['note'] };
}

/** A search; a 429 of a per-principal limit is waited out once (its numbers are not shown), so the rules judge answers of the API. */
export function searchCapabilities(ctx: CheckContext, body: unknown, label: string, credential: Credential | null = holder(ctx, 'capabilities:read')): Promise<ProbeResponse> {
  return admitted(ctx, () => ctx.http.send({ method: 'POST', path: PATHS.capabilities, credential, json: body, label }));
}

export function queryMemory(ctx: CheckContext, body: unknown, label: string, credential: Credential | null = holder(ctx, 'memory:read')): Promise<ProbeResponse> {
  return ctx.http.send({ method: 'POST', path: PATHS.memory, credential, json: body, label });
}

export function getSkill(ctx: CheckContext, skillId: string, label: string, credential: Credential | null = holder(ctx, 'skills:read')): Promise<ProbeResponse> {
  return ctx.http.send({ method: 'GET', path: `${PATHS.skills}/${encodeURIComponent(skillId)}`, credential, label });
}

export function getTrace(ctx: CheckContext, traceId: string, label: string, credential: Credential | null = holder(ctx, 'traces:read')): Promise<ProbeResponse> {
  return ctx.http.send({ method: 'GET', path: `${PATHS.traces}/${encodeURIComponent(traceId)}`, credential, label });
}

export function skillFixture(ctx: CheckContext): string {
  const id = ctx.profile.fixtures.v8.skillId;
  if (!id) ctx.untestable({ need: 'fixture', path: 'v8.skillId', remedy: 'give a skillId the primary principal may read' });
  return id;
}

/**
 * Runs a fixture mission to its end and returns it with the traces its step events name. Without
 * `stepsNeeded` a mission that named none returns none: a failing mission may fail before any step
 * (a plan rejected), which no sentence forbids.
 */
export async function missionWithTraces(ctx: CheckContext, fixtureName: MissionFixture, stepsNeeded = true): Promise<{ runId: string; traces: StepTrace[]; namedBy: number }> {
  const mission = await createMission(ctx, fixtureName);
  const stream = await followToTerminal(ctx, mission.runId, fixtureName);
  // Every step event came before the stream ended: the time a trace's bound is counted from.
  const namedBy = Date.now();
  const traces = stepTraces(stream.events);
  if (traces.length === 0 && stepsNeeded) ctx.untestable({ need: 'fixture', path: `v8.missions.${fixtureName}`, problem: 'gave a mission that named no traceId in its step events', remedy: 'give a fixture that runs at least one step' });
  return { runId: mission.runId, traces, namedBy };
}

/**
 * "Each `traceId` in step events can be read at `GET /v8/traces/{traceId}`." says not when: a trace
 * store indexing asynchronously (a collector pipeline) answers 404 for a while. A trace that answers
 * 404 this long after the step event that named it is not readable; before that, it may be on its way.
 */
export const TRACE_INDEX_BOUND_MS = 5_000;

/** The waits between reads of a trace that answered 404: backoff, the last read at the bound. */
const TRACE_BACKOFF_MS = [250, 500, 1_000, 2_000];

/**
 * Reads a step's trace; a 404 is read again with backoff until a read starts at least
 * TRACE_INDEX_BOUND_MS after `namedBy` (when the step event had been seen), at most six reads.
 */
export async function readTraceIndexed(ctx: CheckContext, traceId: string, label: string, namedBy: number, credential?: Credential | null): Promise<ProbeResponse> {
  // A 429 of a per-principal limit is waited out once (its numbers are not shown), so the rules judge answers of the API.
  let res = await admitted(ctx, () => getTrace(ctx, traceId, label, credential ?? holder(ctx, 'traces:read')));
  for (let attempt = 0; res.status === 404 && attempt < 5; attempt += 1) {
    const left = namedBy + TRACE_INDEX_BOUND_MS + 50 - Date.now();
    if (left <= 0) break;
    await ctx.sleep(Math.min(left, TRACE_BACKOFF_MS[attempt] ?? 2_000));
    res = await admitted(ctx, () => getTrace(ctx, traceId, `${label} (again: a trace may be indexed a while after its step event)`, credential ?? holder(ctx, 'traces:read')));
  }
  return res;
}

/**
 * A traceId of the primary principal: the profile's fixture, or the first step trace of a "succeeds"
 * mission, read until readable (readTraceIndexed) by the time it is returned: the rules reading it
 * leave a 404 within TRACE_INDEX_BOUND_MS of the step event unjudged.
 */
export async function someTrace(ctx: CheckContext): Promise<{ traceId: string; runId?: string; stepId?: string }> {
  const fixed = ctx.profile.fixtures.v8.traceId;
  if (fixed) return { traceId: fixed };
  const { runId, traces, namedBy } = await missionWithTraces(ctx, 'succeeds');
  const first = traces[0]!;
  await readTraceIndexed(ctx, first.traceId, 'wait until the step trace is readable', namedBy);
  return first.stepId === undefined ? { traceId: first.traceId, runId } : { traceId: first.traceId, runId, stepId: first.stepId };
}

/**
 * The items of a listing that the seed shows both as `{<key>: [...]}` and as a bare array;
 * undefined when the body is neither.
 */
export function listingItems<K extends string>(
  body: unknown,
  schema: z.ZodType<Record<K, unknown[]> | unknown[]>,
  key: K,
): { form: 'object wrapper' | 'array'; items: unknown[] } | undefined {
  const parsed = schema.safeParse(body);
  if (!parsed.success) return undefined;
  return Array.isArray(parsed.data) ? { form: 'array', items: parsed.data } : { form: 'object wrapper', items: parsed.data[key] };
}

/** How the judgements of a two-form listing name it: `context goals`, key `goals`, item `goal`. */
export interface ListingNames {
  name: string;
  key: string;
  item: string;
}

/** Ids outside "1-256 chars, pattern `^[A-Za-z0-9][A-Za-z0-9._:-]*$`", each with why. */
function malformedIds(prefix: string): Array<[string, string]> {
  return [
    [`${prefix}${'x'.repeat(257 - prefix.length)}`, '257 characters'],
    [`-${prefix}leading-dash`, 'a leading dash'],
    [`.${prefix}leading-dot`, 'a leading dot'],
    [`${prefix}with space`, 'a space'],
    [`${prefix}semi;colon`, 'a semicolon'],
  ];
}

/** A 256-character id that matches the pattern and names nothing: the longest valid unknown id. */
function longestUnknownId(prefix: string): string {
  const head = `${prefix}${randomSuffix()}-`;
  return `${head}${'y'.repeat(256 - head.length)}`;
}

/**
 * The requests of the path-id bounds rules (skills, traces): an unknown 256-character id, then
 * ids past the length or the pattern. The rules' judgement (`judgeIdBounds`) judges the answers.
 */
export async function sendPathIdBounds(ctx: CheckContext, name: 'skillId' | 'traceId', read: (id: string, label: string) => Promise<ProbeResponse>): Promise<void> {
  const prefix = `apicert-${name === 'skillId' ? 'skill' : 'trace'}-`;
  // Each read waits out one 429 of a per-principal limit (its numbers are not shown), so the rule judges answers of the API.
  const longest = await admitted(ctx, () => read(longestUnknownId(prefix), `read an unknown 256-character ${name}`));
  const seen: Record<string, number> = { '256 characters (valid, unknown)': longest.status };
  for (const [id, why] of malformedIds(prefix)) seen[why] = (await admitted(ctx, () => read(id, `read a ${name} with ${why}`))).status;
  ctx.observe(`statuses at and past the ${name} bounds`, seen, 'the seed lists only 401, 403 and 404 for this endpoint');
}

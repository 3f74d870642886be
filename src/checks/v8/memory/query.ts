/** Endpoints: POST /v8/memory/query; Resources: memory query request and response; Limits. */
import { z } from 'zod';
import { type CheckContext, credentialIn, type Exchange, type Judge, judgedRun, type Judgement, section } from '../../../rule/index.ts';
import { MEMORY_BOUNDS, memoryQueryRequest, memoryResponse } from '../../../contract/v8/memory.ts';
import { answerJson, issuesOf, operation, parsedAs, requestBodyMissing, requestJson } from '../../../traffic/read.ts';
import { parsedAsAjvReads } from '../../../contract/coercion.ts';
import { isRecord } from '../../../util/json.ts';
import { judgePrincipalInBody, judgeReadAnswers, mayBeRefused, primaryPrincipal, withCallersOn } from '../support/traffic.ts';
import { memoryBase, queryMemory } from '../support/read.ts';
import { acceptedStatuses, boundaryQueries, generatedQueries } from './cases.ts';
import { admitted, setupSent } from '../support/limiter.ts';

const rule = section({ surface: 'v8', document: 'v8-integration-gateway.md', needs: { credentials: ['v8:holding:memory:read'] } });

/** Only what a rule judges, so a shape defect is reported once, by the shape rule. */
const lenientEntries = z.looseObject({
  entries: z.array(z.looseObject({ score: z.unknown().optional(), content: z.unknown().optional() })),
  totalContextBytes: z.unknown().optional(),
  truncated: z.unknown().optional(),
});

async function entriesOf(ctx: CheckContext, body: Record<string, unknown>, label: string) {
  const res = await setupSent(ctx, `the memory query "${label}"`, () => queryMemory(ctx, body, label));
  if (res.status !== 200) ctx.inconclusive(`setup failed: the memory query "${label}" answered ${res.status}, not 200; check fixtures.v8.memory`);
  const parsed = lenientEntries.safeParse(res.json);
  if (!parsed.success) ctx.inconclusive(`setup failed: the memory query "${label}" answered no entries array`);
  return parsed.data;
}

/** What the profile says of a query's caller, purpose and compartment: whether it is the primary principal, and whether each is the fixture's (the one it may use). */
interface Permitted {
  principal: boolean;
  purpose: boolean;
  compartment: boolean;
}

/**
 * Every memory query by a caller holding memory:read whose body is a JSON object naming no
 * principalId (that one is the principal-403 rule's), answered; a 429 is the rate limit's rule.
 */
function eachMemoryQuery(j: Judge, each: (ex: Exchange, body: Record<string, unknown>, permitted: Permitted) => void): void {
  // Which purpose the principal may use is not in the traffic: the profile's fixture names it (without one, any purpose may be refused).
  const fixture = j.profile?.fixtures.v8.memory;
  const primary = primaryPrincipal(j);
  withCallersOn(j, 'v8.memory.query', (ex, callers) => {
    if (operation(ex) !== 'v8.memory.query' || ex.status === undefined || ex.status === 429 || !callers.holds(ex, 'memory:read')) return;
    const missing = requestBodyMissing(ex);
    if (missing !== undefined) return j.lacks(ex, `the query's body: ${missing}`);
    const body = requestJson(ex);
    if (!isRecord(body) || 'principalId' in body) return;
    const principal = primary !== undefined && callers.principalOf(ex) === primary;
    each(ex, body, {
      principal,
      purpose: principal && fixture?.purpose !== undefined && body.purpose === fixture.purpose,
      compartment: principal && fixture?.compartment !== undefined && body.compartment === fixture.compartment,
    });
  });
}

/** Every 200 answer with an entries array to such a query (what the order and limit rules read). */
function eachMemoryAnswer(j: Judge, each: (ex: Exchange, body: Record<string, unknown>, bundle: z.infer<typeof lenientEntries>) => void): void {
  eachMemoryQuery(j, (ex, body) => {
    // Entries are there to judge only in an answer (the status is the other rules').
    if (ex.status !== 200) return;
    const json = answerJson(j, ex);
    const parsed = parsedAs(lenientEntries, json);
    if (parsed.success) each(ex, body, parsed.data);
  });
}

function byteLength(value: unknown): number {
  return typeof value === 'string' ? Buffer.byteLength(value) : 0;
}

export const queryOk = rule({
  id: 'v8.memory.query.ok',
  title: 'A memory query answers 200 with entries (entryId, class, content, numeric score, createdAt), an integer totalContextBytes and a boolean truncated',
  level: 'required',
  spec: {
    section: 'Resources > Memory query request',
    quote:
      'Memory response (`200`): an object with `entries` (array), `totalContextBytes` (integer) and `truncated` (boolean). An entry carries `entryId` (string), `class` (string), `content` (string), `score` (number) and `createdAt` (timestamp).',
  },
  judgement: {
    record: 'a POST /v8/memory/query from a caller holding memory:read',
    judge(j) {
      // Which compartment and purpose the principal may query is not in the traffic: the profile's fixture names them.
      const permitted = j.profile?.fixtures.v8.memory;
      // The profile's, the same for every query: resolved once, not per request.
      const primary = primaryPrincipal(j);
      judgeReadAnswers(j, {
        op: 'v8.memory.query',
        scope: 'memory:read',
        name: 'the memory query',
        schema: memoryResponse,
        expect200: (ex) => {
          const body = requestJson(ex);
          if (credentialIn(ex, j.profile?.credentials ?? [])?.principal !== primary) return false;
          return parsedAs(memoryQueryRequest, body).success && !mayBeRefused(ex, body) && isRecord(body) && !('principalId' in body) && permitted?.compartment === body.compartment && permitted?.purpose === body.purpose;
        },
        extra(_ex, value) {
          const bundle = value as z.infer<typeof memoryResponse>;
          j.observe('entries returned', bundle.entries.length);
          const forms = new Set(bundle.entries.map((e) => (typeof e.createdAt === 'number' ? 'epoch number' : 'ISO 8601 string')));
          if (forms.size > 0) j.observe('createdAt form', [...forms], 'the seed types createdAt as "timestamp" without a format');
        },
      });
    },
  },
  async provoke(ctx: CheckContext) {
    await admitted(ctx, () => queryMemory(ctx, memoryBase(ctx), 'memory query'));
  },
});

const boundsJudgement: Judgement = {
  record: 'a POST /v8/memory/query with a JSON object body naming no principalId, from a caller holding memory:read',
  judge(j) {
    const purposeReadings: Record<string, number[]> = {};
    const compartmentReadings: Record<string, number[]> = {};
    const leniently: number[] = [];
    eachMemoryQuery(j, (ex, body, permitted) => {
      // The error table names no wrong-type cause: a query valid once ajv's coercion (Fastify's default) reads "x" as ["x"] or 7 as "7" is open;
      // one still past a bound so read (null for queryText, read as "") is refused either way.
      const { parsed, open } = parsedAsAjvReads(memoryQueryRequest, body, (value) => parsedAs(memoryQueryRequest, value));
      const valid = parsed.success;
      if (open) return void leniently.push(ex.status!);
      // A body inside every bound that a legal deployment may still refuse (a NUL, a lone surrogate) is held to no answer.
      if (valid && mayBeRefused(ex, body)) return;
      // A purpose the principal may not use is refused (403), and the seed does not order 400 and 403 for a purpose that is also out of bounds.
      // Nothing says which compartments a principal may read (the 403 causes name none), so a compartment
      // other than the fixture's may be refused (403) like a replaced purpose (docs/legal-variation.md).
      const accepted = acceptedStatuses({ valid, purposeChanged: !permitted.purpose, compartmentChanged: !permitted.compartment });
      if (!permitted.purpose) (purposeReadings[valid ? 'valid' : 'invalid'] ??= []).push(ex.status!);
      else if (!permitted.compartment) (compartmentReadings[valid ? 'valid' : 'invalid'] ??= []).push(ex.status!);
      const problem = valid ? '' : ` (${issuesOf(parsed.error!)})`;
      j.check(ex, accepted.includes(ex.status!), `a memory query ${valid ? 'inside every bound' : `outside a bound${problem}`} answered ${ex.status}, expected ${accepted.join(' or ')}`);
    });
    if (Object.keys(purposeReadings).length > 0) j.observe('statuses for a replaced purpose', purposeReadings, 'a valid purpose may be refused as not permitted (403); the seed does not order 400 and 403');
    if (Object.keys(compartmentReadings).length > 0) j.observe('statuses for a replaced compartment', compartmentReadings, 'the seed does not say which compartments a principal may read: 403 is as legal as 200');
    if (leniently.length > 0) j.observe('statuses for queries valid once values of another JSON type are coerced', leniently, 'open: reading "x" as ["x"] (ajv\'s coerceTypes, Fastify\'s default) and refusing it are both legal');
  },
};

export const queryBounds = rule({
  id: 'v8.memory.query.bounds',
  title: 'Memory queries inside every bound are accepted; one field missing, of a type no coercion reads, one past a bound or with repeated classes answers 400 (property-based)',
  level: 'required',
  spec: {
    section: 'Resources > Memory query request; Limits; Errors',
    quote:
      'compartment | string | yes | 1-128 chars … purpose | string | yes | 1-256 chars … queryText | string | yes | 1-32768 chars … classes | array of string | yes | 1-64 unique items; each 1-128 chars … limit | integer | no | 1-50; default 10 … maxContextBytes | integer | no | 64-1048576 … maxContextTokens | integer | no | 16-262144 … queryEmbedding | array of number | no | 1-4096 items … `400` missing fields, empty `classes` or bounds exceeded',
  },
  judgement: boundsJudgement,
  async provoke(ctx: CheckContext) {
    const base = memoryBase(ctx);
    const examples = boundaryQueries(base);
    await ctx.property(
      generatedQueries(base),
      // Each run is judged as it ends, so fast-check shrinks a failing query to a minimal one.
      (c) => judgedRun(ctx, boundsJudgement, async () => void (await queryMemory(ctx, c.body, `memory query with ${c.why}`))),
      // fast-check counts the examples in numRuns (and drops those past it): every boundary case, then 40 drawn.
      { numRuns: examples.length + 40, examples },
    );
  },
});

export const queryPrincipal = rule({
  id: 'v8.memory.query.principal-403',
  title: 'A memory query body containing principalId answers 403, whichever principal it names',
  level: 'required',
  needs: { credentials: ['v8:primary'] },
  spec: {
    section: 'Endpoints > Rules 1; Errors',
    quote: 'A body containing `principalId` is rejected with `403` on memory query and capability search. … `403` no `memory:read`, `principalId` in body, or purpose not permitted',
  },
  judgement: {
    record: 'a POST /v8/memory/query whose body contains principalId, from a caller holding memory:read',
    judge: (j) => judgePrincipalInBody(j, 'v8.memory.query', 'memory:read', 'a memory query'),
  },
  async provoke(ctx: CheckContext) {
    const base = memoryBase(ctx);
    for (const principalId of [ctx.primary('v8').principal, 'apicert-someone-else']) await admitted(ctx, () => queryMemory(ctx, { ...base, principalId }, `memory query naming principalId "${principalId}"`));
  },
});

export const queryPurpose = rule({
  id: 'v8.memory.query.purpose-403',
  title: 'A memory query with a purpose the principal may not use answers 403',
  level: 'required',
  spec: { section: 'Errors', quote: '`403` no `memory:read`, `principalId` in body, or purpose not permitted' },
  judgement: {
    record: 'a valid POST /v8/memory/query of the primary principal naming fixtures.v8.memory.forbiddenPurpose, from a caller holding memory:read',
    judge(j) {
      eachMemoryQuery(j, (ex, body, permitted) => {
        // Which purpose the principal may not use is not in the traffic: the profile's fixture names one (asked once there is a query to judge).
        const forbidden = j.profile?.fixtures.v8.memory.forbiddenPurpose ?? j.untestable({ need: 'fixture', path: 'v8.memory.forbiddenPurpose', remedy: 'give a purpose the primary principal is not permitted to use' });
        if (!permitted.principal || body.purpose !== forbidden || !parsedAs(memoryQueryRequest, body).success || mayBeRefused(ex, body)) return;
        j.check(ex, ex.status === 403, `a purpose the principal may not use answered ${ex.status}, expected 403`);
      });
    },
  },
  async provoke(ctx: CheckContext) {
    const base = memoryBase(ctx);
    const forbidden = ctx.profile.fixtures.v8.memory.forbiddenPurpose;
    if (!forbidden) ctx.untestable({ need: 'fixture', path: 'v8.memory.forbiddenPurpose', remedy: 'give a purpose the primary principal is not permitted to use' });
    const allowed = await setupSent(ctx, 'the memory query with the permitted purpose', () => queryMemory(ctx, base, 'memory query with the permitted purpose'));
    if (allowed.status !== 200) ctx.inconclusive(`setup failed: the permitted purpose answered ${allowed.status}, not 200; check fixtures.v8.memory`);
    await admitted(ctx, () => queryMemory(ctx, { ...base, purpose: forbidden }, 'memory query with a purpose that is not permitted'));
  },
});

/** How scores run along a list: the direction the deployment's score takes, if it takes one. */
function scoreDirection(scores: readonly number[]): 'descending' | 'ascending' | 'equal' | 'other' {
  const steps = scores.slice(1).map((s, i) => Math.sign(s - scores[i]!));
  if (steps.every((d) => d === 0)) return 'equal';
  if (steps.every((d) => d <= 0)) return 'descending';
  if (steps.every((d) => d >= 0)) return 'ascending';
  return 'other';
}

/**
 * An observation, not a requirement: "Entries are in descending relevance" orders the list by
 * relevance, which no field shows, and "`score` (number)" ties the score to no relevance or
 * direction (a distance, lower is closer, is as legal as a similarity). So the score's order along
 * the list judges nothing of the sentence: it is recorded, and the sentence stays unjudgeable from
 * outside until a profile can state what the score means (the profile has no such field yet). The
 * rule checks only what it reads the order from, that each score is a number, so its pass means
 * "scores read and their direction recorded", never a verdict on the order.
 */
export const queryOrder = rule({
  id: 'v8.memory.query.order',
  title: 'Which way memory scores run along the entries (the seed orders entries by relevance and ties score to no direction)',
  level: 'observation',
  spec: { section: 'Resources > Memory query request', quote: 'Entries are in descending relevance' },
  judgement: {
    record: 'a 200 answer to a POST /v8/memory/query from a caller holding memory:read, with two entries or more (the direction of its scores is recorded, not judged)',
    judge(j) {
      const directions: Record<string, number> = {};
      eachMemoryAnswer(j, (ex, _body, bundle) => {
        if (bundle.entries.length < 2) return;
        // What is judged is only what the order is read from: "`score` (number)". The order itself is recorded.
        const numeric = bundle.entries.every((e) => typeof e.score === 'number' && Number.isFinite(e.score));
        if (!j.check(ex, numeric, 'an entry has no numeric score, so the order of the scores cannot be read')) return;
        const direction = scoreDirection(bundle.entries.map((e) => e.score as number));
        directions[direction] = (directions[direction] ?? 0) + 1;
      });
      if (Object.keys(directions).length > 0) j.observe('score order along the entries (answers)', directions, 'the seed says entries are in descending relevance; what the score measures (similarity or distance) is not stated');
    },
  },
  async provoke(ctx: CheckContext) {
    const base = memoryBase(ctx);
    let ordered = 0;
    for (const queryText of [base.queryText, 'apicert: incident latency review', 'apicert: quarterly budget audit']) {
      const { entries } = await entriesOf(ctx, { ...base, queryText, limit: MEMORY_BOUNDS.limit.max }, `memory query "${queryText}"`);
      if (entries.length >= 2 && entries.every((e) => !Number.isNaN(Number(e.score)))) ordered += 1;
    }
    if (ordered === 0) ctx.untestable({ need: 'fixture', path: 'v8.memory', problem: 'gave no memory query two entries with numeric scores', remedy: 'give a compartment with several entries' });
  },
});

export const queryLimits = rule({
  id: 'v8.memory.query.limits',
  title: 'A memory query returns at most limit entries (10 when limit is absent) and totalContextBytes never exceeds maxContextBytes',
  level: 'required',
  spec: {
    section: 'Resources > Memory query request',
    quote: 'Entries are in descending relevance and are purpose-filtered and bounded by the limits above. … limit | integer | no | 1-50; default 10 … maxContextBytes | integer | no | 64-1048576',
  },
  judgement: {
    record: 'a 200 answer to a valid POST /v8/memory/query from a caller holding memory:read',
    judge(j) {
      const counts: Record<string, number[]> = {};
      const accounting: Array<Record<string, unknown>> = [];
      eachMemoryAnswer(j, (ex, body, bundle) => {
        if (!parsedAs(memoryQueryRequest, body).success) return;
        const limit = typeof body.limit === 'number' ? body.limit : undefined;
        const bound = limit ?? MEMORY_BOUNDS.limit.default;
        (counts[limit === undefined ? 'no limit' : `limit ${limit}`] ??= []).push(bundle.entries.length);
        j.check(ex, bundle.entries.length <= bound, limit === undefined ? `without limit the query returned ${bundle.entries.length} entries, more than the default of ${bound}` : `limit ${limit} returned ${bundle.entries.length} entries`);
        if (typeof body.maxContextBytes === 'number') {
          const max = body.maxContextBytes;
          const total = bundle.totalContextBytes;
          if (j.check(ex, typeof total === 'number', `maxContextBytes ${max}: totalContextBytes is ${JSON.stringify(total)}, not a number`)) j.check(ex, (total as number) <= max, `maxContextBytes ${max}: totalContextBytes is ${String(total)}`);
          accounting.push({ maxContextBytes: max, entries: bundle.entries.length, totalContextBytes: total, contentBytes: bundle.entries.reduce((n, e) => n + byteLength(e.content), 0), truncated: bundle.truncated });
        }
        // Tokens are counted by a tokenizer the seed does not name: recorded, never judged.
        if (typeof body.maxContextTokens === 'number') j.observe('entries under maxContextTokens', { maxContextTokens: body.maxContextTokens, entries: bundle.entries.length }, 'tokens are counted by a tokenizer the seed does not name, so the bound is not judged');
      });
      if (Object.keys(counts).length > 0) j.observe('entries per limit', counts);
      // The seed gives no meaning to `truncated` nor says what totalContextBytes counts: record both.
      if (accounting.length > 0) j.observe('context byte accounting', accounting, "contentBytes is the UTF-8 size of the entries' content; the seed does not say what totalContextBytes counts or when truncated is true");
    },
  },
  async provoke(ctx: CheckContext) {
    const base = memoryBase(ctx);
    // A bound binds only where there is more to return than it allows: limit 1 needs two entries.
    const available = (await entriesOf(ctx, { ...base, limit: MEMORY_BOUNDS.limit.max }, 'memory query with the largest limit')).entries.length;
    if (available < 2) ctx.untestable({ need: 'fixture', path: 'v8.memory', problem: `gave a memory query ${available} entr${available === 1 ? 'y' : 'ies'} at the largest limit, so no limit was binding`, remedy: 'give a compartment and purpose with at least two entries (eleven to judge the default of 10)' });
    for (const limit of [1, 3, MEMORY_BOUNDS.limit.max]) await admitted(ctx, () => queryMemory(ctx, { ...base, limit }, `memory query with limit ${limit}`));
    await admitted(ctx, () => queryMemory(ctx, { ...base }, 'memory query without limit'));
    for (const maxContextBytes of [MEMORY_BOUNDS.maxContextBytes.min, 512, 4096]) await admitted(ctx, () => queryMemory(ctx, { ...base, maxContextBytes, limit: MEMORY_BOUNDS.limit.max }, `memory query with maxContextBytes ${maxContextBytes}`));
    await admitted(ctx, () => queryMemory(ctx, { ...base, maxContextTokens: MEMORY_BOUNDS.maxContextTokens.min }, 'memory query with the smallest maxContextTokens'));
  },
});

/** Endpoints: POST /v8/memory/query; Resources: memory query request and response; Limits. */
import { z } from 'zod';
import { type CheckContext, credentialIn, section } from '../../../rule/index.ts';
import { MEMORY_BOUNDS, memoryQueryRequest, memoryResponse } from '../../../contract/v8/memory.ts';
import { requestJson } from '../../../traffic/read.ts';
import { isRecord } from '../../../util/json.ts';
import { judgePrincipalInBody, judgeReadAnswers, primaryPrincipal } from '../support/traffic.ts';
import { memoryBase, queryMemory } from '../support/read.ts';
import { acceptedStatuses, boundaryQueries, generatedQueries } from './cases.ts';

const rule = section({ surface: 'v8', document: 'v8-integration-gateway.md', needs: { credentials: ['v8:holding:memory:read'] } });

/** Only what a rule judges, so a shape defect is reported once, by the shape rule. */
const lenientEntries = z.looseObject({
  entries: z.array(z.looseObject({ score: z.unknown().optional(), content: z.unknown().optional() })),
  totalContextBytes: z.unknown().optional(),
  truncated: z.unknown().optional(),
});

async function entriesOf(ctx: CheckContext, body: Record<string, unknown>, label: string) {
  const res = await queryMemory(ctx, body, label);
  if (res.status !== 200) ctx.inconclusive(`setup failed: the memory query "${label}" answered ${res.status}, not 200; check fixtures.v8.memory`);
  const parsed = lenientEntries.safeParse(res.json);
  if (!parsed.success) ctx.inconclusive(`setup failed: the memory query "${label}" answered no entries array`);
  return parsed.data;
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
      judgeReadAnswers(j, {
        op: 'v8.memory.query',
        scope: 'memory:read',
        name: 'the memory query',
        schema: memoryResponse,
        expect200: (ex) => {
          const body = requestJson(ex);
          if (credentialIn(ex, j.profile?.credentials ?? [])?.principal !== primaryPrincipal(j)) return false;
          return memoryQueryRequest.safeParse(body).success && isRecord(body) && !('principalId' in body) && permitted?.compartment === body.compartment && permitted?.purpose === body.purpose;
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
    await queryMemory(ctx, memoryBase(ctx), 'memory query');
  },
});

export const queryBounds = rule({
  id: 'v8.memory.query.bounds',
  title: 'Memory queries inside every bound are accepted; one field missing, of another type, one past a bound or with repeated classes answers 400 (property-based)',
  level: 'required',
  spec: {
    section: 'Resources > Memory query request; Limits; Errors',
    quote:
      'compartment | string | yes | 1-128 chars … purpose | string | yes | 1-256 chars … queryText | string | yes | 1-32768 chars … classes | array of string | yes | 1-64 unique items; each 1-128 chars … limit | integer | no | 1-50; default 10 … maxContextBytes | integer | no | 64-1048576 … maxContextTokens | integer | no | 16-262144 … queryEmbedding | array of number | no | 1-4096 items … `400` missing fields, empty `classes` or bounds exceeded',
  },
  async check(ctx: CheckContext) {
    const base = memoryBase(ctx);
    const purposeReadings: Record<string, number[]> = {};
    await ctx.property(
      generatedQueries(base),
      async (c) => {
        const res = await queryMemory(ctx, c.body, `memory query with ${c.why}`);
        const accepted = acceptedStatuses(c);
        if (c.purposeChanged) (purposeReadings[c.why] ??= []).push(res.status);
        if (!accepted.includes(res.status)) ctx.fail(`a memory query with ${c.why} (${c.valid ? 'valid' : 'invalid'}) answered ${res.status}, expected ${accepted.join(' or ')}`);
      },
      { numRuns: 40, examples: boundaryQueries(base) },
    );
    ctx.observe('statuses for a replaced purpose', purposeReadings, 'a valid purpose may be refused as not permitted (403); the seed does not order 400 and 403');
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
    for (const principalId of [ctx.primary('v8').principal, 'apicert-someone-else']) await queryMemory(ctx, { ...base, principalId }, `memory query naming principalId "${principalId}"`);
  },
});

export const queryPurpose = rule({
  id: 'v8.memory.query.purpose-403',
  title: 'A memory query with a purpose the principal may not use answers 403',
  level: 'required',
  spec: { section: 'Errors', quote: '`403` no `memory:read`, `principalId` in body, or purpose not permitted' },
  async check(ctx: CheckContext) {
    const base = memoryBase(ctx);
    const forbidden = ctx.profile.fixtures.v8.memory.forbiddenPurpose;
    if (!forbidden) ctx.untestable({ need: 'fixture', path: 'v8.memory.forbiddenPurpose', remedy: 'give a purpose the primary principal is not permitted to use' });
    const allowed = await queryMemory(ctx, base, 'memory query with the permitted purpose');
    if (allowed.status !== 200) ctx.inconclusive(`setup failed: the permitted purpose answered ${allowed.status}, not 200; check fixtures.v8.memory`);
    const res = await queryMemory(ctx, { ...base, purpose: forbidden }, 'memory query with a purpose that is not permitted');
    ctx.expect(res.status === 403, `a purpose the principal may not use answered ${res.status}, expected 403`);
  },
});

export const queryOrder = rule({
  id: 'v8.memory.query.order',
  title: 'Memory entries come in descending score',
  level: 'required',
  spec: { section: 'Resources > Memory query request', quote: 'Entries are in descending relevance' },
  async check(ctx: CheckContext) {
    const base = memoryBase(ctx);
    let judged = 0;
    for (const queryText of [base.queryText, 'apicert: incident latency review', 'apicert: quarterly budget audit']) {
      const { entries } = await entriesOf(ctx, { ...base, queryText, limit: MEMORY_BOUNDS.limit.max }, `memory query "${queryText}"`);
      const scores = entries.map((e) => Number(e.score));
      if (scores.length < 2 || scores.some(Number.isNaN)) continue;
      judged += 1;
      const at = scores.findIndex((s, i) => i > 0 && s > scores[i - 1]!);
      ctx.check(at === -1, `for "${queryText}" entry #${at + 1} has score ${scores[at]} after ${scores[at - 1]}: entries are not in descending score`);
    }
    if (judged === 0) ctx.untestable({ need: 'fixture', path: 'v8.memory', problem: 'gave no memory query two entries with numeric scores', remedy: 'give a compartment with several entries' });
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
  async check(ctx: CheckContext) {
    const base = memoryBase(ctx);
    const counts: Record<string, number> = {};
    // A bound binds only where there is more to return than it allows: limit 1 needs two entries.
    const available = (await entriesOf(ctx, { ...base, limit: MEMORY_BOUNDS.limit.max }, 'memory query with the largest limit')).entries.length;
    if (available < 2) ctx.untestable({ need: 'fixture', path: 'v8.memory', problem: `gave a memory query ${available} entr${available === 1 ? 'y' : 'ies'} at the largest limit, so no limit was binding`, remedy: 'give a compartment and purpose with at least two entries (eleven to judge the default of 10)' });
    for (const limit of [1, 3, MEMORY_BOUNDS.limit.max]) {
      const { entries } = await entriesOf(ctx, { ...base, limit }, `memory query with limit ${limit}`);
      counts[`limit ${limit}`] = entries.length;
      ctx.check(entries.length <= limit, `limit ${limit} returned ${entries.length} entries`);
    }
    const unbounded = await entriesOf(ctx, { ...base }, 'memory query without limit');
    counts['no limit'] = unbounded.entries.length;
    ctx.check(unbounded.entries.length <= MEMORY_BOUNDS.limit.default, `without limit the query returned ${unbounded.entries.length} entries, more than the default of ${MEMORY_BOUNDS.limit.default}`);
    ctx.observe('entries per limit', counts);
    const accounting: Array<Record<string, unknown>> = [];
    for (const maxContextBytes of [MEMORY_BOUNDS.maxContextBytes.min, 512, 4096]) {
      const bundle = await entriesOf(ctx, { ...base, maxContextBytes, limit: MEMORY_BOUNDS.limit.max }, `memory query with maxContextBytes ${maxContextBytes}`);
      const total = bundle.totalContextBytes;
      if (ctx.check(typeof total === 'number', `maxContextBytes ${maxContextBytes}: totalContextBytes is ${JSON.stringify(total)}, not a number`))
        ctx.check((total as number) <= maxContextBytes, `maxContextBytes ${maxContextBytes}: totalContextBytes is ${String(total)}`);
      accounting.push({ maxContextBytes, entries: bundle.entries.length, totalContextBytes: total, contentBytes: bundle.entries.reduce((n, e) => n + byteLength(e.content), 0), truncated: bundle.truncated });
    }
    // The seed gives no meaning to `truncated` nor says what totalContextBytes counts: record both.
    ctx.observe('context byte accounting', accounting, 'contentBytes is the UTF-8 size of the entries\' content; the seed does not say what totalContextBytes counts or when truncated is true');
    const tokens = await queryMemory(ctx, { ...base, maxContextTokens: MEMORY_BOUNDS.maxContextTokens.min }, 'memory query with the smallest maxContextTokens');
    const parsed = lenientEntries.safeParse(tokens.json);
    ctx.observe('smallest maxContextTokens', { status: tokens.status, entries: parsed.success ? parsed.data.entries.length : null }, 'tokens are counted by a tokenizer the seed does not name, so the bound is not judged');
  },
});

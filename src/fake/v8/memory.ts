import { createHash } from 'node:crypto';
import { z } from 'zod';
import { memoryEntries, permittedPurposes, type MemorySeedEntry } from '../../../scenarios/v8/memory.ts';
import { MEMORY_BOUNDS, memoryQueryRequest, type MemoryQueryRequest } from '../../contract/v8/memory.ts';
import type { FakeContext } from '../context.ts';
import type { Route, RouteRequest } from '../http.ts';
import { withExtraProperties } from '../support/extra-properties.ts';
import type { ReadSurface } from './read-surface.ts';
import { SensitiveValues } from './redaction.ts';

/** Input schema: the contract's, loosened only where an active fault says so. */
function querySchema(surface: ReadSurface) {
  const faults = surface.fake.faults;
  const b = MEMORY_BOUNDS;
  let schema = memoryQueryRequest;
  if (faults.has('v8.memory.query.bounds/limit-51')) schema = schema.extend({ limit: z.number().int().min(1).max(51).optional() });
  if (faults.has('v8.memory.query.bounds/duplicate-classes')) {
    schema = schema.extend({ classes: z.array(z.string().min(b.className.min).max(b.className.max)).min(b.classes.min).max(b.classes.max) });
  }
  if (faults.has('v8.memory.query.bounds/embedding-4097')) schema = schema.extend({ queryEmbedding: z.array(z.number()).min(1).max(4097).optional() });
  if (faults.has('v8.memory.query.bounds/max-context-bytes-63')) schema = schema.extend({ maxContextBytes: z.number().int().min(63).max(b.maxContextBytes.max).optional() });
  return schema;
}

/** Every purpose the fake knows: one some principal is granted or some entry serves. */
const KNOWN_PURPOSES: ReadonlySet<string> = new Set([...Object.values(permittedPurposes).flat(), ...memoryEntries.flatMap((e) => e.purposes)]);

/**
 * Whether `principal` may query with `purpose`: one it is granted, or under `v8.memory/purpose-echoed`
 * also one the fake knows nothing of ("purpose not permitted" gives 403, and which purposes a principal
 * may use is not shown); a known purpose it is not granted stays refused.
 */
function purposePermitted(fake: FakeContext, principal: string, purpose: string): boolean {
  if ((permittedPurposes[principal] ?? []).includes(purpose)) return true;
  return !KNOWN_PURPOSES.has(purpose) && fake.variants.has('v8.memory/purpose-echoed');
}

/**
 * Under `v8.memory/purpose-echoed` the bundle and every entry carry `purposeTag`, the purpose the
 * query was served for ("Entry shape beyond the fields listed: not shown"): the request's own text
 * in an answer, which names no resource.
 */
function withPurposeTag(fake: FakeContext, response: Record<string, unknown>, tag: string): Record<string, unknown> {
  if (!fake.variants.has('v8.memory/purpose-echoed')) return response;
  const entries = (response.entries as Array<Record<string, unknown>>).map((e) => ({ ...e, purposeTag: tag }));
  return { ...response, entries, purposeTag: tag };
}

/** A deterministic relevance in [0, 1]: the entry's base plus a contribution of the query. */
function relevance(entry: MemorySeedEntry, query: MemoryQueryRequest): number {
  const basis = query.queryEmbedding ? query.queryEmbedding.slice(0, 64).join(',') : query.queryText.slice(0, 512);
  const digest = createHash('sha256').update(`${basis}\u0000${entry.entryId}`).digest();
  return Math.min(1, entry.baseScore + (digest.readUInt16BE(0) / 0xffff) * 0.2);
}

/** Rough tokens of a text, as a tokenizer-free deployment would estimate them. */
function tokensOf(bytes: number): number {
  return Math.ceil(bytes / 4);
}

/**
 * Under `v8.memory/unknown-compartment-403`, a compartment the fake holds no entries in is refused:
 * the 403 causes for memory name no compartment rule, so which compartments a principal may read is open.
 */
function compartmentRefused(fake: FakeContext, compartment: string): boolean {
  return !memoryEntries.some((e) => e.compartment === compartment) && fake.variants.has('v8.memory/unknown-compartment-403');
}

/**
 * The score an entry is served with: its relevance, or under `v8.memory/score-as-distance` a distance
 * (1 - relevance): "`score` (number)" ties it to no direction, while the order stays "descending relevance".
 */
function servedScore(fake: FakeContext, relevanceScore: number): number {
  return fake.variants.has('v8.memory/score-as-distance') ? Math.round((1 - relevanceScore) * 1e6) / 1e6 : relevanceScore;
}

/** An entry as served: the fake's formats, or under the variant other ids, epoch timestamps and another score scale. */
function shownEntry(fake: FakeContext, entry: MemorySeedEntry, score: number | string): Record<string, unknown> {
  const other = fake.variants.has('v8.memory/other-formats');
  return {
    entryId: other ? otherEntryId(entry) : entry.entryId,
    class: entry.class,
    content: entry.content,
    score: other && typeof score === 'number' ? Math.round(score * 10000) / 100 : score,
    createdAt: other ? Date.parse(entry.createdAt) : entry.createdAt,
  };
}

/** "`entryId` (string)": a UUID for some entries, a path with `/` and `#` for the others. */
function otherEntryId(entry: MemorySeedEntry): string {
  const hex = createHash('sha256').update(entry.entryId).digest('hex');
  const uuid = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
  return Number(entry.entryId.slice(-1)) % 2 === 0 ? uuid : `memory/${entry.compartment}/${uuid}#rev-2`;
}

/** POST /v8/memory/query: purpose-filtered, relevance-ordered entries bounded by limit, bytes and tokens. */
export function memoryRoutes(surface: ReadSurface): Route[] {
  const faults = surface.fake.faults;
  const schema = querySchema(surface);
  const sensitive = new SensitiveValues(surface.fake);

  async function query(r: RouteRequest): Promise<void> {
    const caller = surface.authorize(r, 'memory', 'memory:read');
    if (!caller) return;
    const body = await surface.jsonBody(r);
    if (body === undefined) return;
    if (surface.refusePrincipalInBody(r, body, faults.has('v8.memory.query.principal-403/ignored'))) return;
    const parsed = schema.safeParse(body);
    if (!parsed.success) {
      surface.invalid(r, parsed.error);
      return;
    }
    const q = parsed.data;
    if (!purposePermitted(surface.fake, caller.principal, q.purpose) && !faults.has('v8.memory.query.purpose-403/any-purpose')) {
      surface.v8.problem(r.res, 403, 'purpose_not_permitted', `The purpose "${sensitive.purposeInError(q.purpose)}" is not permitted for this principal.`);
      return;
    }
    if (compartmentRefused(surface.fake, q.compartment)) {
      surface.v8.problem(r.res, 403, 'compartment_not_permitted', 'The principal may not read this compartment.');
      return;
    }
    const matched = memoryEntries
      .filter((e) => e.compartment === q.compartment && q.classes.includes(e.class) && e.purposes.includes(q.purpose))
      .map((e) => ({ entry: e, score: relevance(e, q) }))
      .sort((a, b) => b.score - a.score);
    let limit = q.limit ?? (faults.has('v8.memory.query.limits/default-limit-20') ? 20 : MEMORY_BOUNDS.limit.default);
    if (faults.has('v8.memory.query.limits/limit-ignored')) limit = MEMORY_BOUNDS.limit.max;
    const maxBytes = faults.has('v8.memory.query.limits/max-context-bytes-ignored') ? Infinity : (q.maxContextBytes ?? Infinity);
    const maxTokens = q.maxContextTokens ?? Infinity;
    const chosen: typeof matched = [];
    let bytes = 0;
    let cut = false;
    for (const m of matched) {
      if (chosen.length >= limit) break;
      const size = Buffer.byteLength(m.entry.content);
      if (bytes + size > maxBytes || tokensOf(bytes + size) > maxTokens) {
        cut = true;
        break;
      }
      chosen.push(m);
      bytes += size;
    }
    let response: Record<string, unknown> = {
      entries: chosen.map(({ entry, score }) => shownEntry(surface.fake, entry, faults.has('v8.memory.query.ok/score-as-string') ? score.toFixed(4) : servedScore(surface.fake, score))),
      totalContextBytes: bytes,
      truncated: cut,
    };
    if (faults.has('v8.memory.query.ok/truncated-missing')) delete response.truncated;
    response = withPurposeTag(surface.fake, response, sensitive.text(q.purpose));
    // "Entry shape beyond the fields listed: not shown": the variant adds unknown properties to the bundle and every entry.
    surface.v8.json(r.res, 200, surface.fake.variants.has('v8.memory/extra-properties') ? withExtraProperties(response) : response);
  }

  return [{ method: 'POST', pattern: /^\/v8\/memory\/query$/, handler: query }];
}

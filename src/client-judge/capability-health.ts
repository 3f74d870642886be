/**
 * What client.v8.capabilities.unavailable-in-goal reads of a client's log: the health states its
 * capability searches were answered with, and whether a goalSpec names a capability.
 */
import { isRecord, parseJson } from '../util/json.ts';
import type { RecordedExchange } from './session.ts';

const pathOf = (ex: RecordedExchange) => ex.path.split('?', 1)[0]!;
export const isCapabilitySearch = (ex: RecordedExchange) => ex.method === 'POST' && pathOf(ex) === '/v8/capabilities/search';
export const isMissionCreate = (ex: RecordedExchange) => ex.method === 'POST' && pathOf(ex) === '/v8/missions';

/** A manifest's id and health, as far as the answer shows them. */
export interface ManifestHealth {
  capabilityId: string;
  healthState: string;
}

function manifestOf(value: unknown): ManifestHealth | undefined {
  return isRecord(value) && typeof value.capabilityId === 'string' && typeof value.healthState === 'string' ? { capabilityId: value.capabilityId, healthState: value.healthState } : undefined;
}

/**
 * The manifests a 200 search answer showed. The record keeps a bounded prefix of a response body:
 * when it is no whole JSON array, the flat manifest objects of the prefix still show what they show.
 */
export function manifestsShown(ex: RecordedExchange): ManifestHealth[] {
  if (ex.status !== 200 || ex.responseBody === undefined) return [];
  const whole = parseJson(ex.responseBody);
  if (whole.ok) return Array.isArray(whole.value) ? whole.value.flatMap((m) => manifestOf(m) ?? []) : [];
  return [...ex.responseBody.matchAll(/\{[^{}]*\}/g)].flatMap((m) => {
    const part = parseJson(m[0]);
    return part.ok ? (manifestOf(part.value) ?? []) : [];
  });
}

/** Characters an id may continue with: an occurrence followed or preceded by one is part of a longer token. */
const WORD = /[A-Za-z0-9_]/;
const JOINER = /[.:/#@-]/;

/**
 * Whether `text` names `id` as a token of its own: not inside a longer id (`cap.docs` is not named
 * by `cap.docs.search`), while a sentence's punctuation after it (`use cap.docs.`) still names it.
 */
export function namesId(text: string, id: string): boolean {
  if (id.length === 0) return false;
  for (let at = text.indexOf(id); at !== -1; at = text.indexOf(id, at + 1)) {
    const before = text[at - 1];
    const after = text[at + id.length];
    const next = text[at + id.length + 1];
    const joinsBefore = before !== undefined && (WORD.test(before) || JOINER.test(before));
    const joinsAfter = after !== undefined && (WORD.test(after) || (JOINER.test(after) && next !== undefined && WORD.test(next)));
    if (!joinsBefore && !joinsAfter) return true;
  }
  return false;
}

/**
 * Keys under which a goalSpec lists what the goal must leave out: naming an unavailable capability
 * there is doing what the sentence asks, not including it.
 */
const LEAVES_OUT = /avoid|exclu|deny|disallow|block|forbid|without|except|skip|unavailable/i;

/**
 * The strings of a goalSpec, split by how they name things. `references`: a whole string value, or a
 * key, outside any leaving-out key: where a goal includes a capability by its id. `prose`: every string
 * value, for a mention inside text, which a capability id of plain words (`email`; "capabilityId |
 * string | stable unique id" sets no format) may be without naming the capability.
 */
function stringsIn(value: unknown, out: { references: string[]; prose: string[] } = { references: [], prose: [] }, depth = 0, leftOut = false): { references: string[]; prose: string[] } {
  if (depth > 64) return out;
  if (typeof value === 'string') {
    if (!leftOut) out.references.push(value.trim());
    out.prose.push(value);
  } else if (Array.isArray(value)) for (const v of value) stringsIn(v, out, depth + 1, leftOut);
  else if (isRecord(value)) {
    for (const [k, v] of Object.entries(value)) {
      const leaves = leftOut || LEAVES_OUT.test(k);
      if (!leaves) out.references.push(k.trim());
      stringsIn(v, out, depth + 1, leaves);
    }
  }
  return out;
}

/** The goalSpec a create sent, or undefined when its kept body is no JSON object holding one. */
export function goalSpecOf(ex: RecordedExchange): unknown {
  const body = parseJson(ex.body);
  return body.ok && isRecord(body.value) && 'goalSpec' in body.value ? body.value.goalSpec : undefined;
}

/**
 * The ids of `ids` the goalSpec includes (`named`: a string value or a key equal to the id, outside a
 * list of what to leave out), and those only mentioned in its text (`mentioned`: a token of a longer
 * string, or under a leaving-out key), which may be words of the goal rather than the capability.
 */
export function namedIn(goalSpec: unknown, ids: Iterable<string>): { named: string[]; mentioned: string[] } {
  const strings = stringsIn(goalSpec);
  const named: string[] = [];
  const mentioned: string[] = [];
  for (const id of ids) {
    if (strings.references.includes(id)) named.push(id);
    else if (strings.prose.some((s) => namesId(s, id)) || strings.references.some((s) => namesId(s, id))) mentioned.push(id);
  }
  return { named, mentioned };
}

/**
 * The health each capability was last shown with by a search answer the client had received
 * before `create` arrived (its answer sent no later than the create came), with the answer that showed it.
 */
export function healthBefore(exchanges: readonly RecordedExchange[], create: RecordedExchange): Map<string, { state: string; shownBy: RecordedExchange }> {
  const answered = exchanges.filter((ex) => isCapabilitySearch(ex) && ex.index < create.index && ex.respondedAt !== undefined && ex.respondedAt <= create.at).sort((a, b) => a.respondedAt! - b.respondedAt!);
  const health = new Map<string, { state: string; shownBy: RecordedExchange }>();
  for (const ex of answered) for (const m of manifestsShown(ex)) health.set(m.capabilityId, { state: m.healthState, shownBy: ex });
  return health;
}

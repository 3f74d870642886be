/**
 * Where a /v1 run event (or a webhook delivery) names its kind. The spec names kinds but never the
 * place that carries one: "Event kinds beyond `request.accepted` and `request.cancelled`, and the
 * payload fields of events: not shown." and, for deliveries, "a JSON body that includes
 * `apiVersion` (`v1`), `event_id`, `run_id` and `sequence`" (no type field). So a kind is found by
 * its value as much as by its field's name. Free of zod and of the journal, so the k6 bundles carry
 * it too: certify's rules (src/checks/v1/support/fabric.ts) and the load scenarios read the kind the
 * same way.
 */
import { ACCEPTED, CANCELLED, TERMINAL_WEBHOOK_EVENTS } from '../contract/v1/event-kinds.ts';
import { isRecord, parseJson } from '../util/json.ts';

/** The data fields that may name a run event's kind, in the order they are read (deliveries read `event_type` too). */
export const KIND_FIELDS = ['type', 'kind', 'event', 'event_type'] as const;

/** The order a delivery body's usual type fields are read in. */
export const DELIVERY_TYPE_FIELDS = ['type', 'event_type', 'event', 'kind'] as const;

/**
 * The kinds the spec names ("Known event kinds: `request.accepted` … `request.cancelled`", "Event
 * types named: `run.completed`, `run.failed`"): a member holding one of these names the kind,
 * whatever the member is called.
 */
export const NAMED_KINDS: ReadonlySet<string> = new Set([ACCEPTED, CANCELLED, ...TERMINAL_WEBHOOK_EVENTS]);

/** Member names that say they hold the kind, beyond KIND_FIELDS: `eventType`, `event_kind`, `eventName`, `Event-Type`… */
const KIND_NAME = /^event[_-]?(?:type|kind|name)$/i;

/** A dotted lowercase name, the shape of every kind the spec names (`request.accepted`, `run.completed`). */
const KIND_SHAPE = /^[a-z][a-z0-9_-]*(?:\.[a-z][a-z0-9_-]*)+$/;

function jsonData(e: { data: string }): Record<string, unknown> | undefined {
  const parsed = parseJson(e.data);
  return parsed.ok && isRecord(parsed.value) ? parsed.value : undefined;
}

/**
 * The kind a JSON object (an event's data, a delivery's body) carries beside `declared` (the SSE
 * event name, when there is one):
 * 1. a declared place (the SSE name, `fields`, a member named like `eventType`) holding a kind the
 *    spec names: a generic SSE name (`event: update`) does not hide the kind its data names;
 * 2. else the first declared place, as before: the SSE name, else the first of `fields`;
 * 3. else any top-level string member holding a kind the spec names;
 * 4. else the one top-level string member shaped like a kind (dotted lowercase), when only one is.
 * Top-level members only: a nested payload (a delivery's `data`) describes something else.
 */
export function kindIn(declared: string | undefined, body: Record<string, unknown> | undefined, fields: readonly string[] = KIND_FIELDS): string | undefined {
  // One pass per step, no arrays: this runs for every event of every stream a recording holds.
  if (declared !== undefined && NAMED_KINDS.has(declared)) return declared;
  let first = declared;
  if (body === undefined) return first;
  for (const field of fields) {
    const v = body[field];
    if (typeof v !== 'string') continue;
    if (NAMED_KINDS.has(v)) return v;
    if (first === undefined) first = v;
  }
  for (const name in body) {
    if (fields.includes(name) || !KIND_NAME.test(name)) continue;
    const v = body[name];
    if (typeof v !== 'string') continue;
    if (NAMED_KINDS.has(v)) return v;
    if (first === undefined) first = v;
  }
  if (first !== undefined) return first;
  let shaped: string | undefined;
  let count = 0;
  for (const name in body) {
    const v = body[name];
    if (typeof v !== 'string') continue;
    if (NAMED_KINDS.has(v)) return v;
    if (KIND_SHAPE.test(v)) {
      count += 1;
      shaped = v;
    }
  }
  return count === 1 ? shaped : undefined;
}

/**
 * The kind of a run event (`kindIn`): the SSE `event` field (`message`, the SSE default, names
 * nothing), the data's kind fields, or a member whose value is a kind. `dataOf` reads the data
 * (certify's caches it per event).
 */
export function eventKindOf<E extends { event?: string | undefined; data: string }>(e: E, dataOf: (e: E) => Record<string, unknown> | undefined = jsonData): string | undefined {
  const named = e.event !== undefined && e.event !== 'message' ? e.event : undefined;
  // The commonest case, read without the data: an SSE name that is itself a kind the spec names wins anyway (kindIn's first place).
  if (named !== undefined && NAMED_KINDS.has(named)) return named;
  return kindIn(named, dataOf(e)) ?? e.event;
}

/** The type of a webhook delivery body (`kindIn` without an SSE name; the usual fields in DELIVERY_TYPE_FIELDS order). */
export function deliveryKindOf(body: Record<string, unknown> | undefined): string | undefined {
  return kindIn(undefined, body, DELIVERY_TYPE_FIELDS);
}

/**
 * Where a /v1 run event names its kind: the SSE `event` field, else a member of its JSON data.
 * "Event kinds beyond `request.accepted` and `request.cancelled`, and the payload fields of events:
 * not shown." Free of zod and of the journal, so the k6 bundles carry it too: certify's rules
 * (src/checks/v1/support/fabric.ts) and the load scenarios read the kind the same way.
 */
import { isRecord, parseJson } from '../util/json.ts';

/** The data fields that may name a run event's kind, in the order they are read (deliveries read `event_type` too). */
export const KIND_FIELDS = ['type', 'kind', 'event', 'event_type'] as const;

function jsonData(e: { data: string }): Record<string, unknown> | undefined {
  const parsed = parseJson(e.data);
  return parsed.ok && isRecord(parsed.value) ? parsed.value : undefined;
}

/**
 * The kind of a run event: the SSE `event` field, else the first of `type`, `kind`, `event` or
 * `event_type` in its data that is a string. `dataOf` reads the data (certify's caches it per event).
 */
export function eventKindOf<E extends { event?: string | undefined; data: string }>(e: E, dataOf: (e: E) => Record<string, unknown> | undefined = jsonData): string | undefined {
  if (e.event !== undefined && e.event !== 'message') return e.event;
  const data = dataOf(e);
  const kind = KIND_FIELDS.map((f) => data?.[f]).find((v) => typeof v === 'string');
  return typeof kind === 'string' ? kind : e.event;
}

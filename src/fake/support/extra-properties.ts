/**
 * Unknown properties a deployment may add to any object the seeds leave open: nested objects,
 * arrays, nulls and names no client expects. Pure and deterministic, so a stored response and its
 * replay stay byte-identical.
 */
const EXTRAS: Readonly<Record<string, unknown>> = {
  'x-apicert-extension': { nested: { list: [1, 'two', null, { deep: true }], empty: {} }, note: 'an extension member' },
  _links: null,
  'odd name.with:punctuation-and space': [],
  ünïcødé: ['ünïcødé', 0, -1.5e-7],
  '': 'an empty property name',
};

export interface ExtraPropertyOptions {
  /** Keys whose values are kept exactly as they are (closed maps, free-form documents such as a JSON Schema). */
  keep?: readonly string[];
}

/** A copy of `value` with the extra properties added to every plain object in it, at every depth. */
export function withExtraProperties<T>(value: T, options: ExtraPropertyOptions = {}): T {
  return extend(value, new Set(options.keep ?? [])) as T;
}

function extend(value: unknown, keep: ReadonlySet<string>): unknown {
  if (Array.isArray(value)) return value.map((item) => extend(item, keep));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) out[key] = keep.has(key) ? v : extend(v, keep);
  for (const [key, v] of Object.entries(EXTRAS)) if (!(key in out)) out[key] = structuredClone(v);
  return out;
}

/**
 * Unknown properties for the open objects of a response: where a seed leaves an object open
 * ("Other properties are allowed", "fields … not shown", "open properties"), a deployment may send
 * anything more, and a check must read past it. Only ever given open objects: a closed one (the
 * /v1 Problem and FieldError) must never pass through here.
 *
 * The additions are fixed values, the same on every call, so a replay stays byte-identical and a
 * counter a check watches never moves because of them. They avoid the names that carry meaning
 * somewhere (`id`, `type`, `kind`, `event`, `*_id`, `sequence`, `state`, `status`) and hold no
 * timestamp, so they are unknown properties and nothing else.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Odd names (dots, colons, spaces, non-ASCII, an empty name) with nested objects, arrays and nulls. */
const EXTRAS: Record<string, Json> = {
  'x-apicert.extension': { nested: { deeper: [1, 'two', null, { three: true, list: [] }] }, empty: {} },
  'apicert:vendor note': null,
  'ünïcödé_名前': ['α', 0, false, { inner: null }],
  _links: { self: { href: 'https://apicert.invalid/extension' } },
  '': 'a property with an empty name',
  UPPER_Mixed: -0.5,
};

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export interface ExtraPropertyOptions {
  /** Keys whose values are kept exactly as they are (closed maps, free-form documents such as a JSON Schema). */
  keep?: readonly string[];
}

/**
 * A deep copy of `value` in which every object (the top one and every one nested in it, in arrays
 * too) also carries the extra properties; properties it already has are never replaced.
 */
export function withExtraProperties<T>(value: T, options: ExtraPropertyOptions = {}): T {
  return extend(value, new Set(options.keep ?? []), 0) as T;
}

function extend(value: unknown, keep: ReadonlySet<string>, depth: number): unknown {
  if (depth > 16) return value;
  if (Array.isArray(value)) return value.map((v: unknown) => extend(v, keep, depth + 1));
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  // An added property is left as it is, so applying this again changes nothing.
  for (const [key, v] of Object.entries(value)) out[key] = Object.hasOwn(EXTRAS, key) || keep.has(key) ? v : extend(v, keep, depth + 1);
  for (const [key, v] of Object.entries(EXTRAS)) if (!Object.hasOwn(out, key)) out[key] = structuredClone(v);
  return out;
}

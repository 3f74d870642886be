/**
 * A request body as a deployment validating with ajv's `coerceTypes: 'array'` reads it: Fastify's
 * default for route schemas, so the idiomatic Fastify build of a /v8 description. ajv coerces a
 * value of another JSON type into the type its schema names before any bound is checked:
 *
 * - to a string: a number or boolean (`42` → `"42"`), null → `""`;
 * - to a number or integer: a boolean (true → 1), null → 0, a string that reads as one (`"3"` → 3; an
 *   integer only when the number is whole);
 * - to a boolean: `"true"`/`"false"`, 1/0, null → false;
 * - to an array: a scalar or null is wrapped (`"x"` → `["x"]`), its items then coerced;
 * - to a scalar: a one-item array is read as its item, then coerced.
 *
 * An object is never coerced, nor made from anything. The /v8 error tables name no wrong-type cause
 * among the 400s, so such a value is a legal choice to read or to refuse (docs/legal-variation.md,
 * `v8.contract/coerces-types`); what the coerced value then breaks is judged as any value's.
 * The schema walked is the contract's zod schema: where it names one JSON type, ajv's schema would.
 */
import type { z } from 'zod';
import { isRecord } from '../util/json.ts';
import { defOf } from './schema-cases.ts';

export type Segment = string | number;

export interface AjvReading {
  /** The body as ajv leaves it: the value given where nothing was coerced (never changed in place). */
  value: unknown;
  /** Where a value of another JSON type was coerced, outermost first; empty when none was. */
  coerced: ReadonlyArray<readonly Segment[]>;
}

type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'array' | 'object';

/** The one JSON type a schema node names, with its node (wrappers off) and whether null is also valid; undefined where it names none or several (unions, unknown, literals, enums: ajv coerces none of these here). */
function typeOf(schema: z.ZodType): { type: JsonType; node: z.ZodType; nullable: boolean } | undefined {
  let node = schema;
  let nullable = false;
  for (let i = 0; i < 8; i += 1) {
    const def = defOf(node);
    if (def.type === 'nullable') nullable = true;
    if (['optional', 'default', 'prefault', 'readonly', 'nullable'].includes(def.type) && def.innerType) node = def.innerType;
    else if (def.type === 'pipe' && def.in) node = def.in;
    else break;
  }
  const def = defOf(node);
  switch (def.type) {
    case 'string':
    case 'boolean':
    case 'array':
    case 'object':
      return { type: def.type, node, nullable };
    case 'number': {
      const integer = /int/.test(def.format ?? '') || (def.checks ?? []).some((c) => c._zod.def.check === 'number_format' && /int/.test(c._zod.def.format ?? ''));
      return { type: integer ? 'integer' : 'number', node, nullable };
    }
    default:
      return undefined;
  }
}

function hasType(type: JsonType, v: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof v === 'string';
    case 'number':
      return typeof v === 'number';
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v);
    case 'boolean':
      return typeof v === 'boolean';
    case 'array':
      return Array.isArray(v);
    case 'object':
      return isRecord(v);
  }
}

const NOT = Symbol('not coerced');

/** ajv's `coerceData` for one value (dataType.ts in ajv 8): the coerced value, or NOT. */
function coerceTo(type: JsonType, given: unknown): unknown {
  if (type === 'object') return NOT;
  let data = given;
  if (type !== 'array' && Array.isArray(data) && data.length === 1) {
    data = data[0];
    if (hasType(type, data)) return data;
  }
  const t = typeof data;
  switch (type) {
    case 'string':
      if (t === 'number' || t === 'boolean') return String(data);
      return data === null ? '' : NOT;
    case 'number':
    case 'integer': {
      if (t === 'boolean' || data === null) return Number(data);
      if (t !== 'string' || data === '') return NOT;
      // ajv's `x == +x` (and `!(x % 1)` for an integer): a string JavaScript reads as a number.
      const n = Number(data);
      if (Number.isNaN(n) || (type === 'integer' && n % 1 !== 0 && Number.isFinite(n))) return NOT;
      return n;
    }
    case 'boolean':
      if (data === 'false' || data === 0 || data === null) return false;
      return data === 'true' || data === 1 ? true : NOT;
    case 'array':
      return t === 'string' || t === 'number' || t === 'boolean' || data === null ? [data] : NOT;
  }
}

function walk(schema: z.ZodType, value: unknown, path: Segment[], coerced: Segment[][]): unknown {
  const typed = typeOf(schema);
  if (typed === undefined || (value === null && typed.nullable)) return value;
  let v = value;
  if (!hasType(typed.type, v)) {
    const c = coerceTo(typed.type, v);
    if (c === NOT) return value;
    coerced.push([...path]);
    v = c;
  }
  const def = defOf(typed.node);
  if (typed.type === 'object' && isRecord(v)) {
    let out: Record<string, unknown> | undefined;
    for (const [k, field] of Object.entries(def.shape ?? {})) {
      if (!(k in v)) continue;
      path.push(k);
      const next = walk(field, v[k], path, coerced);
      path.pop();
      if (next !== v[k]) (out ??= { ...v })[k] = next;
    }
    return out ?? v;
  }
  if (typed.type === 'array' && Array.isArray(v) && def.element) {
    let out: unknown[] | undefined;
    for (let i = 0; i < v.length; i += 1) {
      path.push(i);
      const next = walk(def.element, v[i], path, coerced);
      path.pop();
      if (next !== v[i]) (out ??= [...v])[i] = next;
    }
    return out ?? v;
  }
  return v;
}

/**
 * A body judged as ajv's coercion reads it: `parsed` is `parse` of the body so read, and `open` says
 * that only a coercion of a value of another JSON type made it valid, so no answer is owed to it.
 */
export function parsedAsAjvReads<P extends { success: boolean }>(schema: z.ZodType, body: unknown, parse: (value: unknown) => P): { read: AjvReading; parsed: P; open: boolean } {
  const read = readAsAjv(schema, body);
  const parsed = parse(read.value);
  return { read, parsed, open: parsed.success && read.coerced.length > 0 };
}

/** `value` as ajv's `coerceTypes: 'array'` reads it against `schema`, and where it coerced. */
export function readAsAjv(schema: z.ZodType, value: unknown): AjvReading {
  const coerced: Segment[][] = [];
  return { value: walk(schema, value, [], coerced), coerced };
}

/**
 * Request values derived from the contract's zod schemas, the one source: a walk over the zod 4
 * schema tree (its `_zod.def`). zod-fast-check, the known bridge, supports neither zod 4 nor
 * fast-check 4 (its zod 4 work is an unmerged pull request), and it generates only valid values; the
 * boundaries and single mutations below are what a probe needs most.
 *
 * - `constraintsOf`: every length, count, range, integer, pattern/format, enum, const, required
 *   field and closed object of a schema, by path.
 * - `casesOf`: whole bodies, each the base with exactly one change: every bound at its limit and one
 *   past it, each enum value and an unknown one, optional fields absent and present, each wrong JSON
 *   type, a missing required field, an extra property where the object is closed, odd strings.
 *   Whether a case is valid is decided by the schema itself (`safeParse` of the whole body), never
 *   by what the generator meant, so a case can never be judged against the wrong expectation.
 * - `arbitraryOf`: a fast-check arbitrary of valid values for the random phase.
 */
import fc from 'fast-check';
import type { z } from 'zod';
import type { ConstraintKind } from './marks.ts';

// zod 4 keeps a schema's definition under `_zod.def`; only the members read here are typed.
interface Check {
  _zod: { def: { check: string; minimum?: number; maximum?: number; length?: number; value?: number; inclusive?: boolean; format?: string; pattern?: RegExp } };
}
interface Def {
  type: string;
  checks?: Check[];
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  element?: z.ZodType;
  options?: z.ZodType[];
  discriminator?: string;
  innerType?: z.ZodType;
  values?: unknown[];
  entries?: Record<string, string | number>;
  keyType?: z.ZodType;
  valueType?: z.ZodType;
  in?: z.ZodType;
  format?: string;
  pattern?: RegExp;
}

export type { Def };

export function defOf(schema: z.ZodType): Def {
  return (schema as unknown as { _zod: { def: Def } })._zod.def;
}

export type { ConstraintKind };

export interface Constraint {
  /** `<path> <kind>`, stable across runs: the key of constraint coverage. */
  id: string;
  path: string;
  kind: ConstraintKind;
  detail: string;
}

export interface Case {
  constraint: string;
  /** What the change is, for reports: `queryText: length 32769`. */
  label: string;
  value: unknown;
  /** Decided by the schema on the whole value. */
  valid: boolean;
}

type Path = readonly (string | number)[];

const DELETE = Symbol('delete');

function pathText(path: Path): string {
  return path.map((p) => (typeof p === 'number' ? '[]' : `.${p}`)).join('').replace(/^\./, '') || '(body)';
}

interface Bounds {
  min?: number;
  max?: number;
  integer: boolean;
  pattern?: RegExp;
  format?: string;
}

function boundsOf(schema: z.ZodType): Bounds {
  const def = defOf(schema);
  const out: Bounds = { integer: false };
  if (def.format && def.format !== 'regex') out.format = def.format;
  if (def.pattern) out.pattern = def.pattern;
  for (const c of def.checks ?? []) {
    const d = c._zod.def;
    if (d.check === 'min_length') out.min = d.minimum;
    else if (d.check === 'max_length') out.max = d.maximum;
    else if (d.check === 'length_equals') out.min = out.max = d.length;
    else if (d.check === 'greater_than') out.min = d.inclusive ? d.value : (d.value ?? 0) + (out.integer ? 1 : Number.EPSILON);
    else if (d.check === 'less_than') out.max = d.inclusive ? d.value : (d.value ?? 0) - (out.integer ? 1 : Number.EPSILON);
    else if (d.check === 'number_format' && /int/.test(d.format ?? '')) out.integer = true;
    else if (d.check === 'string_format') {
      if (d.format === 'regex' && d.pattern) out.pattern = d.pattern;
      else if (d.format) out.format = d.format;
    }
  }
  return out;
}

/** One wrapper off (optional, default, readonly, nullable, pipe), or the schema itself. */
export function unwrapOnce(schema: z.ZodType): z.ZodType {
  const def = defOf(schema);
  if (['optional', 'default', 'prefault', 'readonly', 'nullable'].includes(def.type) && def.innerType) return def.innerType;
  if (def.type === 'pipe' && def.in) return def.in;
  return schema;
}

/** Optional, default, readonly and pipes: the schema a present value is judged by. */
export function unwrap(schema: z.ZodType): { inner: z.ZodType; optional: boolean } {
  let inner = schema;
  let optional = false;
  for (let i = 0; i < 8; i += 1) {
    const def = defOf(inner);
    if (def.type === 'optional' || def.type === 'default' || def.type === 'prefault') optional = true;
    if ((def.type === 'optional' || def.type === 'default' || def.type === 'prefault' || def.type === 'readonly' || def.type === 'nullable') && def.innerType) inner = def.innerType;
    else if (def.type === 'pipe' && def.in) inner = def.in;
    else break;
  }
  return { inner, optional };
}

const FORMAT_SAMPLES: Record<string, string> = {
  uuid: '0190a8f0-1c2d-7e3f-8a4b-5c6d7e8f9a0b',
  datetime: '2026-01-01T00:00:00Z',
  url: 'https://example.com/apicert',
  email: 'probe@example.com',
};

/** A string of exactly `length` characters the schema accepts, distinct for each `index`, or undefined. */
export function stringOf(schema: z.ZodType, length: number, index = 0): string | undefined {
  const b = boundsOf(schema);
  if (b.format && FORMAT_SAMPLES[b.format]) return FORMAT_SAMPLES[b.format];
  const tag = index.toString(36);
  if (tag.length > length) return undefined;
  for (const fill of ['a', '0', 'A', '.']) {
    const candidate = fill.repeat(length - tag.length) + tag;
    if (candidate.length === length && schema.safeParse(candidate).success) return candidate;
    const led = `a${candidate.slice(1)}`;
    if (length > 0 && schema.safeParse(led).success) return led;
  }
  return undefined;
}

/** The smallest value the schema accepts, built from its required parts only; `index` makes strings distinct. */
export function minimalOf(schema: z.ZodType, index = 0): unknown {
  const { inner } = unwrap(schema);
  const def = defOf(inner);
  const b = boundsOf(inner);
  switch (def.type) {
    case 'string':
      return stringOf(inner, Math.max(b.min ?? 1, Math.min(b.max ?? 8, 2)), index) ?? stringOf(inner, b.min ?? 1, index) ?? 'a';
    case 'number':
      return b.min !== undefined && b.min > 0 ? b.min : b.max !== undefined && b.max < 0 ? b.max : b.integer ? 1 : 0.5;
    case 'boolean':
      return true;
    case 'literal':
      return def.values?.[0];
    case 'enum':
      return Object.values(def.entries ?? {})[0];
    case 'array':
      return Array.from({ length: b.min ?? 0 }, (_, i) => minimalOf(def.element!, i));
    case 'object':
      return Object.fromEntries(Object.entries(def.shape ?? {}).filter(([, s]) => !unwrap(s).optional).map(([k, s]) => [k, minimalOf(s, index)]));
    case 'union':
      return minimalOf(def.options![0]!, index);
    case 'null':
      return null;
    default:
      // records, unknown, any: an empty object is the least a JSON body can carry there.
      return {};
  }
}

function setAt(root: unknown, path: Path, value: unknown): unknown {
  if (path.length === 0) return value;
  const copy: unknown = Array.isArray(root) ? [...(root as unknown[])] : { ...(root as Record<string, unknown>) };
  const [head, ...rest] = path;
  const container = copy as Record<string | number, unknown>;
  const next = setAt(container[head!], rest, value);
  if (next === DELETE) delete container[head!];
  else container[head!] = next;
  return copy;
}

function getAt(root: unknown, path: Path): unknown {
  let at = root;
  for (const p of path) at = at === null || typeof at !== 'object' ? undefined : (at as Record<string | number, unknown>)[p];
  return at;
}

/** Odd strings: empty, non-ASCII, emoji, an escaped NUL and a lone surrogate (serialized as the escape `\ud800`). */
const ODD_STRINGS: ReadonlyArray<[string, string]> = [
  ['non-ASCII', 'Grüße, 世界'],
  ['emoji', '🙂🚀'],
  ['NUL', 'a\u0000b'],
  ['lone surrogate', 'a\ud800b'],
];

const WRONG_TYPES: ReadonlyArray<[string, unknown]> = [
  ['string', 'apicert'],
  ['null', null],
  ['boolean', true],
  ['array', []],
  ['object', {}],
];

/** A value far past any bound: where a string has no maximum, "very long" is this many characters. */
const VERY_LONG = 70_000;

class Collector {
  readonly constraints = new Map<string, Constraint>();
  readonly cases: Case[] = [];
  /**
   * Schemas already walked at another path (an Identifier is reused nine times in a turn body):
   * their bounds are exercised again at each path, their type mutations and odd strings once.
   */
  readonly walked = new Set<z.ZodType>();
  private readonly seen = new Set<string>();
  private readonly root: z.ZodType;
  constructor(root: z.ZodType) {
    this.root = root;
  }

  constraint(path: Path, kind: ConstraintKind, detail: string): string {
    const p = pathText(path);
    const id = `${p} ${kind}`;
    if (!this.constraints.has(id)) this.constraints.set(id, { id, path: p, kind, detail });
    return id;
  }

  /** Bases by identity: a case is the same case when its base, path and value are (no whole body is serialized to tell). */
  private readonly bases = new Map<unknown, number>();

  add(constraint: string, label: string, base: unknown, path: Path, value: unknown): void {
    let baseId = this.bases.get(base);
    if (baseId === undefined) this.bases.set(base, (baseId = this.bases.size));
    const key = `${constraint}\u0000${baseId}\u0000${path.join('.')}\u0000${value === DELETE ? '(deleted)' : JSON.stringify(value)}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    const body = setAt(base, path, value);
    this.cases.push({ constraint, label, value: body, valid: this.root.safeParse(body).success });
  }
}

function walkString(c: Collector, schema: z.ZodType, path: Path, base: unknown, again: boolean): void {
  const b = boundsOf(schema);
  const p = pathText(path);
  const length = c.constraint(path, 'length', `${b.min ?? 0}-${b.max ?? '∞'} chars`);
  // A schema met again at another path: its upper bound on each side there (the lower one was probed where first met).
  const lower = again && b.max !== undefined ? undefined : b.min;
  for (const n of [lower, b.max]) {
    if (n === undefined || n > 200_000) continue;
    const v = stringOf(schema, n);
    if (v !== undefined) c.add(length, `${p}: length ${n}`, base, path, v);
  }
  if (lower !== undefined && lower > 0) c.add(length, `${p}: length ${lower - 1}`, base, path, (stringOf(schema, lower) ?? 'a'.repeat(lower)).slice(1));
  if (b.max !== undefined) c.add(length, `${p}: length ${b.max + 1}`, base, path, `${stringOf(schema, b.max) ?? 'a'.repeat(b.max)}a`);
  else c.add(length, `${p}: very long (${VERY_LONG} chars)`, base, path, 'a'.repeat(VERY_LONG));
  if (b.pattern || b.format) {
    const pattern = c.constraint(path, 'pattern', b.pattern ? String(b.pattern) : `format ${b.format}`);
    const good = String(getAt(base, path) ?? minimalOf(schema));
    c.add(pattern, `${p}: leading "-"`, base, path, `-${good.slice(1)}`);
    if (!again) c.add(pattern, `${p}: a space inside`, base, path, `${good.slice(0, 1)} ${good.slice(2)}`);
  }
  if (again) return;
  const type = c.constraint(path, 'type', 'string');
  c.add(type, `${p}: number`, base, path, 12345);
  for (const [name, v] of ODD_STRINGS) c.add(type, `${p}: ${name}`, base, path, v);
}

function walkNumber(c: Collector, schema: z.ZodType, path: Path, base: unknown): void {
  const b = boundsOf(schema);
  const p = pathText(path);
  if (b.min !== undefined || b.max !== undefined) {
    const range = c.constraint(path, 'range', `${b.min ?? '-∞'}..${b.max ?? '∞'}`);
    const step = b.integer ? 1 : 0.001;
    for (const n of [b.min, b.max]) if (n !== undefined) c.add(range, `${p}: ${n}`, base, path, n);
    if (b.min !== undefined) c.add(range, `${p}: ${b.min - step}`, base, path, b.min - step);
    if (b.max !== undefined) c.add(range, `${p}: ${b.max + step}`, base, path, b.max + step);
  }
  const current = typeof getAt(base, path) === 'number' ? (getAt(base, path) as number) : (minimalOf(schema) as number);
  if (b.integer) c.add(c.constraint(path, 'integer', 'integer'), `${p}: ${current + 0.5}`, base, path, current + 0.5);
  c.add(c.constraint(path, 'type', b.integer ? 'integer' : 'number'), `${p}: "${current}" (a string)`, base, path, String(current));
}

function walkArray(c: Collector, def: Def, schema: z.ZodType, path: Path, base: unknown): void {
  const b = boundsOf(schema);
  const p = pathText(path);
  const element = def.element!;
  if (b.min !== undefined || b.max !== undefined) {
    const count = c.constraint(path, 'count', `${b.min ?? 0}-${b.max ?? '∞'} items`);
    const fill = (n: number) => Array.from({ length: n }, (_, i) => minimalOf(element, i));
    for (const n of [b.min ?? 0, b.max]) if (n !== undefined && n <= 4096) c.add(count, `${p}: ${n} items`, base, path, fill(n));
    if (b.min !== undefined && b.min > 0) c.add(count, `${p}: ${b.min - 1} items`, base, path, fill(b.min - 1));
    if (b.max !== undefined && b.max <= 4096) c.add(count, `${p}: ${b.max + 1} items`, base, path, fill(b.max + 1));
    // A repeated item: invalid only where the contract asks for unique items, which the schema decides.
    if ((b.max ?? 2) >= 2) c.add(count, `${p}: a repeated item`, base, path, [minimalOf(element), minimalOf(element)]);
  }
  c.add(c.constraint(path, 'type', 'array'), `${p}: an object`, base, path, {});
  const current = getAt(base, path);
  const withOne = Array.isArray(current) && current.length > 0 ? base : setAt(base, path, [minimalOf(element)]);
  walk(c, element, [...path, 0], withOne);
}

function walkObject(c: Collector, def: Def, path: Path, base: unknown): void {
  const p = pathText(path);
  const closed = def.catchall !== undefined && defOf(def.catchall).type === 'never';
  if (closed) c.add(c.constraint(path, 'closed', 'no extra properties'), `${p}: an extra property`, base, [...path, 'apicertExtra'], 1);
  if (path.length > 0) c.add(c.constraint(path, 'type', 'object'), `${p}: an array`, base, path, []);
  for (const [key, field] of Object.entries(def.shape ?? {})) {
    const { inner, optional } = unwrap(field);
    const fieldPath = [...path, key];
    const present = getAt(base, fieldPath) !== undefined;
    if (!optional) c.add(c.constraint(fieldPath, 'required', 'required'), `${pathText(fieldPath)}: missing`, base, fieldPath, DELETE);
    else if (present) c.add(c.constraint(fieldPath, 'type', 'optional'), `${pathText(fieldPath)}: absent`, base, fieldPath, DELETE);
    walk(c, inner, fieldPath, present ? base : setAt(base, fieldPath, minimalOf(inner)));
  }
}

function walkChoice(c: Collector, def: Def, path: Path, base: unknown): void {
  const p = pathText(path);
  if (def.type === 'literal') {
    const id = c.constraint(path, 'const', `const ${JSON.stringify(def.values?.[0])}`);
    c.add(id, `${p}: ${JSON.stringify(def.values?.[0])}`, base, path, def.values?.[0]);
    c.add(id, `${p}: another value`, base, path, typeof def.values?.[0] === 'string' ? 'apicert-other' : 'x');
    return;
  }
  const values = Object.values(def.entries ?? {});
  const id = c.constraint(path, 'enum', values.join(', '));
  for (const v of values) c.add(id, `${p}: ${v}`, base, path, v);
  c.add(id, `${p}: an unknown value`, base, path, 'apicert-unknown-value');
}

function walkUnion(c: Collector, def: Def, path: Path, base: unknown): void {
  const p = pathText(path);
  const options = def.options ?? [];
  const id = c.constraint(path, def.discriminator ? 'enum' : 'type', def.discriminator ? `one of ${options.length} shapes by ${def.discriminator}` : `one of ${options.length} types`);
  options.forEach((option, i) => c.add(id, `${p}: shape ${i + 1}`, base, path, minimalOf(option)));
  if (!def.discriminator) return;
  // Each shape is walked from its own minimal value, so every branch's bounds are reached.
  for (const option of options) walk(c, option, path, setAt(base, path, minimalOf(option)));
}

function walkRecord(c: Collector, def: Def, path: Path, base: unknown): void {
  const p = pathText(path);
  const key = def.keyType ? boundsOf(def.keyType) : undefined;
  const value = def.valueType ? minimalOf(def.valueType) : 'v';
  if (key && (key.min !== undefined || key.max !== undefined)) {
    const id = c.constraint([...path, '*'], 'length', `key ${key.min ?? 0}-${key.max ?? '∞'} chars`);
    if (key.max !== undefined) {
      c.add(id, `${p}: a key of ${key.max} chars`, base, path, { ['k'.repeat(key.max)]: value });
      c.add(id, `${p}: a key of ${key.max + 1} chars`, base, path, { ['k'.repeat(key.max + 1)]: value });
    }
    if (key.min !== undefined && key.min > 0) c.add(id, `${p}: an empty key`, base, path, { '': value });
  }
  c.add(c.constraint(path, 'type', 'object'), `${p}: an array`, base, path, []);
}

function walk(c: Collector, schema: z.ZodType, path: Path, base: unknown): void {
  const { inner } = unwrap(schema);
  const def = defOf(inner);
  const again = c.walked.has(inner);
  c.walked.add(inner);
  if (path.length > 0 && def.type !== 'unknown' && def.type !== 'any') {
    const id = c.constraint(path, 'type', def.type);
    const own = def.type === 'record' ? 'object' : def.type;
    // Strings, numbers, enums and literals get their own string mutations (a number as a string, an unknown value).
    const hasString = ['string', 'number', 'enum', 'literal'].includes(def.type);
    for (const [name, v] of WRONG_TYPES) if (name !== own && !(name === 'string' && hasString) && (!again || name === 'null')) c.add(id, `${pathText(path)}: ${name}`, base, path, v);
  }
  if (def.type === 'string') walkString(c, inner, path, base, again);
  else if (def.type === 'number') walkNumber(c, inner, path, base);
  else if (def.type === 'array') walkArray(c, def, inner, path, base);
  else if (def.type === 'object') walkObject(c, def, path, base);
  else if (def.type === 'literal' || def.type === 'enum') walkChoice(c, def, path, base);
  else if (def.type === 'union') walkUnion(c, def, path, base);
  else if (def.type === 'record') walkRecord(c, def, path, base);
  else if (def.type === 'boolean') {
    const id = c.constraint(path, 'type', 'boolean');
    c.add(id, `${pathText(path)}: false`, base, path, false);
    c.add(id, `${pathText(path)}: "true" (a string)`, base, path, 'true');
  }
}

export interface CaseSet {
  constraints: Constraint[];
  cases: Case[];
}

/**
 * Every boundary and every single mutation of `schema`, each applied once to `base` (a valid value:
 * the profile's fixture body, or the schema's minimal value when there is none).
 */
export function casesOf(schema: z.ZodType, base: unknown = minimalOf(schema)): CaseSet {
  const c = new Collector(schema);
  c.add(c.constraint([], 'type', 'object'), 'the base body', base, [], base);
  walk(c, schema, [], base);
  return { constraints: [...c.constraints.values()], cases: c.cases };
}

/** Every constraint of a schema, by path (for coverage tables). */
export function constraintsOf(schema: z.ZodType): Constraint[] {
  return casesOf(schema).constraints;
}

/** Strings in the random phase stay short: the deterministic phase already sends every bound. */
const RANDOM_STRING_SPAN = 24;
const RANDOM_ARRAY_SPAN = 3;

function stringArbitrary(schema: z.ZodType): fc.Arbitrary<unknown> {
  const b = boundsOf(schema);
  if (b.format && FORMAT_SAMPLES[b.format]) return fc.constant(FORMAT_SAMPLES[b.format]);
  const min = b.min ?? 0;
  const max = Math.min(b.max ?? min + RANDOM_STRING_SPAN, min + RANDOM_STRING_SPAN);
  if (b.pattern) {
    return fc
      .stringMatching(b.pattern)
      .map((s) => s.slice(0, max))
      .map((s) => (s.length >= min ? s : (stringOf(schema, min) ?? s)))
      .filter((s) => schema.safeParse(s).success);
  }
  return fc.string({ minLength: min, maxLength: max, unit: 'grapheme' }).filter((s) => s.length >= min && s.length <= (b.max ?? Infinity));
}

function numberArbitrary(schema: z.ZodType): fc.Arbitrary<unknown> {
  const b = boundsOf(schema);
  if (b.integer) return fc.integer({ min: Math.ceil(b.min ?? -1_000_000), max: Math.floor(b.max ?? 1_000_000) });
  return fc.double({ min: b.min ?? -1e6, max: b.max ?? 1e6, noNaN: true, noDefaultInfinity: true });
}

/**
 * Valid values of `schema` for the random phase. Where `base` holds a value the contract leaves
 * opaque (a goal specification, a task), it is kept, and only what the contract constrains varies.
 */
export function arbitraryOf(schema: z.ZodType, base?: unknown): fc.Arbitrary<unknown> {
  const { inner } = unwrap(schema);
  const def = defOf(inner);
  switch (def.type) {
    case 'string':
      return stringArbitrary(inner);
    case 'number':
      return numberArbitrary(inner);
    case 'boolean':
      return fc.boolean();
    case 'literal':
      return fc.constantFrom(...(def.values ?? [null]));
    case 'enum':
      return fc.constantFrom(...Object.values(def.entries ?? {}));
    case 'array': {
      const b = boundsOf(inner);
      const min = b.min ?? 0;
      const options = { minLength: min, maxLength: Math.min(b.max ?? min + RANDOM_ARRAY_SPAN, min + RANDOM_ARRAY_SPAN) };
      const element = arbitraryOf(def.element!);
      return defOf(unwrap(def.element!).inner).type === 'string' ? fc.uniqueArray(element, options) : fc.array(element, options);
    }
    case 'object': {
      const shape = Object.entries(def.shape ?? {});
      const own = base !== null && typeof base === 'object' && !Array.isArray(base) ? (base as Record<string, unknown>) : {};
      const record = fc.record(Object.fromEntries(shape.map(([k, s]) => [k, arbitraryOf(s, own[k])])), { requiredKeys: shape.filter(([, s]) => !unwrap(s).optional).map(([k]) => k) });
      return record.map((generated) => ({ ...own, ...generated }));
    }
    case 'union':
      return fc.oneof(...(def.options ?? []).map((o) => arbitraryOf(o, base)));
    case 'null':
      return fc.constant(null);
    case 'record':
      return base !== undefined ? fc.constant(base) : fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), arbitraryOf(def.valueType!), { maxKeys: 3 });
    default:
      return fc.constant(base ?? {});
  }
}

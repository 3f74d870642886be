/**
 * apicert's own text, which redaction must never rewrite: rule ids, titles, quotes and sections,
 * declared needs, what a judgement looks for and why it may find nothing (`record`, `none`), why a
 * rule needs an active probe, and the field names of the profile (never its values, which hold the secrets).
 * Each is kept as written and as the report formats escape it (JSON, HTML and XML), since the
 * output pass sees the rendered files.
 */
import type { RuleMeta } from '../rule/types.ts';

function escapedForms(text: string): string[] {
  const markup = text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');
  return [text, JSON.stringify(text).slice(1, -1), markup, markup.replaceAll("'", '&#39;')];
}

/** Every field name in a JSON-like value, at any depth. */
function fieldNames(value: unknown, into: Set<string>, depth = 0): void {
  if (depth > 32 || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const v of value) fieldNames(v, into, depth + 1);
    return;
  }
  for (const [k, v] of Object.entries(value)) {
    into.add(k);
    fieldNames(v, into, depth + 1);
  }
}

/** A rule as the catalogue holds it: its metadata, and the sentences of its judgement when it has one. */
type OwnRule = RuleMeta & { judgement?: { record: string; none?: string }; activeOnly?: string };

const ofCatalogue = new WeakMap<readonly OwnRule[], ReadonlySet<string>>();

/** The own text of `rules` (and of the profile's field names, when given). Read-only: the catalogue's is shared by every run of the process. */
export function ownTextOf(rules: readonly OwnRule[], profile?: unknown): ReadonlySet<string> {
  if (profile !== undefined) return collectOwnText(rules, profile);
  let known = ofCatalogue.get(rules);
  if (!known) {
    known = collectOwnText(rules, undefined);
    ofCatalogue.set(rules, known);
  }
  return known;
}

function collectOwnText(rules: readonly OwnRule[], profile: unknown): Set<string> {
  const raw = new Set<string>();
  for (const r of rules) {
    for (const t of [r.id, r.title, r.spec.section, r.spec.quote, r.spec.url ?? '', r.judgement?.record ?? '', r.judgement?.none ?? '', r.activeOnly ?? '']) raw.add(t);
    for (const part of r.spec.quote.split('…')) raw.add(part.trim());
    for (const n of [...(r.needs.credentials ?? []), ...(r.needs.fixtures ?? [])]) raw.add(n);
  }
  fieldNames(profile, raw);
  const out = new Set<string>();
  for (const t of raw) if (t.length > 0) for (const form of escapedForms(t)) out.add(form);
  return out;
}

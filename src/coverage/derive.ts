/**
 * The part of the traceability matrix the rules say themselves: a rule judges every unit whose
 * text its verbatim quote holds word for word (a quote that joins sentences with "…" holds each of
 * them), provided the quote was taken from that unit's own section. The seeds repeat short rows
 * in several tables (`healthState` in three, `compartment | string |` inside a longer row of
 * another), and text alone does not say which one a rule quoted: the sections a quote comes from
 * are those of the units it quotes that no other section shares, and a unit whose text other
 * sections share is credited only within those. An endpoint error cell is never derived: a rule
 * quotes the whole row of the error table, and the row does not say which of its statuses the
 * rule judges.
 */
import type { RuleMeta } from '../rule/index.ts';
import { allUnits, type SpecUnit } from './units.ts';

export const normalized = (text: string): string => text.replace(/\s+/g, ' ').trim();

type Quoting = Pick<RuleMeta, 'spec'>;

/** Whether a rule quotes the document the unit is a part of (`mcp-2025-03-26` names the folder of the MCP pages). */
function sameDocument(rule: Quoting, unit: SpecUnit): boolean {
  return unit.document === rule.spec.document || unit.document.startsWith(`${rule.spec.document}/`);
}

/** A unit a quote holds (or, with `partial`, a unit that holds a piece of the quote), and whether the text places it. */
interface Found {
  unit: SpecUnit;
  /** No unit of another section carries the same text or holds it inside a longer text the quote also holds. */
  placed: boolean;
}

/**
 * The units of the rule's document its quote holds whole (and, with `partial`, those that hold a
 * piece of it longer than 12 characters), each marked placed when its text names its section.
 */
function found(rule: Quoting, units: readonly SpecUnit[], partial: boolean): Found[] {
  const mine = units.filter((u) => sameDocument(rule, u));
  const text = new Map(mine.map((u) => [u, normalized(u.text)]));
  const out = new Map<SpecUnit, Found>();
  for (const raw of rule.spec.quote.split('…')) {
    const piece = normalized(raw);
    if (!piece) continue;
    const held = mine.filter((u) => piece.includes(text.get(u)!));
    for (const u of held) {
      const t = text.get(u)!;
      const elsewhere = mine.some((o) => o.section !== u.section && (text.get(o) === t || (held.includes(o) && text.get(o)!.length > t.length && text.get(o)!.includes(t))));
      const before = out.get(u);
      out.set(u, { unit: u, placed: (before?.placed ?? false) || !elsewhere });
    }
    if (!partial || piece.length <= 12) continue;
    const holding = mine.filter((u) => !held.includes(u) && text.get(u)!.includes(piece));
    const sections = new Set(holding.map((u) => u.section));
    for (const u of holding) out.set(u, { unit: u, placed: (out.get(u)?.placed ?? false) || sections.size === 1 });
  }
  return [...out.values()];
}

/**
 * The units a rule's quote credits: each it holds (see `found`) whose section is one the quote is
 * placed in. `partial` also credits the unit a quoted piece was cut from (the generated and
 * catalogue rules quote a bound out of its row).
 */
export function quotedUnits(rule: Quoting, units: readonly SpecUnit[], partial = false): SpecUnit[] {
  const all = found(rule, units, partial);
  // An error cell places a quote in its section, yet a whole quote never credits it (see above); a piece cut from one names its status.
  const home = new Set(all.filter((f) => f.placed).map((f) => f.unit.section));
  return all.filter((f) => (partial || f.unit.kind !== 'error-cell') && home.has(f.unit.section)).map((f) => f.unit);
}

const memo = new WeakMap<readonly SpecUnit[], Map<string, Set<string>>>();

/** The ids of `quotedUnits`, once per rule and list of units (the matrix asks for every unit). */
export function quotedIds(rule: Quoting & { id: string }, units: readonly SpecUnit[], partial = false): Set<string> {
  const byRule = memo.get(units) ?? new Map<string, Set<string>>();
  memo.set(units, byRule);
  const key = `${partial ? 'partial' : 'whole'} ${rule.id}`;
  let ids = byRule.get(key);
  if (!ids) byRule.set(key, (ids = new Set(quotedUnits(rule, units, partial).map((u) => u.id))));
  return ids;
}

let every: SpecUnit[] | undefined;

/** Whether the rule's quote credits the unit: it holds the unit's text, taken from the unit's own section (`units`: the documents the unit is placed among). */
export function quotes(rule: RuleMeta, unit: SpecUnit, units: readonly SpecUnit[] = (every ??= allUnits())): boolean {
  if (unit.kind === 'error-cell' || !sameDocument(rule, unit)) return false;
  const among = units.some((u) => u.id === unit.id && u.section === unit.section && u.text === unit.text) ? units : [...units, unit];
  return quotedUnits(rule, among).some((u) => u.id === unit.id && u.section === unit.section && u.text === unit.text);
}

/** Unit id → the ids of the rules that quote it, in registry order. */
export function derivedMapping(units: readonly SpecUnit[], rules: readonly RuleMeta[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const rule of rules) {
    for (const unit of quotedUnits(rule, units)) out.set(unit.id, [...(out.get(unit.id) ?? []), rule.id]);
  }
  return out;
}

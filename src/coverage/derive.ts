/**
 * The part of the traceability matrix the rules say themselves: a rule judges every unit whose
 * text its verbatim quote holds word for word (a quote that joins sentences with "…" holds each of
 * them). An endpoint error cell is never derived: a rule quotes the whole row of the error table,
 * and the row does not say which of its statuses the rule judges.
 */
import type { RuleMeta } from '../rule/index.ts';
import type { SpecUnit } from './units.ts';

const normalized = (text: string): string => text.replace(/\s+/g, ' ').trim();

/** Whether a rule quotes the document the unit is a part of (`mcp-2025-03-26` names the folder of the MCP pages). */
function sameDocument(rule: RuleMeta, unit: SpecUnit): boolean {
  return unit.document === rule.spec.document || unit.document.startsWith(`${rule.spec.document}/`);
}

/** Whether the rule's quote holds the unit's text word for word. */
export function quotes(rule: RuleMeta, unit: SpecUnit): boolean {
  if (unit.kind === 'error-cell' || !sameDocument(rule, unit)) return false;
  const text = normalized(unit.text);
  return rule.spec.quote.split('…').some((part) => normalized(part).includes(text));
}

/** Unit id → the ids of the rules that quote it, in registry order. */
export function derivedMapping(units: readonly SpecUnit[], rules: readonly RuleMeta[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const unit of units) {
    const quoting = rules.filter((rule) => quotes(rule, unit)).map((rule) => rule.id);
    if (quoting.length) out.set(unit.id, quoting);
  }
  return out;
}

/**
 * Where the generated contract rules (`<surface>.contract.generated.*`) stand in the traceability
 * matrix, beside the hand-written rules of each unit: every table row of a seed that carries a
 * constraint (a length, count, range, pattern, enum or closed object) and every `400` cell of an
 * error table, and the units their own quotes come from.
 */
import type { Rule } from '../rule/index.ts';
import type { SpecUnit } from './units.ts';

/** A bound, an enum list or a closed object, as the seeds write them in a table row. */
const CONSTRAINT = /\d+\s*-\s*\d+|at (least|most) \d|max \d|no extra properties|one of|`[a-z_]+`, `[a-z_]+`|pattern/i;

function quoted(unit: SpecUnit, rule: Rule): boolean {
  const text = unit.text.replace(/\s+/g, ' ');
  return rule.spec.quote.split(' … ').some((piece) => piece.length > 12 && text.length > 12 && (text.includes(piece) || piece.includes(text)));
}

/** The generated rules that judge a unit, besides its own mapping. */
export function generatedRulesFor(unit: SpecUnit, rules: readonly Rule[]): string[] {
  const surface = unit.id.split(':', 1)[0];
  if (surface !== 'v1' && surface !== 'v8') return [];
  const mine = rules.filter((r) => r.id.startsWith(`${surface}.contract.generated.`));
  const out = mine.filter((r) => quoted(unit, r)).map((r) => r.id);
  const has = (name: string) => mine.some((r) => r.id === `${surface}.contract.generated.${name}`);
  if (unit.kind === 'row' && CONSTRAINT.test(unit.text)) for (const name of ['accepts-valid', 'error-status']) if (has(name)) out.push(`${surface}.contract.generated.${name}`);
  if (unit.kind === 'error-cell' && /`400`/.test(unit.text) && has('error-status')) out.push(`${surface}.contract.generated.error-status`);
  return [...new Set(out)];
}

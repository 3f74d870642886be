/** The traceability matrix as data: each unit with the rules that judge it or the reason none can. */
import { RULES } from '../registry.ts';
import { derivedMapping } from './derive.ts';
import { catalogueRulesFor } from './catalogue.ts';
import { generatedRulesFor } from './generated.ts';
import { MAPPING, type UnitMapping } from './map.ts';
import { OTHER_SIDE_RULES } from './other-side.ts';
import { REASONS, type ReasonCode } from './reasons.ts';
import { allUnits, type SpecUnit } from './units.ts';

/** `no-rule-yet`: the traffic could show it, yet no rule judges it (its reason says what would show it). */
export type UnitStatus = 'judged' | 'observed' | 'not-judgeable' | 'no-rule-yet' | 'unmapped';

export interface MatrixUnit extends SpecUnit {
  rules: string[];
  /** Why no rule judges it (not-judgeable), or null. */
  reason: string | null;
  reasonCode: ReasonCode | null;
  /** What of the unit its rules leave unjudged, when they judge only part of it, or null. */
  partly: string | null;
  status: UnitStatus;
  /** Rule ids the mapping names that the registry does not hold. */
  unknownRules: string[];
}

export interface Matrix {
  units: MatrixUnit[];
  /** Mapping entries whose unit no longer exists in the seeds (the text changed). */
  staleMappings: string[];
  counts: Record<UnitStatus, number> & { total: number };
}

/** Every rule a unit can be credited to: certify's, then the receiver's and the client's. */
const JUDGING = [...RULES, ...OTHER_SIDE_RULES];

/** Each unit's mapping: the rules that quote it, then those the hand-written table adds, and its reason. */
export function unitMappings(units: readonly SpecUnit[]): Map<string, UnitMapping> {
  const derived = derivedMapping(units, JUDGING);
  const out = new Map<string, UnitMapping>();
  for (const unit of units) {
    const written = MAPPING[unit.id];
    // A rule that quotes the unit only to say where its own sentence stands is taken back by the written entry.
    const quoting = (derived.get(unit.id) ?? []).filter((id) => !written?.notJudgedBy?.includes(id));
    const rules = [...new Set([...quoting, ...(written?.rules ?? [])])];
    if (!rules.length && !written) continue;
    out.set(unit.id, { ...(rules.length ? { rules } : {}), ...(written?.reason ? { reason: written.reason } : {}), ...(written?.partly ? { partly: written.partly } : {}) });
  }
  return out;
}

export function buildMatrix(units: SpecUnit[] = allUnits()): Matrix {
  const levels = new Map(JUDGING.map((r) => [r.id, r.level]));
  const mappings = unitMappings(units);
  const out: MatrixUnit[] = units.map((unit) => {
    const mapping = mappings.get(unit.id);
    const rules = [...new Set([...(mapping?.rules ?? []), ...(mapping ? generatedRulesFor(unit, RULES, units) : []), ...(mapping ? catalogueRulesFor(unit, RULES, units) : [])])];
    const unknownRules = rules.filter((id) => !levels.has(id));
    const reasonCode = mapping?.reason ?? null;
    let status: UnitStatus;
    if (!mapping || (rules.length === 0 && !reasonCode) || unknownRules.length) status = 'unmapped';
    else if (rules.some((id) => levels.get(id) !== 'observation')) status = 'judged';
    else if (rules.length) status = 'observed';
    else if (reasonCode === 'NO_RULE_YET') status = 'no-rule-yet';
    else status = 'not-judgeable';
    const partly = rules.length && mapping?.partly ? mapping.partly : null;
    return { ...unit, rules, reason: reasonCode ? REASONS[reasonCode] : null, reasonCode, partly, status, unknownRules };
  });
  const ids = new Set(units.map((u) => u.id));
  const counts = { judged: 0, observed: 0, 'not-judgeable': 0, 'no-rule-yet': 0, unmapped: 0, total: out.length };
  for (const u of out) counts[u.status] += 1;
  return { units: out, staleMappings: Object.keys(MAPPING).filter((id) => !ids.has(id)), counts };
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function matrixMarkdown(matrix: Matrix): string {
  const lines = [
    '# Traceability matrix',
    '',
    `${matrix.counts.total} normative units: ${matrix.counts.judged} judged by a required rule, ${matrix.counts.observed} recorded by an observation rule, ${matrix.counts['not-judgeable']} not judgeable from outside (with the reason), ${matrix.counts['no-rule-yet']} judgeable but judged by no rule yet, ${matrix.counts.unmapped} unmapped; ${matrix.units.filter((u) => u.partly).length} of the judged or recorded are so only in part (\"partly: …\" says what is left).`,
  ];
  let document = '';
  for (const u of matrix.units) {
    if (u.document !== document) {
      document = u.document;
      lines.push('', `## ${document}`, '', '| unit | section | text | judged by | or why not |', '|---|---|---|---|---|');
    }
    const rules = u.rules.map((r) => (u.unknownRules.includes(r) ? `**unknown rule ${r}**` : `\`${r}\``)).join(', ');
    const why = u.status === 'unmapped' && !u.unknownRules.length ? '**UNMAPPED**' : u.partly ? `partly: ${u.partly}` : (u.reason ?? '');
    lines.push(`| \`${u.id.split(':').pop()}\` | ${cell(u.section)} | ${cell(u.text)} | ${rules} | ${cell(why)} |`);
  }
  if (matrix.staleMappings.length) lines.push('', '## Mappings whose unit no longer exists', '', ...matrix.staleMappings.map((id) => `- \`${id}\``));
  return `${lines.join('\n')}\n`;
}

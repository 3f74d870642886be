/**
 * Constraint coverage of the generated contract probes, per endpoint, the way schema-keyword
 * coverage reports show it: each constraint of the contract (length, count, range, pattern, enum,
 * closed object, required field, type) with the valid and invalid values the deterministic phase
 * sends for it, and, from a report, whether a valid and an invalid value were each sent and judged.
 */
import { ENDPOINTS, endpointKey } from '../contract/endpoints.ts';
import { casesOf } from '../contract/schema-cases.ts';

export interface PlannedConstraint {
  endpoint: string;
  constraint: string;
  detail: string;
  valid: number;
  invalid: number;
}

/** Every body constraint of every /v1 and /v8 endpoint, with the cases planned from the schema's minimal body. */
export function plannedConstraints(): PlannedConstraint[] {
  const out: PlannedConstraint[] = [];
  for (const e of ENDPOINTS) {
    for (const spec of e.bodies) {
      const set = casesOf(spec.schema);
      const prefix = e.bodies.length > 1 ? `${spec.name}: ` : '';
      for (const c of set.constraints) {
        const cases = set.cases.filter((x) => x.constraint === c.id);
        out.push({ endpoint: endpointKey(e), constraint: `${prefix}${c.id}`, detail: c.detail, valid: cases.filter((x) => x.valid).length, invalid: cases.filter((x) => !x.valid).length });
      }
    }
  }
  return out;
}

/** What a report's `constraint coverage <endpoint>` observations say: constraint → `valid/invalid` marks. */
export type Judged = ReadonlyMap<string, Readonly<Record<string, unknown>>>;

export function judgedFromObservations(observations: ReadonlyArray<{ ruleId: string; subject: string; value: unknown }>): Map<string, Record<string, unknown>> {
  const out = new Map<string, Record<string, unknown>>();
  for (const o of observations) {
    if (!o.ruleId.includes('.contract.generated.') || !o.subject.startsWith('constraint coverage ')) continue;
    if (o.value && typeof o.value === 'object') out.set(o.subject.slice('constraint coverage '.length), o.value as Record<string, unknown>);
  }
  return out;
}

const cell = (s: string) => s.replace(/\|/g, '\\|');

export function constraintsMarkdown(judged?: Judged): string {
  const lines = ['# Constraint coverage of the generated contract probes', ''];
  lines.push(judged ? 'From the report: whether a valid and an invalid value were each sent and judged (`-`: none was).' : 'Planned from the schemas (minimal bodies; a run starts from the profile\'s fixture bodies): valid and invalid cases per constraint. Give --report to see what a run sent and judged.');
  let endpoint = '';
  for (const p of plannedConstraints()) {
    if (p.endpoint !== endpoint) {
      endpoint = p.endpoint;
      lines.push('', `## ${endpoint}`, '', judged ? '| constraint | bound | valid | invalid | judged |' : '| constraint | bound | valid cases | invalid cases |', judged ? '|---|---|---|---|---|' : '|---|---|---|---|');
    }
    if (!judged) {
      lines.push(`| \`${cell(p.constraint)}\` | ${cell(p.detail)} | ${p.valid} | ${p.invalid} |`);
      continue;
    }
    const mark = judged.get(p.endpoint)?.[`${p.constraint} (${p.detail})`];
    lines.push(`| \`${cell(p.constraint)}\` | ${cell(p.detail)} | ${p.valid} | ${p.invalid} | ${typeof mark === 'string' ? mark : 'not sent'} |`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Constraint coverage of the generated contract probes, per endpoint, the way schema-keyword
 * coverage reports show it: each constraint of the contract (length, count, range, pattern, enum,
 * closed object, required field, type) with the valid and invalid values the deterministic phase
 * sends for it, and, from a report, whether a valid and an invalid value were each sent and judged.
 */
import { expectationOf, nodesAt, type Known, type SentRequest } from '../checks/generated/expectation.ts';
import { ENDPOINTS, endpointKey, fillPath, type BodySpec, type Endpoint } from '../contract/endpoints.ts';
import { marksOf, type ConstraintKind } from '../contract/marks.ts';
import { casesOf, minimalOf, type Constraint } from '../contract/schema-cases.ts';
import { sentenceText } from '../contract/sentence.ts';

export interface PlannedConstraint {
  endpoint: string;
  constraint: string;
  detail: string;
  /** The sentence that states it (must refuse when broken), or why it is open. */
  stated: string | undefined;
  open: string | undefined;
  /** Planned cases by the expectation computed from each request. */
  accept: number;
  refuse: number;
  undecided: number;
}

const PLACEHOLDER = 'apicert-existing';

/** The request a case becomes: the endpoint's path naming an existing resource, its required headers, the case's body. */
function sentFor(e: Endpoint, value: unknown): SentRequest {
  const values = Object.fromEntries(Object.keys(e.pathParams).map((k) => [k, PLACEHOLDER]));
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (e.headers.some((h) => h.name === 'idempotency-key' && h.required)) headers['idempotency-key'] = 'apicert-0123456789abcdef';
  return { method: e.method, path: fillPath(e.path, values), headers, body: JSON.stringify(value), credential: 'primary' };
}

/** Whether a sentence states a constraint, or why it is open: the contract's marks at its path. */
function markOf(spec: BodySpec, c: Constraint, base: unknown): { stated?: string; open?: string } {
  const path = c.path === '(body)' ? [] : c.path.split('.').flatMap((p) => (p.endsWith('[]') ? [p.slice(0, -2), 0] : [p])).filter((p) => p !== '');
  const kind = c.kind as ConstraintKind;
  const nodes = [...nodesAt(spec.schema, base, path), ...(kind === 'required' ? nodesAt(spec.schema, base, path.slice(0, -1)) : [])];
  const marks = nodes.map((n) => marksOf(n)).filter((m) => m !== undefined);
  const stated = marks.flatMap((m) => m.stated).find((s) => s.kinds.includes(kind));
  if (stated) return { stated: sentenceText(stated.because) };
  const choice = marks.flatMap((m) => m.choice).find((x) => x.kinds.includes(kind));
  return { open: choice ? `the fake's own choice (${choice.why})` : 'no sentence states it' };
}

/** Every body constraint of every /v1 and /v8 endpoint: stated or open, with the cases planned from the schema's minimal body. */
export function plannedConstraints(): PlannedConstraint[] {
  const out: PlannedConstraint[] = [];
  for (const e of ENDPOINTS) {
    for (const spec of e.bodies) {
      const base = minimalOf(spec.schema);
      const set = casesOf(spec.schema, base);
      const prefix = e.bodies.length > 1 ? `${spec.name}: ` : '';
      const known: Known = { existing: [PLACEHOLDER], parked: [PLACEHOLDER], bases: spec.fixture ? { [spec.fixture]: base } : {} };
      for (const c of set.constraints) {
        const kinds = { accept: 0, refuse: 0, open: 0 };
        for (const x of set.cases.filter((y) => y.constraint === c.id)) kinds[expectationOf(sentFor(e, x.value), known).kind] += 1;
        const mark = markOf(spec, c, base);
        out.push({ endpoint: endpointKey(e), constraint: `${prefix}${c.id}`, detail: c.detail, stated: mark.stated, open: mark.open, accept: kinds.accept, refuse: kinds.refuse, undecided: kinds.open });
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
  lines.push('Each constraint of the contract\'s request schemas: **stated** (a sentence of the description says it; breaking it must be refused, and the sentence is quoted) or **open** (the fake\'s own choice, or nothing states it: only "no 5xx" and the error format are judged).');
  lines.push(judged ? 'Planned cases per expectation, and from the report what was sent and judged.' : 'Planned cases per expectation, from the schemas\' minimal bodies (a run starts from the profile\'s fixture bodies). Give --report to see what a run sent and judged.');
  let endpoint = '';
  for (const p of plannedConstraints()) {
    if (p.endpoint !== endpoint) {
      endpoint = p.endpoint;
      lines.push('', `## ${endpoint}`, '', `| constraint | bound | stated or open | must accept | must refuse | open |${judged ? ' exercised |' : ''}`, `|---|---|---|---|---|---|${judged ? '---|' : ''}`);
    }
    const source = p.stated ? `stated: ${p.stated}` : `open: ${p.open}`;
    const row = `| \`${cell(p.constraint)}\` | ${cell(p.detail)} | ${cell(source)} | ${p.accept} | ${p.refuse} | ${p.undecided} |`;
    if (!judged) {
      lines.push(row);
      continue;
    }
    const mark = judged.get(p.endpoint)?.[`${p.constraint} (${p.detail})`];
    lines.push(`${row} ${typeof mark === 'string' ? cell(mark) : 'not sent'} |`);
  }
  return `${lines.join('\n')}\n`;
}

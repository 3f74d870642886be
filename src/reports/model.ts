import { createHash } from 'node:crypto';
import { type Level, type Observation, type RuleResult, type Surface, type Verdict, VERDICTS } from '../rule/index.ts';

export const REPORT_VERSION = '1.0';

export type VerdictCounts = Record<Verdict, number>;

export interface ReportRule {
  id: string;
  title: string;
  surface: Surface;
  level: Level;
  destructive: 'read' | 'mutate';
  spec: RuleResult['rule']['spec'];
  verdict: Verdict;
  reason?: string;
  durationMs: number;
  evidence: RuleResult['evidence'];
  evidenceOmitted: number;
  counterexample?: RuleResult['counterexample'];
}

export interface Report {
  reportVersion: typeof REPORT_VERSION;
  harness: { name: 'apicert'; version: string; node: string };
  /** `container`: apicert started the target from `image` (certify --image). */
  target: { baseUrl: string; kind: 'embedded-fake' | 'remote' | 'container'; faults?: string[]; image?: string };
  run: { startedAt: string; finishedAt: string; durationMs: number; seed: number; surfaces: Surface[]; requests: number };
  summary: { required: VerdictCounts; observation: VerdictCounts; gate: 'pass' | 'fail' | 'inconclusive' | 'untestable' };
  rules: ReportRule[];
  observations: Observation[];
  /** SHA-256 over the canonical JSON of everything above, so a signed digest covers the whole report. */
  digest: string;
}

export function emptyCounts(): VerdictCounts {
  return Object.fromEntries(VERDICTS.map((v) => [v, 0])) as VerdictCounts;
}

/**
 * The gate a CI reads: `fail` when a required rule failed, `inconclusive` when one could not be
 * judged for transport reasons, `untestable` when one lacked a fixture or credential.
 */
export function gateOf(required: VerdictCounts): Report['summary']['gate'] {
  if (required.fail > 0) return 'fail';
  if (required.inconclusive > 0) return 'inconclusive';
  if (required.untestable > 0) return 'untestable';
  return 'pass';
}

export function buildReport(input: {
  results: RuleResult[];
  version: string;
  target: Report['target'];
  startedAt: Date;
  finishedAt: Date;
  seed: number;
  requests: number;
}): Report {
  const required = emptyCounts();
  const observation = emptyCounts();
  for (const r of input.results) (r.rule.level === 'required' ? required : observation)[r.verdict] += 1;
  const rules: ReportRule[] = input.results.map((r) => {
    const rule: ReportRule = {
      id: r.rule.id,
      title: r.rule.title,
      surface: r.rule.surface,
      level: r.rule.level,
      destructive: r.rule.destructive,
      spec: r.rule.spec,
      verdict: r.verdict,
      durationMs: r.durationMs,
      evidence: r.evidence,
      evidenceOmitted: r.evidenceOmitted,
    };
    if (r.reason !== undefined) rule.reason = r.reason;
    if (r.counterexample) rule.counterexample = r.counterexample;
    return rule;
  });
  const body: Omit<Report, 'digest'> = {
    reportVersion: REPORT_VERSION,
    harness: { name: 'apicert', version: input.version, node: process.version },
    target: input.target,
    run: {
      startedAt: input.startedAt.toISOString(),
      finishedAt: input.finishedAt.toISOString(),
      durationMs: input.finishedAt.getTime() - input.startedAt.getTime(),
      seed: input.seed,
      surfaces: [...new Set(input.results.map((r) => r.rule.surface))],
      requests: input.requests,
    },
    summary: { required, observation, gate: gateOf(required) },
    rules,
    observations: input.results.flatMap((r) => r.observations),
  };
  return { ...body, digest: digestOf(body) };
}

export function digestOf(body: Omit<Report, 'digest'>): string {
  return `sha256:${createHash('sha256').update(JSON.stringify(body)).digest('hex')}`;
}

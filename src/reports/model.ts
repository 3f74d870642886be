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
  target: { baseUrl: string; kind: 'embedded-fake' | 'remote' | 'container'; faults?: string[]; variants?: string[]; image?: string };
  run: {
    startedAt: string;
    finishedAt: string;
    durationMs: number;
    seed: number;
    surfaces: Surface[];
    requests: number;
    /** Why the run ended before every rule was judged: its deadline, an interrupt, a failed first probe. */
    stopped?: string;
    /** What the user should know about the run itself (a secret too short to redact everywhere). */
    warnings?: string[];
  };
  summary: {
    required: VerdictCounts;
    /** SHOULD rules: a failure is a warning, and gates only in a strict run. */
    should: VerdictCounts;
    observation: VerdictCounts;
    gate: 'pass' | 'fail' | 'inconclusive' | 'untestable';
    /** Whether SHOULD rules gated this run (`--strict`). */
    strict: boolean;
    /** How many rules the filters selected, and how many of them reached pass or fail. */
    selected: number;
    judged: number;
    /** SHOULD rules that failed: warnings in a run that is not strict. */
    warnings: string[];
  };
  rules: ReportRule[];
  observations: Observation[];
  /** SHA-256 over the canonical JSON of everything above, so a signed digest covers the whole report. */
  digest: string;
}

export function emptyCounts(): VerdictCounts {
  return Object.fromEntries(VERDICTS.map((v) => [v, 0])) as VerdictCounts;
}

/**
 * The gate a CI reads: `fail` when a gating rule failed, `inconclusive` when one could not be
 * judged (transport, budget, deadline, a broken setup step), `untestable` when one lacked a
 * fixture or credential. SHOULD rules gate only in a strict run.
 */
export function gateOf(required: VerdictCounts, should: VerdictCounts = emptyCounts(), strict = false): Report['summary']['gate'] {
  const gating = strict ? Object.fromEntries(VERDICTS.map((v) => [v, required[v] + should[v]])) as VerdictCounts : required;
  if (gating.fail > 0) return 'fail';
  if (gating.inconclusive > 0) return 'inconclusive';
  if (gating.untestable > 0) return 'untestable';
  return 'pass';
}

/** Rules that reached a verdict about the target: pass or fail. */
export function judgedCount(counts: readonly VerdictCounts[]): number {
  return counts.reduce((n, c) => n + c.pass + c.fail, 0);
}

/** "judged 12 of 30 selected rules": the line every report and the CLI summary carry. */
export function judgedLine(summary: Pick<Report['summary'], 'judged' | 'selected'>): string {
  return `judged ${summary.judged} of ${summary.selected} selected rules (pass or fail)`;
}

export function buildReport(input: {
  results: RuleResult[];
  version: string;
  target: Report['target'];
  startedAt: Date;
  finishedAt: Date;
  seed: number;
  requests: number;
  stopped?: string;
  warnings?: readonly string[];
  strict?: boolean;
}): Report {
  const counts = { required: emptyCounts(), should: emptyCounts(), observation: emptyCounts() };
  for (const r of input.results) counts[r.rule.level][r.verdict] += 1;
  const { required, should, observation } = counts;
  const strict = input.strict ?? false;
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
      ...(input.stopped ? { stopped: input.stopped } : {}),
      ...(input.warnings?.length ? { warnings: [...input.warnings] } : {}),
    },
    summary: {
      required,
      should,
      observation,
      gate: gateOf(required, should, strict),
      strict,
      selected: input.results.length,
      judged: judgedCount([required, should, observation]),
      warnings: input.results.filter((r) => r.rule.level === 'should' && r.verdict === 'fail').map((r) => r.rule.id),
    },
    rules,
    observations: input.results.flatMap((r) => r.observations),
  };
  return { ...body, digest: digestOf(body) };
}

export function digestOf(body: Omit<Report, 'digest'>): string {
  return `sha256:${createHash('sha256').update(JSON.stringify(body)).digest('hex')}`;
}

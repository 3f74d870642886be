/**
 * Load verdicts into the readiness report: each load rule becomes a report rule (with its seed
 * sentence) and its figures become observations. An adapter on the report model's public shape,
 * so the report code needs no change; rerunning replaces earlier load rules.
 */
import type { Observation } from '../rule/types.ts';
import { buildReport, digestOf, summarize, type Report, type ReportRule } from '../reports/model.ts';
import { ruleById } from './summary.ts';
import type { LoadRuleResult } from './summary.ts';

const LOAD_PREFIX = 'load.';

export function loadReportRules(results: readonly LoadRuleResult[], durationMs: number): { rules: ReportRule[]; observations: Observation[] } {
  const rules: ReportRule[] = [];
  const observations: Observation[] = [];
  for (const result of results) {
    const rule = ruleById(result.id);
    if (!rule) throw new Error(`no load rule ${result.id}`);
    rules.push({
      id: rule.id,
      title: rule.title,
      surface: rule.surface,
      level: rule.level,
      destructive: 'mutate',
      spec: rule.spec,
      verdict: result.verdict,
      reason: result.reason,
      durationMs,
      evidence: [],
      evidenceOmitted: 0,
      cases: [],
      casesOmitted: 0,
    });
    for (const [name, stats] of Object.entries(result.figures)) {
      observations.push({ ruleId: rule.id, subject: name, value: stats, note: 'k6 figure over the whole run: count, min, max, avg' });
    }
  }
  return { rules, observations };
}

/**
 * A report holding `base`'s certify rules (if any) and these load rules, with counts, gate and digest
 * recomputed. `requests` is what k6 sent (its http_reqs), added to the certify run's; `strict`
 * (`apicert load --strict`) makes SHOULD rules gate, as a strict certify report already does.
 */
export function withLoadResults(base: Report | undefined, results: readonly LoadRuleResult[], context: { version: string; target: Report['target']; startedAt: Date; finishedAt: Date; requests?: number; strict?: boolean }): Report {
  const start = base ?? buildReport({ results: [], version: context.version, target: context.target, startedAt: context.startedAt, finishedAt: context.finishedAt, seed: 0, requests: 0 });
  const strict = Boolean(context.strict) || start.summary.strict;
  const load = loadReportRules(results, context.finishedAt.getTime() - context.startedAt.getTime());
  const rules = [...start.rules.filter((r) => !r.id.startsWith(LOAD_PREFIX)), ...load.rules];
  const { digest: _old, ...rest } = start;
  const body: Omit<Report, 'digest'> = {
    ...rest,
    run: { ...rest.run, requests: rest.run.requests + (context.requests ?? 0), surfaces: [...new Set([...rest.run.surfaces, ...load.rules.map((r) => r.surface)])] },
    summary: summarize(rules, strict),
    rules,
    observations: [...start.observations.filter((o) => !o.ruleId.startsWith(LOAD_PREFIX)), ...load.observations],
  };
  return { ...body, digest: digestOf(body) };
}

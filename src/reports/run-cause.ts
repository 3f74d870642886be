/**
 * One cause that stopped the whole run (a target that never answered, the run's deadline, an
 * interrupt) is stated once, before anything else, in the console and in every report format; the
 * rules it left unjudged follow as a compact list instead of one identical paragraph each.
 */
import type { Report, ReportRule } from './model.ts';

/** How the runner marks a rule it never started (src/runner/run.ts `notReached`). */
const NOT_RUN = 'not run: ';

export interface RunWideCause {
  /** What happened and what to do, as the run recorded it in `run.stopped`. */
  cause: string;
  /** Rules the cause left unjudged (never started). */
  affected: string[];
}

export function wasNotRun(rule: Pick<ReportRule, 'verdict' | 'reason'>): boolean {
  return rule.verdict === 'inconclusive' && Boolean(rule.reason?.startsWith(NOT_RUN));
}

export function runWideCause(report: Pick<Report, 'run' | 'rules'>): RunWideCause | undefined {
  if (!report.run.stopped) return undefined;
  return { cause: report.run.stopped, affected: report.rules.filter(wasNotRun).map((r) => r.id) };
}

/**
 * Rule ids grouped by `<surface>.<area>`: `v8.missions (3): create.accepted, get.found, get.missing`.
 * One line per area, so 150 rules take a dozen lines.
 */
export function compactIds(ids: readonly string[]): string[] {
  const byArea = new Map<string, string[]>();
  for (const id of ids) {
    const parts = id.split('.');
    const area = parts.slice(0, 2).join('.');
    byArea.set(area, [...(byArea.get(area) ?? []), parts.slice(2).join('.') || id]);
  }
  return [...byArea].map(([area, names]) => `${area} (${names.length}): ${names.join(', ')}`);
}

/** The cause and the affected rules as plain lines, for the console and the text formats. */
export function causeLines(found: RunWideCause): string[] {
  const lines = [`the run stopped: ${found.cause}`];
  if (found.affected.length > 0) lines.push(`${found.affected.length} rules were not run because of it (inconclusive):`, ...compactIds(found.affected).map((l) => `  ${l}`));
  return lines;
}

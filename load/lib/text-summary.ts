/**
 * k6's end-of-test text, written here rather than imported from jslib.k6.io: k6 fetches a URL
 * import at init, so an air-gapped runner failed every script (exit 107). Only what a reader of
 * a load run needs: checks with their pass/fail counts, each threshold with its verdict, and
 * every metric's values. Plain code (no logical assignment: k6 v0.57 hangs on `(a ??= b)`).
 */
import { LOAD_RULES } from '../../src/load/rules.ts';

interface SummaryMetric {
  type?: string;
  contains?: string;
  values: Record<string, number>;
  thresholds?: Record<string, { ok: boolean }>;
}

interface SummaryGroup {
  name?: string;
  checks?: Array<{ name: string; passes: number; fails: number }>;
  groups?: SummaryGroup[];
}

export interface TextSummaryData {
  metrics: Record<string, SummaryMetric | undefined>;
  root_group?: SummaryGroup;
  state?: { testRunDurationMs?: number };
}

function figure(value: number, contains: string | undefined): string {
  if (contains === 'time') return value >= 1000 ? `${(value / 1000).toFixed(2)}s` : `${value.toFixed(2)}ms`;
  if (contains === 'data') return value >= 1_048_576 ? `${(value / 1_048_576).toFixed(1)} MB` : value >= 1024 ? `${(value / 1024).toFixed(1)} kB` : `${value} B`;
  return Number.isInteger(value) ? String(value) : value.toFixed(4).replace(/0+$/, '');
}

function values(metric: SummaryMetric): string {
  const v = metric.values;
  if (metric.type === 'rate') return `${((v.rate ?? 0) * 100).toFixed(2)}% (${v.passes ?? 0} of ${(v.passes ?? 0) + (v.fails ?? 0)})`;
  if (metric.type === 'counter') return `${figure(v.count ?? 0, metric.contains)} (${figure(v.rate ?? 0, undefined)}/s)`;
  return Object.keys(v)
    .map((stat) => `${stat}=${figure(v[stat]!, stat === 'count' ? undefined : metric.contains)}`)
    .join(' ');
}

/**
 * A failed check of a `should` rule (a sentence that "expects") is a warning, as apicert prints it:
 * the check is named `<rule id>: <sentence>`, and such a rule never fails the k6 run.
 */
function failMark(checkName: string): string {
  const rule = LOAD_RULES.find((r) => checkName.startsWith(`${r.id}: `));
  return rule?.level === 'should' ? 'WARN' : 'FAIL';
}

function checkLines(group: SummaryGroup | undefined, indent: string): string[] {
  if (!group) return [];
  const out: string[] = [];
  for (const c of group.checks ?? []) out.push(`${indent}${c.fails === 0 ? 'ok  ' : failMark(c.name)} ${c.name} (${c.passes} passed, ${c.fails} failed)`);
  for (const g of group.groups ?? []) out.push(`${indent}${g.name ?? ''}`, ...checkLines(g, `${indent}  `));
  return out;
}

/** The run as text: checks, thresholds (ok or CROSSED), then each metric's values, names sorted. */
export function textSummary(data: TextSummaryData, indent = ' '): string {
  const names = Object.keys(data.metrics).sort();
  const lines: string[] = [];
  const checks = checkLines(data.root_group, `${indent}  `);
  if (checks.length > 0) lines.push(`${indent}checks`, ...checks);
  const thresholds: string[] = [];
  for (const name of names) {
    const t = data.metrics[name]?.thresholds;
    if (!t) continue;
    for (const expr of Object.keys(t)) thresholds.push(`${indent}  ${t[expr]!.ok ? 'ok     ' : 'CROSSED'} ${name} ${expr}`);
  }
  if (thresholds.length > 0) lines.push(`${indent}thresholds`, ...thresholds);
  lines.push(`${indent}metrics`);
  for (const name of names) {
    const metric = data.metrics[name];
    if (metric) lines.push(`${indent}  ${name}: ${values(metric)}`);
  }
  const ms = data.state?.testRunDurationMs;
  if (ms !== undefined) lines.push(`${indent}run ${(ms / 1000).toFixed(1)}s`);
  return lines.join('\n');
}

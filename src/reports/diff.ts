/** Compares two reports rule by rule: what broke, what was fixed, what else moved. */
import type { Verdict } from '../rule/index.ts';
import { gates, type Report, type ReportRule } from './model.ts';
import { literal } from './markdown.ts';

export interface VerdictChange {
  id: string;
  from: Verdict;
  to: Verdict;
  gating: boolean;
  reason?: string;
}

export interface ReportDiff {
  /** Gating rules that fail now and did not before (including rules new in NEW that fail). */
  newFailures: VerdictChange[];
  /** Rules that failed before and pass now. */
  fixed: VerdictChange[];
  /** Every other verdict change. */
  changed: VerdictChange[];
  added: Array<{ id: string; verdict: Verdict }>;
  removed: Array<{ id: string; verdict: Verdict }>;
  /** A gating rule got worse: it fails, or could no longer be judged where it passed. */
  regression: boolean;
  old: { digest: string; gate: string; version: string; rulesetHash?: string };
  new: { digest: string; gate: string; version: string; rulesetHash?: string };
}

/** pass/n-a < untestable/inconclusive < fail: how far a verdict is from a green gate. */
const RANK: Record<Verdict, number> = { pass: 0, 'not-applicable': 0, untestable: 1, inconclusive: 1, fail: 2 };

function change(before: ReportRule, after: ReportRule, strict: boolean): VerdictChange {
  const c: VerdictChange = { id: after.id, from: before.verdict, to: after.verdict, gating: gates(after, strict) };
  if (after.reason !== undefined) c.reason = after.reason;
  return c;
}

export function diffReports(oldReport: Report, newReport: Report): ReportDiff {
  const before = new Map(oldReport.rules.map((r) => [r.id, r]));
  const after = new Map(newReport.rules.map((r) => [r.id, r]));
  // Whether a rule gates is read with the newer run's policy (--strict makes SHOULD rules gate).
  const strict = newReport.summary.strict ?? false;
  const gating = (r: ReportRule) => gates(r, strict);
  const out: ReportDiff = {
    newFailures: [],
    fixed: [],
    changed: [],
    added: [],
    removed: [],
    regression: false,
    old: { digest: oldReport.digest, gate: oldReport.summary.gate, version: oldReport.harness.version, rulesetHash: oldReport.harness.rulesetHash },
    new: { digest: newReport.digest, gate: newReport.summary.gate, version: newReport.harness.version, rulesetHash: newReport.harness.rulesetHash },
  };
  for (const r of newReport.rules) {
    const was = before.get(r.id);
    if (!was) {
      out.added.push({ id: r.id, verdict: r.verdict });
      if (r.verdict === 'fail' && gating(r)) {
        out.newFailures.push({ id: r.id, from: 'not-applicable', to: 'fail', gating: true, ...(r.reason !== undefined ? { reason: r.reason } : {}) });
        out.regression = true;
      }
      continue;
    }
    if (was.verdict === r.verdict) continue;
    const c = change(was, r, strict);
    if (r.verdict === 'fail' && gating(r)) out.newFailures.push(c);
    else if (was.verdict === 'fail' && r.verdict === 'pass') out.fixed.push(c);
    else out.changed.push(c);
    if (gating(r) && RANK[r.verdict] > RANK[was.verdict]) out.regression = true;
  }
  for (const r of oldReport.rules) if (!after.has(r.id)) out.removed.push({ id: r.id, verdict: r.verdict });
  return out;
}

function line(c: VerdictChange): string {
  return `${c.id}: ${c.from} -> ${c.to}${c.gating ? '' : ' (does not gate)'}${c.reason && c.to !== 'pass' ? ` - ${c.reason.split('\n')[0]}` : ''}`;
}

export function renderDiffText(d: ReportDiff): string {
  const lines = [`gate ${d.old.gate} -> ${d.new.gate}; apicert ${d.old.version} -> ${d.new.version}${d.old.rulesetHash !== d.new.rulesetHash ? '; the rule set changed' : ''}`];
  const section = (title: string, items: string[]) => {
    if (items.length > 0) lines.push('', `${title} (${items.length}):`, ...items.map((i) => `  ${i}`));
  };
  section('new failures', d.newFailures.map(line));
  section('fixed', d.fixed.map(line));
  section('other verdict changes', d.changed.map(line));
  section('rules added', d.added.map((a) => `${a.id}: ${a.verdict}`));
  section('rules removed', d.removed.map((a) => `${a.id}: was ${a.verdict}`));
  if (d.newFailures.length + d.fixed.length + d.changed.length + d.added.length + d.removed.length === 0) lines.push('', 'no verdict changed');
  lines.push('', d.regression ? 'REGRESSION: a gating rule got worse' : 'no regression');
  return `${lines.join('\n')}\n`;
}

/** The longest reason a diff table cell holds. */
const CELL_LIMIT = 160;


export function renderDiffMarkdown(d: ReportDiff): string {
  const lines = [
    `### apicert: ${d.regression ? '❌ regression' : '✅ no regression'}`,
    '',
    `Gate **${d.old.gate.toUpperCase()}** → **${d.new.gate.toUpperCase()}** · apicert ${d.old.version} → ${d.new.version}${d.old.rulesetHash !== d.new.rulesetHash ? ' · the rule set changed' : ''}`,
    '',
  ];
  const table = (title: string, items: VerdictChange[]) => {
    if (items.length === 0) return;
    lines.push(`#### ${title} (${items.length})`, '', '| Rule | Before | Now | Why |', '|---|---|---|---|');
    // A cell keeps the reason's first line, clipped; a longer account (a shrunk counterexample with
    // its curl lines) follows the table in a block of its own.
    const details: string[] = [];
    for (const c of items) {
      const reason = c.to === 'pass' ? '' : (c.reason ?? '');
      const first = reason.split('\n')[0]!;
      const short = first.length > CELL_LIMIT ? `${first.slice(0, CELL_LIMIT)}…` : first;
      const more = short !== reason.trim();
      lines.push(`| \`${c.id}\`${c.gating ? '' : ' (does not gate)'} | ${c.from} | ${c.to} | ${literal(short)}${more ? ' (details below)' : ''} |`);
      if (more) details.push(`<details><summary><code>${c.id}</code></summary>`, '', '```text', reason.replace(/```/g, "'''"), '```', '', '</details>', '');
    }
    lines.push('', ...details);
  };
  table('New failures', d.newFailures);
  table('Fixed', d.fixed);
  table('Other verdict changes', d.changed);
  if (d.added.length) lines.push(`#### Rules added (${d.added.length})`, '', ...d.added.map((a) => `- \`${a.id}\`: ${a.verdict}`), '');
  if (d.removed.length) lines.push(`#### Rules removed (${d.removed.length})`, '', ...d.removed.map((a) => `- \`${a.id}\`: was ${a.verdict}`), '');
  return lines.join('\n');
}

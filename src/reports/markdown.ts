import { curlOf, decidingExchange, leadingExchanges, replayNotes } from './evidence-text.ts';
import { droppedLine, effectOf, excludedNote, gateWords, judgedLine, policyOf, selectionLine, type Report, type ReportRule } from './model.ts';
import { compactIds, runWideCause, wasNotRun } from './run-cause.ts';

const ICON: Record<string, string> = { pass: 'PASS', fail: 'FAIL', 'not-applicable': 'N/A', untestable: 'UNTESTABLE', inconclusive: 'INCONCLUSIVE' };

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

/**
 * apicert's own Markdown (a rule's title, a spec sentence), with `<`, `>` and `&` outside code
 * spans written as entities: GitHub reads `<timestamp>` as an HTML tag and drops it.
 */
function prose(text: string): string {
  return text
    .split(/(`+[^`]*`+)/)
    .map((part, i) => (i % 2 === 1 ? part : part.replace(/[&<>]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : '&gt;'))))
    .join('');
}

/**
 * A spec sentence as one blockquote line: a quote that starts a table's heading ("### ApproveRequest
 * … | action_digest |") stays a quotation, not a heading of the summary's outline.
 */
function quoted(text: string): string {
  return prose(text).replace(/^(\s*)(#{1,6})(?=\s|$)/, '$1\\$2');
}

/**
 * Text that may carry what a target sent (a reason, an observed value) as Markdown shows it
 * literally: no heading, list, link, image, emphasis or HTML of the target's making. Line ends and
 * other control characters become spaces, so a table row or a list item stays one.
 */
export function literal(text: string): string {
  return text
    .replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ')
    .replace(/[\\`*_[\]<>!|~#&]/g, (c) => (c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '&' ? '&amp;' : `\\${c}`))
    .replace(/^(\s*)([-+=]|\d+(?=[.)]))/, (_, space: string, marker: string) => `${space}${/\d/.test(marker) ? `${marker}\\` : `\\${marker}`}`);
}

/** A fenced code block around `lines`, its fence longer than any run of backticks in them (CommonMark 4.5). */
function fenced(lines: readonly string[], indent: string, info: string): string[] {
  const longest = Math.max(0, ...lines.map((l) => Math.max(0, ...(l.match(/`+/g) ?? []).map((run) => run.length))));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return [`${indent}${fence}${info}`, ...lines.map((l) => `${indent}${l}`), `${indent}${fence}`];
}

function row(r: ReportRule): string {
  const judged = r.exchanges !== undefined && r.exchanges > 0 ? `${r.exchanges} recorded exchanges judged. ` : '';
  return `| \`${r.id}\` | ${ICON[r.verdict]} | ${cell(prose(r.title))} | ${wasNotRun(r) ? 'not run (see "The run stopped")' : literal(judged + (r.reason ?? ''))} |`;
}

/** A summary a person reads first: gate, counts, failures with their spec sentence, observations. */
export function renderMarkdown(report: Report): string {
  const req = report.summary.required;
  const required = report.rules.filter((r) => r.level === 'required');
  const should = report.rules.filter((r) => r.level === 'should');
  const observations = report.rules.filter((r) => r.level === 'observation');
  const sh = report.summary.should;
  const policy = policyOf(report);
  // Baselined failures are counted as failures and said to be expected, as report.html's headline does.
  const expectedRequired = required.filter((r) => effectOf(r, policy) === 'expected').length;
  const selection = selectionLine(report);
  const lines = [
    `# apicert readiness report`,
    '',
    `- Target: ${report.target.baseUrl} (${report.target.kind}${report.target.faults?.length ? `, faults: ${report.target.faults.join(', ')}` : ''})`,
    `- Gate: **${gateWords(report).words}**${report.summary.strict ? ' (strict: SHOULD rules gate)' : ''}${report.run.dropped ? `, ${droppedLine(report.run)}` : ''}`,
    `- ${judgedLine(report.summary)}`,
    ...(selection ? [`- Selection: ${literal(selection)}`] : []),
    `- Required rules: ${req.pass} pass, ${req.fail} fail${expectedRequired ? ` (${expectedRequired} expected)` : ''}, ${req.untestable} untestable, ${req.inconclusive} inconclusive, ${req['not-applicable']} not applicable`,
    `- SHOULD rules: ${sh.pass} pass, ${sh.fail} fail${report.summary.strict ? '' : ' (warnings, gating only with --strict)'}, ${sh.untestable} untestable, ${sh.inconclusive} inconclusive, ${sh['not-applicable']} not applicable`,
    report.run.mode === 'passive'
      ? `- Mode: **passive**: ${report.run.requests} recorded exchanges judged, nothing sent; rules that need a probe are not applicable (${report.run.startedAt}, ${report.run.durationMs} ms)`
      : `- Run: ${report.run.startedAt}, ${report.run.durationMs} ms, ${report.run.requests} requests, seed ${report.run.seed}`,
    ...(report.run.requestsByFamily ? [`- Requests per rule family: ${Object.entries(report.run.requestsByFamily).map(([f, n]) => `${f} ${n}`).join(', ')}`] : []),
    ...(report.excluded?.length ? [`- Excluded: ${report.excluded.length} rules set aside by --exclude (listed below; none of them counts as passed)`] : []),
    ...(report.run.warnings ?? []).map((w) => `- Warning: ${literal(w)}`),
    `- apicert ${report.harness.version} on Node ${report.harness.node}; rule set \`${report.harness.rulesetHash}\`${report.target.profileFingerprint ? `; profile \`${report.target.profileFingerprint}\`` : ''}; digest \`${report.digest}\``,
    '',
  ];
  const cause = runWideCause(report);
  if (cause) {
    lines.push('## The run stopped', '', literal(cause.cause), '');
    if (cause.affected.length > 0) lines.push(`${cause.affected.length} rules were not run because of it (inconclusive):`, '', ...compactIds(cause.affected).map((l) => `- ${l}`), '');
  }
  // A rule the run-wide cause never let start is listed above, once, not as a blocker of its own.
  const blockers = report.rules.filter((r) => ['failure', 'error'].includes(effectOf(r, policy)) && !wasNotRun(r));
  if (blockers.length > 0) {
    lines.push('## What blocks the gate', '', ...replayNotes(report).flatMap((n) => [n, '']));
    for (const r of blockers) {
      lines.push(`### \`${r.id}\` (${r.verdict}${r.baseline?.status === 'stale' ? ', stale baseline entry' : ''})`, '', `> ${quoted(r.spec.quote)}`, '');
      if (r.baseline?.status === 'stale') lines.push(`The baseline lists this rule as failing ("${literal(r.baseline.reason)}") but it passes now: remove the entry.`, '');
      if (r.verdict !== 'fail') lines.push(literal(r.reason ?? ''), '');
      for (const [i, c] of r.cases.entries()) {
        lines.push(`${i + 1}. ${literal(c.reason)}`);
        if (c.counterexample) lines.push(`   Counterexample (seed ${c.counterexample.seed}, path ${c.counterexample.path ?? '-'}): \`${JSON.stringify(c.counterexample.value)}\``);
        const e = decidingExchange(r, c.exchange);
        const curl = e && curlOf(e);
        // The requests that made the failure, in the order they were sent: replaying only the last would not reproduce it.
        const before = leadingExchanges(r, c.exchange).map(curlOf).filter((l): l is string => Boolean(l));
        if (curl && before.length) lines.push('', `   The ${before.length + 1} requests that made it, in order:`, '', ...fenced([...before, curl], '   ', 'sh'));
        else if (curl) lines.push('', ...fenced([curl], '   ', 'sh'));
        else if (e) lines.push(`   (received from the target: ${e.label ?? 'a delivery'})`);
      }
      if (r.casesOmitted > 0) lines.push(`   … and ${r.casesOmitted} more failing cases`);
      if (r.rerun) lines.push('', 'Rerun:', '', '```sh', r.rerun, '```');
      lines.push('');
    }
  }
  const expected = report.rules.filter((r) => effectOf(r, policy) === 'expected');
  if (expected.length > 0) {
    lines.push('## Expected failures (baseline)', '', ...expected.map((r) => `- \`${r.id}\`: ${literal(r.baseline?.reason ?? '')}${r.baseline?.expires ? ` (until ${r.baseline.expires})` : ''}`), '');
  }
  lines.push('## Required rules', '', '| Rule | Verdict | What it checks | Notes |', '|---|---|---|---|', ...required.map(row), '');
  const warned = report.summary.strict ? [] : should.filter((r) => r.verdict === 'fail');
  if (warned.length > 0) {
    lines.push('## Warnings (SHOULD)', '');
    for (const r of warned) lines.push(`- \`${r.id}\`: ${literal(r.reason ?? '')}`, `  > ${cell(quoted(r.spec.quote))}`);
    lines.push('');
  }
  if (should.length > 0) lines.push('## SHOULD rules', '', '| Rule | Verdict | What it checks | Notes |', '|---|---|---|---|', ...should.map(row), '');
  if (observations.length > 0) lines.push('## Observation-only rules', '', '| Rule | Verdict | What it records | Notes |', '|---|---|---|---|', ...observations.map(row), '');
  if (report.excluded?.length) {
    lines.push('## Excluded rules', '', '| Rule | Level | What it checks | Notes |', '|---|---|---|---|', ...report.excluded.map((e) => `| \`${e.id}\` | ${e.level} | ${cell(prose(e.title))} | ${cell(excludedNote(e))} |`), '');
  }
  if (report.observations.length > 0) {
    lines.push('## Observations', '', 'What the target does where the specification allows several readings or shows nothing.', '', '| Rule | Subject | Value | Note |', '|---|---|---|---|');
    for (const o of report.observations) lines.push(`| \`${o.ruleId}\` | ${literal(o.subject)} | ${literal(JSON.stringify(o.value) ?? 'undefined')} | ${literal(o.note ?? '')} |`);
    lines.push('');
  }
  return lines.join('\n');
}

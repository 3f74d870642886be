import { droppedLine, effectOf, excludedNote, type ExcludedReportRule, gateWords, judgedLine, policyOf, type Report, type ReportRule } from './model.ts';
import { curlOf, decidingExchange, leadingExchanges, replayNotes } from './evidence-text.ts';
import { runWideCause, wasNotRun } from './run-cause.ts';

function xml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    // XML 1.0 forbids most control characters, which a hostile response body may contain.
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '');
}

/**
 * Text inside an XML comment, which may not hold "--" (XML 1.0, production 15): the judged line can
 * say "--strict", and a parser that meets it refuses the whole file.
 */
function comment(text: string): string {
  return xml(text).replace(/-{2,}/g, (m) => m.split('').join(' '));
}

/** The failure body a dashboard shows: every case with its reason and curl line, then the rerun command. */
function failureText(r: ReportRule): string {
  const parts: string[] = [];
  if (r.baseline?.status === 'stale') {
    parts.push(`The baseline lists this rule as failing ("${r.baseline.reason}") but it passes now: remove the entry from the baseline.`);
  }
  for (const [i, c] of r.cases.entries()) {
    parts.push(`case ${i + 1}: ${c.reason}`);
    if (c.counterexample) parts.push(`  counterexample (seed ${c.counterexample.seed}, path ${c.counterexample.path ?? '-'}): ${JSON.stringify(c.counterexample.value) ?? 'undefined'}`);
    const e = decidingExchange(r, c.exchange);
    const curl = e && curlOf(e);
    for (const before of leadingExchanges(r, c.exchange)) {
      const line = curlOf(before);
      if (line) parts.push(`  ${line}`);
    }
    if (curl) parts.push(`  ${curl}`);
    else if (e) parts.push(`  (a delivery the target sent to apicert's receiver: ${e.label ?? ''})`);
  }
  if (r.casesOmitted > 0) parts.push(`... and ${r.casesOmitted} more failing cases`);
  parts.push('', `spec (${r.spec.document}, ${r.spec.section}): ${r.spec.quote}`);
  if (r.rerun) parts.push(`rerun: ${r.rerun}`);
  return parts.join('\n');
}

function testcase(r: ReportRule, report: Report): string {
  const name = `${r.id}${r.level === 'required' ? '' : ` [${r.level}]`}`;
  const open = `    <testcase classname="apicert.${xml(r.surface)}" name="${xml(name)}" time="${(r.durationMs / 1000).toFixed(3)}">`;
  const why = xml(r.reason ?? '');
  const effect = effectOf(r, policyOf(report));
  let inner = '';
  if (effect === 'failure') {
    const message = r.baseline?.status === 'stale' ? `stale baseline entry: the rule passes now` : (r.reason ?? 'failed');
    inner = `\n      <failure message="${xml(message)}" type="${r.baseline?.status === 'stale' ? 'stale-baseline' : 'fail'}">${xml(failureText(r))}</failure>`;
  } else if (effect === 'error' && wasNotRun(r)) {
    // The cause is stated once, in the properties (run.stopped) and the comment on top.
    inner = `\n      <error message="not run: the run stopped (see the property run.stopped)" type="not-run"></error>`;
  } else if (effect === 'error') {
    inner = `\n      <error message="${r.verdict}: ${why}" type="${r.verdict}">${xml(r.rerun ? `rerun: ${r.rerun}` : '')}</error>`;
  } else if (effect === 'expected') {
    inner = `\n      <skipped>${xml(`expected failure (baseline: ${r.baseline?.reason ?? ''}): ${r.reason ?? ''}`)}</skipped>`;
  } else if (effect === 'warning') {
    inner = `\n      <skipped>${xml(`warning: a SHOULD rule failed (it gates only with --strict): ${r.reason ?? ''}`)}</skipped>`;
  } else if (effect === 'skipped' && wasNotRun(r)) {
    inner = `\n      <skipped>not run: the run stopped (see the property run.stopped)</skipped>`;
  } else if (effect === 'skipped') {
    inner = `\n      <skipped>${xml(`${r.verdict}${r.level === 'observation' ? ' (observation, does not gate)' : ''}: ${r.reason ?? ''}`)}</skipped>`;
  }
  const out = (r.verdict === 'pass' && !r.baseline) || wasNotRun(r) ? '' : `\n      <system-out>${xml(`${r.verdict}${r.level === 'observation' ? ' (observation)' : ''}: ${r.reason ?? ''}`)}</system-out>`;
  return `${open}${inner}${out}\n    </testcase>`;
}

/** Listed as skipped, so a dashboard shows the gap the team accepted rather than losing the rule. */
function excludedCase(e: ExcludedReportRule): string {
  const name = `${e.id}${e.level === 'required' ? '' : ` [${e.level}]`}`;
  return `    <testcase classname="apicert.${xml(e.surface)}" name="${xml(name)}" time="0.000">\n      <skipped>${xml(excludedNote(e))}</skipped>\n    </testcase>`;
}

function properties(report: Report): string {
  const props: Array<[string, string]> = [
    ['target', report.target.baseUrl],
    ['target.kind', report.target.kind],
    ['seed', String(report.run.seed)],
    ['gate', report.summary.gate],
    ['strict', String(report.summary.strict)],
    ['digest', report.digest],
    ['version', report.harness.version],
    ['ruleset', report.harness.rulesetHash],
  ];
  if (report.target.profileFingerprint) props.push(['profile.fingerprint', report.target.profileFingerprint]);
  if (report.target.faults?.length) props.push(['faults', report.target.faults.join(',')]);
  if (report.run.baseline) props.push(['baseline', report.run.baseline.file]);
  if (report.run.stopped) props.push(['run.stopped', report.run.stopped]);
  if (report.run.dropped) props.push(['run.dropped', droppedLine(report.run)!]);
  for (const [i, w] of (report.run.warnings ?? []).entries()) props.push([`run.warning.${i + 1}`, w]);
  for (const [i, n] of replayNotes(report).entries()) props.push([`replay.${i + 1}`, n]);
  return `    <properties>\n${props.map(([k, v]) => `      <property name="${xml(k)}" value="${xml(v)}"/>`).join('\n')}\n    </properties>`;
}

/**
 * A gate that is not green while no rule's testcase is red (nothing that gates was judged: every rule
 * not-applicable, or only observations and SHOULD warnings) gets a testsuite of its own holding one
 * `<error>`, so a CI that reads only failures and errors agrees with the exit code; undefined otherwise.
 */
function gateCase(report: Report, id: number): string | undefined {
  const words = gateWords(report);
  if (words.green) return undefined;
  const policy = policyOf(report);
  if (report.rules.some((r) => ['failure', 'error'].includes(effectOf(r, policy)))) return undefined;
  const line = `gate ${words.words}: ${judgedLine(report.summary)}`;
  const why = report.summary.judged === 0 ? 'no rule reached pass or fail' : 'no rule that gates reached pass or fail';
  return [
    `  <testsuite name="apicert gate" tests="1" failures="0" errors="1" skipped="0" time="0.000" timestamp="${report.run.startedAt.replace(/\.\d+Z$/, '')}" id="${id}" package="apicert">`,
    properties(report),
    `    <testcase classname="apicert" name="gate" time="0.000">`,
    `      <error message="${xml(line)}" type="${xml(report.summary.gate)}">${xml(`${why}, so the run certifies nothing: the gate is ${words.words}, as the exit code says${report.run.stopped ? `; the run stopped: ${report.run.stopped}` : ''}`)}</error>`,
    '    </testcase>',
    `    <system-out>${xml(`gate ${words.words}; digest ${report.digest}`)}</system-out>`,
    '    <system-err></system-err>',
    '  </testsuite>',
  ].join('\n');
}

/**
 * One testsuite per surface, one testcase per rule, valid against the Jenkins JUnit schema (junit-4.xsd:
 * skip messages are element text). The counts agree with the exit code: whatever gates the run is a
 * failure or an error, whatever does not is skipped or passes.
 */
export function renderJunit(report: Report): string {
  const excluded = report.excluded ?? [];
  const surfaces = [...new Set([...report.rules, ...excluded].map((r) => r.surface))];
  let totals = { tests: 0, failures: 0, errors: 0 };
  const suites: string[] = surfaces.map((surface, id) => {
    const rules = report.rules.filter((r) => r.surface === surface);
    const effects = rules.map((r) => effectOf(r, policyOf(report)));
    const count = (...wanted: string[]) => effects.filter((e) => wanted.includes(e)).length;
    const setAside = excluded.filter((e) => e.surface === surface);
    const counts = { tests: rules.length + setAside.length, failures: count('failure'), errors: count('error'), skipped: count('skipped', 'expected', 'warning') + setAside.length };
    totals = { tests: totals.tests + counts.tests, failures: totals.failures + counts.failures, errors: totals.errors + counts.errors };
    const time = rules.reduce((sum, r) => sum + r.durationMs, 0) / 1000;
    // The base URL as reported may hold a redaction marker (a host shaped like a secret): then it is no URL, and stands as it is.
    const host = URL.parse(report.target.baseUrl)?.host ?? report.target.baseUrl;
    return [
      `  <testsuite name="apicert ${xml(surface)}" tests="${counts.tests}" failures="${counts.failures}" errors="${counts.errors}" skipped="${counts.skipped}" time="${time.toFixed(3)}" timestamp="${report.run.startedAt.replace(/\.\d+Z$/, '')}" hostname="${xml(host)}" id="${id}" package="apicert.${xml(surface)}">`,
      properties(report),
      ...rules.map((r) => testcase(r, report)),
      ...setAside.map(excludedCase),
      `    <system-out>${xml(`gate ${gateWords(report).words}; digest ${report.digest}`)}</system-out>`,
      '    <system-err></system-err>',
      '  </testsuite>',
    ].join('\n');
  });
  const gate = gateCase(report, suites.length);
  if (gate) {
    suites.push(gate);
    totals = { tests: totals.tests + 1, failures: totals.failures, errors: totals.errors + 1 };
  }
  // The skip count lives on each testsuite: the Jenkins schema has no `skipped` on <testsuites>.
  const cause = runWideCause(report);
  const stopped = cause ? `<!-- the run stopped: ${comment(cause.cause)}; ${cause.affected.length} rules were not run because of it -->\n` : '';
  return `<?xml version="1.0" encoding="UTF-8"?>\n${stopped}<!-- ${comment(judgedLine(report.summary))}${report.run.dropped ? `; ${comment(droppedLine(report.run)!)}` : ''} -->\n<testsuites name="apicert certification" tests="${totals.tests}" failures="${totals.failures}" errors="${totals.errors}">\n${suites.join('\n')}\n</testsuites>\n`;
}

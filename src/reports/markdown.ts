import { judgedLine, type Report, type ReportRule } from './model.ts';

const ICON: Record<string, string> = { pass: 'PASS', fail: 'FAIL', 'not-applicable': 'N/A', untestable: 'UNTESTABLE', inconclusive: 'INCONCLUSIVE' };

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function row(r: ReportRule): string {
  return `| \`${r.id}\` | ${ICON[r.verdict]} | ${cell(r.title)} | ${cell(r.reason ?? '')} |`;
}

/** A summary a person reads first: gate, counts, failures with their spec sentence, observations. */
export function renderMarkdown(report: Report): string {
  const req = report.summary.required;
  const required = report.rules.filter((r) => r.level === 'required');
  const should = report.rules.filter((r) => r.level === 'should');
  const observations = report.rules.filter((r) => r.level === 'observation');
  const sh = report.summary.should;
  const lines = [
    `# apicert readiness report`,
    '',
    `- Target: ${report.target.baseUrl} (${report.target.kind}${report.target.faults?.length ? `, faults: ${report.target.faults.join(', ')}` : ''})`,
    `- Gate: **${report.summary.gate.toUpperCase()}**${report.summary.strict ? ' (strict: SHOULD rules gate)' : ''}`,
    `- ${judgedLine(report.summary)}`,
    `- Required rules: ${req.pass} pass, ${req.fail} fail, ${req.untestable} untestable, ${req.inconclusive} inconclusive, ${req['not-applicable']} not applicable`,
    `- SHOULD rules: ${sh.pass} pass, ${sh.fail} fail${report.summary.strict ? '' : ' (warnings, gating only with --strict)'}, ${sh.untestable} untestable, ${sh.inconclusive} inconclusive, ${sh['not-applicable']} not applicable`,
    `- Run: ${report.run.startedAt}, ${report.run.durationMs} ms, ${report.run.requests} requests, seed ${report.run.seed}`,
    `- apicert ${report.harness.version} on Node ${report.harness.node}; digest \`${report.digest}\``,
    '',
  ];
  const failed = [...required, ...(report.summary.strict ? should : [])].filter((r) => r.verdict === 'fail');
  if (failed.length > 0) {
    lines.push('## Failures', '');
    for (const r of failed) {
      lines.push(`### \`${r.id}\``, '', `> ${r.spec.quote}`, '', `${r.reason ?? ''}`, '');
      if (r.counterexample) lines.push(`Counterexample (seed ${r.counterexample.seed}, path ${r.counterexample.path}): \`${JSON.stringify(r.counterexample.value)}\``, '');
      const last = r.evidence.at(-1);
      if (last) lines.push('Reproduce the last exchange:', '', '```sh', last.curl, '```', '');
    }
  }
  lines.push('## Required rules', '', '| Rule | Verdict | What it checks | Notes |', '|---|---|---|---|', ...required.map(row), '');
  const warned = report.summary.strict ? [] : should.filter((r) => r.verdict === 'fail');
  if (warned.length > 0) {
    lines.push('## Warnings (SHOULD)', '');
    for (const r of warned) lines.push(`- \`${r.id}\`: ${cell(r.reason ?? '')}`, `  > ${cell(r.spec.quote)}`);
    lines.push('');
  }
  if (should.length > 0) lines.push('## SHOULD rules', '', '| Rule | Verdict | What it checks | Notes |', '|---|---|---|---|', ...should.map(row), '');
  if (observations.length > 0) lines.push('## Observation-only rules', '', '| Rule | Verdict | What it records | Notes |', '|---|---|---|---|', ...observations.map(row), '');
  if (report.observations.length > 0) {
    lines.push('## Observations', '', 'What the target does where the specification allows several readings or shows nothing.', '', '| Rule | Subject | Value | Note |', '|---|---|---|---|');
    for (const o of report.observations) lines.push(`| \`${o.ruleId}\` | ${cell(o.subject)} | ${cell(JSON.stringify(o.value) ?? 'undefined')} | ${cell(o.note ?? '')} |`);
    lines.push('');
  }
  return lines.join('\n');
}

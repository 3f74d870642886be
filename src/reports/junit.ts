import { judgedLine, type Report } from './model.ts';

function xml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    // XML 1.0 forbids most control characters, which a hostile response body may contain.
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/g, '');
}

/** Whether a rule's verdict gates this run: required rules always, SHOULD rules in a strict run. */
function gates(report: Report, level: Report['rules'][number]['level']): boolean {
  return level === 'required' || (level === 'should' && report.summary.strict);
}

/** One testsuite per surface, one testcase per rule; observation rules (and SHOULD rules outside --strict) never fail the suite. */
export function renderJunit(report: Report): string {
  const surfaces = [...new Set(report.rules.map((r) => r.surface))];
  const suites = surfaces.map((surface) => {
    const rules = report.rules.filter((r) => r.surface === surface);
    const failures = rules.filter((r) => gates(report, r.level) && r.verdict === 'fail').length;
    const errors = rules.filter((r) => gates(report, r.level) && r.verdict === 'inconclusive').length;
    const skipped = rules.filter((r) => r.verdict === 'untestable' || r.verdict === 'not-applicable').length;
    const time = rules.reduce((sum, r) => sum + r.durationMs, 0) / 1000;
    const cases = rules.map((r) => {
      const name = `${r.id}${r.level === 'required' ? '' : ` [${r.level}]`}`;
      const open = `    <testcase classname="apicert.${xml(surface)}" name="${xml(name)}" time="${(r.durationMs / 1000).toFixed(3)}">`;
      const why = xml(r.reason ?? '');
      let inner = '';
      if (r.verdict === 'fail' && gates(report, r.level)) inner = `\n      <failure message="${why}" type="fail">${xml(r.spec.quote)}</failure>`;
      else if (r.verdict === 'inconclusive' && gates(report, r.level)) inner = `\n      <error message="${why}" type="inconclusive"/>`;
      else if (r.verdict === 'untestable' || r.verdict === 'not-applicable') inner = `\n      <skipped message="${xml(r.verdict)}: ${why}"/>`;
      const out = r.verdict === 'pass' ? '' : `\n      <system-out>${xml(`${r.verdict}: ${r.reason ?? ''}`)}</system-out>`;
      return `${open}${inner}${out}\n    </testcase>`;
    });
    return `  <testsuite name="apicert ${xml(surface)}" tests="${rules.length}" failures="${failures}" errors="${errors}" skipped="${skipped}" time="${time.toFixed(3)}" timestamp="${report.run.startedAt}">\n${cases.join('\n')}\n  </testsuite>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<!-- ${xml(judgedLine(report.summary))} -->\n<testsuites name="apicert certification" tests="${report.rules.length}">\n${suites.join('\n')}\n</testsuites>\n`;
}

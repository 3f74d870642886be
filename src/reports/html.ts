import { readFileSync } from 'node:fs';
import { judgedLine, type Report, type ReportRule } from './model.ts';

const TEMPLATE_URL = new URL('../../reports/templates/report.html', import.meta.url);

function esc(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function ruleRow(r: ReportRule): string {
  const evidence = r.evidence.length
    ? `<details><summary>${r.evidence.length} exchange(s)${r.evidenceOmitted ? `, ${r.evidenceOmitted} omitted` : ''}</summary><pre>${esc(r.evidence.map((e) => `${e.label ?? ''}\n${e.curl}\n→ ${e.response?.status ?? e.error ?? ''}`).join('\n\n'))}</pre></details>`
    : '';
  return `<tr><td><code>${esc(r.id)}</code>${r.level === 'should' ? ' <small>(SHOULD)</small>' : ''}</td><td class="v-${r.verdict}">${r.verdict}</td><td>${esc(r.title)}<blockquote>${esc(r.spec.quote)}</blockquote>${r.reason ? `<p>${esc(r.reason)}</p>` : ''}${evidence}</td></tr>`;
}

export function renderHtml(report: Report): string {
  const req = report.summary.required;
  const values: Record<string, string> = {
    target: esc(report.target.baseUrl),
    gate: report.summary.gate,
    gateLabel: report.summary.gate.toUpperCase(),
    digest: esc(report.digest),
    summary: esc(
      `${judgedLine(report.summary)}; required: ${req.pass} pass, ${req.fail} fail, ${req.untestable} untestable, ${req.inconclusive} inconclusive, ${req['not-applicable']} not applicable; should: ${report.summary.should.pass} pass, ${report.summary.should.fail} fail${report.summary.strict ? ' (strict: gating)' : ' (warnings)'}; ${report.run.requests} requests in ${report.run.durationMs} ms; seed ${report.run.seed}; apicert ${report.harness.version}`,
    ),
    requiredRows: report.rules.filter((r) => r.level !== 'observation').map(ruleRow).join('\n'),
    observationRows: report.observations
      .map((o) => `<tr><td><code>${esc(o.ruleId)}</code></td><td>${esc(o.subject)}${o.note ? `<br><small>${esc(o.note)}</small>` : ''}</td><td><code>${esc(JSON.stringify(o.value) ?? '')}</code></td></tr>`)
      .join('\n'),
  };
  return readFileSync(TEMPLATE_URL, 'utf8').replace(/\{\{(\w+)\}\}/g, (_, key: string) => values[key] ?? '');
}

import { MARKER_START } from '../redact/redactor.ts';
import type { EvidenceEntry } from '../rule/index.ts';
import type { Report, ReportRule } from './model.ts';

/** The exchange a failing case names, or, for a failure without one, nothing (never a guess). */
export function decidingExchange(rule: Pick<ReportRule, 'evidence'>, exchange: number | undefined): EvidenceEntry | undefined {
  return exchange === undefined ? undefined : rule.evidence[exchange];
}

function idempotencyKeyOf(e: EvidenceEntry): string | undefined {
  return Object.entries(e.request.headers).find(([name]) => name.toLowerCase() === 'idempotency-key')?.[1];
}

/**
 * The requests that made a case fail together with the deciding one: a conflict under an
 * Idempotency-Key is the first use of the key and the request that conflicts with it, so the
 * exchanges sent before it with the same key come first. Replayed in this order on a fresh
 * deployment, their curl lines reproduce the failure; the deciding request alone would not.
 */
export function leadingExchanges(rule: Pick<ReportRule, 'evidence'>, exchange: number | undefined): EvidenceEntry[] {
  const deciding = decidingExchange(rule, exchange);
  const key = deciding && deciding.direction !== 'received' ? idempotencyKeyOf(deciding) : undefined;
  if (!key || key.startsWith(MARKER_START)) return [];
  return rule.evidence.slice(0, exchange).filter((e) => e.direction !== 'received' && idempotencyKeyOf(e) === key);
}

function headerLines(headers: Record<string, string>): string[] {
  return Object.entries(headers).map(([k, v]) => `${k}: ${v}`);
}

/** An exchange as plain text: request line, headers, body; then the response (or what was received). */
export function exchangeText(e: EvidenceEntry): string {
  const lines: string[] = [];
  if (e.direction === 'received') lines.push('# received by apicert from the target');
  lines.push(`${e.request.method} ${e.request.url}`, ...headerLines(e.request.headers));
  if (e.request.body !== undefined) lines.push('', e.request.body);
  if (e.response) {
    lines.push('', e.direction === 'received' ? `# apicert answered ${e.response.status}` : `HTTP ${e.response.status}`, ...headerLines(e.response.headers));
    if (e.response.body !== undefined) lines.push('', `${e.response.body}${e.response.bodyTruncated ? '\n[body clipped]' : ''}`);
    if (e.response.events) {
      lines.push('', ...e.response.events.map((ev) => [ev.id !== undefined ? `id: ${ev.id}` : '', ev.event ? `event: ${ev.event}` : '', `data: ${ev.data}`].filter(Boolean).join('\n')));
      if (e.response.eventsTruncated) lines.push(`[${e.response.eventsTruncated} more events]`);
      if (e.response.closedBy) lines.push(`[stream ended: ${e.response.closedBy}]`);
    }
  }
  if (e.error) lines.push('', `transport error: ${e.error}`);
  return lines.join('\n');
}

/** The curl line, unless apicert did not send the exchange (a received delivery has none). */
export function curlOf(e: EvidenceEntry): string | undefined {
  return e.direction === 'received' ? undefined : e.curl;
}

/**
 * Said once per report, above the curl lines: where their tokens come from, and, for a run against
 * the embedded fake, that the port they name closed with the run and how to get a target that answers.
 */
export function replayNotes(report: Pick<Report, 'rules' | 'target' | 'run'>): string[] {
  const variables = new Set<string>();
  for (const r of report.rules) {
    if (r.verdict !== 'fail') continue;
    for (const e of r.evidence) for (const m of (e.curl ?? '').matchAll(/\$\{?(TOKEN_[A-Z0-9_]+)\}?/g)) variables.add(m[1]!);
  }
  if (variables.size === 0) return [];
  const notes = [
    `The curl lines read each token from an environment variable: $TOKEN_<NAME> holds the token of the profile's credential <NAME> (upper-cased, other characters as _), e.g. ${[...variables].slice(0, 3).map((v) => `export ${v}=…`).join('; ')}.`,
  ];
  if (report.target.kind === 'embedded-fake') {
    notes.push(`This run certified the built-in fake at ${report.target.baseUrl}, which closed with the run: to replay the curl lines, start "npx apicert fake --port ${new URL(report.target.baseUrl).port}${report.target.faults?.length ? ` --faults ${report.target.faults.join(',')}` : ''}" (its tokens are in the profile it writes), or rerun the rule with its Rerun line.`);
  }
  return notes;
}

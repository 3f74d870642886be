import type { EvidenceEntry } from '../rule/index.ts';
import type { ReportRule } from './model.ts';

/** The exchange a failing case names, or, for a failure without one, nothing (never a guess). */
export function decidingExchange(rule: ReportRule, exchange: number | undefined): EvidenceEntry | undefined {
  return exchange === undefined ? undefined : rule.evidence[exchange];
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

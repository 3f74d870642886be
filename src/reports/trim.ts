/**
 * A passing run's report.json stays small: a rule that passed keeps the first exchange it sent
 * (its own request; the last is often a clean-up), bodies clipped, as a sample of what was judged; the count of the rest is in
 * `evidenceOmitted`. Every other verdict keeps all its evidence: that is what a reader acts on.
 * `certify --full-evidence` (certify({ fullEvidence: true })) keeps everything.
 */
import type { EvidenceEntry } from '../rule/index.ts';

/** Characters of a body (and of a curl line) the kept exchange of a passing rule shows. */
export const PASSING_BODY_CHARS = 1024;
/** Events of a stream a kept exchange of a passing rule shows. */
export const PASSING_EVENTS = 5;

function clipBody(body: string | undefined): { body?: string; clipped: boolean } {
  if (body === undefined || body.length <= PASSING_BODY_CHARS) return body === undefined ? { clipped: false } : { body, clipped: false };
  return { body: body.slice(0, PASSING_BODY_CHARS), clipped: true };
}

function sample(e: EvidenceEntry): EvidenceEntry {
  const request = clipBody(e.request.body);
  const out: EvidenceEntry = { ...e, request: { ...e.request, ...(request.body !== undefined ? { body: request.body } : {}) } };
  if (e.curl.length > PASSING_BODY_CHARS) out.curl = `# the request of a passing rule is too long for the sample (${e.curl.length} characters): certify --full-evidence keeps it`;
  if (e.response) {
    const response = clipBody(e.response.body);
    out.response = { ...e.response, ...(response.body !== undefined ? { body: response.body } : {}), ...(response.clipped ? { bodyTruncated: true } : {}) };
    if (e.response.events && e.response.events.length > PASSING_EVENTS) {
      out.response.events = e.response.events.slice(0, PASSING_EVENTS);
      out.response.eventsTruncated = (e.response.eventsTruncated ?? 0) + e.response.events.length - PASSING_EVENTS;
    }
  }
  return out;
}

/** The evidence a passing rule keeps in the report, and how many exchanges it leaves out. */
export function passingSample(evidence: readonly EvidenceEntry[]): { evidence: EvidenceEntry[]; omitted: number } {
  const kept = evidence.slice(0, 1);
  return { evidence: kept.map(sample), omitted: evidence.length - kept.length };
}

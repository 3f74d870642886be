/**
 * Legal choices of /v1 the descriptions leave open on the request side (docs/legal-variation.md):
 * each variant takes the other choice from the fake's default before the route runs.
 */
import { isRecord } from '../../util/json.ts';
import type { RouteRequest } from '../http.ts';
import { holdsOddString } from '../support/odd-strings.ts';
import { bodyJson } from '../support/route-body.ts';
import type { V1Surface } from './surface.ts';

/** The fabric's own run id format, enforced under `v1.runs/run-id-validated`. */
const RUN_ID_FORMAT = /^run_[0-9a-f]{24}$/;
const TEXT_MAX = 4096;

/** What a turn body names that the fabric does not hold, or undefined. */
function unknownReference(body: Record<string, unknown>): string | undefined {
  if (Array.isArray(body.approvals) && body.approvals.length > 0) return 'approvals: no such approval receipt';
  for (const key of ['sessionId', 'conversationId', 'organizationId', 'modelPreference'] as const) if (body[key] !== undefined) return `${key}: not one this fabric holds`;
  if (isRecord(body.output) && body.output.schemaId !== undefined) return 'output.schemaId: no such schema';
  if (isRecord(body.tools) && [body.tools.allow, body.tools.deny].some((l) => Array.isArray(l) && l.length > 0)) return 'tools: no such tool';
  const messages = Array.isArray(body.messages) ? body.messages.filter(isRecord) : [];
  const ids = messages.map((m) => m.id);
  if (new Set(ids).size < ids.length) return 'messages: a message id is used twice';
  if (messages.some((m) => Array.isArray(m.parts) && m.parts.some((p) => isRecord(p) && p.type === 'file_reference'))) return 'messages.parts.fileId: no such file';
  return undefined;
}

function badText(value: unknown): boolean {
  return typeof value === 'string' && (value.trim() === '' || value.length > TEXT_MAX);
}

/** The request to route, or undefined when a variant already answered. */
export async function openChoiceRoute({ fake, v1 }: V1Surface, r: RouteRequest): Promise<RouteRequest | undefined> {
  const v = fake.variants;
  const refuse = (detail: string) => {
    v1.problem(r.res, 400, 'invalid_request', { detail, retryable: false });
    return undefined;
  };
  const runId = /^\/v1\/runs\/([^/]+)/.exec(r.path)?.[1];
  if (runId !== undefined && v.has('v1.runs/run-id-validated') && !RUN_ID_FORMAT.test(decodeURIComponent(runId))) return refuse('A run id is run_ followed by 24 hex digits.');
  if (r.req.method !== 'POST') return r;
  const body = await bodyJson(r);
  if (v.has('v1.errors/refuses-nul-and-lone-surrogates') && holdsOddString(body)) return refuse('Strings may not hold NUL characters or lone surrogates.');
  if (r.path === '/v1/execute' && isRecord(body) && body.mode !== 'task' && v.has('v1.execute/unknown-references-refused')) {
    const unknown = unknownReference(body);
    if (unknown) return refuse(unknown);
  }
  if (runId !== undefined && r.path.endsWith('/approve') && isRecord(body) && v.has('v1.runs/approve-text-bounds') && (badText(body.action_digest) || badText(body.decision))) {
    return refuse('action_digest and decision must be non-blank and at most 4096 characters.');
  }
  return r;
}

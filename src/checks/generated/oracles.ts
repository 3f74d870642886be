/**
 * The oracles of the generated contract probes: each judges one exchange, or says it does not apply.
 * A rule is one oracle over every exchange of its surface's probe run.
 */
import type { z } from 'zod';
import { endpointOf, type EndpointSurface } from '../../contract/endpoints.ts';
import { v1Problem } from '../../contract/v1/problem.ts';
import { PROBLEM_CONTENT_TYPE, v8Problem } from '../../contract/v8/problem.ts';
import type { ProbeResponse } from '../../rule/index.ts';
import { isRecord } from '../../util/json.ts';
import type { Generated } from './requests.ts';

export type OracleName = 'no-5xx' | 'problem-json' | 'error-status' | 'accepts-valid';

export interface Judgement {
  ok: boolean;
  /** Why it failed, naming the request. */
  reason: string;
}

const PROBLEMS: Record<EndpointSurface, z.ZodType> = { v1: v1Problem, v8: v8Problem };

function mediaType(res: Pick<ProbeResponse, 'contentType'>): string {
  return res.contentType.split(';', 1)[0]!.trim().toLowerCase();
}

function formatIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 4)
    .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
    .join('; ');
}

function what(g: Generated, res: ProbeResponse): string {
  return `${g.request.method} ${g.request.path.split('?', 1)[0]} (${g.label}) answered ${res.status}`;
}

/** Refused as invalid: 400 or 422, or on /v1 any other 4xx whose problem says `invalid_request` (no status mapping is given there). */
export function refusedAsInvalid(surface: EndpointSurface | undefined, res: ProbeResponse): boolean {
  if (res.status === 400 || res.status === 422) return true;
  if (surface !== 'v1' || res.status < 400 || res.status >= 500 || [401, 403, 404, 409, 429].includes(res.status)) return false;
  return isRecord(res.json) && res.json.code === 'invalid_request';
}

/** A rate limiter's answer: never a failure of these rules (backed off, then left unjudged). */
export function isLimited(res: ProbeResponse): boolean {
  return res.status === 429 || res.status === 503;
}

export const ORACLES: Record<OracleName, (g: Generated, res: ProbeResponse) => Judgement | undefined> = {
  'no-5xx': (g, res) => ({ ok: res.status < 500, reason: `${what(g, res)}: a server error` }),
  'problem-json': (g, res) => {
    if (!g.endpoint || (res.status >= 200 && res.status < 300)) return undefined;
    if (mediaType(res) !== PROBLEM_CONTENT_TYPE) return { ok: false, reason: `${what(g, res)} as ${res.contentType || 'no content type'}, not ${PROBLEM_CONTENT_TYPE}` };
    const parsed = PROBLEMS[g.endpoint.surface].safeParse(res.json);
    return { ok: parsed.success, reason: parsed.success ? '' : `${what(g, res)}: the problem document does not match the ${g.endpoint.surface} problem shape: ${formatIssues(parsed.error)}` };
  },
  'error-status': (g, res) => {
    if (g.expect !== 'reject') return undefined;
    if (g.status !== undefined) return { ok: res.status === g.status, reason: `${what(g, res)}, not the ${g.status} its error table names` };
    return { ok: res.status >= 400 && res.status < 500, reason: `${what(g, res)}: an invalid request was not refused with a 4xx` };
  },
  'accepts-valid': (g, res) => {
    if (g.expect !== 'accept') return undefined;
    return { ok: !refusedAsInvalid(g.endpoint?.surface, res), reason: `${what(g, res)}: a request the contract allows was refused as invalid` };
  },
};

/** The 2xx schema of the endpoint an exchange went to, when the description shows one. */
export function successSchema(method: string, path: string, contentType: string): z.ZodType | undefined {
  const endpoint = endpointOf(method, path);
  if (!endpoint || endpoint.success.body !== 'json' || !endpoint.success.schema) return undefined;
  // Turn mode of /v1/execute streams; only a JSON answer is held to the task response.
  if (!/json/i.test(contentType)) return undefined;
  return endpoint.success.schema;
}

export { formatIssues };

/** Rules every answer of a surface is held to: problem documents on errors, headers, no echoed credential. */
import { v1Problem } from '../../contract/v1/problem.ts';
import { CONTRACT_HEADER, CONTRACT_VERSION } from '../../contract/v8/common.ts';
import { PROBLEM_CONTENT_TYPE, v8Problem } from '../../contract/v8/problem.ts';
import type { z } from 'zod';
import { SHORT_SECRET } from '../../redact/redactor.ts';
import { mediaType } from '../exchange.ts';
import { locatorFor } from '../../traffic/secret-locator.ts';
import { onSurface } from '../endpoints.ts';
import { hasWholeBody, recordOf, responseJson, issuesOf, type Judgement, type PassiveRule } from '../judging.ts';


/** Every error answer of a surface: problem+json, its shape, and a `status` equal to the HTTP status. */
function judgeProblems(j: Judgement, surface: 'v8' | 'v1', schema: z.ZodType): void {
  for (const ex of j.exchanges) {
    if (!onSurface(ex, surface) || ex.status === undefined || ex.status < 400) continue;
    const type = mediaType(ex.responseHeaders);
    // A right media type on a body the recorder did not keep is half a judgement: the shape is the rest.
    if (type === PROBLEM_CONTENT_TYPE && !j.holds(ex, 'response-body')) continue;
    if (!j.check(ex, type === PROBLEM_CONTENT_TYPE, `the ${ex.status} answer is ${type || 'without a content type'}, expected ${PROBLEM_CONTENT_TYPE}`)) continue;
    // A recorder that kept no body (or a cut one) leaves the shape unjudged; the media type was judged above.
    if (!hasWholeBody(ex)) continue;
    const parsed = schema.safeParse(responseJson(ex));
    if (!j.check(ex, parsed.success, `the ${ex.status} problem does not have the contract's shape (${parsed.success ? '' : issuesOf(parsed.error)})`)) continue;
    const status = recordOf(parsed.data)?.status;
    j.check(ex, status === ex.status, `the problem says status ${String(status)} but the HTTP status is ${ex.status}`);
  }
}

export const problemRules: PassiveRule[] = [
  { id: 'v1.errors.problem-shape', record: 'a /v1 request answered 4xx or 5xx', judge: (j) => judgeProblems(j, 'v1', v1Problem) },
];

export const headerRules: PassiveRule[] = [
  {
    id: 'v1.errors.rate-limited-retry-after',
    record: 'a /v1 request answered 429',
    judge: (j) => {
      for (const ex of j.exchanges) {
        if (!onSurface(ex, 'v1') || ex.status !== 429) continue;
        const value = ex.responseHeaders['retry-after'];
        j.check(ex, value !== undefined && /^\d+$/.test(value.trim()), `the 429 carries ${value === undefined ? 'no Retry-After' : `Retry-After: ${value}`}, expected a number of seconds`);
      }
    },
  },
  {
    id: 'v1.versioning.header',
    record: 'a POST /v1/execute carrying X-AI-Platform-Version',
    judge: (j) => {
      for (const ex of j.exchanges) {
        const version = ex.requestHeaders['x-ai-platform-version'];
        if (!onSurface(ex, 'v1') || version === undefined || ex.status === undefined) continue;
        if (version === 'v1') {
          // Refused for another reason is not refused for the header: only a refusal that names the header counts.
          const names = ex.status >= 400 && ex.status < 500 && /x-ai-platform-version/i.test(ex.responseBody ?? '');
          j.check(ex, !names, `a request carrying X-AI-Platform-Version: v1 was refused ${ex.status} over that header`);
        } else {
          j.check(ex, ex.status >= 400 && ex.status < 500, `a request carrying X-AI-Platform-Version: ${version} was answered ${ex.status}, expected a 4xx refusal`);
        }
      }
    },
  },
];

/** Every judged secret of the recording a response of the surfaces carries, other than in the answer that issued it: named by label and place. */
function judgeEchoedSecrets(j: Judgement, surfaces: ReadonlyArray<'v8' | 'v1' | 'mcp'>): void {
  const locator = locatorFor(j.recording.credentials, SHORT_SECRET);
  if (locator.size === 0) return;
  for (const ex of j.exchanges) {
    if (!surfaces.some((s) => onSurface(ex, s)) || ex.status === undefined) continue;
    const carried = locator.carried(ex);
    j.check(ex, carried.length === 0, `the answer carries ${carried.length === 1 ? "one of the recording's secrets" : `${carried.length} of the recording's secrets`}: ${carried.slice(0, 5).map((c) => `${c.label} in its ${c.where}`).join('; ')}`);
  }
}

export const secretRules: PassiveRule[] = [
  { id: 'v1.auth.run-secrets', record: 'answered /v1 requests carrying a credential the deployment accepted', judge: (j) => judgeEchoedSecrets(j, ['v1']) },
];

/** Rules every answer of a surface is held to: problem documents on errors, headers, no echoed credential. */
import { CONTRACT_HEADER, CONTRACT_VERSION } from '../../contract/v8/common.ts';
import { PROBLEM_CONTENT_TYPE, v8Problem } from '../../contract/v8/problem.ts';
import type { z } from 'zod';
import { SHORT_SECRET } from '../../redact/redactor.ts';
import { mediaType } from '../exchange.ts';
import { onSurface } from '../endpoints.ts';
import { hasWholeBody, recordOf, responseJson, issuesOf, type Judgement, type PassiveRule } from '../judging.ts';


/** Every error answer of a surface: problem+json, its shape, and a `status` equal to the HTTP status. */
function judgeProblems(j: Judgement, surface: 'v8' | 'v1', schema: z.ZodType): void {
  for (const ex of j.exchanges) {
    if (!onSurface(ex, surface) || ex.status === undefined || ex.status < 400) continue;
    const type = mediaType(ex.responseHeaders);
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
  { id: 'v8.errors.problem-shape', record: 'a /v8 request answered 4xx or 5xx', judge: (j) => judgeProblems(j, 'v8', v8Problem) },
];

export const headerRules: PassiveRule[] = [
  {
    id: 'v8.contract.version-header',
    record: 'any answered /v8 request',
    judge: (j) => {
      for (const ex of j.exchanges) {
        if (!onSurface(ex, 'v8') || ex.status === undefined) continue;
        const value = ex.responseHeaders[CONTRACT_HEADER];
        j.check(ex, value === CONTRACT_VERSION, `${CONTRACT_HEADER} is ${value === undefined ? 'missing' : `"${value}"`}, expected "${CONTRACT_VERSION}"`);
      }
    },
  },
];

/** Every learned credential a response of the surfaces carries, other than in the answer that issued it. */
function judgeEchoedSecrets(j: Judgement, surfaces: ReadonlyArray<'v8' | 'v1' | 'mcp'>): void {
  // A value this short turns up in ordinary text by chance: it is hidden, but not judged as an echo.
  const judged = j.recording.credentials.filter((c) => c.value.length >= SHORT_SECRET);
  if (judged.length === 0) return;
  for (const ex of j.exchanges) {
    if (!surfaces.some((s) => onSurface(ex, s)) || ex.status === undefined) continue;
    const parts = [ex.responseBody ?? '', ...Object.values(ex.responseHeaders)];
    const carried = judged.filter((c) => c.issuedBy !== ex.index && parts.some((p) => p.includes(c.value)));
    j.check(ex, carried.length === 0, `the answer carries ${carried.length} of the recording's secrets (${[...new Set(carried.map((c) => c.label))].join(', ')})`);
  }
}

export const secretRules: PassiveRule[] = [
  { id: 'v8.redaction.run-secrets', record: 'answered /v8 or /mcp requests carrying an Authorization header', judge: (j) => judgeEchoedSecrets(j, ['v8', 'mcp']) },
  { id: 'v1.auth.run-secrets', record: 'answered /v1 requests carrying an Authorization header', judge: (j) => judgeEchoedSecrets(j, ['v1']) },
];

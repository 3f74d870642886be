/** What the generated rules share beyond the judgement: the rate limiter's answers, the 2xx schema of an exchange. */
import type { z } from 'zod';
import { endpointOf } from '../../contract/endpoints.ts';
import type { ProbeResponse } from '../../rule/index.ts';

export type { Aspect as OracleName } from './judgement.ts';

export function formatIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 4)
    .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
    .join('; ');
}

/** A rate limiter's answer: never a failure of these rules (backed off, then left unjudged). */
export function isLimited(res: Pick<ProbeResponse, 'status'>): boolean {
  return res.status === 429 || res.status === 503;
}

/** The 2xx schema of the endpoint an exchange went to, when the description shows one. */
export function successSchema(method: string, path: string, contentType: string): z.ZodType | undefined {
  const endpoint = endpointOf(method, path);
  if (!endpoint || endpoint.success.body !== 'json' || !endpoint.success.schema) return undefined;
  // Turn mode of /v1/execute streams; only a JSON answer is held to the task response.
  if (!/json/i.test(contentType)) return undefined;
  return endpoint.success.schema;
}

import { z } from 'zod';
import { problemType } from '../problem-type.ts';

/**
 * v8 errors: "`application/problem+json` (RFC 9457) with fields `type` (URI string), `title`,
 * `status` (integer), `detail`, `code` (machine-readable string), `requestId` (UUID string)".
 * The object stays open: RFC 9457 allows extension members and the seed does not close it.
 */
export const v8Problem = z.looseObject({
  type: problemType,
  title: z.string(),
  status: z.number().int().min(400).max(599),
  detail: z.string(),
  code: z.string().min(1),
  // "UUID string" states no version or variant: any 8-4-4-4-12 hex form.
  requestId: z.guid(),
});
export type V8Problem = z.infer<typeof v8Problem>;

export { PROBLEM_CONTENT_TYPE } from '../media-types.ts';

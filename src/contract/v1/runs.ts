/** Run operations: approve and cancel bodies, and the run event items as far as the spec shows them. */
import { z } from 'zod';

/** "ApproveRequest (no extra properties)"; the digest format and the allowed decisions are not shown. */
export const approveRequest = z.strictObject({
  action_digest: z.string(),
  decision: z.string(),
});
export type ApproveRequest = z.infer<typeof approveRequest>;

/** "`200` JSON object with open properties" (approve and cancel); their contents are not shown. */
export const openObject = z.looseObject({});

/** The two event kinds the spec names; every other kind and every payload field is not shown. */
export const ACCEPTED = 'request.accepted';
export const CANCELLED = 'request.cancelled';

/** "`request.accepted` | the request was admitted; carries boolean `replayed`" */
export const acceptedData = z.looseObject({ replayed: z.boolean() });

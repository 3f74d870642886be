/** Run operations: approve and cancel bodies, and the run event items as far as the spec shows them. */
import { z } from 'zod';
import { context, stated } from '../marks.ts';
import { V1 } from '../sentence.ts';

/**
 * "ApproveRequest (no extra properties)"; the digest format and the allowed decisions are not shown.
 * `approved` and `rejected` are "expected by convention, unconfirmed": no decision value is known to be
 * taken but the one the profile names (fixtures.v1.approval.approveDecision, the base of an approve).
 */
const APPROVE = 'Resources and their fields > ApproveRequest (no extra properties)';
const DIGEST_ROW = '| action_digest | string | yes | binds the decision to the proposed action |';
const DECISION_ROW = '| decision | string | yes | `approved` and `rejected` are expected by convention, unconfirmed |';
export const approveRequest = stated(
  stated(
    z.strictObject({
      action_digest: context(stated(z.string(), ['type'], V1(APPROVE, DIGEST_ROW)), 'the digest binds the decision to the proposed action, whose digest format is not shown: another digest may be refused'),
      decision: context(stated(z.string(), ['type'], V1(APPROVE, DECISION_ROW)), 'the allowed values of `decision` are not shown (`approved` and `rejected` are conventions, unconfirmed): only the profile\'s fixtures.v1.approval.approveDecision is known to be taken'),
    }),
    ['closed', 'type'],
    V1(APPROVE, 'ApproveRequest (no extra properties)'),
  ),
  ['required'],
  V1(APPROVE, `${DIGEST_ROW} … ${DECISION_ROW}`),
);
export type ApproveRequest = z.infer<typeof approveRequest>;

/** "`200` JSON object with open properties" (approve and cancel); their contents are not shown. */
export const openObject = z.looseObject({});

export { ACCEPTED, CANCELLED } from './event-kinds.ts';

/** "`request.accepted` | the request was admitted; carries boolean `replayed`" */
export const acceptedData = z.looseObject({ replayed: z.boolean() });

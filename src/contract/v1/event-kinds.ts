/**
 * The event kinds the /v1 description names, free of zod so the k6 bundles (src/sse/event-kind.ts)
 * read them from the contract too; runs.ts and webhooks.ts export them beside their schemas.
 */

/** The two event kinds the spec names; every other kind and every payload field is not shown. */
export const ACCEPTED = 'request.accepted';
export const CANCELLED = 'request.cancelled';

/** "Event types named: `run.completed`, `run.failed`." */
export const RUN_COMPLETED = 'run.completed';
export const RUN_FAILED = 'run.failed';
export const TERMINAL_WEBHOOK_EVENTS = [RUN_COMPLETED, RUN_FAILED] as const;

/** Every /v1 rule, in the order a reader meets them in the spec; webhooks last. */
import type { Rule } from '../../rule/index.ts';
import { expiredKey, scopesObserved, unauthenticated } from './auth/authentication.ts';
import { chatPath } from './chat/chat.ts';
import { problemShape } from './errors/problem.ts';
import { limiterUnavailable, rateLimited, rateLimitedRetryAfter } from './errors/rate-limits.ts';
import { acceptHeader } from './execute/accept.ts';
import { conflict, keyFormat, normalized, replay, retryAfter429, retryAfter503, scope } from './execute/idempotency.ts';
import { taskExtraProperties, taskRunId } from './execute/task.ts';
import { acceptedEvent, turnBodies, turnStream } from './execute/turn.ts';
import { approveDecisions, approveRequestShape, approveResumes, digestBinds } from './runs/approve.ts';
import { cancelNotRollback, cancelTerminalEvent } from './runs/cancel.ts';
import { droppedConnection, eventIdentity, resume } from './runs/events.ts';
import { getRun } from './runs/get.ts';
import { usageReadback, usageTenantScoped } from './usage/usage.ts';
import { versionHeader } from './versioning/header.ts';
import { v1WebhookRules } from './webhooks/index.ts';

export const v1Rules: Rule[] = [
  turnStream,
  acceptedEvent,
  turnBodies,
  taskRunId,
  taskExtraProperties,
  acceptHeader,
  chatPath,
  keyFormat,
  replay,
  conflict,
  scope,
  normalized,
  retryAfter429,
  retryAfter503,
  getRun,
  eventIdentity,
  resume,
  droppedConnection,
  approveResumes,
  digestBinds,
  approveRequestShape,
  approveDecisions,
  cancelTerminalEvent,
  cancelNotRollback,
  usageReadback,
  usageTenantScoped,
  unauthenticated,
  expiredKey,
  scopesObserved,
  problemShape,
  rateLimited,
  rateLimitedRetryAfter,
  limiterUnavailable,
  versionHeader,
  ...v1WebhookRules,
];

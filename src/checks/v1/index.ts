/** Every /v1 rule, in the order a reader meets them in the spec; webhooks last. */
import type { Rule } from '../../rule/index.ts';
import { v1CatalogueRules } from './catalogue/probes.ts';
import { expiredKey, keyPrefix, scopesObserved, unauthenticated } from './auth/authentication.ts';
import { challenge } from './auth/challenge.ts';
import { runSecrets } from './auth/run-secrets.ts';
import { chatPath } from './chat/chat.ts';
import { allowOn405 } from './contract/allow.ts';
import { v1GeneratedRules } from './contract/generated.ts';
import { problemShape } from './errors/problem.ts';
import { limiterUnavailable, rateLimited, rateLimitedRetryAfter } from './errors/rate-limits.ts';
import { acceptHeader } from './execute/accept.ts';
import { bodyKey, conflict, keyFormat, normalized, replay, retryAfter429, retryAfter503, scope } from './execute/idempotency.ts';
import { taskExtraProperties, taskObject, taskRunId } from './execute/task.ts';
import { acceptedEvent, turnBodies, turnStream } from './execute/turn.ts';
import { approveDecisions, approveRequestShape, approveResumes, digestBinds } from './runs/approve.ts';
import { cancelNotRollback, cancelTerminalEvent } from './runs/cancel.ts';
import { droppedConnection, eventIdentity, eventStream, resume } from './runs/events.ts';
import { getRun, timestampOffset } from './runs/get.ts';
import { lifecycleModel } from './runs/lifecycle.ts';
import { usageReadback, usageTenantScoped } from './usage/usage.ts';
import { versionHeader } from './versioning/header.ts';
import { v1WebhookRules } from './webhooks/index.ts';

export const v1Rules: Rule[] = [
  turnStream,
  acceptedEvent,
  turnBodies,
  taskRunId,
  taskExtraProperties,
  taskObject,
  acceptHeader,
  chatPath,
  keyFormat,
  replay,
  bodyKey,
  conflict,
  scope,
  normalized,
  retryAfter429,
  retryAfter503,
  getRun,
  timestampOffset,
  eventStream,
  eventIdentity,
  resume,
  droppedConnection,
  approveResumes,
  digestBinds,
  approveRequestShape,
  approveDecisions,
  cancelTerminalEvent,
  cancelNotRollback,
  lifecycleModel,
  usageReadback,
  usageTenantScoped,
  unauthenticated,
  keyPrefix,
  runSecrets,
  expiredKey,
  scopesObserved,
  challenge,
  problemShape,
  rateLimited,
  rateLimitedRetryAfter,
  limiterUnavailable,
  versionHeader,
  allowOn405,
  ...v1WebhookRules,
  ...v1GeneratedRules,  ...v1CatalogueRules,
];

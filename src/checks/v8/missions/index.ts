/** Every /v8 missions rule, in the order a reader meets them in the spec. */
import { rateLimit429 } from './rate-limit.ts';
import type { Rule } from '../../../rule/index.ts';
import { expiredToken, missingToken, scope403 } from './auth.ts';
import { budgetSteps, budgetToolCalls } from './budget.ts';
import { cancelled, cancelReplay } from './cancel.ts';
import { createAccepted, createBudgetBounds, createMalformedJson, createMissingFields } from './create.ts';
import { afterTerminal, closesAfterTerminal, eventsShape, eventsStarted, eventsTraceId, eventsUnknown, replayWindow, resume } from './events.ts';
import { getOk, getOtherPrincipal, getUnknown } from './get.ts';
import { lifecycleModel } from './lifecycle.ts';
import { cancelKeyRequired, conflict, keyFormat, keyRequired, replay, signalsKeyRequired } from './idempotency.ts';
import { signalAccepted, signalConflict, signalReplay, signalTerminal, signalValidation } from './signals.ts';
import { sequenceMonotonic, terminalConsistent, timeLimit } from './states.ts';

export const v8MissionRules: Rule[] = [
  createAccepted,
  createMalformedJson,
  createMissingFields,
  createBudgetBounds,
  budgetSteps,
  budgetToolCalls,
  keyRequired,
  keyFormat,
  replay,
  conflict,
  getOk,
  getUnknown,
  getOtherPrincipal,
  missingToken,
  expiredToken,
  scope403,
  eventsShape,
  eventsStarted,
  eventsTraceId,
  closesAfterTerminal,
  resume,
  replayWindow,
  afterTerminal,
  eventsUnknown,
  signalAccepted,
  signalValidation,
  signalTerminal,
  signalConflict,
  signalReplay,
  signalsKeyRequired,
  cancelled,
  cancelReplay,
  cancelKeyRequired,
  sequenceMonotonic,
  terminalConsistent,
  timeLimit,
  rateLimit429,
  lifecycleModel,
];

import { describePrerequisite, type Prerequisite } from './prerequisite.ts';
import type { Counterexample } from './types.ts';

/** Thrown by a check when the target broke the rule. */
export class CheckFailure extends Error {
  override readonly name = 'CheckFailure';
  readonly counterexample: Counterexample | undefined;
  /** Index in the check's evidence of the exchange that decided the failure, when one did. */
  readonly exchange: number | undefined;
  constructor(message: string, counterexample?: Counterexample, exchange?: number) {
    super(message);
    this.counterexample = counterexample;
    this.exchange = exchange;
  }
}

/** Thrown when a prerequisite the check needs is missing: `missing` says which, the message is written from it. */
export class Untestable extends Error {
  override readonly name = 'Untestable';
  readonly missing: Prerequisite;
  constructor(missing: Prerequisite) {
    super(describePrerequisite(missing));
    this.missing = missing;
  }
}

/** Thrown when the rule does not apply to this target (e.g. the server chose an optional behaviour it did not use). */
export class NotApplicable extends Error {
  override readonly name = 'NotApplicable';
}

/**
 * Thrown when the rule could not be judged for a reason that is no missing prerequisite of the
 * profile: the request budget or a deadline ran out, or the target broke a step the rule only
 * needed as setup. It gates like a failure the CI cannot blame on the target (exit 3).
 */
export class Inconclusive extends Error {
  override readonly name: string = 'Inconclusive';
}

/**
 * Inconclusive because apicert's own bound stopped the check (the profile's request budget), not
 * anything the target did: the run's other exchanges do not stand in for what it left unsent.
 */
export class OwnBoundReached extends Inconclusive {}

/**
 * Inconclusive because the rule's judgement itself found its exchanges undecidable (a catalogue
 * case only a rate limiter answered): what the run's other exchanges show does not decide for it.
 */
export class JudgedInconclusive extends Inconclusive {}

/** Thrown when the exchange itself failed (connection refused, reset, timeout): nothing about the rule was observed. */
export class TransportError extends Inconclusive {
  override readonly name = 'TransportError';
}

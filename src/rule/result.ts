import type { Rule } from './rule.ts';
import type { EvidenceEntry } from './exchange.ts';
import type { Prerequisite } from './prerequisite.ts';
import type { Counterexample, FailingCase, Observation, Verdict } from './types.ts';

/** How one rule ended in one run: what the reports are made of. */
export interface RuleResult {
  rule: Rule;
  verdict: Verdict;
  /** Why the verdict is what it is: the failed expectation, the missing fixture, the transport error. */
  reason?: string;
  durationMs: number;
  evidence: EvidenceEntry[];
  /** Evidence entries left out to keep the report readable (the first and last ones are kept). */
  evidenceOmitted: number;
  observations: Observation[];
  counterexample?: Counterexample;
  /** Every failing case (up to the cap), each naming its deciding exchange in `evidence`. */
  cases: FailingCase[];
  /** Failing cases beyond the cap, counted only. */
  casesOmitted: number;
  /** Credential roles the check asked for while it ran. */
  rolesRequested: string[];
  /** Requests the check sent (a shared probe run counts for the rule that sent it). */
  requests?: number;
  /** What an `untestable` verdict found missing, as values (its reason is written from them): the run's judgement tells a profile's lack from the target's. */
  missing?: Prerequisite[];
  /**
   * An `inconclusive` the run's judgement leaves standing: apicert's own bound stopped the check (the
   * request budget, its time limit, a harness defect), or the rule's judgement itself found its own
   * exchanges undecidable (a catalogue case only a rate limiter answered).
   */
  standing?: true;
}

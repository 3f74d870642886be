import type { Rule } from './rule.ts';
import type { EvidenceEntry } from './exchange.ts';
import type { Counterexample, Observation, Verdict } from './types.ts';

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
  /** Credential roles the check asked for while it ran. */
  rolesRequested: string[];
}

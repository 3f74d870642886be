import type { SpecDocument } from '../../rule/index.ts';

/**
 * A legal alternative the reference fake can take where a seed or MCP leaves a choice open. Every
 * rule must pass under every variant: a rule that fails one over-assumes (fix the rule).
 */
export interface VariantDefinition {
  /** `<surface>.<area>/<what differs>`: the fake bends for it in its area's file, like a fault. */
  id: string;
  description: string;
  /** The sentence that leaves the choice open, verbatim, and where it stands. */
  spec: { document: SpecDocument; section: string; quote: string };
  /** Variants that take another choice at the same point. */
  excludes?: readonly string[];
  /**
   * SHOULD rules whose recommendation this variant does not follow. Not following a SHOULD is legal:
   * those rules fail as warnings and the gate stays green (it gates only with `--strict`).
   */
  departsFrom?: readonly string[];
  /**
   * A phrase of the reason every rule gives that this choice leaves without what it needs (a cap on
   * webhook endpoints leaves the rules that register one without a registration): those rules are
   * untestable, saying so, which is the honest verdict; a pass would have judged nothing.
   */
  leavesUntestable?: string;
  /**
   * Phrases of the reasons of rules this choice leaves unable to observe what they need, as transport
   * trouble would (a stream held back until it ends shows no run in flight or parked before it ends):
   * those rules are inconclusive, saying so, never passed on nothing nor failed.
   */
  leavesInconclusive?: readonly string[];
}

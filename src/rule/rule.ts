import type { CheckContext } from './context.ts';
import type { Judgement } from './judgement.ts';
import type { RuleMeta } from './types.ts';

/** A rule: what it enforces, and the check that judges a target against it. */
export interface Rule extends RuleMeta {
  check: (ctx: CheckContext) => Promise<void>;
  /**
   * The rule's one judgement over exchanges (src/rule/judgement.ts): the active check judges the
   * exchanges its provocation caused with it, a recording and the proxy judge their traffic with it.
   */
  judgement?: Judgement;
  /** Why only an active probe can show this rule (a dropped connection, a budget elapsing), in one line: the reason a recording gives. */
  activeOnly?: string;
}

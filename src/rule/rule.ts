import type { CheckContext } from './context.ts';
import type { RuleMeta } from './types.ts';

/** A rule: what it enforces, and the check that judges a target against it. */
export interface Rule extends RuleMeta {
  check: (ctx: CheckContext) => Promise<void>;
}

/**
 * `--max-failures N`: once N gating rules have failed, the run starts no further rule, as pytest's
 * `--maxfail` does. Rules already running finish; the rest are reported "not run" and the gate
 * fails (N failures gate already). A baselined failure is expected and does not count.
 */
import type { RuleResult } from '../rule/index.ts';
import { Stopped } from '../probe/transport.ts';

export interface FailureLimit {
  /** Aborted, with a `Stopped` saying why, once the limit is reached. */
  readonly signal: AbortSignal;
  /** Counts one finished rule. */
  note(result: RuleResult): void;
}

export function failureLimit(limit: number, policy: { strict: boolean; expected: ReadonlySet<string> }): FailureLimit {
  const controller = new AbortController();
  const failed: string[] = [];
  return {
    signal: controller.signal,
    note(result) {
      const gates = result.rule.level === 'required' || (result.rule.level === 'should' && policy.strict);
      if (result.verdict !== 'fail' || !gates || policy.expected.has(result.rule.id) || controller.signal.aborted) return;
      failed.push(result.rule.id);
      if (failed.length >= limit) {
        const listed = `${failed.slice(0, 5).join(', ')}${failed.length > 5 ? `, +${failed.length - 5} more` : ''}`;
        controller.abort(new Stopped(`--max-failures ${limit}: ${failed.length} ${policy.strict ? 'gating' : 'required'} rule${failed.length === 1 ? '' : 's'} failed (${listed}); the rules not yet started were not run`));
      }
    },
  };
}

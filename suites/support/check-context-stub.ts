import { Inconclusive, type Exchange } from '../../src/rule/index.ts';

/**
 * The parts of a CheckContext that `judgeOwnExchanges` and a rule's check read, for tests that
 * call them without a runner: `inconclusive` throws as the runner's does, `notApplicable` throws
 * an Error carrying its reason.
 */
export function checkContextStub(options: { judgesTheRun?: boolean; exchanges?: readonly Exchange[]; runJournal?: { exchanges: readonly Exchange[] }; observe?: (subject: string, value: unknown) => void } = {}) {
  return {
    rule: { judgesTheRun: options.judgesTheRun ?? false },
    profile: undefined,
    http: { exchanges: options.exchanges ?? [], record: () => 0 },
    service: () => options.runJournal,
    check: (held: unknown) => Boolean(held),
    observe: options.observe ?? (() => undefined),
    inconclusive: (why: string): never => {
      throw new Inconclusive(why);
    },
    notApplicable: (why: string): never => {
      throw new Error(why);
    },
  };
}

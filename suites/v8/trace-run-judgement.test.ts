/**
 * The /v8 trace consistency rules judge every trace read of the run, not only their own check's
 * (audit h104 F2): a trace another rule's check read, that breaks the sentence, fails the rule in
 * certify as it fails `judge-traffic` on the run's recording.
 *
 * Each fault is switched off once v8.missions.budget.tool-calls (whose mission's last step fails on
 * its tool-call budget, and whose check reads every step's trace) has finished, so the judged rule's
 * own provocation sees a clean fake and only the other check's reads show the break.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { embeddedProfile } from '../../src/fake/embedded-profile.ts';
import { FaultSet, type FaultId } from '../../src/fake/faults/index.ts';
import { startFake, type RunningFake } from '../../src/fake/server.ts';
import { certify } from '../../src/runner/certify.ts';

const OTHER = 'v8.missions.budget.tool-calls';

let fake: RunningFake | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

/** Each fault breaks its rule's sentence on the traces the other check reads while it is on. */
const CASES: ReadonlyArray<readonly [FaultId, string, RegExp]> = [
  ['v8.traces.get.completed-at/on-failed-step', 'v8.traces.get.completed-at', /belongs to a step no mission\.step\.completed named, yet it has completedAt/],
  ['v8.traces.get.ok/run-id-not-uuid', 'v8.traces.get.ok', /the trace does not have the contract's shape|the trace names mission run-/],
];

describe('trace rules judged over the run', () => {
  it.each(CASES)("%s: %s fails on a trace only another rule's check read", async (fault, rule, reason) => {
    const running = (fake = await startFake({ faults: [fault] }));
    const embedded = embeddedProfile(running);
    // One rule at a time, so the fault is off before the judged rule's own provocation runs.
    const profile = { ...embedded, safety: { ...embedded.safety, concurrency: 1 } };
    const { results } = await certify({
      profile,
      patterns: [OTHER, rule],
      seed: 7,
      onResult: (r) => {
        if (r.rule.id === OTHER) running.context.faults = new FaultSet();
      },
    });
    const other = results.find((r) => r.rule.id === OTHER)!;
    expect(other.verdict, other.reason).toBe('pass');
    const judged = results.find((r) => r.rule.id === rule)!;
    expect(judged.verdict, judged.reason).toBe('fail');
    expect(judged.reason).toMatch(reason);
    // The deciding read is the other check's, shown from the run's journal.
    const at = judged.cases[0]!.exchange!;
    expect(judged.evidence[at]!.label).toMatch(/exchange of another rule's check/);
  }, 120_000);
});

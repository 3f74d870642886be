/**
 * "A signal to a mission in a terminal state gives `409`." holds for every terminal state (audit 124 F2):
 * v8.missions.signals.terminal-409 signals a failed mission too (the "fails" fixture), and without that
 * fixture it is still judged on the succeeded one, saying which terminal events it signalled after.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { embeddedProfile } from '../../src/fake/embedded-profile.ts';
import { startFake, type RunningFake } from '../../src/fake/server.ts';
import { certify } from '../../src/runner/certify.ts';

const RULE = 'v8.missions.signals.terminal-409';

let fake: RunningFake | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function run(options: { failedAccepts?: boolean; withoutFails?: boolean }) {
  const running = (fake = await startFake({ faults: options.failedAccepts ? ['v8.missions.signals.terminal-409/failed-accepts-signal'] : [] }));
  const profile = embeddedProfile(running);
  if (options.withoutFails) delete profile.fixtures.v8.missions.fails;
  const { results } = await certify({ profile, patterns: [RULE], seed: 7 });
  return results.find((r) => r.rule.id === RULE)!;
}

describe(`${RULE}: every terminal state a create can aim at`, () => {
  it('a fake that accepts a signal to a failed mission only fails the rule, on the failed mission', async () => {
    const result = await run({ failedAccepts: true });
    expect(result.verdict, result.reason).toBe('fail');
    expect(result.reason).toMatch(/failed as exchange #\d+ showed, answered 200, expected 409/);
  }, 60_000);

  it('the clean fake passes, and the observation names both terminal events', async () => {
    const result = await run({});
    expect(result.verdict, result.reason).toBe('pass');
    expect(result.observations.find((o) => o.subject === 'terminal events before a signal')?.value).toEqual(['mission.completed', 'mission.failed']);
  }, 60_000);

  it('without fixtures.v8.missions.fails the succeeded case is still judged, and the observation says the failed one was not', async () => {
    const result = await run({ withoutFails: true });
    expect(result.verdict, result.reason).toBe('pass');
    const seen = result.observations.find((o) => o.subject === 'terminal events before a signal');
    expect(seen?.value).toEqual(['mission.completed']);
    expect(seen?.note).toMatch(/no fixtures\.v8\.missions\.fails/);
  }, 60_000);
});

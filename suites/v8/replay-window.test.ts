import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embeddedProfile } from '../../src/fake/embedded-profile.ts';
import { startFake, type RunningFake } from '../../src/fake/server.ts';
import { certify } from '../../src/runner/certify.ts';

// "Size or duration of the replay window: not shown": a server that keeps only its last two events
// answers 409 for older cursors, legally, and the resume rules must still pass against it.
describe('a small replay window is a legal choice', () => {
  let fake: RunningFake;
  beforeAll(async () => {
    fake = await startFake({ config: { v8ReplayWindow: 2 } });
  });
  afterAll(async () => {
    await fake.close();
  });

  it('passes v8.missions.events.resume and the 409 rule against a window of two events', async () => {
    const { results } = await certify({ profile: embeddedProfile(fake), patterns: ['v8.missions.events.resume', 'v8.missions.events.replay-window-409'], seed: 7 });
    expect(results.map((r) => [r.rule.id, r.verdict, r.reason ?? ''])).toEqual([
      ['v8.missions.events.resume', 'pass', ''],
      ['v8.missions.events.replay-window-409', 'pass', ''],
    ]);
    const window = results[0]!.observations.find((o) => o.subject === 'replay window');
    // The rule walked back to the edge of the window and took its 409 as legal.
    expect(window?.value).toMatch(/outside the window \(409\)/);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embeddedProfile } from '../../src/fake/embedded-profile.ts';
import { startFake, type RunningFake } from '../../src/fake/server.ts';
import { certify } from '../../src/runner/certify.ts';

// The seed never defines "sensitive": a gateway that echoes a PEM block or a bearer string planted
// under a neutral field is legal. The canaries rule records it and still passes; before, it failed.
describe('content sensitive only by shape is an observation', () => {
  let fake: RunningFake;
  beforeAll(async () => {
    fake = await startFake({ config: { v8RedactsByShape: false } });
  });
  afterAll(async () => {
    await fake.close();
  });

  it('passes v8.redaction.canaries and records the shape-only echoes', async () => {
    const { results } = await certify({ profile: embeddedProfile(fake), patterns: ['v8.redaction.canaries'], seed: 7 });
    expect(results[0]!.verdict, results[0]!.reason).toBe('pass');
    const echoed = results[0]!.observations.find((o) => o.subject === 'canaries sensitive only by shape echoed');
    expect(JSON.stringify(echoed?.value)).toMatch(/private-key from goalSpec\.attachment/);
  });
});

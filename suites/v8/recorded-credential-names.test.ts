/**
 * A recording apicert wrote hides each profile credential behind its marker (`«redacted:token:<name>»`).
 * Judged with the profile, a reason names the credential by its profile name, as certify does, not by
 * the marker (audit s27-v8 F5): the marker is no secret, so its fragments are not hidden in reasons.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { embeddedProfile } from '../../src/fake/embedded-profile.ts';
import { startFake, type RunningFake } from '../../src/fake/server.ts';
import { judgeRecording } from '../../src/passive/judge.ts';
import type { Exchange } from '../../src/rule/index.ts';

const RULE = 'v8.coverage.scope-filtered';

let fake: RunningFake | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

describe(`${RULE} judged from a recording that hides tokens behind markers`, () => {
  it('names the credential whose report shows too much by its profile name', async () => {
    fake = await startFake({ faults: ['v8.coverage.scope-filtered/ignores-scopes'] });
    const profile = embeddedProfile(fake);
    const readers = profile.credentials.filter((c) => c.name === 'full' || c.name === 'without-missions-write');
    const exchanges: Exchange[] = [];
    for (const [index, c] of readers.entries()) {
      const startedAt = new Date().toISOString();
      const res = await fetch(`${fake.baseUrl}/v8/coverage`, { headers: { authorization: `Bearer ${c.token}` } });
      exchanges.push({
        index,
        startedAt,
        durationMs: 1,
        method: 'GET',
        url: `${fake.baseUrl}/v8/coverage`,
        path: '/v8/coverage',
        // As certify --har-out and the proxy write a profile credential.
        requestHeaders: { authorization: `Bearer «redacted:token:${c.name}»` },
        status: res.status,
        responseHeaders: Object.fromEntries(res.headers),
        responseBody: await res.text(),
      });
    }
    const { results } = await judgeRecording(exchanges, { surfaces: ['v8'], patterns: [RULE], env: {}, profile });
    const result = results[0]!;
    expect(result.verdict).toBe('fail');
    expect(result.reason).toMatch(/the coverage report as without-missions-write shows endpoints its scopes do not permit: POST \/v8\/missions \(scope missions:write\)/);
    expect(result.reason).not.toContain('«redacted');
  }, 20_000);
});

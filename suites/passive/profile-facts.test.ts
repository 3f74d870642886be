/**
 * The profile's facts a `certify --har-out` recording carries (src/passive/profile-facts.ts): who
 * holds which scopes, principal and expiry, and the fixtures, and never a token, in any field.
 */
import { describe, expect, it } from 'vitest';
import { parseProfile, ProfileError } from '../../src/profile/load.ts';
import { PROFILE_FACTS_FIELD, profileOfFacts } from '../../src/passive/profile-facts.ts';
import { HarRecorder, hidingFor } from '../../src/passive/recorder.ts';
import { HARNESS_VERSION, redactorFor } from '../../src/runner/certify.ts';

const TOKEN = 'k3J9xQpLm2ZtV7wR0aYb4Nc8Hd6Fs1Gq';
const WAF = 'waf_7Gh2Kp9Lm4Nq8Rs3Tv6Wx1Yz5Ab0Cd';

const profile = parseProfile(
  {
    target: 'https://api.example',
    credentials: [
      { name: 'full', token: TOKEN, surfaces: ['v8'], scopes: ['missions:write', 'missions:read'], principal: 'principal-a', tenant: 't1' },
      { name: 'old', token: `${TOKEN}x`, surfaces: ['v8'], scopes: ['missions:read'], expired: true },
    ],
    // A fixture may hold a secret of its own by mistake: the recording must not.
    fixtures: { webhooks: { publicReceiverUrl: `https://hooks.example/in?key=${TOKEN}` } },
    network: { headers: { v8: { 'x-waf-token': WAF } } },
  },
  'the test',
);

function written(): Record<string, unknown> {
  return new HarRecorder().document(HARNESS_VERSION, hidingFor(profile, redactorFor(profile))) as { log: Record<string, unknown> };
}

describe("a recording's profile facts", () => {
  it('name each credential, its scopes, principal, tenant and expiry, and hold no token, network setting or secret in a fixture', () => {
    const doc = written() as { log: Record<string, { credentials: unknown[]; fixtures: { webhooks: { publicReceiverUrl: string } } }> };
    const facts = doc.log[PROFILE_FACTS_FIELD]!;
    expect(facts.credentials).toEqual([
      { name: 'full', surfaces: ['v8'], scopes: ['missions:write', 'missions:read'], principal: 'principal-a', tenant: 't1', expired: false },
      { name: 'old', surfaces: ['v8'], scopes: ['missions:read'], principal: 'primary', expired: true },
    ]);
    const text = JSON.stringify(doc);
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain(WAF);
    expect(text).not.toContain('network');
    expect(facts.fixtures.webhooks.publicReceiverUrl).toBe('https://hooks.example/in?key=«redacted:token:full»');
  });

  it('give back the profile they describe, each token the marker the recording holds in its place', () => {
    const read = profileOfFacts((written() as { log: Record<string, unknown> }).log[PROFILE_FACTS_FIELD], 'run.har')!;
    expect(read.credentials.map((c) => [c.name, c.token, c.scopes, c.principal, c.expired])).toEqual([
      ['full', '«redacted:token:full»', ['missions:write', 'missions:read'], 'principal-a', false],
      ['old', '«redacted:token:old»', ['missions:read'], 'primary', true],
    ]);
    expect(read.target).toBe('https://api.example');
    expect(profileOfFacts(undefined, 'run.har')).toBeUndefined();
  });

  it('refuse facts that are not a profile\'s, naming the field and the way out', () => {
    expect(() => profileOfFacts({ target: 'https://api.example', credentials: [{ name: 'x', token: TOKEN }], fixtures: {} }, 'run.har')).toThrow(ProfileError);
    expect(() => profileOfFacts({ credentials: [] }, 'run.har')).toThrow(/run\.har: its log\._apicertProfile .* is not valid at target: give the profile with --profile FILE/);
  });
});

/**
 * A recording hides a key sent without its `service_sk_` prefix as `«redacted:part-of-token:NAME»`
 * (src/passive/recorder.ts): what was sent is some part of NAME's key, which may or may not hold the
 * prefix. v1.auth.key-prefix passed such an exchange answered 200 in judge-traffic while certify of the
 * same run failed it (audit helper-142 F7): it now lacks the token, and with nothing else judged the
 * rule is untestable, naming the marker's credential. A token the recording shows stays judged.
 */
import { describe, expect, it } from 'vitest';
import { judgeRecording } from '../../src/passive/judge.ts';
import { parseProfile } from '../../src/profile/load.ts';
import type { Exchange } from '../../src/rule/index.ts';

const BASE = 'https://fabric.example.com';
const profile = parseProfile({ target: BASE, credentials: [{ name: 'v1-full', token: 'service_sk_part0123456789abcdefghij', surfaces: ['v1'], scopes: ['runs:read', 'runs:write'], principal: 'p', tenant: 't' }] }, 'test profile');
const usage = (authorization: string, status: number): Exchange =>
  ({ index: 0, method: 'GET', url: `${BASE}/v1/usage`, path: '/v1/usage', requestHeaders: { authorization }, status, responseHeaders: { 'content-type': 'application/json' }, responseBody: '{}' }) as Exchange;

async function verdict(ex: Exchange) {
  const { results } = await judgeRecording([ex], { surfaces: ['v1'], patterns: ['v1.auth.key-prefix'], env: {}, profile });
  return results[0]!;
}

describe('v1.auth.key-prefix over a recorder\'s part-of-token marker', () => {
  it('is untestable, naming the credential, where the only such exchange was answered 200', async () => {
    const r = await verdict(usage('Bearer «redacted:part-of-token:v1-full»', 200));
    expect(r.verdict).toBe('untestable');
    expect(r.reason).toMatch(/hid it as a part of the credential v1-full/);
  });

  it('still fails a token the recording shows without the prefix, answered 200', async () => {
    expect((await verdict(usage('Bearer part0123456789abcdefghij', 200))).verdict).toBe('fail');
  });
});

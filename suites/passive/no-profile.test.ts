/**
 * A proxy or recording judged with no --profile knows no credential: whether a bearer token is valid,
 * and whether an id names a resource made before the recording began, are in no part of the traffic.
 * Silence is open: the generated rules hold such requests to no answer, where they once failed every
 * authenticated request answered 2xx ("must refuse [... header authorization]").
 */
import { describe, expect, it } from 'vitest';
import { expectationOf } from '../../src/checks/generated/expectation.ts';
import { sentOfExchange } from '../../src/checks/generated/traffic.ts';
import { embeddedProfile } from '../../src/fake/embedded-profile.ts';
import { startFake } from '../../src/fake/server.ts';
import { exchangeOfEntry } from '../../src/passive/har.ts';
import { judgeRecording, recordingHiding } from '../../src/passive/judge.ts';
import { hiddenHar } from '../../src/passive/recorder.ts';
import { learnSecrets } from '../../src/passive/secrets.ts';
import { startProxy } from '../../src/passive/proxy.ts';
import type { Exchange } from '../../src/rule/index.ts';
import { until } from '../support/bounded.ts';
import { runClientOfFake } from './scripted-client-run.ts';

describe('judging traffic without a profile', () => {
  it('fails no generated rule on a clean client\'s traffic, and still judges what needs no credential', async () => {
    const fake = await startFake();
    const proxy = await startProxy({ upstream: fake.baseUrl, bodyLimit: 256 * 1024, maxExchanges: 1_000 });
    try {
      const profile = embeddedProfile(fake);
      await runClientOfFake(proxy.url, profile, false);
      const judged = await judgeRecording(proxy.exchanges(), { env: {} });
      const generated = judged.report.rules.filter((r) => r.id.includes('.contract.generated.'));
      expect(generated.filter((r) => r.verdict === 'fail').map((r) => `${r.id}: ${r.reason}`)).toEqual([]);
      expect(generated.some((r) => r.verdict === 'pass'), 'no-5xx and problem-json still judge').toBe(true);
    } finally {
      await proxy.close();
      await fake.close();
    }
  }, 60_000);

  it('writes a key accepted whole into the HAR even where a part of it was sent and refused, so a judge of the file learns no prefix', async () => {
    const fake = await startFake();
    const proxy = await startProxy({ upstream: fake.baseUrl, bodyLimit: 256 * 1024, maxExchanges: 100 });
    try {
      const key = embeddedProfile(fake).credentials.find((c) => c.name === 'v1-full')!.token;
      const prefix = key.slice(0, key.indexOf('_sk_') + 4);
      // The key without its prefix (a probe a client may send) is refused; the key itself accepted; the 401 names the prefix.
      const auths = [`Bearer ${key.slice(prefix.length)}`, `Bearer ${key}`, 'Bearer not-a-key-at-all-xyz'];
      for (const auth of auths) await (await fetch(`${proxy.url}/v1/usage`, { headers: { authorization: auth } })).text();
      // The proxy ends an exchange's record after the answer has gone back: wait for every one, not a fixed while.
      await until('every request recorded by the proxy', () => proxy.recorded().length === auths.length && proxy.recorded().every((r) => r.durationMs !== undefined), 10_000);
      const har = JSON.parse(JSON.stringify(hiddenHar(proxy.recorded(), 'test', recordingHiding(proxy.exchanges(), undefined, {})))) as { log: { entries: Array<{ request: { headers: Array<{ name: string; value: string }> } }> } };
      const sent = har.log.entries.map((e) => e.request.headers.find((h) => h.name.toLowerCase() === 'authorization')!.value);
      expect(sent).toHaveLength(auths.length);
      expect(sent.every((v) => /^Bearer «redacted:[^»]+»$/.test(v)), sent.join(' | ')).toBe(true);
      expect(JSON.stringify(har)).not.toContain(key.slice(prefix.length));
      const learned = learnSecrets(har.log.entries.flatMap((e, i) => exchangeOfEntry(e, i) ?? []));
      expect(learned.map((s) => s.value)).not.toContain(prefix);
    } finally {
      await proxy.close();
      await fake.close();
    }
  }, 30_000);

  it('holds a request with a bearer token no profile names to no answer, and one without a token to a refusal', () => {
    const ex = (authorization?: string): Exchange => ({ index: 0, method: 'GET', path: '/v1/usage', requestHeaders: authorization ? { authorization } : {}, responseHeaders: {}, evidence: [] }) as unknown as Exchange;
    expect(expectationOf(sentOfExchange(ex('Bearer some-token-of-a-client'), [])).kind).toBe('open');
    expect(expectationOf(sentOfExchange(ex(), []))).toMatchObject({ kind: 'refuse' });
    expect(expectationOf(sentOfExchange(ex('Basic dXNlcjpwYXNz'), [])).kind).toBe('refuse');
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { testReceiverUrl } from '../../../src/checks/v1/support/traffic.ts';
import { urlClassesOf } from '../../../src/contract/v1/webhook-url.ts';
import { embeddedProfile } from '../../../src/fake/embedded-profile.ts';
import { startFake, type RunningFake } from '../../../src/fake/server.ts';
import { judgeRecording } from '../../../src/passive/judge.ts';
import { HarRecorder, hidingFor } from '../../../src/passive/recorder.ts';
import { parseProfile } from '../../../src/profile/load.ts';
import type { Profile } from '../../../src/profile/schema.ts';
import type { RuleResult } from '../../../src/rule/index.ts';
import { certify, HARNESS_VERSION, redactorFor } from '../../../src/runner/certify.ts';
import { exchangesOf, stripApicert } from '../../passive/record.ts';

/**
 * "Endpoint URL rules: public HTTPS on the default port. Rejected: localhost, IP literals, private
 * networks, …" A loopback literal is exempt only where apicert's receiver may listen on loopback (the
 * profile names no receiver, or one on loopback). A deployment told of a public receiver was told
 * nothing of loopback: the private-network rule sends loopback literals and fails one accepted, in the
 * run and in its recording. The fake started by hand is certified as a remote target, as a deployment is.
 */
const RULE = 'v1.webhooks.url.private-network';
const PUBLIC_RECEIVER = 'https://receiver.example.net/apicert';

const closing: RunningFake[] = [];
afterEach(async () => {
  for (const fake of closing.splice(0)) await fake.close();
});

/** A fake that, besides its own rules, accepts the origins given, as a deployment told to allow them. */
async function fakeAllowing(origins: string[]): Promise<RunningFake> {
  const fake = await startFake();
  closing.push(fake);
  fake.context.config.webhookAllowedOrigins.push(...origins);
  return fake;
}

function withReceiver(fake: RunningFake, publicReceiverUrl: string | undefined): Profile {
  const base = embeddedProfile(fake);
  return parseProfile({ ...base, fixtures: { ...base.fixtures, webhooks: { ...base.fixtures.webhooks, publicReceiverUrl } } }, 'loopback literals profile');
}

/** The rule's active verdict and its recording's passive one, with the URLs the run registered. */
async function bothHalves(profile: Profile): Promise<{ active: RuleResult; passive: RuleResult; urls: string[] }> {
  const recorder = new HarRecorder();
  const { results } = await certify({ profile, patterns: [RULE], seed: 7, recorder });
  const written = JSON.parse(JSON.stringify(recorder.document(HARNESS_VERSION, hidingFor(profile, redactorFor(profile))))) as { log: { entries: unknown[] } };
  const exchanges = exchangesOf(stripApicert(written));
  const judged = await judgeRecording(exchanges, { env: {}, profile, patterns: [RULE] });
  const urls = exchanges.filter((ex) => ex.method === 'POST' && ex.path === '/v1/webhooks').map((ex) => (JSON.parse(ex.requestBody ?? '{}') as { url: string }).url);
  return { active: results[0]!, passive: judged.results.find((r) => r.rule.id === RULE)!, urls };
}

const loopback = (url: string) => /^https:\/\/(127\.|\[::1\]|\[::ffff:127\.)/.test(url);

describe('loopback literals and the profile’s receiver', () => {
  it('gives each fake its own allowed origins (a receiver allowed for one run is allowed in no other fake)', async () => {
    const one = await fakeAllowing(['https://127.0.0.1']);
    const other = await fakeAllowing([]);
    expect(one.context.config.webhookAllowedOrigins).toEqual(['https://127.0.0.1']);
    expect(other.context.config.webhookAllowedOrigins).toEqual([]);
  });

  it('exempts loopback literals only where the receiver may be on loopback; never 0.0.0.0 nor [::]', () => {
    const fake = { fixtures: { webhooks: {} } } as Profile;
    const at = (publicReceiverUrl: string | undefined) => ({ profile: { ...fake, fixtures: { ...fake.fixtures, webhooks: { ...fake.fixtures.webhooks, publicReceiverUrl } } } as Profile });
    for (const url of ['https://127.0.0.1/a', 'https://127.9.8.7/a', 'https://[::1]/a', 'https://[::ffff:127.0.0.1]/a', 'https://2130706433/a']) {
      expect(testReceiverUrl(at(undefined), url), url).toBe(true);
      expect(testReceiverUrl(at('http://127.0.0.1:47850'), url), url).toBe(true);
      expect(testReceiverUrl(at('http://localhost:47850'), url), url).toBe(true);
      expect(testReceiverUrl(at(PUBLIC_RECEIVER), url), url).toBe(false);
      expect(urlClassesOf(url)).toContain('private-network');
    }
    for (const url of ['https://0.0.0.0/a', 'https://[::]/a']) {
      expect(testReceiverUrl(at(undefined), url), url).toBe(false);
      expect(urlClassesOf(url)).toContain('private-network');
    }
    expect(testReceiverUrl(at(PUBLIC_RECEIVER), `${PUBLIC_RECEIVER}/x`)).toBe(true);
    // The origin leaves credentials out: on the receiver's host they are still refused.
    expect(testReceiverUrl(at(PUBLIC_RECEIVER), 'https://user:pass@receiver.example.net/apicert/x')).toBe(false);
  });

  it('fails a loopback literal accepted where the profile names a public receiver, in the run and in its recording', { timeout: 120_000 }, async () => {
    // A deployment still allowing https://127.0.0.1 (told to once), though its receiver is now public.
    const fake = await fakeAllowing(['https://127.0.0.1']);
    const { active, passive, urls } = await bothHalves(withReceiver(fake, PUBLIC_RECEIVER));
    expect(urls.filter(loopback).length).toBeGreaterThan(1);
    expect(active.verdict, active.reason).toBe('fail');
    expect(active.reason).toMatch(/registering https:\/\/127\.0\.0\.1\/\S* answered 201, expected a refusal/);
    expect(passive.verdict, passive.reason).toBe('fail');
  });

  it('passes a deployment refusing them, and sends 0.0.0.0 and [::] whatever the receiver', { timeout: 120_000 }, async () => {
    const fake = await fakeAllowing([]);
    const { active, passive, urls } = await bothHalves(withReceiver(fake, PUBLIC_RECEIVER));
    expect(urls.filter(loopback).length).toBeGreaterThan(1);
    expect(urls).toEqual(expect.arrayContaining(['https://0.0.0.0/apicert/hook', 'https://[::]/apicert/hook']));
    expect(active.verdict, active.reason).toBe('pass');
    expect(passive.verdict, passive.reason).toBe('pass');
  });

  it.each([
    ['no receiver', undefined],
    ['a receiver on loopback', 'http://127.0.0.1:47851'],
  ])('sends no loopback literal and passes a deployment allowing them where the profile names %s', { timeout: 120_000 }, async (_name, receiver) => {
    const fake = await fakeAllowing(['https://127.0.0.1']);
    const { active, passive, urls } = await bothHalves(withReceiver(fake, receiver));
    expect(urls.filter(loopback)).toEqual([]);
    expect(urls).toContain('https://0.0.0.0/apicert/hook');
    expect(active.verdict, active.reason).toBe('pass');
    expect(passive.verdict, passive.reason).toBe('pass');
  });
});

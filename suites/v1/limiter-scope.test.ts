/**
 * "Scopes required by the other `/v1` endpoints: not shown." (helper-115, after fb5b02a): the rate-limit
 * and limiter rules read GET /v1/usage with their own keys. A deployment whose usage needs a scope
 * those keys lack (`v1.usage/scope-needed`; checked before the limiter, as no sentence forbids) refused
 * them 403 authorization_failed, and apicert failed v1.errors.rate-limited ("refused with 403 before
 * any 429") and v1.errors.limiter-unavailable-503 ("answered 403, expected 503"). Such a refusal is no
 * answer of the limiter: the rules are untestable, naming the fixture's key and what to give it. A key
 * usage served before is held to it (the limit-as-403 fault still fails). The catalogue's stated
 * acceptance carries the same allowance as the generated expectation.
 */
import { describe, expect, it } from 'vitest';
import { expectationFor } from '../../src/checks/catalogue/run.ts';
import { NOTHING_KNOWN, refusedForScope, type SentRequest } from '../../src/checks/generated/expectation.ts';
import { V1 } from '../../src/contract/sentence.ts';
import { limiterUnavailable } from '../../src/checks/v1/errors/rate-limits.ts';
import { embeddedProfile } from '../../src/fake/embedded-profile.ts';
import { startFake } from '../../src/fake/server.ts';
import { runJudgement, type Exchange } from '../../src/rule/index.ts';
import { certify } from '../../src/runner/certify.ts';
import { resolveRole } from '../../src/profile/roles.ts';

const PHRASE = 'a scope the description does not show';
const LIMITER_RULES = ['v1.errors.rate-limited', 'v1.errors.rate-limited-retry-after', 'v1.errors.limiter-unavailable-503', 'v1.execute.idempotency.retry-after-429'];

describe('v1.usage/scope-needed: usage needs a scope the rate-limit keys lack', () => {
  it('leaves the limiter rules untestable naming the key and what to give; the usage and problem rules pass', { timeout: 120_000 }, async () => {
    const { results } = await certify({ variants: ['v1.usage/scope-needed'], patterns: [...LIMITER_RULES, 'v1.usage.readback', 'v1.usage.tenant-scoped', 'v1.errors.problem-shape'], seed: 3 });
    const by = Object.fromEntries(results.map((r) => [r.rule.id, r]));
    for (const id of LIMITER_RULES) {
      expect(by[id]!.verdict, `${id}: ${by[id]!.reason}`).toBe('untestable');
      expect(by[id]!.reason).toContain(PHRASE);
      expect(by[id]!.reason).toContain("give the key that scope and list it under the key's scopes");
    }
    expect(by['v1.errors.rate-limited']!.reason).toContain('v1-rate-probe (403 authorization_failed)');
    expect(by['v1.errors.rate-limited']!.reason).toContain('fixtures.v1.rateLimitCredential');
    expect(by['v1.errors.limiter-unavailable-503']!.reason).toContain('v1-limiter-down (403 authorization_failed)');
    expect(by['v1.errors.limiter-unavailable-503']!.reason).toContain('fixtures.v1.limiterUnavailableCredential');
    for (const id of ['v1.usage.readback', 'v1.usage.tenant-scoped', 'v1.errors.problem-shape']) expect(by[id]!.verdict, `${id}: ${by[id]!.reason}`).toBe('pass');
  });

  it('passes the limiter rules by default and where the rate-limit keys hold usage\'s scope (v1.usage/scope-beyond-runs)', { timeout: 120_000 }, async () => {
    for (const variants of [[], ['v1.usage/scope-beyond-runs' as const]]) {
      const { results } = await certify({ variants, patterns: LIMITER_RULES, seed: 3 });
      for (const r of results) expect(r.verdict, `${variants.join()} ${r.rule.id}: ${r.reason}`).toBe('pass');
    }
  });
});

describe('the ordinary /v1 caller', () => {
  it('is never a rate-limit key, even one listing more scopes (the scope usage asks for under v1.usage/scope-beyond-runs)', async () => {
    // The generated and catalogue runs send as the primary credential: on the 120-a-minute probe key they spent minutes waiting out its limiter.
    const fake = await startFake({ variants: ['v1.usage/scope-beyond-runs'] });
    try {
      const profile = embeddedProfile(fake);
      expect(profile.credentials.find((c) => c.name === 'v1-rate-probe')!.scopes.length).toBeGreaterThan(profile.credentials.find((c) => c.name === 'v1-full')!.scopes.length);
      expect(resolveRole(profile, 'v1:primary').credential?.name).toBe('v1-full');
    } finally {
      await fake.close();
    }
  });
});

describe('the limiter-down judgement over a journal', () => {
  const problem = (status: number, code: string) => JSON.stringify({ type: 'about:blank', title: 't', status, code, requestId: '0190a8f0-1c2d-7e3f-8a4b-5c6d7e8f9a0b', retryable: status === 503 });
  const usage = (index: number, status: number, body: string): Exchange => ({
    index,
    method: 'GET',
    path: '/v1/usage',
    url: `http://127.0.0.1:1/v1/usage`,
    credential: 'v1-limiter-down',
    requestHeaders: { authorization: 'Bearer «redacted:token:v1-limiter-down»' },
    status,
    responseHeaders: { 'content-type': status < 300 ? 'application/json' : 'application/problem+json' },
    responseBody: body,
  }) as Exchange;

  async function judged(exchanges: Exchange[]) {
    const fake = await startFake();
    try {
      const profile = embeddedProfile(fake);
      const outcome: { failed: string[]; error?: Error } = { failed: [] };
      try {
        runJudgement({ check: (ok: unknown, why: string) => (ok ? true : (outcome.failed.push(why), false)), observe: () => undefined }, limiterUnavailable.judgement!, exchanges, { source: 'recording', profile });
      } catch (error) {
        outcome.error = error as Error;
      }
      return outcome;
    } finally {
      await fake.close();
    }
  }

  it('a 403 authorization_failed to the key is no answer of its limiter: untestable, naming the fixture', async () => {
    const got = await judged([usage(0, 403, problem(403, 'authorization_failed'))]);
    expect(got.failed).toEqual([]);
    expect(got.error?.name).toBe('Untestable');
    expect(got.error?.message).toContain('fixtures.v1.limiterUnavailableCredential');
  });

  it('a key the limiter served (fail-open) is held to it: a later 403 is judged and fails', async () => {
    const got = await judged([usage(0, 200, '{}'), usage(1, 403, problem(403, 'authorization_failed'))]);
    expect(got.failed.length).toBeGreaterThan(0);
  });
});

describe('the catalogue: a stated acceptance on a /v1 endpoint whose scope is not shown', () => {
  it('leaves the scope refusal open, as the generated expectation does', () => {
    const base: SentRequest = { method: 'GET', path: '/v1/usage', headers: {}, credential: 'v1-full' };
    const because = V1('Endpoints', '`200` JSON, tenant-scoped usage and spend readback');
    const e = expectationFor({ stated: { kind: 'accept', because }, endpoint: 'GET /v1/usage', operator: 'test' }, base, base, NOTHING_KNOWN);
    expect(e.kind).toBe('accept');
    const refusal = { status: 403, json: { code: 'authorization_failed' } };
    expect(refusedForScope(e, refusal)).toBe(true);
    expect(refusedForScope(e, { status: 403, json: { code: 'invalid_request' } })).toBe(false);
  });
});

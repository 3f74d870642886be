/**
 * Audit helper-68 D4: "capabilityId | string | stable unique id". One search answer that names a
 * capabilityId twice holds two manifests under one id, which is no unique id. Judged on a hand-made
 * recording (the same judgement an active run and the proxy use) and on the fake with its fault.
 */
import { describe, expect, it } from 'vitest';
import { certify } from '../../src/runner/certify.ts';
import { judgeRecording } from '../../src/passive/judge.ts';
import { parseProfile } from '../../src/profile/load.ts';
import type { Exchange } from '../../src/rule/index.ts';

const BASE = 'https://gateway.example.test';
const RULE = 'v8.capabilities.search.ok';
const profile = parseProfile(
  { target: BASE, credentials: [{ name: 'reader', token: 'tok-caps-00000001', surfaces: ['v8'], scopes: ['capabilities:read'], principal: 'alice' }] },
  'audit-68 capabilities profile',
);

const manifest = (capabilityId: string, hashDigit: string) => ({ capabilityId, kind: 'api', version: '1.0.0', contractHash: hashDigit.repeat(64), healthState: 'healthy' });

function search(manifests: unknown[]): Exchange {
  return {
    index: 0,
    startedAt: new Date(Date.UTC(2026, 0, 1)).toISOString(),
    durationMs: 10,
    method: 'POST',
    path: '/v8/capabilities/search',
    url: `${BASE}/v8/capabilities/search`,
    requestHeaders: { authorization: 'Bearer tok-caps-00000001', 'content-type': 'application/json' },
    requestBody: JSON.stringify({ actionFamily: 'read', purpose: 'audit', targetType: 'crm' }),
    status: 200,
    responseHeaders: { 'content-type': 'application/json', 'x-service-contract-version': 'service-integration-gateway-v8.1' },
    responseBody: JSON.stringify(manifests),
  } as Exchange;
}

async function judged(manifests: unknown[]) {
  const { results } = await judgeRecording([search(manifests)], { surfaces: ['v8'], patterns: [RULE], profile, env: {} });
  expect(results).toHaveLength(1);
  return results[0]!;
}

describe(`${RULE}: the capabilityIds of one search answer are distinct ("stable unique id")`, () => {
  it('distinct ids pass, even when two manifests share a version and a contractHash', async () => {
    const result = await judged([manifest('cap.a', 'a'), manifest('cap.b', 'a'), manifest('urn:x/cap#1@t', 'b')]);
    expect(result.verdict, result.reason).toBe('pass');
  });

  it('one id named twice fails, naming the id', async () => {
    const result = await judged([manifest('cap.a', 'a'), manifest('cap.b', 'b'), manifest('cap.a', 'a')]);
    expect(result.verdict, result.reason).toBe('fail');
    expect(result.reason).toMatch(/cap\.a/);
  });

  it('the fake with v8.capabilities.search.ok/duplicate-id fails the rule; the clean fake passes it', async () => {
    const bent = await certify({ faults: ['v8.capabilities.search.ok/duplicate-id'], patterns: [RULE], seed: 7 });
    expect(bent.results[0]!.verdict, bent.results[0]!.reason).toBe('fail');
    expect(bent.results[0]!.reason).toMatch(/capabilityId/);
    const clean = await certify({ patterns: [RULE], seed: 7 });
    expect(clean.results[0]!.verdict, clean.results[0]!.reason).toBe('pass');
  }, 120_000);
});

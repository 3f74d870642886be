/**
 * Hand-made /v1 recordings judged with a profile of three keys: one holding every scope, an expired
 * one, and one whose rate limiter is down (the two-causes and audit-68 suites).
 */
import { parseProfile } from '../../src/profile/load.ts';
import type { Exchange } from '../../src/rule/index.ts';

export const BASE = 'https://fabric.example.com';
export const TASK = { mode: 'task', task: { scenario: 'apicert.completes' } };

/** The three keys, named after the suite so no two suites share a token. */
export function threeKeys(suite: string) {
  const FULL = `service_sk_${suite}_full_0123456789abcdef`;
  const EXPIRED = `service_sk_${suite}_expired_0123456789ab`;
  const DOWN = `service_sk_${suite}_down_0123456789abcdef`;
  const profile = () =>
    parseProfile(
      {
        target: BASE,
        credentials: [
          { name: 'full', token: FULL, surfaces: ['v1'], scopes: ['runs:read', 'runs:write'], principal: 'alice', tenant: 't1' },
          { name: 'expired', token: EXPIRED, surfaces: ['v1'], scopes: ['runs:read', 'runs:write'], principal: 'alice', tenant: 't1', expired: true },
          { name: 'down', token: DOWN, surfaces: ['v1'], scopes: ['runs:read', 'runs:write'], principal: 'alice', tenant: 't1' },
        ],
        fixtures: { v1: { tasks: { completes: TASK }, limiterUnavailableCredential: 'down' } },
      },
      `${suite} profile`,
    );
  return { FULL, EXPIRED, DOWN, profile };
}

export type Part = Partial<Exchange> & { method: string; path: string };

/** The parts as a journal, one second apart, in order. */
export const journal = (parts: Part[]): Exchange[] =>
  parts.map((e, i) => ({ index: i, startedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(), durationMs: 10, url: `${BASE}${e.path}`, requestHeaders: {}, responseHeaders: {}, ...e }) as Exchange);

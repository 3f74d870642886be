/** A hand-made /v1 recording judged as judge-traffic judges one, with a profile of one full key and the given task fixtures. */
import { judgeRecording } from '../../src/passive/judge.ts';
import { parseProfile } from '../../src/profile/load.ts';
import type { Exchange } from '../../src/rule/index.ts';

export function v1Recording(base: string, token: string, tasks: Record<string, unknown>, v1Fixtures: Record<string, unknown> = {}) {
  const profile = () =>
    parseProfile(
      {
        target: base,
        credentials: [{ name: 'full', token, surfaces: ['v1'], scopes: ['runs:read', 'runs:write'], principal: 'alice', tenant: 't1' }],
        fixtures: { v1: { tasks, ...v1Fixtures } },
      },
      'test profile',
    );
  /** Exchanges one second apart, in the order given. */
  const journal = (parts: Array<Partial<Exchange> & { method: string; path: string }>): Exchange[] =>
    parts.map((e, i) => ({ index: i, startedAt: new Date(Date.UTC(2025, 0, 1, 0, 0, i)).toISOString(), durationMs: 10, url: `${base}${e.path}`, requestHeaders: {}, responseHeaders: {}, ...e }) as Exchange);
  /** Each selected rule's verdict on the recording. */
  const verdicts = async (exchanges: Exchange[], patterns: string[]): Promise<Record<string, string>> => {
    const { results } = await judgeRecording(exchanges, { surfaces: ['v1'], patterns, profile: profile() });
    return Object.fromEntries(results.map((r) => [r.rule.id, r.verdict]));
  };
  return { journal, verdicts };
}

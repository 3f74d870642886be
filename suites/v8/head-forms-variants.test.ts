/**
 * Fixer helper-155 (audit helper-151 F4, F5): the fake takes the two choices the Express deployment
 * took, where only the deep catalogue reaches them (suites/support/never-reached.ts): a head past
 * 8 KiB refused 431 (`v8.contract/header-limit-431`, RFC 9110 §5.4) and a GET with If-None-Match
 * answered 304 (`v8.contract/conditional-304`, RFC 9110 §13.2.2). Before the fix the run-wide rules
 * judged those answers as an ordinary request's: goals, certificates, coverage, memory, capabilities,
 * the scope matrix, accepts-valid and the replay rule failed (11 rules at deep depth).
 */
import { describe, expect, it } from 'vitest';
import { certify } from '../../src/runner/certify.ts';
import type { RuleResult } from '../../src/rule/index.ts';

const VARIANTS = ['v8.contract/header-limit-431', 'v8.contract/conditional-304'] as const;
const PATTERNS = [
  'v8.catalogue.*',
  'v8.goals.shape',
  'v8.certificates.shape',
  'v8.coverage.shape',
  'v8.coverage.scope-filtered',
  'v8.memory.query.ok',
  'v8.capabilities.search.ok',
  'v8.auth.scope-matrix',
  'v8.contract.generated.accepts-valid',
  'v8.missions.idempotency.replay',
  'v8.contract.version-header',
  'v8.errors.problem-shape',
];
const notPassing = (results: readonly RuleResult[]) => results.filter((r) => r.verdict !== 'pass' && r.verdict !== 'not-applicable').map((r) => `${r.rule.id}: ${r.verdict}: ${r.reason?.split('\n')[0]}`);

describe('a gateway limiting its heads to 8 KiB and answering conditional GETs 304, at deep depth', () => {
  it('passes every run-wide rule that reads the catalogue\'s 16 KiB header and If-None-Match: *', async () => {
    const { results, variantsTaken } = await certify({ variants: [...VARIANTS], patterns: PATTERNS, depth: 'deep', seed: 7 });
    expect([...(variantsTaken ?? [])].sort()).toEqual([...VARIANTS].sort());
    expect(notPassing(results)).toEqual([]);
  }, 180_000);
});

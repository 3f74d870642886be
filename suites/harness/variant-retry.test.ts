/** The variant runs judge again, once, only the gating rules a run left inconclusive (suites/support/variant-runs.ts `settled`). */
import { describe, expect, it } from 'vitest';
import type { RuleResult } from '../../src/rule/index.ts';
import { settled } from '../support/variant-runs.ts';

function result(id: string, level: 'required' | 'observation', verdict: RuleResult['verdict']): RuleResult {
  return { rule: { id, level } as RuleResult['rule'], verdict, durationMs: 0, evidence: [], evidenceOmitted: 0, observations: [], cases: [], casesOmitted: 0, rolesRequested: [] };
}

describe('settled', () => {
  it('runs nothing again when no gating rule was inconclusive', async () => {
    let asked: string[] | undefined;
    const first = [result('a.b.c', 'required', 'pass'), result('a.b.obs', 'observation', 'inconclusive')];
    const got = await settled(first, async (patterns) => ((asked = patterns), []));
    expect(asked).toBeUndefined();
    expect(got.retried).toEqual([]);
    expect(got.results.map((r) => r.verdict)).toEqual(['pass', 'inconclusive']);
  });

  it('judges the inconclusive gating rules again and keeps the second verdict, whatever it is', async () => {
    let asked: string[] | undefined;
    const first = [result('a.b.c', 'required', 'pass'), result('a.b.d', 'required', 'inconclusive'), result('a.b.e', 'required', 'inconclusive')];
    const got = await settled(first, async (patterns) => ((asked = patterns), [result('a.b.d', 'required', 'pass'), result('a.b.e', 'required', 'inconclusive')]));
    expect(asked).toEqual(['a.b.d', 'a.b.e']);
    expect(got.retried).toEqual(['a.b.d', 'a.b.e']);
    expect(got.results.map((r) => `${r.rule.id} ${r.verdict}`)).toEqual(['a.b.c pass', 'a.b.d pass', 'a.b.e inconclusive']);
  });
});

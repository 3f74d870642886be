/**
 * The rows of `npm run load:verify` that go through `apicert load`, run against the fake k6: the
 * row logic reads the command's output and its run folder as they are today, so a change of the
 * layout (`<out>/<timestamp>/`, `latest`) or of the verdict lines fails here, in CI, rather than
 * turning the verification table into "no summary" rows on real k6.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rulesOf } from '../../src/load/rules.ts';
import { compareMerged, throughApicert, TIMING_BOUND } from '../../scripts/load-verify-rows.ts';
import { CATCHES } from './catches.ts';
import { fakeK6 } from './k6-shim/fake-k6.ts';

const SCRIPT = 'v8-idempotency-storm';
const RULES = JSON.stringify({ [SCRIPT]: rulesOf(SCRIPT).map((r) => r.id) });

describe('npm run load:verify, its `apicert load` rows, on the fake k6', () => {
  it('a clean run whose k6 exits 0 and writes its summary in the run folder is ok; an uncaught fault is not', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'apicert-load-verify-rows-'));
    const rows = await throughApicert(fakeK6(dir), join(dir, 'out'), [SCRIPT], ['clean', 'faults'], { FAKE_K6_RULES: RULES });
    expect(rows.map((r) => r.case)).toEqual(['`apicert load` (no target), clean', ...CATCHES[SCRIPT].map((c) => `fault \`${c.fault}\``)]);
    expect(rows[0]).toMatchObject({ ok: true, got: 'k6 0, apicert 0, summary' });
    // The fake k6 passes every rule whatever the fault: each fault row must say it was not caught.
    for (const row of rows.slice(1)) expect(row, row.case).toMatchObject({ ok: false, got: expect.stringMatching(/^k6 0, apicert 0, pass/) });
  }, 120_000);

  it('a fault row is ok when k6 exits 99 and apicert names the failing rule and check; the clean row then is not', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'apicert-load-verify-rows-'));
    const [first] = CATCHES[SCRIPT];
    // The check the fake k6 names is the catch's own reason (plain words), so that a rewording of the check follows here.
    expect(first!.reason.source).toMatch(/^[\w ,]+$/);
    const rows = await throughApicert(fakeK6(dir), join(dir, 'out'), [SCRIPT], ['clean', 'faults'], { FAKE_K6_RULES: RULES, FAKE_K6_FAIL: first!.rule, FAKE_K6_CHECK: first!.reason.source });
    const byCase = new Map(rows.map((r) => [r.case, r]));
    expect(byCase.get('`apicert load` (no target), clean')).toMatchObject({ ok: false, got: expect.stringMatching(/^k6 99, apicert 1, summary: FAIL/) });
    for (const c of CATCHES[SCRIPT]) expect(byCase.get(`fault \`${c.fault}\``)!.ok, c.fault).toBe(c.rule === first!.rule);
  }, 120_000);

  describe('the k6-operator rows: merged verdicts against the whole run', () => {
    const FANOUT = 'v8-stream-fanout';
    const LATE = 'v8.missions.events.after-terminal/late-event-changes-state';
    const required = rulesOf(FANOUT).filter((r) => r.level === 'required').map((r) => r.id);
    const lines = (verdicts: Record<string, string>) => required.map((id) => `${verdicts[id] ?? 'pass'} ${id}: reason`).join('\n');

    it('a clean case compares every required rule, and one differing rule makes it differ', () => {
      const whole = required.map((id) => ({ id, verdict: 'pass' }));
      expect(compareMerged(FANOUT, undefined, whole, lines({}))).toEqual({ differing: [], uncompared: [] });
      expect(compareMerged(FANOUT, undefined, whole, lines({ 'load.v8.events.fanout-resume': 'FAIL' })).differing).toEqual(['load.v8.events.fanout-resume']);
    });

    it('the late-event fault leaves out only its timing-bound collateral, names it, and still compares the rule it is for', () => {
      const bound = TIMING_BOUND[LATE]!.rules;
      const caught = CATCHES[FANOUT].filter((c) => c.fault === LATE).map((c) => c.rule);
      expect(caught.length).toBeGreaterThan(0);
      for (const rule of caught) expect(bound).not.toContain(rule);
      const whole = required.map((id) => ({ id, verdict: caught.includes(id) ? 'fail' : 'pass' }));
      const collateral = lines(Object.fromEntries([...caught, 'load.v8.events.fanout-resume'].map((id) => [id, 'FAIL'])));
      const compared = compareMerged(FANOUT, LATE, whole, collateral);
      expect(compared.differing).toEqual([]);
      expect(compared.uncompared).toContain('load.v8.events.fanout-resume (whole pass, merged fail)');
      expect(compared.uncompared).toHaveLength(bound.length);
      // The rule the fault is for passing in the merge is a difference, never left out.
      expect(compareMerged(FANOUT, LATE, whole, lines({})).differing).toEqual(caught);
      // Another fault of the same script compares its collateral.
      const other = CATCHES[FANOUT].find((c) => c.fault !== LATE)!;
      const otherWhole = required.map((id) => ({ id, verdict: id === other.rule ? 'fail' : 'pass' }));
      expect(compareMerged(FANOUT, other.fault, otherWhole, lines({ [other.rule]: 'FAIL', 'load.v8.events.fanout-resume': 'FAIL' })).differing).toEqual(['load.v8.events.fanout-resume']);
    });
  });
});

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
import { throughApicert } from '../../scripts/load-verify-rows.ts';
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
    const rows = await throughApicert(fakeK6(dir), join(dir, 'out'), [SCRIPT], ['clean', 'faults'], { FAKE_K6_RULES: RULES, FAKE_K6_FAIL: first!.rule, FAKE_K6_CHECK: 'every answer names the same mission' });
    const byCase = new Map(rows.map((r) => [r.case, r]));
    expect(byCase.get('`apicert load` (no target), clean')).toMatchObject({ ok: false, got: expect.stringMatching(/^k6 99, apicert 1, summary: FAIL/) });
    for (const c of CATCHES[SCRIPT]) expect(byCase.get(`fault \`${c.fault}\``)!.ok, c.fault).toBe(c.rule === first!.rule);
  }, 120_000);
});

/**
 * apicert against a target that answers every request with a 1 GiB body, with every rule: the long
 * hostile run (its 40 s deadline sets its length), in a file of its own so that it runs on the other
 * worker beside the modes of suites/hostile/hostile.test.ts instead of after them.
 */
import { describe, expect, it } from 'vitest';
import { RULES } from '../../src/registry.ts';
import { expectUnderRssCap } from '../support/hostile-limits.ts';
import { certifyHostile } from './certify-hostile.ts';

describe('certifying a target that answers every request with a 1 GiB body, every rule (generated ones included)', () => {
  it('stays under the memory cap, ends by itself and passes nothing on the hostile answers', { timeout: 150_000 }, async () => {
    const run = await certifyHostile('huge-body', { deadline: '40s', killAfterMs: 140_000 });
    const context = `huge-body, every rule: exit ${run.exitCode}, ${JSON.stringify(run.verdicts)}, peak ${run.peakRssMiB} MiB, stderr ${(run.outputs.stderr ?? '').slice(-600)}`;
    expect(run.signal, context).toBeNull();
    // Every rule of the catalogue is in the report, the generated ones among them.
    expect(run.report!.rules.length, context).toBe(RULES.length);
    expect(run.report!.rules.some((r) => r.id.includes('.generated.')), context).toBe(true);
    // Only the target's HTTP server answers some framing cases (Node's parser refuses an HTTP/1.1 request
    // without Host with a 400 of its own, before the hostile handler runs): a catalogue refusal rule may
    // pass on that honest refusal, when the run gets that far. Nothing passes on the hostile answers.
    const rules = (JSON.parse(run.outputs['report.json']!) as { rules: Array<{ id: string; verdict: string; evidence?: Array<{ response?: { status?: number } }> }> }).rules;
    const passed = rules.filter((r) => r.verdict === 'pass');
    expect(passed.filter((r) => !/\.catalogue\.error-status$/.test(r.id)).map((r) => r.id), context).toEqual([]);
    for (const r of passed) {
      const statuses = r.evidence?.map((e) => e.response?.status) ?? [];
      expect(statuses, `${r.id}: ${context}`).toContain(400);
      expect(statuses.every((s) => s === 400), `${r.id}: ${context}`).toBe(true);
    }
    expect(run.leaks, context).toEqual([]);
    expectUnderRssCap(run.peakRssMiB, context);
  });
});

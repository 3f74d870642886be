/**
 * A readback that counts every tenant's runs is found only on a quiet target: beside rules that start
 * runs of the primary tenant, every counter of the other tenant drifts during the "quiet" interval
 * and would be set aside. `v1.usage.tenant-scoped` declares `quiet`, so the runner runs it alone.
 */
import { describe, expect, it } from 'vitest';
import { certify } from '../../src/runner/certify.ts';
import { RULES } from '../../src/registry.ts';

describe('v1.usage.tenant-scoped needs a quiet target', () => {
  it('is declared quiet', () => {
    expect(RULES.find((r) => r.id === 'v1.usage.tenant-scoped')?.quiet).toBe(true);
  });

  it('catches usage counting every tenant even when rules that start runs are selected beside it', { timeout: 180_000 }, async () => {
    const { results } = await certify({ faults: ['v1.usage.tenant-scoped/counts-all-tenants'], patterns: ['v1.usage.tenant-scoped', 'v1.execute.*', 'v1.runs.*'], seed: 7 });
    const scoped = results.find((r) => r.rule.id === 'v1.usage.tenant-scoped')!;
    expect(scoped.verdict, scoped.reason).toBe('fail');
  });
});

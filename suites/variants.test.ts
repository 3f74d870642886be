import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { VARIANTS } from '../src/fake/variants/index.ts';
import { combinedSets, RUN_ALONE, singleVariants, type Surface } from './support/variant-runs.ts';

/**
 * The variant runs live in one file per surface (suites/variants-<surface>.test.ts, each calling
 * `variantRuns`); this holds that those files together still run every variant alone and every
 * combinable variant in a combined set, so a surface left out of the split cannot go unnoticed.
 */
describe('the variant runs split by surface', () => {
  it('run every variant alone, and every variant that does not leave rules untestable (nor runs alone, RUN_ALONE) in a combined set', () => {
    const dir = new URL('.', import.meta.url).pathname;
    const calls = readdirSync(dir)
      .filter((f) => /^variants-.+\.test\.ts$/.test(f))
      .flatMap((f) => [...readFileSync(`${dir}${f}`, 'utf8').matchAll(/^variantRuns\('([^']+)'\)/gm)].map((m) => m[1] as Surface));
    expect(new Set(calls).size, `a surface registered twice: ${calls.join(', ')}`).toBe(calls.length);
    for (const surface of calls) expect(singleVariants(surface).length, `${surface} has no variants`).toBeGreaterThan(0);
    const all = VARIANTS.map((v) => v.id).sort();
    expect(calls.flatMap((s) => singleVariants(s)).sort()).toEqual(all);
    const combinable = VARIANTS.filter((v) => !('leavesUntestable' in v) && !(v.id in RUN_ALONE)).map((v) => v.id).sort();
    expect(calls.flatMap((s) => combinedSets(s).flat()).sort()).toEqual(combinable);
  });
});

describe('the legal-variation table', () => {
  it('lists every variant, and every variant is looked up in its area of the fake', () => {
    const root = new URL('..', import.meta.url).pathname;
    const table = readFileSync(join(root, 'docs/legal-variation.md'), 'utf8');
    const files = (dir: string): string[] => readdirSync(join(root, dir)).flatMap((f) => (statSync(join(root, dir, f)).isDirectory() ? files(`${dir}/${f}`) : [`${dir}/${f}`]));
    const fake = files('src/fake').filter((f) => f.endsWith('.ts') && !f.startsWith('src/fake/variants/'));
    for (const v of VARIANTS) {
      expect(table, v.id).toContain(`\`${v.id}`);
      const [surface, rest] = v.id.split('.') as [string, string];
      const area = rest.split('/')[0]!;
      const lookedUpIn = fake.filter((f) => readFileSync(join(root, f), 'utf8').includes(`'${v.id}'`));
      expect(lookedUpIn.length, `${v.id} is looked up nowhere in the fake`).toBeGreaterThan(0);
      expect(lookedUpIn.filter((f) => f !== `src/fake/${surface}/${area}.ts` && !f.startsWith(`src/fake/${surface}/${area}/`)), v.id).toEqual([]);
    }
  });
});

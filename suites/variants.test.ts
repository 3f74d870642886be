import { describe, expect, it } from 'vitest';
import { conflictsOf, VARIANTS, type VariantId } from '../src/fake/variants/index.ts';
import type { Profile } from '../src/profile/schema.ts';
import type { RuleResult } from '../src/rule/index.ts';
import { certify } from '../src/runner/certify.ts';

/**
 * The clean run under every legal variant of the fake: a deployment may choose differently from the
 * fake wherever the seeds or MCP leave a choice open, and a rule that fails such a choice
 * over-assumes. Each variant is run against the rules of its surface; not-applicable is allowed
 * (a stateless server has no sessions to judge), and untestable where the variant's choice leaves a
 * rule without what it needs and the reason says so (`leavesUntestable`); any other verdict but pass
 * is not.
 */
/** The SHOULD rules the variants knowingly do not follow (their `departsFrom`). */
function departsFrom(ids: readonly VariantId[]): string[] {
  return VARIANTS.filter((v) => ids.includes(v.id)).flatMap((v) => ('departsFrom' in v ? [...v.departsFrom] : []));
}

/** The phrases of the untestable reasons the variants' choices leave (`leavesUntestable`). */
function untestableBy(ids: readonly VariantId[]): string[] {
  return VARIANTS.filter((v) => ids.includes(v.id)).flatMap((v) => ('leavesUntestable' in v ? [v.leavesUntestable] : []));
}

/**
 * Gating rules that neither passed nor did not apply, but for the SHOULD rules a variant departs
 * from, and the rules a variant's choice leaves untestable (saying so).
 */
function wrongVerdicts(results: readonly RuleResult[], departs: readonly string[], untestable: readonly string[] = []): string[] {
  return results
    .filter((r) => r.rule.level !== 'observation' && !departs.includes(r.rule.id) && r.verdict !== 'pass' && r.verdict !== 'not-applicable')
    .filter((r) => !(r.verdict === 'untestable' && untestable.some((phrase) => r.reason?.includes(phrase))))
    .map((r) => `${r.rule.id}: ${r.verdict}: ${r.reason?.split('\n')[0]}`);
}

/**
 * The model-based rules take most of a surface's run (20 random sequences); one variant at a time
 * tries 5, and the runs with every variant on at once keep the profile's 20.
 */
function fewerModelRuns(profile: Profile): Profile {
  return { ...profile, safety: { ...profile.safety, modelRuns: 5 } };
}

/**
 * Variants the clean run never reaches, and why: the fake asks for them only on a path no rule takes.
 * Every other variant must be taken (the fake bent for it) in its run, or that run proved nothing.
 */
const NEVER_REACHED: Readonly<Record<string, string>> = {
  'mcp.lifecycle/initialized-required': 'no rule sends a request other than ping before notifications/initialized; the variant stands guard against one that would',
  'v8.missions/events-accept-required': 'every read of a mission event stream sends Accept: text/event-stream (the probe client sets it); the variant stands guard against one that would not',
};

describe.concurrent('clean run under every legal variant', () => {
  it.each(VARIANTS.map((v) => [v.id] as const))('%s: every gating rule of its surface passes or does not apply', async (id) => {
    const surface = id.split('.')[0] as 'v8' | 'v1' | 'mcp';
    const { results, report, variantsTaken } = await certify({ variants: [id as VariantId], surfaces: [surface], seed: 13, adjustEmbeddedProfile: fewerModelRuns });
    if (id in NEVER_REACHED) expect(variantsTaken, `listed in NEVER_REACHED, yet the fake bent for ${id}: take it off the list`).toEqual([]);
    else expect(variantsTaken, 'the fake never bent for this variant during the run: the run proved nothing about it').toEqual([id]);
    const departs = departsFrom([id as VariantId]);
    expect(wrongVerdicts(results, departs, untestableBy([id as VariantId]))).toEqual([]);
    // A SHOULD not followed is a warning the report shows; the gate stays green.
    for (const ruleId of departs) expect(results.find((r) => r.rule.id === ruleId), ruleId).toMatchObject({ verdict: 'fail', rule: { level: 'should' } });
    // Rules the choice leaves without what they need hold the gate at untestable, as they should: never a pass over nothing, never a fail.
    const leftUntestable = results.some((r) => r.rule.level !== 'observation' && r.verdict === 'untestable');
    expect(report.summary.gate).toBe(leftUntestable ? 'untestable' : 'pass');
    expect(report.target.variants).toEqual([id]);
    expect(report.summary.judged).toBeGreaterThan(0);
  });
});

/**
 * Legal choices meet: a deployment takes many at once, so each surface is also run with every
 * variant of the surface on together. Variants that take different choices at one point go into
 * separate sets, so every variant is in one set.
 */
function combinedSets(surface: string): VariantId[][] {
  // A choice that leaves rules untestable would leave the other variants' choices at those rules unjudged: it runs alone (above).
  let left = VARIANTS.filter((v) => !('leavesUntestable' in v)).map((v) => v.id as VariantId).filter((id) => id.startsWith(`${surface}.`));
  const sets: VariantId[][] = [];
  while (left.length > 0) {
    const set: VariantId[] = [];
    for (const id of left) if (!conflictsOf([...set, id])) set.push(id);
    sets.push(set);
    left = left.filter((id) => !set.includes(id));
  }
  return sets;
}

describe.concurrent('clean run with every variant of a surface on at once', () => {
  const cases = (['v8', 'v1', 'mcp'] as const).flatMap((surface) => combinedSets(surface).map((set) => [surface, set.join(',')] as const));
  it.each(cases)('%s: %s', async (surface, list) => {
    const variants = list.split(',') as VariantId[];
    const { results, report } = await certify({ variants, surfaces: [surface], seed: 29 });
    expect(wrongVerdicts(results, departsFrom(variants))).toEqual([]);
    expect(report.summary.gate).toBe('pass');
    expect(report.target.variants).toEqual(variants);
    expect(report.summary.judged).toBeGreaterThan(0);
  });
});

describe('the legal-variation table', () => {
  it('lists every variant, and every variant is looked up in its area of the fake', async () => {
    const { readFileSync, readdirSync, statSync } = await import('node:fs');
    const { join } = await import('node:path');
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

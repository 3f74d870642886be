import { describe, expect, it } from 'vitest';
import { conflictsOf, VARIANTS, type VariantId } from '../../src/fake/variants/index.ts';
import { SLOW_RESUME_MS } from '../../src/fake/v1/runs/engine.ts';
import type { Profile } from '../../src/profile/schema.ts';
import type { RuleResult } from '../../src/rule/index.ts';
import { certify } from '../../src/runner/certify.ts';
import { NEVER_REACHED } from './never-reached.ts';

/**
 * The clean run under every legal variant of the fake: a deployment may choose differently from the
 * fake wherever the seeds or MCP leave a choice open, and a rule that fails such a choice
 * over-assumes. Each variant is run against the rules of its surface; not-applicable is allowed
 * (a stateless server has no sessions to judge), and untestable where the variant's choice leaves a
 * rule without what it needs and the reason says so (`leavesUntestable`); any other verdict but pass
 * is not.
 *
 * One file per surface (suites/variants-<surface>.test.ts) calls `variantRuns`, so the two CI workers
 * share the runs; suites/variants.test.ts holds that the files together cover every variant.
 */
export type Surface = 'v8' | 'v1' | 'mcp';

/**
 * Five certify runs share one event loop under describe.concurrent, so a run's wall time is about five
 * times its own work (up to 38 s observed on CI); the default 60 s is too close on a busy machine.
 */
export const VARIANT_RUN_TIMEOUT_MS = 180_000;
/**
 * A run with every variant of a surface on takes the slow choices together (a quiet long run, a slow
 * resume, parked reminders) and retries what they left inconclusive: 22 s alone on a quiet machine,
 * over 180 s once in a CI rehearsal at load 5-10 beside four other runs. Its own, longer bound.
 */
export const COMBINED_RUN_TIMEOUT_MS = 3 * VARIANT_RUN_TIMEOUT_MS;

/** The SHOULD rules the variants knowingly do not follow (their `departsFrom`). */
function departsFrom(ids: readonly VariantId[]): string[] {
  return VARIANTS.filter((v) => ids.includes(v.id)).flatMap((v) => ('departsFrom' in v ? [...v.departsFrom] : []));
}

/** The phrases of the untestable reasons the variants' choices leave (`leavesUntestable`). */
function untestableBy(ids: readonly VariantId[]): string[] {
  return VARIANTS.filter((v) => ids.includes(v.id)).flatMap((v) => ('leavesUntestable' in v ? [v.leavesUntestable] : []));
}

/** The phrases of the inconclusive reasons the variants' choices leave (`leavesInconclusive`). */
function inconclusiveBy(ids: readonly VariantId[]): string[] {
  return VARIANTS.filter((v) => ids.includes(v.id)).flatMap((v) => ('leavesInconclusive' in v ? [...v.leavesInconclusive] : []));
}

/**
 * Gating rules that neither passed nor did not apply, but for the SHOULD rules a variant departs
 * from, and the rules a variant's choice leaves untestable or inconclusive (saying so).
 */
function wrongVerdicts(results: readonly RuleResult[], departs: readonly string[], untestable: readonly string[] = [], inconclusive: readonly string[] = []): string[] {
  return results
    .filter((r) => r.rule.level !== 'observation' && !departs.includes(r.rule.id) && r.verdict !== 'pass' && r.verdict !== 'not-applicable')
    .filter((r) => !(r.verdict === 'untestable' && untestable.some((phrase) => r.reason?.includes(phrase))))
    .filter((r) => !(r.verdict === 'inconclusive' && inconclusive.some((phrase) => r.reason?.includes(phrase))))
    .map((r) => `${r.rule.id}: ${r.verdict}: ${r.reason?.split('\n')[0]}`);
}

/**
 * The results of a variant run, with each gating rule it left inconclusive judged once more in a run of
 * those rules alone (same variants, same profile), whose verdicts replace theirs. Inconclusive is
 * transport trouble, a budget or a deadline, never a verdict on the variant: five certify runs share one
 * event loop here, and on a busy machine a 10 s stream read of v1.runs.cancel.terminal-event ran out
 * before the fake wrote the terminal event it had to send (CI of 4a56d30, with every /v1 variant on).
 * A rule inconclusive twice stays so, and fails the test.
 */
export async function settled(results: readonly RuleResult[], again: (patterns: string[]) => Promise<readonly RuleResult[]>): Promise<{ results: RuleResult[]; retried: string[] }> {
  const retried = results.filter((r) => r.rule.level !== 'observation' && r.verdict === 'inconclusive').map((r) => r.rule.id);
  if (retried.length === 0) return { results: [...results], retried };
  const second = new Map((await again(retried)).map((r) => [r.rule.id, r]));
  return { results: results.map((r) => second.get(r.rule.id) ?? r), retried };
}

/**
 * How long a webhook rule waits for a delivery or its retry. The fake's profile gives 8 s; five certify runs on one
 * event loop of a loaded machine have delivered later than that (v1.webhooks.delivery.retry and terminal-events
 * failed, the listing and replay rules went untestable). The rules stop waiting as soon as the delivery arrives,
 * so a clean run costs no more; these runs judge legal choices, not how fast a loaded machine delivers.
 */
const DELIVERY_WAIT_MS = 30_000;

function patientDeliveries(profile: Profile): Profile {
  return { ...profile, fixtures: { ...profile.fixtures, webhooks: { ...profile.fixtures.webhooks, deliveryTimeoutMs: DELIVERY_WAIT_MS } } };
}

/**
 * How long the approve rules watch a run after an approve (safety.approvalWatchMs; the profile's default
 * is 3 s). No sentence bounds how soon the resume comes: v1.runs/slow-resume shows it SLOW_RESUME_MS
 * after the approve, and with every /v1 choice on at once a loaded machine resumed the fake's runs after
 * 3 s too (CI of 424fe05). These runs judge legal choices, so they watch long enough; a run that resumes
 * ends the watch at once, only digest-binds watches the whole window for a resume that must not come.
 */
const APPROVAL_WATCH_MS = SLOW_RESUME_MS * 3;

/** Variants whose runs need the longer approval watch when run alone. */
const WATCH_LONG: readonly string[] = ['v1.runs/slow-resume'];

function patientApprovals(profile: Profile): Profile {
  return { ...profile, safety: { ...profile.safety, approvalWatchMs: APPROVAL_WATCH_MS } };
}

/**
 * The model-based rules take most of a surface's run (20 random sequences); one variant at a time
 * tries 5, and the runs with every variant on at once keep the profile's 20.
 */
function fewerModelRuns(profile: Profile): Profile {
  return patientDeliveries({ ...profile, safety: { ...profile.safety, modelRuns: 5 } });
}

/** The profile of one variant's run alone. */
function aloneProfile(id: string): (profile: Profile) => Profile {
  return WATCH_LONG.includes(id) ? (p) => patientApprovals(fewerModelRuns(p)) : fewerModelRuns;
}

/** The profile of a combined set's run: every delivery and every resume may come late. */
function combinedProfile(profile: Profile): Profile {
  return patientApprovals(patientDeliveries(profile));
}


function surfaceOf(id: string): string {
  return id.split('.')[0]!;
}

/**
 * Variants run alone only, and why. (v1.contract/gzip-answers once ran alone while the approve rules
 * failed a run whose resume came after their fixed watch, CI of 424fe05; the watch is now
 * safety.approvalWatchMs, which the combined runs lengthen.)
 */
export const RUN_ALONE: Readonly<Record<string, string>> = {
  // Audit s26 /v1 F1: a stream written whole when it ends shows no run in flight and no parked run until it leaves that
  // state, so the cancel and approve rules are inconclusive (its `leavesInconclusive`); in a combined set that would leave
  // the other variants' choices there unjudged.
  'v1.runs/buffered-streams': 'leaves the cancel and approve rules inconclusive: no stream shows a run in flight or parked before it ends',
};

/** The variants run one at a time for `surface`: every variant of it. */
export function singleVariants(surface: Surface): VariantId[] {
  return VARIANTS.map((v) => v.id as VariantId).filter((id) => surfaceOf(id) === surface);
}

/**
 * Legal choices meet: a deployment takes many at once, so each surface is also run with every
 * variant of the surface on together. Variants that take different choices at one point go into
 * separate sets, so every variant is in one set.
 */
export function combinedSets(surface: Surface): VariantId[][] {
  // A choice that leaves rules untestable would leave the other variants' choices at those rules unjudged: it runs alone (above).
  let left = VARIANTS.filter((v) => !('leavesUntestable' in v) && !(v.id in RUN_ALONE)).map((v) => v.id as VariantId).filter((id) => surfaceOf(id) === surface);
  const sets: VariantId[][] = [];
  while (left.length > 0) {
    const set: VariantId[] = [];
    for (const id of left) if (!conflictsOf([...set, id])) set.push(id);
    sets.push(set);
    left = left.filter((id) => !set.includes(id));
  }
  return sets;
}

/** Registers, for one surface, the clean run under each of its variants and under each combined set. */
export function variantRuns(surface: Surface): void {
  describe.concurrent(`${surface}: clean run under every legal variant`, () => {
    it.each(singleVariants(surface).map((id) => [id] as const))(
      '%s: every gating rule of its surface passes or does not apply',
      async (id) => {
        const run = { variants: [id], surfaces: [surface], seed: 13, adjustEmbeddedProfile: aloneProfile(id) };
        const { results: first, report, variantsTaken } = await certify(run);
        const { results, retried } = await settled(first, async (patterns) => (await certify({ ...run, surfaces: undefined, patterns })).results);
        if (id in NEVER_REACHED) expect(variantsTaken, `listed in NEVER_REACHED, yet the fake bent for ${id}: take it off the list`).toEqual([]);
        else expect(variantsTaken, 'the fake never bent for this variant during the run: the run proved nothing about it').toEqual([id]);
        const departs = departsFrom([id]);
        expect(wrongVerdicts(results, departs, untestableBy([id]), inconclusiveBy([id]))).toEqual([]);
        // A SHOULD not followed is a warning the report shows; the gate stays green.
        for (const ruleId of departs) expect(results.find((r) => r.rule.id === ruleId), ruleId).toMatchObject({ verdict: 'fail', rule: { level: 'should' } });
        // Rules the choice leaves without what they need hold the gate at untestable, as they should: never a pass over nothing, never a fail.
        const leftUntestable = results.some((r) => r.rule.level !== 'observation' && r.verdict === 'untestable');
        // The first run's gate counts what it left inconclusive; the verdicts above hold the rules judged again.
        if (retried.length === 0) expect(report.summary.gate).toBe(leftUntestable ? 'untestable' : 'pass');
        expect(report.target.variants).toEqual([id]);
        expect(report.summary.judged).toBeGreaterThan(0);
      },
      VARIANT_RUN_TIMEOUT_MS,
    );
  });

  describe.concurrent(`${surface}: clean run with every variant of the surface on at once`, () => {
    it.each(combinedSets(surface).map((set) => [set.join(',')] as const))(
      '%s',
      async (list) => {
        const variants = list.split(',') as VariantId[];
        const run = { variants, surfaces: [surface], seed: 29, adjustEmbeddedProfile: combinedProfile };
        const { results: first, report } = await certify(run);
        const { results, retried } = await settled(first, async (patterns) => (await certify({ ...run, surfaces: undefined, patterns })).results);
        expect(wrongVerdicts(results, departsFrom(variants))).toEqual([]);
        if (retried.length === 0) expect(report.summary.gate).toBe('pass');
        expect(report.target.variants).toEqual(variants);
        expect(report.summary.judged).toBeGreaterThan(0);
      },
      COMBINED_RUN_TIMEOUT_MS,
    );
  });
}

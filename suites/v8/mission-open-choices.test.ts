/**
 * Legal choices of /v8 mission events and cancel that the description leaves open, each taken by a
 * variant of the fake: the rules that meet them pass, and record which choice the target took.
 */
import { describe, expect, it } from 'vitest';
import type { VariantId } from '../../src/fake/variants/index.ts';
import type { Profile } from '../../src/profile/schema.ts';
import type { RuleResult } from '../../src/rule/index.ts';
import { certify } from '../../src/runner/certify.ts';

const fewerModelRuns = (profile: Profile): Profile => ({ ...profile, safety: { ...profile.safety, modelRuns: 5 } });

async function run(variant: VariantId, patterns: string[]): Promise<{ results: RuleResult[]; taken: VariantId[] }> {
  const { results, variantsTaken } = await certify({ variants: [variant], surfaces: ['v8'], patterns, seed: 13, adjustEmbeddedProfile: fewerModelRuns });
  return { results, taken: variantsTaken ?? [] };
}

function verdicts(results: readonly RuleResult[]): Array<[string, string, string]> {
  return results.map((r) => [r.rule.id, r.verdict, r.reason?.split('\n')[0] ?? '']);
}

function observed(results: readonly RuleResult[], ruleId: string, subject: string): unknown[] {
  return (results.find((r) => r.rule.id === ruleId)?.observations ?? []).filter((o) => o.subject === subject).map((o) => o.value);
}

describe.concurrent('open choices of /v8 mission events and cancel', () => {
  // "Events after a terminal event are informational only, not state-changing." / "The stream closes after a terminal event."
  it('an informational event after the terminal event, then the close, passes the stream rules and the model', async () => {
    const rules = ['v8.missions.events.shape', 'v8.missions.events.closes-after-terminal', 'v8.missions.events.after-terminal', 'v8.missions.events.resume', 'v8.missions.lifecycle.model'];
    const { results, taken } = await run('v8.missions/informational-after-terminal', rules);
    expect(taken).toEqual(['v8.missions/informational-after-terminal']);
    expect(verdicts(results).sort()).toEqual(rules.map((id) => [id, 'pass', '']).sort());
    // The stream read until it closed carried the informational event: the rule judged it, not a stream cut at the terminal event.
    expect(JSON.stringify(results.find((r) => r.rule.id === 'v8.missions.events.closes-after-terminal')?.evidence)).toContain('mission.audit-note');
  }, 120_000);

  // "Cancel request body and response body: not shown."; the Errors table has no cancel row.
  it('a cancel of an ended mission refused with a 422 problem passes the model, which records the status', async () => {
    const { results, taken } = await run('v8.missions/cancel-ended-refused', ['v8.missions.lifecycle.model', 'v8.missions.cancel.*']);
    expect(taken).toEqual(['v8.missions/cancel-ended-refused']);
    expect(verdicts(results).filter(([, verdict]) => verdict !== 'pass' && verdict !== 'not-applicable')).toEqual([]);
    expect(observed(results, 'v8.missions.lifecycle.model', 'cancel of an ended mission refused with status')).toContain(422);
  }, 120_000);

  // "A `Last-Event-ID` outside the window gives `409`": nothing is said of a value that is no cursor at all.
  it('a Last-Event-ID the server never issued refused with 400 passes the replay-window rule without a stale cursor, which records it', async () => {
    const { results, taken } = await run('v8.missions/malformed-cursor-400', ['v8.missions.events.replay-window-409', 'v8.missions.events.resume']);
    expect(taken).toEqual(['v8.missions/malformed-cursor-400']);
    expect(verdicts(results)).toEqual([
      ['v8.missions.events.resume', 'pass', ''],
      ['v8.missions.events.replay-window-409', 'pass', ''],
    ]);
    expect(observed(results, 'v8.missions.events.replay-window-409', 'a cursor never issued answered')).toEqual([400]);
  }, 120_000);
});

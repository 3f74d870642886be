import { describe, expect, it } from 'vitest';
import type { FaultId } from '../../src/fake/faults/index.ts';
import type { RuleResult } from '../../src/rule/index.ts';
import { certify } from '../../src/runner/certify.ts';

/**
 * A stream that delivers its terminal event and then stays open fails the rule that states the
 * ending, and only that one: every other rule judges what it read up to the terminal event, so it
 * neither waits for the server to close (no read of it ends by the close grace) nor turns
 * inconclusive (a read that waited for the end would meet the short read timeout).
 */
async function heldOpen(fault: FaultId, patterns: string[], closingRule: string): Promise<RuleResult[]> {
  const { results } = await certify({
    faults: [fault],
    patterns,
    seed: 5,
    // A short read timeout makes a reader that waits for the end give up (inconclusive) soon.
    adjustEmbeddedProfile: (p) => ({ ...p, safety: { ...p.safety, requestTimeoutMs: 2_000, streamCloseGraceMs: 300 } }),
  });
  const closing = results.find((r) => r.rule.id === closingRule);
  expect(closing?.verdict, closing?.reason).toBe('fail');
  expect(closing?.reason).toMatch(/still open/);
  return results.filter((r) => r.rule.id !== closingRule);
}

function expectJudgedUpToTerminal(others: RuleResult[]): void {
  expect(others.length).toBeGreaterThan(0);
  for (const r of others) {
    expect(['fail', 'inconclusive'], `${r.rule.id}: ${r.verdict} ${r.reason ?? ''}`).not.toContain(r.verdict);
    const waited = r.evidence.filter((e) => e.response?.closedBy === 'grace-expired');
    expect(waited.map((e) => e.label), r.rule.id).toEqual([]);
  }
}

describe('a stream held open after its terminal event', () => {
  it('/v1 turn streams: v1.execute.turn.stream fails, the other turn rules judge up to the terminal event', async () => {
    const others = await heldOpen('v1.execute.turn.stream/held-open', ['v1.execute.turn.*', 'v1.execute.idempotency.*', 'v1.execute.accept-header', 'v1.chat.*', 'v1.versioning.*'], 'v1.execute.turn.stream');
    expect(others.some((r) => r.rule.id === 'v1.execute.turn.bodies')).toBe(true);
    expectJudgedUpToTerminal(others);
  }, 120_000);

  it('/v8 mission streams: v8.missions.events.closes-after-terminal fails, the other stream rules judge up to the terminal event', async () => {
    const others = await heldOpen('v8.missions.events.closes-after-terminal/held-open', ['v8.missions.events.*', 'v8.missions.cancel.*', 'v8.traces.*', 'v8.redaction.*'], 'v8.missions.events.closes-after-terminal');
    expectJudgedUpToTerminal(others.filter((r) => r.verdict !== 'untestable'));
  }, 120_000);
});

/**
 * "| `running` or `waiting` | budget limit reached, policy rejection or unrecoverable error | | `failed` |":
 * a failing mission may be rejected before any step, naming no trace (variant v8.missions/fails-before-steps).
 * v8.traces.get.resolves reads the traces of the "succeeds" and "fails" missions: it judges those the
 * "succeeds" mission named and passes (it was untestable, and judge-traffic of the same run passed:
 * audit helper-143 F2). v8.traces.get.completed-at needs a failed step's trace, which there is none of.
 */
import { describe, expect, it } from 'vitest';
import { certify } from '../../src/runner/certify.ts';

describe('v8.missions/fails-before-steps: the "fails" mission names no trace', () => {
  it('resolves passes on the "succeeds" mission\'s traces; completed-at is untestable, naming the fixture', { timeout: 120_000 }, async () => {
    const { results } = await certify({ variants: ['v8.missions/fails-before-steps'], patterns: ['v8.traces.get.resolves', 'v8.traces.get.completed-at'], seed: 5 });
    const by = Object.fromEntries(results.map((r) => [r.rule.id, r]));
    expect(by['v8.traces.get.resolves']!.verdict, by['v8.traces.get.resolves']!.reason).toBe('pass');
    expect(by['v8.traces.get.completed-at']!.verdict).toBe('untestable');
    expect(by['v8.traces.get.completed-at']!.reason).toMatch(/named no traceId/);
  });
});

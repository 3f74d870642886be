/**
 * Audit s26 /v1 F1: behind an ETag middleware a run's event stream arrives whole when the run ends, so the
 * read meant to show the `long` run in flight returned it finished, and v1.runs.cancel.terminal-event
 * failed the 409 its cancel was rightly answered. A cancel is judged only after a read that showed the
 * run in flight (an event, none terminal); else the rule is inconclusive, naming what the read showed.
 */
import { describe, expect, it } from 'vitest';
import { certify } from '../../src/runner/certify.ts';

const ID = 'v1.runs.cancel.terminal-event';

describe(`${ID} under v1.runs/buffered-streams`, () => {
  it('is inconclusive, naming the ended run the read showed, and never sends the cancel', { timeout: 60_000 }, async () => {
    const { results } = await certify({ variants: ['v1.runs/buffered-streams'], patterns: [ID], seed: 4 });
    const r = results.find((x) => x.rule.id === ID)!;
    expect(r.verdict, r.reason).toBe('inconclusive');
    expect(r.reason).toContain('the read of the run before the cancel showed it ended');
    expect(r.reason).toContain('run.completed');
    expect(r.evidence.some((e) => e.request.url.endsWith('/cancel'))).toBe(false);
  });

  it('still passes a streamed run cancelled in flight', { timeout: 60_000 }, async () => {
    const { results } = await certify({ patterns: [ID], seed: 4 });
    const r = results.find((x) => x.rule.id === ID)!;
    expect(r.verdict, r.reason).toBe('pass');
  });
});

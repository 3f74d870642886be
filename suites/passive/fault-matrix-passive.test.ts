/**
 * The passive half of the fault matrix: for every fault whose rule a recording can judge, the
 * recording of a run against that fault (only its rule, to keep it fast) is judged failing.
 */
import { describe, expect, it } from 'vitest';
import { FAULTS, ruleOfFault, type FaultId } from '../../src/fake/faults/index.ts';
import { passiveRuleIds } from '../../src/passive/judge.ts';
import { recordAndJudge } from './record.ts';

/** Deliveries go to apicert's receiver, never out of apicert: another make's recording of the run holds none (recordAndJudge strips them). Their faults are caught from apicert's own recording (delivery-recording.test.ts) and from a team receiver's (receiver-recording.test.ts). */
const RECEIVER_SIDE = new Set(['v1.webhooks.delivery.body', 'v1.webhooks.delivery.id-header', 'v1.webhooks.delivery.signature-format', 'v1.webhooks.delivery.signature-valid', 'v1.webhooks.delivery.timestamp', 'v1.webhooks.delivery.sequence-order']);

/** Faults of passively judged rules that only the active run can show, each with what a recording lacks. */
const ACTIVE_ONLY: Record<string, string> = {
  'v1.catalogue.error-status/forged-key-accepted': 'the forged key has the API key\'s shape (service_sk_…), and a recording hides every value of that shape (src/redact/shapes.ts), so it cannot tell the forged key from an issued one',
  'v1.execute.turn.stream/held-open': 'a foreign recording keeps the stream body, not whether the server closed it after its terminal event (the probe knows it, and the proxy: suites/passive/proxy-streams.test.ts)',
  'v1.errors.rate-limited/never-limits': 'a key served past its tier shows only in the count and timing of a burst apicert sends against the declared tier',
  'v1.errors.rate-limited/limit-as-403': 'an answer 403 entitlement_failed says nothing of a limit: only the burst that reached it shows the key was over its tier',
  'v8.missions.events.closes-after-terminal/held-open': 'a foreign HAR keeps the stream body, not whether the server closed it after its terminal event (the probe knows it, and the proxy: suites/passive/proxy-streams.test.ts)',
  'v8.catalogue.no-5xx/chunked-body-500': 'a raw-socket probe (a chunked body): a recorder inside an HTTP client never sees one',
  'v1.catalogue.no-5xx/utf16-body-500': 'a raw-socket probe (a UTF-16 body): a recorder inside an HTTP client never sees one',
  'v1.catalogue.no-5xx/dot-segment-500': 'a raw-socket probe (a dot segment an HTTP client would remove): a recorder inside an HTTP client never sees one',
  'v8.catalogue.error-status/query-token-accepted': 'a raw-socket probe (the token placed in the query): a recorder inside an HTTP client never sees one',
  'v8.catalogue.error-status/padded-value-400': 'a raw-socket probe (whitespace around the Authorization value the probe client writes): a recorder inside an HTTP client never sees one',
};

const passive = new Set(passiveRuleIds());
const faults = FAULTS.filter((f) => passive.has(ruleOfFault(f.id)) && !RECEIVER_SIDE.has(ruleOfFault(f.id)) && !(f.id in ACTIVE_ONLY));

describe.concurrent('passive fault matrix', () => {
  it('covers a fault of every passively judgeable rule that has one', () => {
    expect(faults.length).toBeGreaterThan(20);
  });

  it.each(faults.map((f) => [f.id, f.description] as const))('%s (%s): the recording is judged failing', async (faultId) => {
    const rule = ruleOfFault(faultId);
    const { active, passive: judged } = await recordAndJudge({ patterns: [rule], faults: [faultId as FaultId] });
    expect(active.results[0]!.verdict, 'the active run fails it too: ' + active.results[0]!.reason).toBe('fail');
    const result = judged.results.find((r) => r.rule.id === rule)!;
    expect(result.verdict, result.reason).toBe('fail');
    // A failed SHOULD is a warning, as in the active run.
    expect(judged.report.summary.gate).toBe(result.rule.level === 'required' ? 'fail' : 'pass');
    // Five recordings share one event loop (describe.concurrent), so the wall time is several times the run's own work.
  }, 180_000);
});

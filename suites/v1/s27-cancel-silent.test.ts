/**
 * Audit s27 /v1 (FastAPI) F1: a cancel answered 200 and never followed by request.cancelled (the run's
 * stream held open, no event) was never failed: v1.runs.cancel.terminal-event stayed inconclusive after
 * a fixed 10 s watch no setting lengthened. No sentence bounds the time, so apicert's own watch decides
 * nothing: the watch is safety.streamTimeoutMs, the inconclusive reason names the bound that would decide
 * (fixtures.v1.cancelledWithinMs), and a deployment that declares it (as the fake's embedded profile does)
 * fails past it. F2: the recording of that run said `client-disconnect` where certify's reader timed out,
 * so judge-traffic said untestable where certify said inconclusive; it now keeps the reader's own stop
 * and reads it as certify did.
 */
import { describe, expect, it } from 'vitest';
import { exchangeOfEntry, harEntryOf, READER_STOP_FIELD } from '../../src/passive/har.ts';
import { judgeRecording } from '../../src/passive/judge.ts';
import { HarRecorder, hidingFor } from '../../src/passive/recorder.ts';
import type { Profile } from '../../src/profile/schema.ts';
import type { Exchange } from '../../src/rule/index.ts';
import { certify, HARNESS_VERSION, redactorFor } from '../../src/runner/certify.ts';
import { v1Recording } from '../passive/v1-recording.ts';

const ID = 'v1.runs.cancel.terminal-event';
const FAULT = 'v1.runs.cancel.terminal-event/silent';

/** The deployment's declared cancel bound set to `declared` (none when undefined), apicert's stream watch to `watchMs`. */
function bounded(declared: number | undefined, watchMs: number): (p: Profile) => Profile {
  return (p) => {
    const { cancelledWithinMs: _declared, ...v1 } = p.fixtures.v1;
    return { ...p, safety: { ...p.safety, streamTimeoutMs: watchMs }, fixtures: { ...p.fixtures, v1: declared === undefined ? v1 : { ...v1, cancelledWithinMs: declared } } };
  };
}

/** Certifies the rule with the fault and `adjust`, then judges the run's own recording with the run's profile. */
async function certifyAndJudge(adjust: (p: Profile) => Profile) {
  const recorder = new HarRecorder();
  const active = await certify({ patterns: [ID], faults: [FAULT], seed: 5, recorder, adjustEmbeddedProfile: adjust });
  const profile = active.profile!;
  // Through JSON, as the file is read.
  const har = JSON.parse(JSON.stringify(recorder.document(HARNESS_VERSION, hidingFor(profile, redactorFor(profile))))) as { log: { entries: Array<{ request: { url: string }; response: Record<string, unknown> }> } };
  const exchanges = har.log.entries.flatMap((e, i) => exchangeOfEntry(e, i) ?? []);
  const passive = await judgeRecording(exchanges, { env: {}, profile, patterns: [ID] });
  return { active: active.results.find((r) => r.rule.id === ID)!, passive: passive.results.find((r) => r.rule.id === ID)!, entries: har.log.entries };
}

describe.concurrent(`${ID}: an accepted cancel that no request.cancelled follows`, () => {
  it('without a declared bound is inconclusive in certify and in its recording alike, naming the bound that would decide', async () => {
    const { active, passive, entries } = await certifyAndJudge(bounded(undefined, 1_500));
    expect(active.verdict, active.reason).toBe('inconclusive');
    expect(active.reason).toContain('its reader stopped it (timeout) before any terminal event');
    expect(active.reason).toContain('fixtures.v1.cancelledWithinMs');
    expect(active.reason).toContain('safety.streamTimeoutMs');
    // The recording keeps the reader's own stop, and judge-traffic reads it as certify did.
    const streams = entries.filter((e) => e.request.url.endsWith('/events'));
    expect(streams.at(-1)!.response[READER_STOP_FIELD]).toBe('timeout');
    expect(passive.verdict, passive.reason).toBe('inconclusive');
    expect(passive.reason).toContain('its reader stopped it (timeout) before any terminal event');
    expect(passive.reason).toContain('fixtures.v1.cancelledWithinMs');
  }, 60_000);

  it('with a declared bound fails past it, naming the bound, in certify and in its recording', async () => {
    const { active, passive } = await certifyAndJudge(bounded(1_000, 30_000));
    expect(active.verdict, active.reason).toBe('fail');
    expect(active.reason).toContain('within 1000 ms of the cancel');
    expect(active.reason).toContain('fixtures.v1.cancelledWithinMs');
    expect(passive.verdict, passive.reason).toBe('fail');
    expect(passive.reason).toContain('fixtures.v1.cancelledWithinMs');
  }, 60_000);

  it('a run that shows request.cancelled passes under the bound the fake declares', async () => {
    const { results } = await certify({ patterns: [ID], seed: 5 });
    expect(results[0]!.verdict, results[0]!.reason).toBe('pass');
  }, 60_000);
});

describe("the HAR field of a reader's stop keeps which stop it was", () => {
  const base = { startedAt: new Date(0), durationMs: 1500, method: 'GET', url: 'http://127.0.0.1:9/v1/runs/r/events', requestHeaders: {}, status: 200, responseHeaders: { 'content-type': 'text/event-stream' }, responseBody: Buffer.from('event: run.progress\nid: 2\ndata: {}\n\n') };

  it.each(['timeout', 'byte-limit', 'event-limit', 'client-disconnect'] as const)('%s is written and read back unchanged', (end) => {
    const entry = harEntryOf({ ...base, readerStopped: true, readerEnd: end }) as { response: Record<string, unknown> };
    expect(entry.response[READER_STOP_FIELD]).toBe(end);
    expect(exchangeOfEntry(JSON.parse(JSON.stringify(entry)), 0)!.streamEnd).toBe(end);
  });

  it('a stop the reader did not name is a client-disconnect, as before', () => {
    const entry = harEntryOf({ ...base, readerStopped: true }) as { response: Record<string, unknown> };
    expect(entry.response[READER_STOP_FIELD]).toBe('client-disconnect');
  });
});

describe(`${ID}, recorded: the bound read from the recording's times`, () => {
  const TOKEN = 'service_sk_cancelsilent0123456789abcdef';
  const LONG = { mode: 'task', task: { scenario: 'apicert.long' } };
  const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
  const sse = { 'content-type': 'text/event-stream' };
  const event = (seq: number, type: string) => `id: ${seq}\nevent: ${type}\ndata: ${JSON.stringify({ run_id: 'run_1', sequence: seq, type })}\n\n`;
  const inFlight = event(1, 'request.accepted') + event(2, 'run.progress');
  type Part = Partial<Exchange> & { method: string; path: string };
  const parts: Part[] = [
    { method: 'POST', path: '/v1/execute', credential: 'full', requestHeaders: auth, requestBody: JSON.stringify(LONG), status: 200, responseHeaders: { 'content-type': 'application/json' }, responseBody: JSON.stringify({ run_id: 'run_1' }) },
    { method: 'GET', path: '/v1/runs/run_1/events', credential: 'full', requestHeaders: auth, status: 200, responseHeaders: sse, responseBody: inFlight, streamEnd: 'client-disconnect' as const },
    { method: 'POST', path: '/v1/runs/run_1/cancel', credential: 'full', requestHeaders: auth, status: 200, responseHeaders: { 'content-type': 'application/json' }, responseBody: '{}' },
    // Read from its start for 8 s after the cancel was answered (the journal's exchanges are 1 s apart), until apicert's reader timed out.
    { method: 'GET', path: '/v1/runs/run_1/events', credential: 'full', requestHeaders: auth, status: 200, responseHeaders: sse, responseBody: inFlight, streamEnd: 'timeout' as const, durationMs: 8_000 },
  ];
  const ended: Part = { method: 'GET', path: '/v1/runs/run_1/events', credential: 'full', requestHeaders: auth, status: 200, responseHeaders: sse, responseBody: inFlight + event(3, 'request.cancelled'), streamEnd: 'server' as const };
  const judged = (declared: number | undefined, extra: Part[] = []) => {
    const { journal, verdicts } = v1Recording('https://fabric.example.com', TOKEN, { long: LONG }, declared === undefined ? {} : { cancelledWithinMs: declared });
    return verdicts(journal([...parts, ...extra]), [ID]);
  };

  it('fails a read past the declared bound that shows no request.cancelled', async () => {
    expect((await judged(5_000))[ID]).toBe('fail');
  });

  it('is inconclusive when the read stopped short of the bound, or no bound is declared', async () => {
    expect((await judged(20_000))[ID]).toBe('inconclusive');
    expect((await judged(undefined))[ID]).toBe('inconclusive');
  });

  it('passes when a later read shows request.cancelled: an earlier reader may have been stalled', async () => {
    expect((await judged(5_000, [ended]))[ID]).toBe('pass');
  });
});

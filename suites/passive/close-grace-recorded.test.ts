/**
 * "The stream closes after a terminal event." (v8 Endpoints, Rules 5.) Certify fails a stream still
 * open when the close grace after its terminal event runs out; its own recording (`--har-out`) once
 * said only that apicert's reader let go of it ("client-disconnect"), so judge-traffic of that file
 * was untestable where certify failed (audit helper-151 F10). The recording now says the grace ran
 * out and how long it was, and the same rule fails from it, citing the grace the reader waited
 * whatever profile judges the file. A stream the reader let go of at its terminal event, without
 * waiting, still says only that.
 */
import { describe, expect, it } from 'vitest';
import { CLOSE_GRACE_FIELD, exchangeOfEntry, harEntryOf, READER_STOP_FIELD } from '../../src/passive/har.ts';
import { judgeRecording } from '../../src/passive/judge.ts';
import { HarRecorder, hidingFor } from '../../src/passive/recorder.ts';
import { certify, HARNESS_VERSION, redactorFor } from '../../src/runner/certify.ts';

const RULE = 'v8.missions.events.closes-after-terminal';

interface Entry {
  request: { url: string };
  response: Record<string, unknown>;
}

describe('certify --har-out records a close grace that ran out', () => {
  it('judge-traffic of the recording fails the stream held open, as certify did, with the grace the reader waited', async () => {
    const recorder = new HarRecorder();
    const active = await certify({ patterns: [RULE], faults: ['v8.missions.events.closes-after-terminal/held-open'], seed: 7, recorder });
    expect(active.results.find((r) => r.rule.id === RULE)?.verdict).toBe('fail');
    const profile = active.profile!;
    const grace = profile.safety.streamCloseGraceMs;
    // Through JSON, as the file is read.
    const har = JSON.parse(JSON.stringify(recorder.document(HARNESS_VERSION, hidingFor(profile, redactorFor(profile))))) as { log: { entries: Entry[] } };
    const streams = har.log.entries.filter((e) => e.request.url.endsWith('/events'));
    expect(streams.length).toBeGreaterThan(0);
    for (const e of streams) {
      expect(e.response[READER_STOP_FIELD]).toBe('grace-expired');
      expect(e.response[CLOSE_GRACE_FIELD]).toBe(grace);
    }
    // A judge with another grace in its profile still cites the one the reader waited.
    const other = { ...profile, safety: { ...profile.safety, streamCloseGraceMs: grace + 1234 } };
    const exchanges = har.log.entries.flatMap((e, i) => exchangeOfEntry(e, i) ?? []);
    const passive = await judgeRecording(exchanges, { env: {}, profile: other, patterns: [RULE] });
    const result = passive.results.find((r) => r.rule.id === RULE)!;
    expect(result.verdict).toBe('fail');
    expect(result.reason).toContain(`the stream was still open ${grace} ms after mission.completed`);
  }, 60_000);
});

describe('the HAR fields of a reader\'s stop', () => {
  const base = { startedAt: new Date(0), durationMs: 1500, method: 'GET', url: 'http://127.0.0.1:9/v8/missions/m/events', requestHeaders: {}, status: 200, responseHeaders: { 'content-type': 'text/event-stream' }, responseBody: Buffer.from('event: mission.completed\nid: 1\ndata: {}\n\n') };

  it('reads a grace run out back as the reader saw it', () => {
    const entry = harEntryOf({ ...base, readerStopped: true, closeGraceMs: 750 }) as unknown as Entry;
    expect(entry.response).toMatchObject({ [READER_STOP_FIELD]: 'grace-expired', [CLOSE_GRACE_FIELD]: 750 });
    const ex = exchangeOfEntry(JSON.parse(JSON.stringify(entry)), 0)!;
    expect(ex.streamEnd).toBe('grace-expired');
    expect(ex.closeGraceMs).toBe(750);
  });

  it('keeps a reader that let go without waiting a client-disconnect, with no grace', () => {
    const entry = harEntryOf({ ...base, readerStopped: true }) as unknown as Entry;
    expect(entry.response[READER_STOP_FIELD]).toBe('client-disconnect');
    expect(entry.response[CLOSE_GRACE_FIELD]).toBeUndefined();
    const ex = exchangeOfEntry(JSON.parse(JSON.stringify(entry)), 0)!;
    expect(ex.streamEnd).toBe('client-disconnect');
    expect(ex.closeGraceMs).toBeUndefined();
  });
});

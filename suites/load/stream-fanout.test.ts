import { afterEach, describe, expect, it } from 'vitest';
import { credentialOf } from '../../src/load/config.ts';
import { cursorPositions, v1EventsFanout, v1IdCases, v1ResumeIdCases, v8StreamFanout } from '../../src/load/scenarios/stream-fanout.ts';
import { parseEventStreamText } from '../../src/sse/text.ts';
import type { FaultId } from '../../src/fake/faults/index.ts';
import { catchRows } from './catches.ts';
import { fakeTarget, FetchTransport, newKey, summarise, verdictOf, type Target } from './support.ts';
import { startFake } from '../../src/fake/server.ts';
import { embeddedProfile } from '../../src/fake/embedded-profile.ts';
import { loadConfig } from '../../src/load/config.ts';
import { envFromProfile } from '../../src/load/profile-env.ts';

let target: Target | undefined;
afterEach(async () => {
  await target?.fake.close();
  target = undefined;
});

// A stream held open is only seen when its readers time out: they wait 1.5 s there (the mission ends in ~0.1 s).
const HELD_OPEN: FaultId = 'v8.missions.events.closes-after-terminal/held-open';

async function v8Fanout(faults: FaultId[] = []) {
  target = await fakeTarget(faults);
  const t = target;
  const streamTimeoutMs = faults.includes(HELD_OPEN) ? 1_500 : 5_000;
  return summarise('v8-stream-fanout', t.config.baseUrl, () => v8StreamFanout(t.transport, { ...t.config, token: credentialOf('v8-stream-fanout', t.config), readers: 10, resumers: 3, streamTimeoutMs, key: newKey }));
}

async function v1Fanout(faults: FaultId[] = []) {
  target = await fakeTarget(faults);
  const t = target;
  return summarise('v1-events-fanout', t.config.baseUrl, () => v1EventsFanout(t.transport, { ...t.config, token: credentialOf('v1-events-fanout', t.config), readers: 10, resumers: 3, streamTimeoutMs: 5_000, key: newKey }));
}

describe('v8 stream fan-out', () => {
  it('passes on the fake: 10 readers agree, 3 resumed readers see the rest', async () => {
    const summary = await v8Fanout();
    for (const rule of ['load.v8.events.fanout-same-events', 'load.v8.events.fanout-one-terminal', 'load.v8.events.fanout-resume', 'load.v8.events.fanout-after-terminal']) {
      expect(verdictOf(summary, rule), rule).toMatchObject({ verdict: 'pass' });
    }
    expect(summary.rules['load.v8.events.fanout-resume']!.passes).toBe(6);
    expect(summary.rules['load.v8.events.fanout-after-terminal']).toMatchObject({ passes: 2, fails: 0 });
    expect(summary.figures.v8_fanout_readers_judged).toMatchObject({ count: 1, min: 10 });
  });

  // "Events after a terminal event are informational only, not state-changing"; "The stream closes
  // after a terminal event" does not say right after: one informational event may follow it.
  it('passes when an informational event follows the terminal event (v8.missions/informational-after-terminal)', async () => {
    const fake = await startFake({ variants: ['v8.missions/informational-after-terminal'] });
    target = { fake, config: loadConfig(envFromProfile(embeddedProfile(fake))), transport: new FetchTransport() };
    const t = target;
    const summary = await summarise('v8-stream-fanout', t.config.baseUrl, () => v8StreamFanout(t.transport, { ...t.config, token: credentialOf('v8-stream-fanout', t.config), readers: 10, resumers: 3, streamTimeoutMs: 5_000, key: newKey }));
    for (const rule of ['load.v8.events.fanout-same-events', 'load.v8.events.fanout-one-terminal', 'load.v8.events.fanout-resume', 'load.v8.events.fanout-after-terminal']) {
      expect(verdictOf(summary, rule), rule).toMatchObject({ verdict: 'pass' });
    }
    expect(fake.context.variants.taken()).toContain('v8.missions/informational-after-terminal');
  });

  it.each(catchRows('v8-stream-fanout'))('%s fails %s', async (fault, rule, reason) => {
    const verdict = verdictOf(await v8Fanout([fault]), rule);
    expect(verdict.verdict).toBe('fail');
    expect(verdict.reason).toMatch(reason);
  });
});

describe('v1 run-events fan-out', () => {
  it('passes on the fake', async () => {
    const summary = await v1Fanout();
    expect(verdictOf(summary, 'load.v1.events.fanout-same-events')).toMatchObject({ verdict: 'pass' });
    expect(verdictOf(summary, 'load.v1.events.fanout-resume')).toMatchObject({ verdict: 'pass' });
  });

  it.each(catchRows('v1-events-fanout'))('%s fails %s', async (fault, rule, reason) => {
    const verdict = verdictOf(await v1Fanout([fault]), rule);
    expect(verdict.verdict).toBe('fail');
    expect(verdict.reason).toMatch(reason);
  });
});

describe('fan-out helpers', () => {
  it('spreads resume cursors over the stream, never at its last event', () => {
    expect(cursorPositions(6, 3)).toEqual([1, 2, 3]);
    expect(cursorPositions(2, 5)).toEqual([0]);
    expect(cursorPositions(1, 3)).toEqual([]);
  });

  it('wants every /v1 event to carry an identity, its SSE ids increasing sequence numbers, as certify judges them', () => {
    const events = (ids: string[]) => parseEventStreamText(ids.map((id) => (id === '' ? 'data: {}\n\n' : id.startsWith('data:') ? `data: {"event_id":"${id.slice(5)}"}\n\n` : `id: ${id}\ndata: {}\n\n`)).join('')).events;
    const failing = (ids: string[]) => v1IdCases(events(ids)).filter((c) => !c.ok).map((c) => c.check);
    expect(failing(['1', '2', '10'])).toEqual([]);
    expect(failing(['1', '1'])).toEqual(['no two events of one run share an identity', 'the SSE ids increase along the stream']);
    expect(failing(['1', 'b'])).toEqual(['every SSE id is the integer sequence Last-Event-ID carries', 'the SSE ids increase along the stream']);
    expect(failing(['1', '', '3'])).toEqual(['every event carries an identity: an SSE id or an event id in its data']);
    // Audit 60, finding 5: an identity in the data is one to deduplicate by (v1.runs.events.identity); the missing SSE id is the resume rule's.
    expect(failing(['1', 'data:note-1', '3'])).toEqual([]);
    expect(v1ResumeIdCases(events(['1', 'data:note-1', '3'])).filter((c) => !c.ok).map((c) => c.check)).toEqual(['every event carries its sequence as SSE id, so Last-Event-ID can name it']);
    expect(failing([])).toEqual(['the stream of a run that ran carries events']);
  });
});

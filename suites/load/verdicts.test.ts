import { afterEach, describe, expect, it } from 'vitest';
import { embeddedProfile } from '../../src/fake/embedded-profile.ts';
import type { FaultId } from '../../src/fake/faults/index.ts';
import { startFake, type RunningFake } from '../../src/fake/server.ts';
import { parseEventStreamText } from '../../src/sse/text.ts';
import { judgeConflicts, judgeFanout, judgeIdempotencyStorm, summariseBurst, type Observed } from '../../src/load/verdicts.ts';

// The verdicts the k6 scripts compute, fed with real traffic from the reference fake, with and
// without the fault each one exists to catch.
let fake: RunningFake | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function target(faults: FaultId[] = []) {
  fake = await startFake({ faults });
  const profile = embeddedProfile(fake);
  const token = profile.credentials.find((c) => c.name === 'full')!.token;
  const body = profile.fixtures.v8.missions.succeeds!;
  const create = async (key: string, payload: unknown): Promise<Observed> => {
    const res = await fetch(`${fake!.baseUrl}/v8/missions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify(payload),
    });
    return { status: res.status, body: await res.text() };
  };
  return { token, body, create, baseUrl: fake.baseUrl };
}

describe('idempotency storm verdicts', () => {
  it('pass on the fake: 20 concurrent creates with one key name one mission, other bodies get 409', async () => {
    const t = await target();
    const same = await Promise.all(Array.from({ length: 20 }, () => t.create('apicert-storm-key-0001', t.body)));
    expect(judgeIdempotencyStorm(same)).toMatchObject({ ok: true });
    const changed = await Promise.all(Array.from({ length: 5 }, (_, i) => t.create('apicert-storm-key-0001', { ...t.body, variant: i })));
    expect(judgeConflicts(changed)).toMatchObject({ ok: true });
  });

  it('fail when a replay re-executes', async () => {
    const t = await target(['v8.missions.idempotency.replay/re-executes']);
    const same = await Promise.all(Array.from({ length: 10 }, () => t.create('apicert-storm-key-0002', t.body)));
    const verdict = judgeIdempotencyStorm(same);
    expect(verdict.ok).toBe(false);
    expect(verdict.summary).toMatch(/different missions/);
  });

  it('fail when another body is answered as a replay', async () => {
    const t = await target(['v8.missions.idempotency.conflict/replays-different-body']);
    await t.create('apicert-storm-key-0003', t.body);
    const changed = await Promise.all(Array.from({ length: 5 }, (_, i) => t.create('apicert-storm-key-0003', { ...t.body, variant: i })));
    expect(judgeConflicts(changed).ok).toBe(false);
  });
});

describe('stream fan-out verdict', () => {
  it('pass on the fake: 10 readers of one live mission see the same events', async () => {
    const t = await target();
    const created = await t.create('apicert-fanout-key-0001', t.body);
    const { runId } = JSON.parse(created.body) as { runId: string };
    const bodies = await Promise.all(
      Array.from({ length: 10 }, async () => {
        const res = await fetch(`${t.baseUrl}/v8/missions/${runId}/events`, { headers: { authorization: `Bearer ${t.token}`, accept: 'text/event-stream' } });
        return res.text();
      }),
    );
    const verdict = judgeFanout(bodies.map((b) => parseEventStreamText(b).events));
    expect(verdict.ok, verdict.summary).toBe(true);
  });

  it('fail when one reader misses an event or the stream has no terminal event', () => {
    const full = parseEventStreamText('id: 1\nevent: mission.started\ndata: {}\n\nid: 2\nevent: mission.completed\ndata: {}\n\n').events;
    expect(judgeFanout([full, full.slice(0, 1)]).ok).toBe(false);
    expect(judgeFanout([full.slice(0, 1)]).summary).toMatch(/not a terminal event/);
    expect(judgeFanout([]).ok).toBe(false);
  });
});

describe('rate-limit burst summary', () => {
  it('records where the first 429 came and its Retry-After', () => {
    expect(summariseBurst([{ status: 200 }, { status: 200 }, { status: 429, retryAfter: '60' }])).toEqual({
      sent: 3,
      firstLimitedAt: 3,
      retryAfter: '60',
      statuses: { 200: 2, 429: 1 },
    });
    expect(summariseBurst([{ status: 200 }]).firstLimitedAt).toBeUndefined();
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { taskScenarios } from '../../scenarios/v1/runs.ts';
import type { RunEventNotice } from '../../src/fake/context.ts';
import { embeddedProfile } from '../../src/fake/embedded-profile.ts';
import { startFake, type RunningFake } from '../../src/fake/server.ts';
import type { Profile } from '../../src/profile/schema.ts';

// What other parts of the fake (webhooks) rely on: every run event is published, with a terminal notice.
describe('the /v1 run engine of the fake', () => {
  let fake: RunningFake;
  let profile: Profile;
  const notices: RunEventNotice[] = [];

  beforeAll(async () => {
    fake = await startFake();
    profile = embeddedProfile(fake);
    fake.context.runEvents.on('run', (n) => notices.push(n));
  });
  afterAll(() => fake.close());

  const token = (name: string) => profile.credentials.find((c) => c.name === name)!.token;

  async function post(path: string, body: unknown): Promise<Response> {
    return fetch(`${fake.baseUrl}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token('v1-full')}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  }

  async function runOf(body: unknown): Promise<string> {
    const res = await post('/v1/execute', body);
    expect(res.status).toBe(200);
    return ((await res.json()) as { run_id: string }).run_id;
  }

  async function waitFor(runId: string, type: string, withinMs: number): Promise<RunEventNotice | undefined> {
    const deadline = Date.now() + withinMs;
    while (Date.now() < deadline) {
      const found = notices.find((n) => n.runId === runId && n.type === type);
      if (found) return found;
      await new Promise((r) => setTimeout(r, 10));
    }
    return undefined;
  }

  /**
   * How long to wait for an event the scenario owes. Nominally tens of milliseconds, but the description promises no
   * timing and a loaded fork can stall for over a second; a missing event still fails, just later.
   */
  const OWED_WITHIN_MS = 10_000;

  it.each([
    ['completes', 'run.completed'],
    ['fails', 'run.failed'],
  ] as const)('publishes every event of a "%s" task run, ending with %s', async (scenario, terminal) => {
    const runId = await runOf(taskScenarios[scenario].request);
    const end = await waitFor(runId, terminal, OWED_WITHIN_MS);
    expect(end).toMatchObject({ tenant: 'tenant-a', principal: 'v1-alice', runId, type: terminal });
    const sequences = notices.filter((n) => n.runId === runId).map((n) => n.sequence);
    expect(sequences).toEqual(sequences.map((_, i) => i + 1));
    expect(notices.find((n) => n.runId === runId)?.type).toBe('request.accepted');
  });

  it('parks a "parks" run with an action_digest and finishes it after approval', async () => {
    const runId = await runOf(taskScenarios.parks.request);
    const parked = await waitFor(runId, 'approval.required', OWED_WITHIN_MS);
    expect(parked, 'approval.required').toBeDefined();
    const digest = parked?.data.action_digest;
    expect(typeof digest).toBe('string');
    const wrong = await post(`/v1/runs/${runId}/approve`, { action_digest: `${String(digest)}0`, decision: 'approved' });
    expect(wrong.status).toBe(409);
    const right = await post(`/v1/runs/${runId}/approve`, { action_digest: digest, decision: 'approved' });
    expect(right.status).toBe(200);
    expect(await waitFor(runId, 'run.completed', OWED_WITHIN_MS), 'run.completed after approval').toBeDefined();
  });

  it('ends a cancelled "long" run with request.cancelled and nothing after it', async () => {
    const runId = await runOf(taskScenarios.long.request);
    expect((await post(`/v1/runs/${runId}/cancel`, undefined)).status).toBe(200);
    expect(await waitFor(runId, 'request.cancelled', OWED_WITHIN_MS), 'request.cancelled after the cancel').toBeDefined();
    await new Promise((r) => setTimeout(r, 400));
    expect(notices.filter((n) => n.runId === runId).at(-1)?.type).toBe('request.cancelled');
  });
});

/**
 * `apicert proxy` and the event streams its clients let go of (audit s27-proxy F1, F2). A stream a
 * client stops following (a waiting mission's), or one the proxy's stop cuts, was read as far as it
 * came: its reader stopped it, as apicert's own reader records it, and the gate judges what was read
 * instead of lacking it. A stream the server held open past the close grace after its terminal
 * event fails v8.missions.events.closes-after-terminal in the proxy, as certify finds it.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { embeddedProfile } from '../../src/fake/embedded-profile.ts';
import { startFake, type RunningFake } from '../../src/fake/server.ts';
import { readHar } from '../../src/passive/har.ts';
import { judgeRecording, recordingHiding } from '../../src/passive/judge.ts';
import { packBatch, unpackBatch } from '../../src/passive/live-batch.ts';
import { profileOfFacts } from '../../src/passive/profile-facts.ts';
import { exchangeOfBytes, startProxy, type RunningProxy } from '../../src/passive/proxy.ts';
import { hiddenHar, writeHar } from '../../src/passive/recorder.ts';
import type { Profile } from '../../src/profile/schema.ts';
import type { Exchange } from '../../src/rule/index.ts';
import { until, within } from '../support/bounded.ts';

const BODY_LIMIT = 64 * 1024;
const budget = { maximumSteps: 50, maximumToolCalls: 20, maximumElapsedMs: 600_000, maximumParallelism: 2 };

describe('event streams a client of the proxy lets go of', () => {
  it('a waiting mission\'s stream its client stops following, and one still open at the proxy\'s stop, are judged as read: the gate passes', async () => {
    await behindProxy({}, (profile) => profile, async (proxy, token) => {
      const runId = await createMission(proxy, token, 'apicert scenario waits: ask the operator before sending', 'apicert-let-go-0000001');
      const events = `/v8/missions/${runId}/events`;
      // The mission parks after its step: its stream shows the step and no terminal event, and stays open.
      const stepped = (text: string) => /event: mission\.step\.completed[^]*?\n\n/.test(text);
      const dashboard = await follow(proxy, events, token, stepped);
      await dashboard.letGo();
      const read = await fetch(new URL(`/v8/missions/${runId}`, proxy.url), { headers: { authorization: `Bearer ${token}` } });
      expect(((await read.json()) as { status: string }).status).toBe('waiting');
      // Still followed when the proxy stops (the end of --duration).
      await follow(proxy, events, token, stepped);
      await until('the stream let go of and the read recorded', () => proxy.recorded().filter((r) => r.durationMs !== undefined).length === 3);
    }, async (exchanges, recorded, profile) => {
      const streams = exchanges.filter((ex) => ex.path.endsWith('/events'));
      expect(streams.map((ex) => [ex.streamEnd, ex.error, ex.responseBodyTruncated])).toEqual([
        ['client-disconnect', undefined, undefined],
        ['timeout', undefined, undefined],
      ]);
      const judged = await judgeRecording(exchanges, { env: {}, profile });
      const verdict = (id: string) => `${id}: ${judged.results.find((r) => r.rule.id === id)!.verdict}`;
      for (const id of ['v8.missions.events.shape', 'v8.missions.events.trace-id']) expect(verdict(id)).toBe(`${id}: pass`);
      // No terminal event was read: not the closing rule's; a 2xx event stream has no problem document to lack.
      for (const id of ['v8.missions.events.closes-after-terminal', 'v8.contract.generated.problem-json']) expect(verdict(id)).toBe(`${id}: not-applicable`);
      expect(judged.report.summary.gate).toBe('pass');
      // Its recording (--har-out) and its live judging read the same.
      expect((await fromHar(recorded, exchanges, profile)).results.map((r) => `${r.rule.id}: ${r.verdict}`)).toEqual(judged.results.map((r) => `${r.rule.id}: ${r.verdict}`));
      expect(throughLiveBatch(recorded).map((ex) => ex.streamEnd)).toEqual(exchanges.map((ex) => ex.streamEnd));
    });
  }, 30_000);

  it('a stream the server holds open past the close grace after its terminal event fails closes-after-terminal, let go of by its client or cut by the stop', async () => {
    const graceMs = 200;
    await behindProxy({ faults: ['v8.missions.events.closes-after-terminal/held-open'] }, (profile) => ({ ...profile, safety: { ...profile.safety, streamCloseGraceMs: graceMs } }), async (proxy, token) => {
      const runId = await createMission(proxy, token, 'apicert scenario succeeds: summarise three short documents', 'apicert-held-open-0001');
      const events = `/v8/missions/${runId}/events`;
      const ended = (text: string) => /event: mission\.completed[^]*?\n\n/.test(text);
      const client = await follow(proxy, events, token, ended);
      // The client waits well past the grace: the server sends nothing and does not close.
      await new Promise((resolve) => setTimeout(resolve, 3 * graceMs));
      await client.letGo();
      await follow(proxy, events, token, ended);
      await until('the stream let go of recorded', () => proxy.recorded().filter((r) => r.durationMs !== undefined).length === 2);
      await new Promise((resolve) => setTimeout(resolve, 3 * graceMs));
    }, async (exchanges, recorded, profile) => {
      const streams = exchanges.filter((ex) => ex.path.endsWith('/events'));
      expect(streams.map((ex) => [ex.streamEnd, ex.closeGraceMs])).toEqual([
        ['grace-expired', graceMs],
        ['grace-expired', graceMs],
      ]);
      const rule = 'v8.missions.events.closes-after-terminal';
      for (const judged of [await judgeRecording(exchanges, { env: {}, profile, patterns: [rule] }), await fromHar(recorded, exchanges, profile, [rule])]) {
        const result = judged.results.find((r) => r.rule.id === rule)!;
        expect(result.verdict, result.reason).toBe('fail');
        expect(result.reason).toMatch(/still open 200 ms after mission\.completed/);
      }
      expect(throughLiveBatch(recorded).map((ex) => [ex.streamEnd, ex.closeGraceMs])).toEqual(exchanges.map((ex) => [ex.streamEnd, ex.closeGraceMs]));
    });
  }, 30_000);
});

/**
 * The fake behind a proxy given `profile`: `traffic` runs through it, the proxy stops (cutting what
 * is still open), and `judge` gets what it recorded. Both stop whatever `traffic` threw.
 */
async function behindProxy(
  fakeOptions: Parameters<typeof startFake>[0],
  adjust: (profile: Profile) => Profile,
  traffic: (proxy: RunningProxy, token: string) => Promise<void>,
  judge: (exchanges: Exchange[], recorded: RunningProxy['recorded'], profile: Profile) => Promise<void>,
): Promise<void> {
  const fake: RunningFake = await startFake(fakeOptions);
  let proxy: RunningProxy | undefined;
  try {
    const profile = adjust(embeddedProfile(fake));
    proxy = await startProxy({ upstream: fake.baseUrl, bodyLimit: BODY_LIMIT, maxExchanges: 100, profile });
    const token = profile.credentials.find((c) => c.name === 'full')!.token;
    await traffic(proxy, token);
    await proxy.close();
    const stopped = proxy;
    proxy = undefined;
    await judge(stopped.exchanges(), () => stopped.recorded(), profile);
  } finally {
    await proxy?.close();
    await fake.close();
  }
}

async function createMission(proxy: RunningProxy, token: string, task: string, key: string): Promise<string> {
  const res = await fetch(new URL('/v8/missions', proxy.url), { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': key }, body: JSON.stringify({ goalSpec: { task }, resourceBudget: budget }) });
  expect(res.status).toBe(202);
  return ((await res.json()) as { runId: string }).runId;
}

/** Follows a stream through the proxy until `enough` of it came; `letGo` then stops following it, as a dashboard closing does. */
async function follow(proxy: RunningProxy, path: string, token: string, enough: (text: string) => boolean): Promise<{ letGo: () => Promise<void> }> {
  const abort = new AbortController();
  const res = await fetch(new URL(path, proxy.url), { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' }, signal: abort.signal });
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (!enough(text)) {
    const { value, done } = await within(10_000, `the events of ${path}`, reader.read());
    if (done) throw new Error(`the stream ended before it showed what the test waits for: ${text}`);
    text += decoder.decode(value, { stream: true });
  }
  return { letGo: async () => abort.abort() };
}

/** The recording as `proxy --har-out` writes it, read back and judged with the facts it carries, as judge-traffic does. */
async function fromHar(recorded: RunningProxy['recorded'], exchanges: Exchange[], profile: Profile, patterns?: string[]) {
  const file = join(mkdtempSync(join(tmpdir(), 'apicert-proxy-streams-')), 'rec.har');
  await writeHar(file, hiddenHar(recorded(), 'test', recordingHiding(exchanges, profile, {})));
  const read = await readHar(file);
  expect(read.exchanges.map((ex) => [ex.streamEnd, ex.closeGraceMs])).toEqual(exchanges.map((ex) => [ex.streamEnd, ex.closeGraceMs]));
  return judgeRecording(read.exchanges, { env: {}, profile: profileOfFacts(read.facts, file)!, ...(patterns ? { patterns } : {}) });
}

/** The exchanges as live judging gets them: across to its thread in a batch. */
function throughLiveBatch(recorded: RunningProxy['recorded']): Exchange[] {
  const items = recorded().map((rec, index) => ({ rec, index }));
  return unpackBatch(packBatch(items)).map(({ rec, index }) => exchangeOfBytes(rec, index, BODY_LIMIT));
}

/**
 * "A signal to a mission in a terminal state gives `409`", yet the signal row's errors name `400` for
 * the body, `401`, `403` and `409` in no order, and "A token without the scope required for the
 * endpoint gives `403`" (audit s27-v8 F1). A signal to an ended mission that another cause fits (an
 * invalid body, a caller without missions:write, a malformed key) may be refused for that cause first:
 * v8.missions.signals.terminal-409 judges only the well-formed one, and records what the others got.
 *
 * The fake takes that choice: it checks the caller's scope, the key and the body before it looks at
 * the mission's state. Its traffic, as a recorder keeps it, passes, and a fake that accepts a signal
 * to an ended mission still fails on the well-formed one. The reads after a terminal state are held
 * to 200 only in an ordinary form (a query may be refused for itself).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { embeddedProfile } from '../../src/fake/embedded-profile.ts';
import type { FaultId } from '../../src/fake/faults/index.ts';
import { startFake, type RunningFake } from '../../src/fake/server.ts';
import { afterTerminal } from '../../src/checks/v8/missions/events.ts';
import { signalTerminal } from '../../src/checks/v8/missions/signals.ts';
import { judgeRecording } from '../../src/passive/judge.ts';
import type { Exchange } from '../../src/rule/index.ts';
import { judgementCases } from '../support/judgement-cases.ts';

const RULE = 'v8.missions.signals.terminal-409';

let fake: RunningFake | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

let keys = 0;
const freshKey = () => `apicert-other-causes-${String((keys += 1)).padStart(6, '0')}`;

/** Sends one request with fetch and keeps it as a recorder keeps it. */
async function send(base: string, token: string, method: string, path: string, body?: unknown, key?: string): Promise<Omit<Exchange, 'index'>> {
  const requestHeaders: Record<string, string> = { authorization: `Bearer ${token}` };
  if (body !== undefined) requestHeaders['content-type'] = 'application/json';
  if (key !== undefined) requestHeaders['idempotency-key'] = key;
  const requestBody = body === undefined ? undefined : JSON.stringify(body);
  const startedAt = new Date();
  const t0 = performance.now();
  const res = await fetch(`${base}${path}`, { method, headers: requestHeaders, body: requestBody });
  const responseBody = await res.text();
  return {
    startedAt: startedAt.toISOString(),
    durationMs: Math.round(performance.now() - t0),
    method,
    url: `${base}${path}`,
    path,
    requestHeaders,
    ...(requestBody === undefined ? {} : { requestBody }),
    status: res.status,
    responseHeaders: Object.fromEntries(res.headers),
    responseBody,
  };
}

/**
 * The audit's sequence against the fake: a `waits` mission created, cancelled and read back ended by
 * its creator; then signals another cause fits (two invalid bodies, a malformed key), a read and a
 * well-formed signal by a caller without missions:write, and last a well-formed signal by the creator.
 */
async function recording(faults: FaultId[] = []) {
  const running = (fake = await startFake({ faults }));
  const profile = embeddedProfile(running);
  const token = (name: string) => profile.credentials.find((c) => c.name === name)!.token;
  const [full, nowrite] = [token('full'), token('without-missions-write')];
  const base = running.baseUrl.replace(/\/$/, '');
  const out: Array<Omit<Exchange, 'index'>> = [];
  const keep = async (sent: Promise<Omit<Exchange, 'index'>>) => {
    const ex = await sent;
    out.push(ex);
    return ex;
  };
  const created = await keep(send(base, full, 'POST', '/v8/missions', profile.fixtures.v8.missions.waits, freshKey()));
  const mission = `/v8/missions/${(JSON.parse(created.responseBody!) as { runId: string }).runId}`;
  await keep(send(base, full, 'POST', `${mission}/cancel`, undefined, freshKey()));
  // The cancel may end the mission a little later: read until it shows ended (bounded).
  for (let i = 0; i < 50; i += 1) {
    const read = await keep(send(base, full, 'GET', mission));
    if ((JSON.parse(read.responseBody!) as { status: string }).status === 'cancelled') break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const refusable = [
    await keep(send(base, full, 'POST', `${mission}/signals`, { payload: {} }, freshKey())),
    await keep(send(base, full, 'POST', `${mission}/signals`, { signal: '', payload: {} }, freshKey())),
    await keep(send(base, full, 'POST', `${mission}/signals`, { signal: 'apicert.late', payload: {} }, 'short')),
  ];
  await keep(send(base, nowrite, 'GET', mission));
  refusable.push(await keep(send(base, nowrite, 'POST', `${mission}/signals`, { signal: 'apicert.late', payload: { a: 1 } }, freshKey())));
  const wellFormed = await keep(send(base, full, 'POST', `${mission}/signals`, { signal: 'apicert.late', payload: { a: 1 } }, freshKey()));
  return { exchanges: out.map((ex, index) => ({ ...ex, index }) as Exchange), profile, refusable, wellFormed };
}

describe(`${RULE}: a signal another cause fits is not held to 409`, () => {
  it("the fake's answers (400 for the body and the key, 403 for the scope, 409 for the well-formed signal) pass, and what the others got is recorded", async () => {
    const { exchanges, profile, refusable, wellFormed } = await recording();
    expect(refusable.map((ex) => ex.status)).toEqual([400, 400, 400, 403]);
    expect(wellFormed.status).toBe(409);
    const { results } = await judgeRecording(exchanges, { surfaces: ['v8'], patterns: [RULE], env: {}, profile });
    const result = results[0]!;
    expect(result.verdict, result.reason).toBe('pass');
    // Only the well-formed signal is a case.
    expect(judgementCases(signalTerminal.judgement!, exchanges, profile, 'recording')).toEqual([{ ok: true, reason: expect.any(String) }]);
    const observed = result.observations.map((o) => `${o.subject} ${String(o.value)}`);
    expect(observed).toEqual(expect.arrayContaining([expect.stringMatching(/a body not of the contract's shape answered 400$/), expect.stringMatching(/a caller without missions:write .* answered 403$/), expect.stringMatching(/idempotency-key answered 400$/)]));
  }, 20_000);

  it('without a profile the caller without missions:write is told from the traffic (no signal of it was ever accepted)', async () => {
    const { exchanges } = await recording();
    const { results } = await judgeRecording(exchanges, { surfaces: ['v8'], patterns: [RULE], env: {} });
    expect(results[0]!.verdict, results[0]!.reason).toBe('pass');
    expect(judgementCases(signalTerminal.judgement!, exchanges, undefined, 'recording').map((c) => c.ok)).toEqual([true]);
  }, 20_000);

  it('a fake that accepts a signal to an ended mission still fails, on the well-formed signal alone', async () => {
    const { exchanges, profile, wellFormed } = await recording(['v8.missions.signals.terminal-409/accepted']);
    expect(wellFormed.status).toBe(200);
    const { results } = await judgeRecording(exchanges, { surfaces: ['v8'], patterns: [RULE], env: {}, profile });
    const result = results[0]!;
    expect(result.verdict).toBe('fail');
    expect(result.reason).toMatch(/a well-formed signal to mission .*, cancelled as exchange #\d+ showed, answered 200, expected 409$/);
  }, 20_000);
});

describe('v8.missions.events.after-terminal: a read after the end in a form a deployment may refuse', () => {
  it('a read with a query answered 400 is not held to 200; an ordinary read still is', () => {
    const runId = '01890a5d-ac96-774b-bcce-b302099a8057';
    const path = `/v8/missions/${runId}`;
    const at = (ms: number) => new Date(Date.UTC(2026, 10, 28, 12, 0, 0, ms)).toISOString();
    const read = (ms: number, target: string, status: number, body: string) => ({
      startedAt: at(ms),
      durationMs: 5,
      method: 'GET',
      url: `http://gw.test${target}`,
      path: target,
      requestHeaders: { authorization: 'Bearer t' },
      status,
      responseHeaders: { 'content-type': status === 200 ? 'application/json' : 'application/problem+json' },
      responseBody: body,
    });
    const projection = JSON.stringify({ runId, status: 'cancelled', sequence: 3, steps: [] });
    const problem = JSON.stringify({ type: 'about:blank', title: 'Bad Request', status: 400, detail: 'no query here', code: 'invalid_request', requestId: '7ae52e66-b65d-4417-861d-ef28150f7dd0' });
    const cases = judgementCases(afterTerminal.judgement!, [read(0, path, 200, projection), read(100, `${path}?view=full`, 400, problem), read(200, path, 200, projection)], undefined, 'recording');
    expect(cases).toEqual([{ ok: true, reason: expect.any(String) }, { ok: true, reason: expect.any(String) }]);
  });
});

/** Endpoints: POST /v8/missions/{runId}/signals; States: a signal to a terminal mission. */
import { type CheckContext, section } from '../../../rule/index.ts';
import type { Credential } from '../../../profile/schema.ts';
import { createMission, followToTerminal, newKey, writer, MISSIONS } from '../support/missions.ts';
import { missionOf, withTerminalBefore } from '../support/traffic.ts';
import { operation } from '../../../traffic/read.ts';

const rule = section({ destructive: 'mutate', surface: 'v8', document: 'v8-integration-gateway.md', needs: { credentials: ['v8:holding:missions:write+missions:read'] } });

function postSignal(ctx: CheckContext, runId: string, body: unknown, key: string = newKey(), label = 'send signal', credential: Credential = writer(ctx)) {
  return ctx.http.send({ method: 'POST', path: `${MISSIONS}/${runId}/signals`, credential, headers: { 'idempotency-key': key }, json: body, label });
}

export const signalAccepted = rule({
  id: 'v8.missions.signals.accepted',
  title: 'A signal to a mission that is not terminal answers 200 with an empty body',
  level: 'required',
  needs: { fixtures: ['v8.missions.waits'] },
  spec: { section: 'Endpoints', quote: '`200`, empty body; the signal is durably recorded, not yet delivered or processed' },
  async check(ctx) {
    const mission = await createMission(ctx, 'waits');
    for (const payload of [{ approved: true }, ['a', 1], 'text', 42, false]) {
      const res = await postSignal(ctx, mission.runId, { signal: 'apicert.probe', payload }, newKey(), `signal with a ${Array.isArray(payload) ? 'array' : typeof payload} payload`);
      ctx.check(res.status === 200, `a signal with a ${typeof payload} payload answered ${res.status}, expected 200`);
      ctx.check(res.text.length === 0, `the signal response has a body (${res.text.length} bytes), expected an empty body`);
    }
  },
});

export const signalValidation = rule({
  id: 'v8.missions.signals.validation',
  title: 'A signal without signal or payload, or with a name outside 1-256 characters, answers 400; 256 characters is accepted',
  level: 'required',
  needs: { fixtures: ['v8.missions.waits'] },
  spec: {
    section: 'Errors; Resources > Signal request',
    quote: '`400` missing fields or `signal` over 256 chars … signal | string | yes | 1-256 chars',
  },
  async check(ctx) {
    const mission = await createMission(ctx, 'waits');
    const bad: Array<[string, unknown]> = [
      ['no signal', { payload: { a: 1 } }],
      ['no payload', { signal: 'apicert.probe' }],
      ['an empty signal name', { signal: '', payload: {} }],
      ['a 257-character signal name', { signal: 's'.repeat(257), payload: {} }],
    ];
    for (const [why, body] of bad) {
      const res = await postSignal(ctx, mission.runId, body, newKey(), `signal with ${why}`);
      ctx.check(res.status === 400, `a signal with ${why} answered ${res.status}, expected 400`);
    }
    const edge = await postSignal(ctx, mission.runId, { signal: 's'.repeat(256), payload: {} }, newKey(), 'signal with a 256-character name');
    ctx.check(edge.status === 200, `a 256-character signal name answered ${edge.status}, expected 200`);
  },
});

export const signalTerminal = rule({
  id: 'v8.missions.signals.terminal-409',
  title: 'A signal to a succeeded mission answers 409',
  level: 'required',
  needs: { fixtures: ['v8.missions.succeeds'] },
  spec: { section: 'Endpoints > Rules 4', quote: 'A signal to a mission in a terminal state gives `409`.' },
  judgement: {
    record: 'a POST /v8/missions/{runId}/signals sent after an earlier exchange showed that mission terminal (its terminal event, or a read answering succeeded, failed or cancelled)',
    judge(j) {
      // Chosen by the request (a signal) and what the exchanges before it showed, never by its answer.
      withTerminalBefore(j.exchanges, (ex, terminal) => {
        if (!terminal || operation(ex) !== 'v8.missions.signals' || ex.status === undefined) return;
        j.check(ex, ex.status === 409, `a signal to mission ${missionOf(ex)}, ${terminal.status} as exchange #${terminal.seenOn.index} showed, answered ${ex.status}, expected 409`, [terminal.seenOn]);
      });
    },
  },
  async provoke(ctx) {
    const mission = await createMission(ctx, 'succeeds');
    await followToTerminal(ctx, mission.runId, 'succeeds');
    await postSignal(ctx, mission.runId, { signal: 'apicert.late', payload: { late: true } }, newKey(), 'signal a terminal mission');
  },
});

export const signalConflict = rule({
  id: 'v8.missions.signals.idempotency-conflict',
  title: 'A signal that reuses a key with another body answers 409; the same body replays',
  level: 'required',
  needs: { fixtures: ['v8.missions.waits'] },
  spec: { section: 'Errors', quote: '`409` terminal mission or different body with same key' },
  async check(ctx) {
    const mission = await createMission(ctx, 'waits');
    const key = newKey();
    const first = await postSignal(ctx, mission.runId, { signal: 'apicert.first', payload: { n: 1 } }, key, 'signal (original)');
    if (first.status !== 200) ctx.inconclusive(`setup failed: the original signal answered ${first.status}`);
    const same = await postSignal(ctx, mission.runId, { signal: 'apicert.first', payload: { n: 1 } }, key, 'signal (replay, same body)');
    ctx.observe('signal replay with the same key and body', same.status);
    const other = await postSignal(ctx, mission.runId, { signal: 'apicert.second', payload: { n: 2 } }, key, 'signal (same key, another body)');
    ctx.expect(other.status === 409, `the same key with another signal body answered ${other.status}, expected 409`);
  },
});

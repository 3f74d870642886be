/** POST /v1/runs/{id}/cancel: a terminal request.cancelled event; cancelling is not rollback. */
import { section } from '../../../rule/index.ts';
import { CANCELLED, openObject } from '../../../contract/v1/runs.ts';
import { eventKind, followRun, primaryKey, problemCode, runPath, startRun } from '../support/fabric.ts';
import { parkedRun, postApprove } from './approve.ts';

const rule = section({ destructive: 'mutate', surface: 'v1', document: 'v1-execution-fabric.md', needs: { credentials: ['v1:key'] } });

export const cancelTerminalEvent = rule({
  id: 'v1.runs.cancel.terminal-event',
  title: "Cancelling a run in flight answers 200 and request.cancelled ends the run's stream",
  level: 'required',
  needs: { fixtures: ['v1.tasks.long'] },
  spec: {
    section: 'States and transitions; Endpoints',
    quote: "cancellation accepted | a terminal `request.cancelled` event is emitted on the run's stream … `200` JSON object with open properties",
  },
  async check(ctx) {
    const runId = await startRun(ctx, 'long');
    const res = await ctx.http.send({ method: 'POST', path: runPath(runId, '/cancel'), credential: primaryKey(ctx), label: 'cancel the run' });
    ctx.check(res.status === 200, `cancel answered ${res.status} ${problemCode(res) ?? ''}, expected 200`);
    ctx.observe('cancel response', ctx.checkShape(openObject, res.json, 'the cancel response') ?? null);
    const stream = await followRun(ctx, runId, { label: "the run's stream after cancel", maxMs: 10_000, awaitClose: true });
    const kinds = stream.events.map(eventKind);
    const at = kinds.indexOf(CANCELLED);
    ctx.expect(at !== -1, `no request.cancelled event on the run's stream after cancel (events: ${kinds.join(', ')})`);
    ctx.check(at === kinds.length - 1, `${kinds.length - at - 1} event(s) followed request.cancelled, which is terminal`);
    ctx.check(stream.end === 'server', `the stream stayed open after request.cancelled (${stream.end})`);
  },
});

export const cancelNotRollback = rule({
  id: 'v1.runs.cancel.not-rollback',
  title: 'What a run reads back as when it is cancelled after an approval was committed',
  level: 'observation',
  needs: { fixtures: ['v1.approval', 'v1.tasks.parks'] },
  spec: {
    section: 'What the service does',
    quote: 'Cancelling is not rollback. A durable action already committed (an approval, a connector write) needs its own status check or reconciliation.',
  },
  async check(ctx) {
    const parked = await parkedRun(ctx);
    const approved = await postApprove(ctx, parked.runId, { action_digest: parked.digest, decision: parked.decision }, 'approve (the committed action)');
    ctx.expect(approved.status === 200, `setup: approving the parked run answered ${approved.status}`);
    const cancel = await ctx.http.send({ method: 'POST', path: runPath(parked.runId, '/cancel'), credential: primaryKey(ctx), label: 'cancel after the approval' });
    ctx.observe('cancel after an approval', { status: cancel.status, body: cancel.json ?? null });
    const back = await ctx.http.send({ method: 'GET', path: runPath(parked.runId), credential: primaryKey(ctx), label: 'read the run back' });
    ctx.observe('run read back after cancel', back.json ?? back.status);
  },
});

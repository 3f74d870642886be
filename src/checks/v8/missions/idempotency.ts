/** Endpoints > Rules 2 and 3: Idempotency-Key on mutating operations. */
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { judgedRun, mediaType, section, type Exchange, type Judge, type Judgement } from '../../../rule/index.ts';
import { idempotencyKey } from '../../../contract/v8/common.ts';
import { createMissionRequest, missionProjection } from '../../../contract/v8/missions.ts';
import { PROBLEM_CONTENT_TYPE } from '../../../contract/v8/problem.ts';
import { judgeIdempotency } from '../../../traffic/idempotency.ts';
import { sharesKeyInFlight } from '../../../traffic/shared-keys.ts';
import { answerJson, operation, parsedAs, requestJson, responseJson, startsAfterEnd } from '../../../traffic/read.ts';
import { admissibleBody, callerOf, mayBeRefused, missionOf, withCallersOn } from '../support/traffic.ts';
import { createMission, fixture, followToTerminal, newKey, postMission, writer, MISSIONS } from '../support/missions.ts';
import { setupSent } from '../support/limiter.ts';

const rule = section({ destructive: 'mutate', surface: 'v8', document: 'v8-integration-gateway.md', needs: { credentials: ['v8:holding:missions:write+missions:read'] } });

const KEY_RULE = 'Mutating operations require `Idempotency-Key`: 16-128 characters, only alphanumerics and `.`, `_`, `:`, `-`.';

/** "rejected with a problem+json error and creates nothing": a 4xx problem that carries no projection. */
function judgeRejectedWithoutMission(j: Judge, ex: Exchange, what: string): void {
  const status = ex.status!;
  const rejected = j.check(ex, status >= 400 && status < 500, `${what} answered ${status}, expected a 4xx rejection`);
  const type = mediaType(ex.responseHeaders);
  if (rejected) j.check(ex, type === PROBLEM_CONTENT_TYPE, `${what} was rejected with content-type "${type}", expected ${PROBLEM_CONTENT_TYPE}`);
  const json = answerJson(j, ex);
  if (json !== undefined) j.check(ex, !parsedAs(missionProjection, json).success, `${what} was answered with a mission projection`);
}

/** Every request to `op` sent without Idempotency-Key by a caller holding missions:write. */
function withoutKey(j: Judge, op: string, each: (ex: Exchange) => void): void {
  withCallersOn(j, op, (ex, callers) => {
    if (operation(ex) !== op || ex.status === undefined || ex.requestHeaders['idempotency-key'] !== undefined || ex.status === 429) return;
    if (callers.holds(ex, 'missions:write')) each(ex);
  });
}

export const keyRequired = rule({
  id: 'v8.missions.idempotency.key-required',
  title: 'Create without Idempotency-Key is rejected with problem+json and creates nothing',
  level: 'required',
  needs: { fixtures: ['v8.missions.succeeds'] },
  spec: { section: 'Endpoints > Rules 2', quote: KEY_RULE },
  judgement: {
    record: 'a POST /v8/missions without Idempotency-Key, from a caller holding missions:write',
    judge(j) {
      withoutKey(j, 'v8.missions.create', (ex) => {
        judgeRejectedWithoutMission(j, ex, 'create without Idempotency-Key');
        j.observe('status for a missing Idempotency-Key', ex.status);
      });
    },
  },
  async provoke(ctx) {
    await postMission(ctx, fixture(ctx, 'succeeds'), { key: null, label: 'create without Idempotency-Key' });
  },
});

const KEY_CHARS = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:-'];
const validKey = fc.string({ unit: fc.constantFrom(...KEY_CHARS), minLength: 16, maxLength: 128 });
type KeyCase = { key: string; valid: boolean; why: string };
const invalidKey: fc.Arbitrary<KeyCase> = fc.oneof(
  fc.string({ unit: fc.constantFrom(...KEY_CHARS), minLength: 1, maxLength: 15 }).map((key) => ({ key, valid: false, why: `${key.length} characters` })),
  fc.string({ unit: fc.constantFrom(...KEY_CHARS), minLength: 129, maxLength: 300 }).map((key) => ({ key, valid: false, why: `${key.length} characters` })),
  fc
    .tuple(validKey, fc.constantFrom(...'/+=@#$%!*,;~ '), fc.nat())
    .map(([key, bad, at]) => {
      // Interior positions only: HTTP strips whitespace at either end of a header value.
      const i = 1 + (at % (key.length - 2));
      return { key: `${key.slice(0, i)}${bad}${key.slice(i + 1)}`, valid: false, why: `contains "${bad}"` };
    }),
);

const keyFormatJudgement: Judgement = {
  record: 'a POST /v8/missions with a valid body and an Idempotency-Key not used before, from a caller holding missions:write',
  judge(j) {
    const used = new Set<string>();
    withCallersOn(j, 'v8.missions.create', (ex, callers) => {
      const key = ex.requestHeaders['idempotency-key'];
      if (operation(ex) !== 'v8.missions.create' || key === undefined || ex.status === undefined) return;
      const scoped = `${callerOf(ex)}\n${key}`;
      const fresh = !used.has(scoped);
      used.add(scoped);
      if (!fresh || !callers.holds(ex, 'missions:write') || ex.status === 429 || !parsedAs(createMissionRequest, requestJson(ex)).success || mayBeRefused(ex, requestJson(ex))) return;
      const valid = idempotencyKey.safeParse(key).success;
      // A valid key another create carried while this one was in flight: either may have been taken first, the other answered as its replay or conflict.
      if (valid && sharesKeyInFlight(j.exchanges, ex)) return;
      if (valid) j.check(ex, ex.status === 202, `a valid key (${key.length} characters) answered ${ex.status}, expected 202`);
      else j.check(ex, ex.status >= 400 && ex.status < 500, `an invalid key (${key.length} characters: ${JSON.stringify(key.slice(0, 40))}) answered ${ex.status}, expected a 4xx rejection`);
    });
  },
};

export const keyFormat = rule({
  id: 'v8.missions.idempotency.key-format',
  title: 'Keys of 16-128 allowed characters are accepted; shorter, longer or other characters are rejected',
  level: 'required',
  needs: { fixtures: ['v8.missions.succeeds'] },
  spec: { section: 'Endpoints > Rules 2; Limits', quote: KEY_RULE },
  judgement: keyFormatJudgement,
  async provoke(ctx) {
    const body = fixture(ctx, 'succeeds');
    const examples: KeyCase[] = [
      { key: `a${'b'.repeat(14)}`, valid: false, why: '15 characters' },
      { key: `k${'0'.repeat(15)}`.slice(0, 16), valid: true, why: '16 characters' },
      { key: `K${'x'.repeat(127)}`, valid: true, why: '128 characters' },
      { key: `K${'x'.repeat(128)}`, valid: false, why: '129 characters' },
      { key: 'apicert.key_with:all-allowed', valid: true, why: 'every punctuation allowed' },
      { key: 'apicert/key/with/slashes', valid: false, why: 'contains "/"' },
    ];
    // Each valid key must be new, or the request would be a replay; a random suffix of allowed characters keeps its length.
    const fresh = (key: string) => `${key.slice(0, Math.max(0, key.length - 8))}${newKey().slice(-8)}`.slice(-key.length);
    // Each run is judged as it ends, so fast-check shrinks a failing key to a minimal one.
    await ctx.property(
      fc.oneof(validKey.map((key): KeyCase => ({ key, valid: true, why: `${key.length} allowed characters` })), invalidKey),
      ({ key, valid, why }) => judgedRun(ctx, keyFormatJudgement, async () => void (await postMission(ctx, body, { key: valid ? fresh(key) : key, label: `create with a key of ${why}` }))),
      { numRuns: 40, examples },
    );
  },
});

export const replay = rule({
  id: 'v8.missions.idempotency.replay',
  title: 'The same key and body returns the original response (status and body, whatever the mission did since) and starts no second mission',
  level: 'required',
  needs: { fixtures: ['v8.missions.succeeds'] },
  spec: {
    section: 'Endpoints > Rules 3',
    quote: 'Replay with the same key and the same body returns the original response without re-executing.',
  },
  judgement: {
    record: 'a POST /v8/missions sent twice by one caller with the same Idempotency-Key and body, the first accepted',
    judge(j) {
      judgeIdempotency(j, { operation: 'v8.missions.create', keyOf: (ex) => ex.requestHeaders['idempotency-key'], judge: 'replay' });
    },
  },
  async provoke(ctx) {
    const body = fixture(ctx, 'succeeds');
    const key = newKey();
    const first = await setupSent(ctx, 'the original create', () => postMission(ctx, body, { key, label: 'create (original)' }));
    if (first.status !== 202) ctx.inconclusive(`setup failed: the original create answered ${first.status}`);
    const original = ctx.expectShape(missionProjection, first.json, 'the original create response');
    await postMission(ctx, body, { key, label: 'create (replay)' });
    // Re-execution would show as a second start on the mission's own stream.
    const stream = await followToTerminal(ctx, original.runId, 'succeeds');
    const starts = stream.events.filter((e) => e.event === 'mission.started').length;
    if (starts > 1) ctx.observe('mission.started events after a replay', starts);
    await postMission(ctx, body, { key, label: 'create (replay after the mission ended)' });
  },
});

export const conflict = rule({
  id: 'v8.missions.idempotency.conflict',
  title: 'The same key with a different body answers 409',
  level: 'required',
  needs: { fixtures: ['v8.missions.succeeds'] },
  spec: { section: 'Endpoints > Rules 3', quote: 'The same key with a different body gives `409`.' },
  judgement: {
    record: 'a POST /v8/missions sent twice by one caller with the same Idempotency-Key and different bodies, the first accepted',
    judge(j) {
      judgeIdempotency(j, { operation: 'v8.missions.create', keyOf: (ex) => ex.requestHeaders['idempotency-key'], judge: 'conflict', conflictJudged: admissibleBody(createMissionRequest) });
    },
  },
  async provoke(ctx) {
    const body = fixture(ctx, 'succeeds');
    const key = newKey();
    await createMission(ctx, 'succeeds', { key });
    const changed = { ...body, goalSpec: { ...body.goalSpec, task: `${body.goalSpec.task} (changed by apicert)` } };
    await postMission(ctx, changed, { key, label: 'create with the same key and another body' });
  },
});

/** Signals and cancel: "Mutating operations require `Idempotency-Key`". */
export const signalsKeyRequired = rule({
  id: 'v8.missions.signals.key-required',
  title: 'A signal without Idempotency-Key is rejected with problem+json',
  level: 'required',
  needs: { fixtures: ['v8.missions.waits'] },
  spec: { section: 'Endpoints', quote: 'headers `Idempotency-Key`, `Content-Type`; body signal and payload' },
  judgement: {
    record: 'a POST /v8/missions/{runId}/signals without Idempotency-Key, from a caller holding missions:write',
    judge(j) {
      withoutKey(j, 'v8.missions.signals', (ex) => judgeRejectedWithoutMission(j, ex, 'a signal without Idempotency-Key'));
    },
  },
  async provoke(ctx) {
    const mission = await createMission(ctx, 'waits');
    await ctx.http.send({
      method: 'POST',
      path: `${MISSIONS}/${mission.runId}/signals`,
      credential: writer(ctx),
      json: { signal: 'apicert.probe', payload: { note: 'no key' } },
      label: 'signal without Idempotency-Key',
    });
  },
});

export const cancelKeyRequired = rule({
  id: 'v8.missions.cancel.key-required',
  title: 'Cancel without Idempotency-Key is rejected and the mission keeps running',
  level: 'required',
  needs: { fixtures: ['v8.missions.waits'] },
  spec: { section: 'Endpoints', quote: 'header `Idempotency-Key` required' },
  judgement: {
    record: 'a POST /v8/missions/{runId}/cancel without Idempotency-Key, from a caller holding missions:write (then a read of that mission)',
    judge(j) {
      // A mission whose only cancels came without a key must not read back cancelled afterwards.
      const refused = new Map<string, Exchange>();
      const keyed = new Set<string>();
      withoutKey(j, 'v8.missions.cancel', (ex) => {
        judgeRejectedWithoutMission(j, ex, 'cancel without Idempotency-Key');
        const runId = missionOf(ex);
        if (runId !== undefined && !refused.has(runId)) refused.set(runId, ex);
      });
      for (const ex of j.exchanges) {
        const runId = missionOf(ex);
        if (runId === undefined) continue;
        if (operation(ex) === 'v8.missions.cancel' && ex.requestHeaders['idempotency-key'] !== undefined) keyed.add(runId);
        const cancel = refused.get(runId);
        if (!cancel || keyed.has(runId) || operation(ex) !== 'v8.missions.get' || ex.status !== 200 || !startsAfterEnd(ex, cancel)) continue;
        const projection = parsedAs(missionProjection, responseJson(ex));
        if (projection.success) j.check(ex, projection.data.status !== 'cancelled', `the mission was cancelled by a request without Idempotency-Key (exchange #${cancel.index})`, [cancel]);
      }
    },
  },
  async provoke(ctx) {
    const mission = await createMission(ctx, 'waits');
    await ctx.http.send({ method: 'POST', path: `${MISSIONS}/${mission.runId}/cancel`, credential: writer(ctx), label: 'cancel without Idempotency-Key' });
    await ctx.http.send({ method: 'GET', path: `${MISSIONS}/${mission.runId}`, credential: writer(ctx), label: 'read mission after the refused cancel' });
  },
});

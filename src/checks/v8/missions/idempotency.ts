/** Endpoints > Rules 2 and 3: Idempotency-Key on mutating operations. */
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { type CheckContext, section, type ProbeResponse } from '../../../rule/index.ts';
import { missionProjection } from '../../../contract/v8/missions.ts';
import { createMission, fixture, followToTerminal, newKey, postMission, writer, MISSIONS } from '../support/missions.ts';

const rule = section({ destructive: 'mutate', surface: 'v8', document: 'v8-integration-gateway.md', needs: { credentials: ['v8:holding:missions:write+missions:read'] } });

const KEY_RULE = 'Mutating operations require `Idempotency-Key`: 16-128 characters, only alphanumerics and `.`, `_`, `:`, `-`.';

/** "rejected with a problem+json error and creates nothing": a 4xx problem that carries no projection. */
function expectRejectedWithoutMission(ctx: CheckContext, res: ProbeResponse, what: string): void {
  const rejected = ctx.check(res.status >= 400 && res.status < 500, `${what} answered ${res.status}, expected a 4xx rejection`, res);
  if (rejected) ctx.check(res.contentType.startsWith('application/problem+json'), `${what} was rejected with content-type "${res.contentType}", expected application/problem+json`, res);
  ctx.check(!missionProjection.safeParse(res.json).success, `${what} was rejected but the body is a mission projection`, res);
}

export const keyRequired = rule({
  id: 'v8.missions.idempotency.key-required',
  title: 'Create without Idempotency-Key is rejected with problem+json and creates nothing',
  level: 'required',
  needs: { fixtures: ['v8.missions.succeeds'] },
  spec: { section: 'Endpoints > Rules 2', quote: KEY_RULE },
  async check(ctx) {
    const res = await postMission(ctx, fixture(ctx, 'succeeds'), { key: null, label: 'create without Idempotency-Key' });
    expectRejectedWithoutMission(ctx, res, 'create without Idempotency-Key');
    ctx.observe('status for a missing Idempotency-Key', res.status);
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

export const keyFormat = rule({
  id: 'v8.missions.idempotency.key-format',
  title: 'Keys of 16-128 allowed characters are accepted; shorter, longer or other characters are rejected',
  level: 'required',
  needs: { fixtures: ['v8.missions.succeeds'] },
  spec: { section: 'Endpoints > Rules 2; Limits', quote: KEY_RULE },
  async check(ctx) {
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
    await ctx.property(
      fc.oneof(validKey.map((key): KeyCase => ({ key, valid: true, why: `${key.length} allowed characters` })), invalidKey),
      async ({ key, valid, why }) => {
        const sent = valid ? fresh(key) : key;
        const res = await postMission(ctx, body, { key: sent, label: `create with a key of ${why}` });
        if (valid && res.status !== 202) ctx.fail(`a valid key (${why}) answered ${res.status}, expected 202`);
        if (!valid && (res.status < 400 || res.status >= 500)) ctx.fail(`an invalid key (${why}) answered ${res.status}, expected a 4xx rejection`);
      },
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
  async check(ctx) {
    const body = fixture(ctx, 'succeeds');
    const key = newKey();
    const first = await postMission(ctx, body, { key, label: 'create (original)' });
    if (first.status !== 202) ctx.inconclusive(`setup failed: the original create answered ${first.status}`);
    const original = ctx.expectShape(missionProjection, first.json, 'the original create response');
    const second = await postMission(ctx, body, { key, label: 'create (replay)' });
    ctx.check(second.status === first.status, `the replay answered ${second.status}, the original ${first.status}`);
    const replayed = ctx.expectShape(missionProjection, second.json, 'the replayed response');
    ctx.check(replayed.runId === original.runId, `the replay returned runId ${replayed.runId}, the original ${original.runId}: the request was executed twice`);
    // "returns the original response": the whole body, not the mission's later progress.
    ctx.check(isDeepStrictEqual(second.json, first.json), `the replay's body differs from the original response: original ${first.text.slice(0, 300)}, replay ${second.text.slice(0, 300)}`);
    ctx.observe('replayed body byte-identical to the original', second.text === first.text);
    // Re-execution would show as a second start on the mission's own stream.
    const stream = await followToTerminal(ctx, original.runId, 'succeeds');
    const starts = stream.events.filter((e) => e.event === 'mission.started').length;
    ctx.check(starts <= 1, `the mission's stream shows ${starts} mission.started events`);
    const late = await postMission(ctx, body, { key, label: 'create (replay after the mission ended)' });
    ctx.check(late.status === first.status && isDeepStrictEqual(late.json, first.json), `a replay after the mission ended answered ${late.status} ${late.text.slice(0, 300)}, not the original ${first.status} ${first.text.slice(0, 300)}`);
  },
});

export const conflict = rule({
  id: 'v8.missions.idempotency.conflict',
  title: 'The same key with a different body answers 409',
  level: 'required',
  needs: { fixtures: ['v8.missions.succeeds'] },
  spec: { section: 'Endpoints > Rules 3', quote: 'The same key with a different body gives `409`.' },
  async check(ctx) {
    const body = fixture(ctx, 'succeeds');
    const key = newKey();
    await createMission(ctx, 'succeeds', { key });
    const changed = { ...body, goalSpec: { ...body.goalSpec, task: `${body.goalSpec.task} (changed by apicert)` } };
    const res = await postMission(ctx, changed, { key, label: 'create with the same key and another body' });
    ctx.expect(res.status === 409, `the same key with a different body answered ${res.status}, expected 409`);
  },
});

/** Signals and cancel: "Mutating operations require `Idempotency-Key`". */
export const signalsKeyRequired = rule({
  id: 'v8.missions.signals.key-required',
  title: 'A signal without Idempotency-Key is rejected with problem+json',
  level: 'required',
  needs: { fixtures: ['v8.missions.waits'] },
  spec: { section: 'Endpoints', quote: 'headers `Idempotency-Key`, `Content-Type`; body signal and payload' },
  async check(ctx) {
    const mission = await createMission(ctx, 'waits');
    const res = await ctx.http.send({
      method: 'POST',
      path: `${MISSIONS}/${mission.runId}/signals`,
      credential: writer(ctx),
      json: { signal: 'apicert.probe', payload: { note: 'no key' } },
      label: 'signal without Idempotency-Key',
    });
    expectRejectedWithoutMission(ctx, res, 'a signal without Idempotency-Key');
  },
});

export const cancelKeyRequired = rule({
  id: 'v8.missions.cancel.key-required',
  title: 'Cancel without Idempotency-Key is rejected and the mission keeps running',
  level: 'required',
  needs: { fixtures: ['v8.missions.waits'] },
  spec: { section: 'Endpoints', quote: 'header `Idempotency-Key` required' },
  async check(ctx) {
    const mission = await createMission(ctx, 'waits');
    const res = await ctx.http.send({ method: 'POST', path: `${MISSIONS}/${mission.runId}/cancel`, credential: writer(ctx), label: 'cancel without Idempotency-Key' });
    expectRejectedWithoutMission(ctx, res, 'cancel without Idempotency-Key');
    const after = await ctx.http.send({ method: 'GET', path: `${MISSIONS}/${mission.runId}`, credential: writer(ctx), label: 'read mission after the refused cancel' });
    const projection = missionProjection.safeParse(after.json);
    ctx.expect(!projection.success || projection.data.status !== 'cancelled', 'the mission was cancelled by a request without Idempotency-Key');
  },
});

/**
 * Audit helper-114's receiver findings. F5: a known event_id taken for a duplicate before the
 * signature is verified. F7: one reading of 408 and 429 wherever a refusal is expected. F8: a valid,
 * timely delivery never taken once nothing comes before it in its run fails a gating rule. F10: the
 * reason for a refused valid delivery points at a clock off by more than 300 s or at the secret.
 * Receivers on 127.0.0.1 only, in this process (or the sample receiver, stopped by its PID).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { certifyReceiver } from '../../src/receiver-cert/certify-receiver.ts';
import type { RuleResult } from '../../src/rule/index.ts';
import { MemoryEventStore, verifyWebhook, type VerifyFailureReason } from '../../src/webhooks/verify.ts';
import { ALL_PASS, certifyAgainst, verdicts } from './legal-receivers.ts';
import { startSampleReceiver, TEST_SECRET } from './support.ts';

const byId = (results: readonly RuleResult[], id: string) => results.find((r) => r.rule.id === id)!;
const why = (result: RuleResult) => [result.reason ?? '', ...result.cases.map((c) => c.reason)].join('\n');

interface Choices {
  /** The status for a delivery the verifier refuses for this reason (its own 400 or 401 otherwise). */
  statusFor?: Partial<Record<VerifyFailureReason, number>>;
  /** Answers a known Service-Webhook-Id 204 before verifying anything (audit BUG=dup-before-verify). */
  duplicateFirst?: boolean;
  /** 409 to an event whose sequence is below one it took for the run, every time (audit BUG=drop-older). */
  dropOlder?: boolean;
  /** 409 to a sequence past the next it expects, and to any event it refused before when it comes back (audit BUG=gap-never). */
  gapNever?: boolean;
  /** 503 to the first attempt of an event whose run already has another event: taken when the sender retries. */
  refuseFirstInRun?: boolean;
}

/** A receiver built on the package's verifier, misbehaving (or choosing) only as `choices` say. */
async function withReceiver<T>(choices: Choices, run: (url: string) => Promise<T>): Promise<T> {
  const store = new MemoryEventStore();
  const taken = new Set<string>();
  const highest = new Map<string, number>();
  const attempted = new Set<string>();
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const headerId = String(req.headers['service-webhook-id']);
    if (choices.duplicateFirst && taken.has(headerId)) return void res.writeHead(204).end();
    const result = await verifyWebhook({ rawBody: Buffer.concat(chunks), headers: req.headers, secret: TEST_SECRET, store });
    if (!result.ok) return void res.writeHead(choices.statusFor?.[result.reason] ?? result.status).end(result.reason);
    const run = result.event.run_id;
    const sequence = result.event.sequence;
    const top = highest.get(run);
    const refuse = (status: number) => {
      void store.release(result.eventId);
      res.writeHead(status).end();
    };
    if (!result.duplicate) {
      const first = !attempted.has(result.eventId);
      attempted.add(result.eventId);
      if (choices.dropOlder && top !== undefined && sequence < top) return refuse(409);
      if (choices.gapNever && (sequence > (top ?? 0) + 1 || !first)) return refuse(409);
      if (choices.refuseFirstInRun && first && top !== undefined) return refuse(503);
    }
    taken.add(result.eventId);
    highest.set(run, Math.max(top ?? 0, sequence));
    res.writeHead(204).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    return await run(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

const certify = (choices: Choices, rules?: string[]) => withReceiver(choices, (url) => certifyReceiver({ url, secret: TEST_SECRET, seed: 7, ...(rules ? { patterns: rules } : {}) }));

describe.concurrent('F5: a forged delivery reusing a known event_id', () => {
  it('a receiver that answers a known Service-Webhook-Id as a duplicate before verifying fails bad-signature, and nothing else', async () => {
    const { results, report } = await certify({ duplicateFirst: true });
    expect(verdicts(results)).toEqual({ ...ALL_PASS, 'receiver.v1.webhooks.bad-signature': 'fail' });
    expect(why(byId(results, 'receiver.v1.webhooks.bad-signature'))).toMatch(/reusing the event_id of a delivery the receiver took \(evt_apicert_\w+\) got 204, not 401: the receiver answered it as a duplicate before verifying its signature/);
    expect(report.summary.gate).toBe('fail');
  });

  it('the sample receiver with the matching fault fails it too', async () => {
    const receiver = await startSampleReceiver('duplicate-before-verify');
    try {
      const { results } = await certifyReceiver({ url: receiver.url, secret: TEST_SECRET, seed: 7, patterns: ['receiver.v1.webhooks.bad-signature'] });
      expect(byId(results, 'receiver.v1.webhooks.bad-signature').verdict).toBe('fail');
    } finally {
      receiver.stop();
    }
  });
});

describe.concurrent('F7: 408 and 429 are read one way wherever a refusal is expected', () => {
  it('a stale or future stamp answered 429 or 408 leaves the timestamp rules inconclusive, not passed', async () => {
    const { results } = await certify({ statusFor: { 'stale-timestamp': 429, 'future-timestamp': 408 } }, ['receiver.v1.webhooks.timestamp-*']);
    for (const [id, status] of [['receiver.v1.webhooks.timestamp-past', 429], ['receiver.v1.webhooks.timestamp-future', 408]] as const) {
      expect(byId(results, id).verdict, why(byId(results, id))).toBe('inconclusive');
      expect(byId(results, id).reason).toMatch(new RegExp(`got ${status}: a refusal for time or rate .* does not show whether the receiver rejects the timestamp`));
    }
  });

  it('a bad signature answered 429 is not judged either: bad-signature is inconclusive, and a failing case still fails it', async () => {
    const limited = await certify({ statusFor: { 'bad-signature': 429 } }, ['receiver.v1.webhooks.bad-signature']);
    expect(byId(limited.results, 'receiver.v1.webhooks.bad-signature').verdict).toBe('inconclusive');
    expect(byId(limited.results, 'receiver.v1.webhooks.bad-signature').reason).toMatch(/a delivery signed with another secret got 429; .*does not show whether the receiver takes deliveries whose signature is bad or missing/);
    const mixed = await certify({ statusFor: { 'bad-signature': 429, 'missing-header': 200 } }, ['receiver.v1.webhooks.bad-signature']);
    expect(byId(mixed.results, 'receiver.v1.webhooks.bad-signature').verdict).toBe('fail');
  });

  it('api-version and event-id-mismatch read a 429 the same way', async () => {
    const { results } = await certify({ statusFor: { 'bad-api-version': 429, 'id-mismatch': 408 } }, ['receiver.v1.webhooks.api-version', 'receiver.v1.webhooks.event-id-mismatch']);
    expect(verdicts(results)).toEqual({ 'receiver.v1.webhooks.api-version': 'inconclusive', 'receiver.v1.webhooks.event-id-mismatch': 'inconclusive' });
  });
});

describe.concurrent('F8: a valid, timely delivery never taken fails a gating rule', () => {
  it('ordering is required: sequence 1 refused after sequence 2, and again when retried, fails it and the gate', async () => {
    const { results, report } = await certify({ dropOlder: true });
    expect(byId(results, 'receiver.v1.webhooks.ordering').rule.level).toBe('required');
    expect(verdicts(results)).toEqual({ ...ALL_PASS, 'receiver.v1.webhooks.ordering': 'fail' });
    expect(why(byId(results, 'receiver.v1.webhooks.ordering'))).toMatch(/got 409, then 409 when retried: refused with nothing before it in its run/);
    expect(report.summary.gate).toBe('fail');
  });

  it('a sequence 2 held back, and refused again once sequence 1 was taken, fails it', async () => {
    const { results, report } = await certify({ gapNever: true }, ['receiver.v1.webhooks.ordering']);
    expect(why(byId(results, 'receiver.v1.webhooks.ordering'))).toMatch(/retried after sequence 1 was taken, got 409, then 409 when retried: with the gap filled/);
    expect(report.summary.gate).toBe('fail');
  });

  it('legal: a delivery refused once (503) and taken when the sender retries it passes, the refusal recorded', async () => {
    const { results, report } = await certify({ refuseFirstInRun: true });
    expect(verdicts(results), why(byId(results, 'receiver.v1.webhooks.ordering'))).toEqual(ALL_PASS);
    expect(report.observations.find((o) => o.ruleId === 'receiver.v1.webhooks.ordering' && o.subject === 'status for sequence 1, refused once')?.value).toBe(503);
  });
});

describe.concurrent('F10: why a valid delivery was refused', () => {
  it('401 names the variable the secret came from', async () => {
    const { results } = await withReceiver({}, (url) => certifyReceiver({ url, secret: `${TEST_SECRET}-other`, secretEnv: 'MY_HOOK_SECRET', seed: 7, patterns: ['receiver.v1.webhooks.accepts-valid'] }));
    expect(byId(results, 'receiver.v1.webhooks.accepts-valid').reason).toMatch(/got 401, not 2xx: 401 is the seed's status for a bad signature; check that MY_HOOK_SECRET holds this receiver's signing secret/);
  });

  it("a clock 1000 s off, seen in the receiver's Date header, is named", async () => {
    const { results } = await certifyAgainst({ clockOffsetSeconds: 1000 }, { patterns: ['receiver.v1.webhooks.accepts-valid'] });
    const reason = byId(results, 'receiver.v1.webhooks.accepts-valid').reason;
    expect(byId(results, 'receiver.v1.webhooks.accepts-valid').verdict).toBe('fail');
    expect(reason).toMatch(/got 40[01], not 2xx: its Date header puts its clock (999|1000|1001) s from apicert's, more than the 300 s tolerance/);
    expect(reason).not.toMatch(/signing secret/);
  });
});

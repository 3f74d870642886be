/**
 * Fixer helper-109 (audit h105 F1, F3): v1.execute.turn.bodies under a rate limit and with slow turns.
 * - F1: "429 and 503 are safe to retry with the same idempotency key, because nothing was accepted"
 *   and "Per-key tier values and request-rate numbers: not shown." A limiter's refusal of a probe body
 *   says nothing of the body: it was judged as the body's answer (a false failure on any tier a
 *   burst of some 270 requests exceeds). Now it is sent again after the wait asked for, and left
 *   unjudged when still refused; the rule is inconclusive when too little was judged.
 * - F3: "the response is a Server-Sent Events stream that runs until a terminal event"; no sentence
 *   bounds how long a turn takes. The rule judges a valid body by its status, yet read each stream to
 *   its terminal event, one after another: with turns of seconds it never finished within 120 s.
 */
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { embeddedProfile } from '../../src/fake/embedded-profile.ts';
import type { FaultId } from '../../src/fake/faults/index.ts';
import { LIMITER_DOWN, type RateLimitsInput } from '../../src/fake/rate-limit.ts';
import { startFake, type RunningFake } from '../../src/fake/server.ts';
import type { Profile } from '../../src/profile/schema.ts';
import type { RuleResult } from '../../src/rule/index.ts';
import { certify } from '../../src/runner/certify.ts';

const RULE = 'v1.execute.turn.bodies';
/** The embedded profile's primary /v1 key (src/fake/v1/embedded.ts). */
const PRIMARY = 'v1-full';

let closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.reverse()) await close();
  closers = [];
});

async function fakeWith(rateLimits: RateLimitsInput, faults: FaultId[] = []): Promise<{ fake: RunningFake; refusals: () => number }> {
  const fake = await startFake({ faults, config: { rateLimits } });
  closers.push(() => fake.close());
  // Counts the limiter's refusals, to show the run met them.
  const limiter = fake.context.rateLimiter;
  const decide = limiter.v1.bind(limiter);
  let refused = 0;
  limiter.v1 = (...args) => {
    const decision = decide(...args);
    if (decision.kind !== 'ok') refused += 1;
    return decision;
  };
  return { fake, refusals: () => refused };
}

async function judge(profile: Profile, deadlineMs?: number): Promise<RuleResult> {
  const { results } = await certify({ profile, patterns: [RULE], seed: 11, ...(deadlineMs ? { deadlineMs } : {}) });
  expect(results.map((r) => r.rule.id)).toEqual([RULE]);
  return results[0]!;
}

describe('F1 v1.execute.turn.bodies: a limiter refusal is no answer to the body', () => {
  it('waits out a 429 as Retry-After asks and judges the body: pass on a tier of 4 requests a second', async () => {
    // Old code: FAIL "a turn body with … was rejected with code "rate_limited", expected invalid_request" (or a valid one "answered 429").
    const { fake, refusals } = await fakeWith({ v1: { default: { requests: 4, windowSeconds: 1 } } });
    const r = await judge(embeddedProfile(fake));
    expect(r.verdict, r.reason).toBe('pass');
    expect(refusals()).toBeGreaterThan(0);
  }, 90_000);

  it('still fails a broken bound the deployment admits, under a tier of 2 requests a second', async () => {
    const { fake, refusals } = await fakeWith({ v1: { default: { requests: 2, windowSeconds: 1 } } }, ['v1.execute.turn.bodies/timeout-unbounded']);
    const r = await judge(embeddedProfile(fake));
    expect(r.verdict, r.reason).toBe('fail');
    expect(r.reason).toMatch(/timeoutMs/);
    expect(r.reason).not.toMatch(/429|rate_limited/);
    expect(refusals()).toBeGreaterThan(0);
  }, 90_000);

  it('is inconclusive, naming the limiter, when the tier asks for a wait beyond the rule’s time (3 requests an hour)', async () => {
    // Old code: FAIL "a valid turn body (…) answered 429 rate_limited, expected 200". (The fake limits only
    // bodies it admits: it validates first, so a tier must stop the valid boundary bodies to stop the rule.)
    const { fake } = await fakeWith({ v1: { default: { requests: 3, windowSeconds: 3600 } } });
    const started = Date.now();
    const r = await judge(embeddedProfile(fake));
    expect(r.verdict, r.reason).toBe('inconclusive');
    expect(r.reason).toMatch(/judged \d+ of the 70 named boundary cases/);
    expect(r.reason).toMatch(/429 rate_limited/);
    expect(r.reason).toMatch(/--rules v1\.execute\.turn\.bodies/);
    // No wait is begun that the rule's time cannot hold.
    expect(Date.now() - started).toBeLessThan(20_000);
  }, 60_000);

  it('is inconclusive when the primary key’s limiter is down (503, fail-closed)', async () => {
    // Old code: FAIL "a valid turn body (…) answered 503 internal_failed, expected 200".
    const { fake } = await fakeWith({ v1: { credentials: { [PRIMARY]: LIMITER_DOWN } } });
    const r = await judge(embeddedProfile(fake));
    expect(r.verdict, r.reason).toBe('inconclusive');
    expect(r.reason).toMatch(/503 internal_failed/);
    expect(r.reason).toMatch(/refused 3 cases in a row/);
  }, 60_000);
});

/** How long the proxy holds a turn stream after its first event: a turn of a deployment backed by a model. */
const TURN_MS = 20_000;

/** Where the first event of an event stream ends: the blank line after the first block holding a data line. */
function firstEventEnd(text: string): number | undefined {
  const blank = /\r?\n\r?\n/g;
  let start = 0;
  for (let m = blank.exec(text); m; m = blank.exec(text)) {
    if (/(?:^|\n)data:/.test(text.slice(start, m.index))) return m.index + m[0].length;
    start = m.index + m[0].length;
  }
  return undefined;
}

/**
 * A proxy in front of the fake whose turn streams send their first event at once and the rest
 * TURN_MS later: the fake writes a whole turn at once.
 */
async function slowTurns(upstream: string): Promise<string> {
  const up = new URL(upstream);
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const out = httpRequest({ host: up.hostname, port: up.port, method: req.method, path: req.url, headers: { ...req.headers, host: up.host, 'content-length': String(body.length) } }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        const isTurn = req.method === 'POST' && req.url === '/v1/execute' && String(answer.headers['content-type'] ?? '').startsWith('text/event-stream');
        if (!isTurn) {
          answer.pipe(res);
          return;
        }
        let text = '';
        let held: string | undefined;
        let ended = false;
        const timer = setTimeout(() => {
          if (held !== undefined) res.write(held);
          held = undefined;
          if (ended) res.end();
        }, TURN_MS);
        res.on('close', () => {
          clearTimeout(timer);
          answer.destroy();
        });
        answer.setEncoding('utf8');
        answer.on('data', (chunk: string) => {
          if (held !== undefined) {
            held += chunk;
            return;
          }
          text += chunk;
          const cut = firstEventEnd(text);
          if (cut === undefined) return;
          res.write(text.slice(0, cut));
          held = text.slice(cut);
        });
        answer.on('end', () => {
          ended = true;
          if (held === undefined) res.end();
        });
      });
      out.on('error', () => res.destroy());
      out.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

describe('F3 v1.execute.turn.bodies: a turn that takes long costs the rule only its admission', () => {
  it(`passes when every turn's events after the first come ${TURN_MS / 1000} s later`, async () => {
    // Old code: INCONCLUSIVE "run deadline" (without the deadline: "the check did not finish within 120 s").
    const { fake } = await fakeWith({});
    const target = await slowTurns(fake.baseUrl);
    const started = Date.now();
    const r = await judge({ ...embeddedProfile(fake), target }, 60_000);
    expect(r.verdict, r.reason).toBe('pass');
    expect(Date.now() - started).toBeLessThan(45_000);
    // A valid body's stream was read to its first event only.
    const streams = r.evidence.filter((e) => e.response?.events !== undefined);
    expect(streams.length).toBeGreaterThan(0);
    for (const e of streams) expect(e.response!.closedBy).toBe('client-disconnect');
  }, 90_000);
});

describe('a stream apicert stopped reading is recorded as stopped (judge-traffic of --har-out)', () => {
  it("judges no turn stream apicert broke off at its first event as one that ended without a terminal event", async () => {
    // Before: the recording kept the first event of each slow turn and nothing said apicert had left,
    // so judge-traffic failed v1.execute.turn.stream ("the turn stream ended without a terminal event") where certify passed.
    const { HarRecorder } = await import('../../src/passive/recorder.ts');
    const { exchangeOfEntry } = await import('../../src/passive/har.ts');
    const { judgeRecording } = await import('../../src/passive/judge.ts');
    const { fake } = await fakeWith({});
    const target = await slowTurns(fake.baseUrl);
    const profile = { ...embeddedProfile(fake), target };
    const recorder = new HarRecorder();
    const { results } = await certify({ profile, patterns: [RULE], seed: 11, recorder, deadlineMs: 60_000 });
    for (const r of results) expect(r.verdict, `${r.rule.id}: ${r.reason}`).toBe('pass');
    const entries = (recorder.document('test') as { log: { entries: unknown[] } }).log.entries;
    const exchanges = entries.map((e, i) => exchangeOfEntry(e, i)).filter((e) => e !== undefined);
    const stopped = exchanges.filter((e) => e.method === 'POST' && e.streamEnd === 'client-disconnect');
    expect(stopped.length).toBeGreaterThan(0);
    const judged = await judgeRecording(exchanges, { env: {}, profile, patterns: ['v1.execute.turn.stream'] });
    const stream = judged.results[0]!;
    expect(stream.rule.id).toBe('v1.execute.turn.stream');
    expect(stream.verdict, stream.reason).not.toBe('fail');
  }, 120_000);
});

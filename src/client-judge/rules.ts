/**
 * What an API client must do, from the v1 seed (Endpoints rules 4-5, Errors rules 3-5, Limits,
 * Events) and the v8 seed (Events rule 1, Versioning). Each rule judges the request log of one
 * judge-client scenario; run by `apicert judge-client`, never by `certify`.
 */
import { IDEMPOTENCY_KEY_PATTERN } from '../contract/v8/common.ts';
import { curlLine } from '../probe/evidence.ts';
import { isRecord, parseJson } from '../util/json.ts';
import { defineRule, serviceKey, type CheckContext, type EvidenceEntry, type Rule, type SpecReference } from '../rule/index.ts';
import { goalSpecOf, healthBefore, isMissionCreate, namedIn } from './capability-health.ts';
import { DEFAULT_RETRY_HINT_MS, OTHER_CONTRACT_VERSION, runOfEvents, type ScenarioName } from './scenarios.ts';
import { clientFailure, keyOf, RECORDED_BYTES_LIMIT, RECORDED_EXCHANGE_LIMIT, sameRequestBody, sameWork, type ClientSession, type RecordedExchange } from './session.ts';

/** Timers may fire a few milliseconds early and the two clocks are read at slightly different points. */
export const TIMING_TOLERANCE_MS = 25;

export interface ClientRule {
  /** The scenario whose log the rule judges. */
  scenario: ScenarioName;
  rule: Rule;
}

/** What the client under test sent during the rule's scenario. */
export const CLIENT_SESSION = serviceKey<ClientSession>('client-session');

function sessionOf(ctx: CheckContext): ClientSession {
  const session = ctx.service(CLIENT_SESSION);
  if (!session) ctx.inconclusive('no client session was recorded for this rule');
  return session;
}

const pathOf = (ex: RecordedExchange) => ex.path.split('?', 1)[0]!;
const isExecute = (ex: RecordedExchange) => ex.method === 'POST' && pathOf(ex) === '/v1/execute';
const readsRun = (ex: RecordedExchange, runId: string) => ex.method === 'GET' && (pathOf(ex) === `/v1/runs/${runId}` || pathOf(ex) === `/v1/runs/${runId}/events`);
const after = (s: ClientSession, ex: RecordedExchange) => s.exchanges.filter((e) => e.index > ex.index);
/**
 * A later POST /v1/execute that tries `original` again: same key, or the same work (the same body
 * once the fields a client may set anew per attempt, a turn's `requestId` and the body's
 * `idempotencyKey`, are set aside: sameWork). Such an attempt is then judged whole, key and body.
 * A POST of other work under another key is not an attempt of it.
 */
const isAttemptOf = (original: RecordedExchange) => (ex: RecordedExchange) =>
  isExecute(ex) && ((keyOf(original) !== undefined && keyOf(ex) === keyOf(original)) || sameWork(ex, original));
const describe = (ex: RecordedExchange) => `#${ex.index} ${ex.method} ${ex.path}`;
/** Arrival order: the record's index is the order in which the bodies finished arriving. */
const byArrival = (a: RecordedExchange, b: RecordedExchange) => a.at - b.at || a.index - b.index;

/**
 * Whether the client sent `ex` after `answer` was written at `moment` (ms), so that it can be its
 * reaction: 'before' when it was under way already, 'unclear' when the two cannot be told apart.
 * A request that arrived before is under way; so is the first request on a connection opened
 * before (a client opens one to send a request, and one sent at the same time as the answered one
 * arrives a few milliseconds later). On the answer's own connection an HTTP/1.1 client sends the
 * next request once the answer came. Else a request within TIMING_TOLERANCE_MS may have crossed it.
 */
type SentWhen = 'before' | 'after' | 'unclear';
function sentWhen(ex: RecordedExchange, answer: RecordedExchange, moment: number): SentWhen {
  if (ex.at < moment) return 'before';
  if (ex.connection !== undefined && ex.connection === answer.connection) return 'after';
  if (ex.connectedAt !== undefined && ex.onConnection === 1 && ex.connectedAt < moment) return 'before';
  return ex.at - moment < TIMING_TOLERANCE_MS ? 'unclear' : 'after';
}

/** Why `ex`, arriving after the answer, cannot be told to be the client's reaction to it. */
function unclearWhy(ex: RecordedExchange, moment: number, what: string): string {
  return `${describe(ex)} arrived ${ex.at - moment} ms after ${what} on another connection${ex.connectedAt !== undefined ? ` (opened at ${ex.connectedAt} ms)` : ''}: within ${TIMING_TOLERANCE_MS} ms it cannot be told whether the client sent it before or after it could read it`;
}

/**
 * The record keeps only a client's first requests (RECORDED_EXCHANGE_LIMIT, RECORDED_BYTES_LIMIT),
 * always a prefix of what it sent: what a rule finds in it stands, but that something never came
 * cannot be told once later requests were dropped. Called where a verdict would rest on an absence.
 */
function unlessDropped(ctx: CheckContext, session: ClientSession, found: string): void {
  unlessStopped(ctx, session, found);
  const dropped = session.dropped ?? 0;
  if (dropped === 0) return;
  ctx.inconclusive(
    `${found} (${session.exchanges.length} requests recorded), but ${dropped} later request(s) were not kept (a scenario's record holds at most ${RECORDED_EXCHANGE_LIMIT} requests and ${RECORDED_BYTES_LIMIT / 2 ** 20} MiB), so the verdict cannot rest on what the record lacks`,
  );
}

/**
 * A client stopped at the deadline (--max-seconds) or by an interrupt did not choose to stop: what
 * it would have sent next is unknown, so no verdict rests on what it had not sent yet.
 */
function unlessStopped(ctx: CheckContext, session: ClientSession, found: string): void {
  if (session.ended === 'deadline') ctx.inconclusive(`${found}, but the client was stopped at the scenario's deadline (--max-seconds) and may have sent it later: give it more time`);
  if (session.ended === 'interrupted') ctx.inconclusive(`${found}, but the run was interrupted before the client ended`);
}

/**
 * Not applicable because the client never did something: it chose not to. Inconclusive when it
 * had no choice: the record dropped requests that may hold it, the client was stopped, or the
 * client command failed (a non-zero exit): a client that crashed on the adversity did not choose
 * to stop, and what it would have done next is unknown. Every rule resting on an absence uses it,
 * so that no crash reaches the gate as not-applicable.
 */
function neverDid(ctx: CheckContext, session: ClientSession, found: string, reason: string): never {
  unlessDropped(ctx, session, found);
  const failed = clientFailure(session);
  if (failed) ctx.inconclusive(`${reason}, and the client failed: ${failed}`);
  return ctx.notApplicable(reason);
}

/** Headers curl sets itself; repeating them would only break the reproduction. */
const TRANSPORT_HEADERS = new Set(['host', 'connection', 'content-length', 'accept-encoding', 'transfer-encoding']);

/** The recorded exchanges become the rule's evidence; `record` redacts them like every probe exchange. */
function showEvidence(ctx: CheckContext, exchanges: readonly RecordedExchange[]): void {
  for (const ex of exchanges.slice(0, 40)) {
    const url = `${ctx.http.baseUrl}${ex.path}`;
    const body = ex.body ? ex.body.slice(0, 4096) : undefined;
    const entry: EvidenceEntry = {
      label: `${ex.adversity ?? 'served'} (at ${ex.at} ms)`,
      request: { method: ex.method, url, headers: ex.headers, ...(body !== undefined ? { body } : {}) },
      durationMs: ex.respondedAt !== undefined ? ex.respondedAt - ex.at : 0,
      curl: curlLine(ex.method, url, Object.fromEntries(Object.entries(ex.headers).filter(([name]) => !TRANSPORT_HEADERS.has(name))), body),
    };
    if (ex.status !== undefined) {
      entry.response = { status: ex.status, headers: ex.responseHeaders ?? {} };
      if (ex.responseBody !== undefined) entry.response.body = ex.responseBody;
      if (ex.eventIds) entry.response.events = ex.eventIds.map((id) => ({ id, data: '(relayed)' }));
    }
    ctx.http.record(entry);
  }
}

/** The client's failure, when its command failed, for the end of a reason. */
function failedToo(session: ClientSession): string {
  const failed = clientFailure(session);
  return failed ? `; ${failed}` : '';
}

/** The request the scenario bent; without one the scenario never happened to this client. */
function bent(ctx: CheckContext, what: string): { session: ClientSession; ex: RecordedExchange } {
  const session = sessionOf(ctx);
  const ex = session.exchanges.find((e) => e.adversity !== undefined);
  if (!ex) {
    unlessDropped(ctx, session, `the adversity of scenario ${session.scenario} (on ${what}) was not found`);
    const interrupted = session.ended === 'interrupted' ? '; the run was interrupted before it did' : '';
    ctx.inconclusive(`during scenario ${session.scenario} the client never sent ${what}, so the adversity never happened (${session.exchanges.length} requests recorded)${interrupted}${failedToo(session)}`);
  }
  return { session, ex };
}

function clientRule(scenario: ScenarioName, id: string, title: string, level: Rule['level'], spec: SpecReference, check: Rule['check']): ClientRule {
  return { scenario, rule: defineRule({ id, surface: 'client', title, level, destructive: 'read', spec, check }) };
}

const v1 = (section: string, quote: string): SpecReference => ({ document: 'v1-execution-fabric.md', section, quote });
const v8 = (section: string, quote: string): SpecReference => ({ document: 'v8-integration-gateway.md', section, quote });

/**
 * The first POST /v1/execute after a refusal, which must be the same request under the same key.
 * The key is optional (header and turn body field alike): a refused request without one gives its
 * retry no key to keep, and re-sending it identically, without a key, is what "identical" asks.
 */
async function judgeSameKeyRetry(ctx: CheckContext, status: number): Promise<void> {
  const { session, ex: refused } = bent(ctx, 'POST /v1/execute');
  const retry = after(session, refused).find(isAttemptOf(refused));
  showEvidence(ctx, [refused, ...(retry ? [retry] : [])]);
  const key = keyOf(refused);
  if (key === undefined) {
    ctx.notApplicable(`the refused request ${describe(refused)} carried no Idempotency-Key (neither the optional header nor a turn body's idempotencyKey), so there is no key for a retry to keep${retry ? `; its retry ${describe(retry)} re-sent the same ${sameRequestBody(retry, refused) ? 'body' : 'work'}` : ''}`);
  }
  if (!retry) neverDid(ctx, session, 'no retry of the refused request was found', `the client did not send the refused request again after the ${status}`);
  ctx.expect(keyOf(retry) === key, `the retry ${describe(retry)} after the ${status} used ${keyOf(retry) === undefined ? 'no Idempotency-Key' : 'another Idempotency-Key'} instead of the refused request's key`);
  ctx.expect(sameRequestBody(retry, refused), `the retry ${describe(retry)} after the ${status} changed the request body: a retry re-sends the identical request`);
}

/**
 * Which POST /v1/execute after a 429 must wait for the hint. 'any-request': the next one, of any
 * body under any key, since the Retry-After header says "how long to wait before making a new
 * request" (RFC 6585 §4) or "a follow-up request" (RFC 9110 §10.2.3), not only the same one.
 * 'retry': the next attempt of the refused work (isAttemptOf), since the seed's default speaks of a
 * retry ("Use 60 seconds as the retry hint"), and nothing in it holds a client's other work, sent by
 * another worker, say, back on a 429 to one request: that is observed, not judged.
 */
type HintHolds = 'any-request' | 'retry';

/**
 * The gap between the 429 and the POST the hint holds back (HintHolds) must reach the hint's delay.
 * A POST that was already under way when the 429 was sent (sentWhen) is no answer to it; one that
 * may have crossed it leaves the rule unjudged unless a later POST came too soon for certain.
 */
async function judgeRetryDelay(ctx: CheckContext, holds: HintHolds, hintOf: (refused: RecordedExchange, session: ClientSession) => { minimumMs: number; hint: string }): Promise<void> {
  const { session, ex: refused } = bent(ctx, 'POST /v1/execute');
  const { minimumMs, hint } = hintOf(refused, session);
  const answeredAt = refused.respondedAt ?? refused.at;
  const isRetry = isAttemptOf(refused);
  // The refused work sent again after the 429 is its retry: a client sends it again because the 429 came.
  const when = (ex: RecordedExchange): SentWhen => {
    const sent = sentWhen(ex, refused, answeredAt);
    return sent === 'unclear' && isRetry(ex) ? 'after' : sent;
  };
  const tooSoon = (ex: RecordedExchange) => ex.at - answeredAt < minimumMs - TIMING_TOLERANCE_MS;
  const all = session.exchanges.filter((ex) => ex !== refused && isExecute(ex)).sort(byArrival);
  const posts = holds === 'retry' ? all.filter(isRetry) : all;
  const underWay = posts.filter((ex) => when(ex) === 'before' && ex.at >= refused.at);
  const next = posts.find((ex) => when(ex) !== 'before');
  const surelyAfter = posts.find((ex) => when(ex) === 'after');
  // A POST that may have crossed the 429 is not judged; a later one surely sent after it and too soon still fails.
  const retry = next !== undefined && when(next) === 'unclear' && surelyAfter !== undefined && tooSoon(surelyAfter) ? surelyAfter : next;
  const otherWork = holds === 'retry' ? all.filter((ex) => !isRetry(ex) && when(ex) !== 'before' && tooSoon(ex)) : [];
  showEvidence(ctx, [refused, ...underWay, ...(next && next !== retry ? [next] : []), ...(retry ? [retry] : []), ...otherWork.slice(0, 5)]);
  if (underWay.length > 0) ctx.observe(`${holds === 'retry' ? 'retries of the refused request' : 'POST /v1/execute'} already under way when the 429 was sent (not judged)`, underWay.map(describe));
  if (otherWork.length > 0) {
    ctx.observe(`other work posted sooner than the ${hint} (not judged: the hint is for the retry of the refused request)`, otherWork.map((ex) => `${describe(ex)} ${ex.at - answeredAt} ms after the 429`));
  }
  if (!retry) {
    const none = holds === 'retry' ? 'the client did not send the refused request again after the 429' : 'the client sent no POST /v1/execute after the 429';
    neverDid(ctx, session, `${holds === 'retry' ? 'no retry of the refused request' : 'no POST /v1/execute'} after the 429 was found`, `${none}${underWay.length > 0 ? ` (${underWay.map(describe).join(', ')} was already under way)` : ''}`);
  }
  if (when(retry) === 'unclear') ctx.inconclusive(unclearWhy(retry, answeredAt, 'the 429 was sent'));
  const waited = retry.at - answeredAt;
  const what = isRetry(retry) ? 'retried' : 'posted other work';
  ctx.observe(`wait before the ${holds === 'retry' ? 'retry of the refused request' : 'next POST /v1/execute'} (ms)`, waited, `${hint}; scenario time scale ${session.timeScale}`);
  const why = holds === 'retry' ? 'the retry of the refused request waits for the retry hint' : 'the wait holds for any new request (RFC 6585 §4)';
  ctx.expect(!tooSoon(retry), `the client ${what} (${describe(retry)}) ${waited} ms after the 429, sooner than the ${minimumMs} ms ${hint}: ${why}`);
}

/**
 * A readback that can concern the run of the reset request. Its answer never reached the client,
 * so the client cannot know that run's id from it: a GET of another run reconciles nothing. The
 * delivery listing exposes the run ids of deliveries, and a GET naming the reset run's id (learned
 * there, or from a webhook) reads it back.
 */
function readsResetRun(ex: RecordedExchange, reset: RecordedExchange): boolean {
  if (reset.runId !== undefined && readsRun(ex, reset.runId)) return true;
  return ex.method === 'GET' && pathOf(ex) === '/v1/webhook-deliveries';
}

/**
 * The v8 mutating operations (Endpoints table: the POSTs with an `Idempotency-Key` header). `POST
 * /v8/intents` is left out: one overview page counts it among them, the other omits it, and its
 * path and payload are not shown.
 */
const V8_MUTATION = /^\/v8\/missions(?:\/[^/]+\/(?:signals|cancel))?$/;
const isV8Mutation = (ex: RecordedExchange) => ex.method === 'POST' && V8_MUTATION.test(pathOf(ex));

/** What is wrong with a v8 key, without repeating the key. */
function v8KeyFault(key: string | undefined): string | undefined {
  if (key === undefined) return 'carried no Idempotency-Key';
  if (IDEMPOTENCY_KEY_PATTERN.test(key)) return undefined;
  const others = [...new Set(key.replace(/[A-Za-z0-9._:-]/g, ''))];
  return `carried an Idempotency-Key of ${key.length} characters${others.length > 0 ? ` with ${others.map((c) => JSON.stringify(c)).join(', ')} among them` : ''}`;
}

/** The problem codes the gateway answered `exchanges` with, for a reason that says why nothing followed. */
function refusalCodes(exchanges: readonly RecordedExchange[]): string {
  const codes = exchanges.map((ex) => {
    const body = ex.responseBody !== undefined ? parseJson(ex.responseBody) : undefined;
    const code = body?.ok && isRecord(body.value) && typeof body.value.code === 'string' ? ` ${body.value.code}` : '';
    return `${ex.status}${code}`;
  });
  return [...new Set(codes)].join(', ');
}

/** What kept the client from a mission stream, when its mission creates were all refused. */
function refusedCreates(session: ClientSession): string {
  const creates = session.exchanges.filter(isMissionCreate);
  if (creates.length === 0 || creates.some((ex) => ex.status === undefined || ex.status < 400)) return '';
  return ` (its ${creates.length} POST /v8/missions got ${refusalCodes(creates)}, so no mission was created)`;
}

/**
 * Why a POST after the reset, not the replay that would reconcile it, breaks "Do not start new
 * work". The same key with another body is a broken replay (an HTTP library re-sending a request
 * whose body it could not replay sends an empty one): it re-sent the reset request, not new work.
 */
function whyNotReconciled(post: RecordedExchange, reset: RecordedExchange, resetAt: number, reconciled: RecordedExchange | undefined): string {
  const key = keyOf(reset);
  const when = `${post.at - resetAt} ms after the reset`;
  const onlyLater = reconciled ? ` (it reconciled it only later, by ${describe(reconciled)})` : '';
  if (key !== undefined && keyOf(post) === key) {
    return `after the reset, ${describe(post)}, ${when}, was a broken replay (${post.body === '' ? 'an empty body' : 'another body'} under the reset request's key) before the client reconciled the reset request${onlyLater}: only the identical request under its key replays the reset run`;
  }
  const what = key === undefined ? 'the reset request had no Idempotency-Key, so posting again cannot replay it' : keyOf(post) === undefined ? 'no Idempotency-Key' : 'another Idempotency-Key';
  return `after the reset, ${describe(post)} started new work (${what}) ${when}, before the client reconciled the reset request ${describe(reset)} by readback${onlyLater}: "Do not start new work" holds for every request of the client, not only for the reset one's, until it has reconciled`;
}

export const clientRules: readonly ClientRule[] = [
  clientRule(
    'dropped-stream',
    'client.v1.endpoints.dropped-readback',
    'after a streamed POST is cut, the run is read back or its stream resumed before the request is posted again',
    'required',
    // Rule 4 names task-mode runs (client.v1.endpoints.task-readback); the scenario cuts a streamed (turn-mode) POST, which rule 5 binds.
    v1('Endpoints > Rules', 'A streamed POST is not retried automatically. Retry only by re-sending the identical request with the same idempotency key, after reading back the stable error or reconciliation state.'),
    async (ctx) => {
      const { session, ex: cut } = bent(ctx, 'a streamed (turn-mode) POST /v1/execute');
      const later = after(session, cut);
      showEvidence(ctx, [cut, ...later.slice(0, 20)]);
      // The sentence binds only a client that posts again: one that never does (it gives up, reports the drop) breaks nothing.
      const repost =
        later.find(isAttemptOf(cut)) ??
        neverDid(ctx, session, 'no repost of the cut request was found', 'the client did not post the cut request again, so there is no repost for a readback or resume to precede');
      const runId = cut.runId ?? ctx.inconclusive('the cut stream carried no run_id before the cut, so no readback can be matched to it');
      const readback = later.find((ex) => ex.index < repost.index && readsRun(ex, runId));
      ctx.observe('first request about the run after the cut', describe(readback ?? repost));
      ctx.expect(readback !== undefined, `after the stream of run ${runId} was cut, the client posted again (${describe(repost)}) before reading the run back or resuming its stream`);
    },
  ),
  clientRule(
    'dropped-stream',
    'client.v1.endpoints.streamed-retry',
    'a streamed POST is posted again only as the identical request with the same Idempotency-Key',
    'required',
    v1('Endpoints > Rules', 'Retry only by re-sending the identical request with the same idempotency key'),
    async (ctx) => {
      const { session, ex: cut } = bent(ctx, 'a streamed (turn-mode) POST /v1/execute');
      const later = after(session, cut);
      const reposts = later.filter(isAttemptOf(cut));
      showEvidence(ctx, [cut, ...reposts]);
      if (reposts.length === 0) {
        const readBack = cut.runId !== undefined && later.some((ex) => readsRun(ex, cut.runId!));
        neverDid(ctx, session, 'no repost of the cut request was found', `the client did not post the cut request again${readBack ? ' (it read the run back or resumed its stream instead)' : ''}`);
      }
      const key = keyOf(cut);
      for (const p of reposts) {
        ctx.expect(key !== undefined && keyOf(p) === key, `${describe(p)} re-posted the cut request with ${keyOf(p) === undefined ? 'no' : 'another'} idempotency key${key === undefined ? ' (and the cut request had none)' : ''}`);
        ctx.expect(sameRequestBody(p, cut), `${describe(p)} re-posted under the same key with another body: only the identical request may be re-sent`);
      }
      unlessDropped(ctx, session, `the ${reposts.length} repost(s) recorded are identical under the same key`);
    },
  ),
  clientRule(
    'dropped-task-stream',
    'client.v1.endpoints.task-readback',
    'after the event stream of a task-mode run is cut, the run is read back or its stream resumed before its task is posted again',
    'required',
    v1('Endpoints > Rules', 'After a dropped connection on a task-mode run, read the run back or resume its event stream with `Last-Event-ID` before posting again. The run may be in flight, parked on approval, or finished.'),
    async (ctx) => {
      const { session, ex: cut } = bent(ctx, 'GET /v1/runs/{id}/events of a run a task-mode POST /v1/execute started');
      const runId = runOfEvents({ method: cut.method, path: pathOf(cut) }) ?? ctx.inconclusive(`${describe(cut)} reads no run's event stream`);
      const started =
        session.exchanges.find((ex) => isExecute(ex) && ex.index < cut.index && ex.runId === runId) ??
        ctx.inconclusive(`the POST /v1/execute whose answer named run ${runId} is not in the record, so a post of its task again cannot be told`);
      // "Posting again" is posting that run's task again, the same work under any key (isAttemptOf): a POST of other work
      // starts another run and leaves this one to be read back when the client likes. Other work after a reset, when the
      // run's state is unknown, is Errors rule 5's (client.v1.errors.ambiguous-reconcile).
      const cutAt = cut.respondedAt ?? cut.at;
      const attempts = after(session, cut).filter(isAttemptOf(started));
      // One under way when the stream was cut is no reaction to the cut. One that may have crossed it is: the client
      // posts the same task again because the stream broke (as judgeRetryDelay reads a retry after a 429).
      const underWay = attempts.filter((ex) => sentWhen(ex, cut, cutAt) === 'before');
      const repost = attempts.find((ex) => !underWay.includes(ex));
      showEvidence(ctx, [started, cut, ...after(session, cut).slice(0, 20)]);
      if (underWay.length > 0) ctx.observe('posts of the task already under way when the stream was cut (not judged)', underWay.map(describe));
      // The sentence binds only a client that posts again: one that reads back or resumes and stops there breaks nothing.
      if (!repost) {
        const readBack = after(session, cut).find((ex) => readsRun(ex, runId));
        neverDid(ctx, session, `no post of run ${runId}'s task again after the cut was found`, `the client did not post the task of run ${runId} again after its stream was cut${readBack ? ` (it read the run back or resumed its stream: ${describe(readBack)})` : ''}`);
      }
      // A read of the run's events from the start reads the run back as well as a GET of the run: every stored event
      // comes again, up to where the run stands (in flight, parked or finished). Only "with Last-Event-ID" names a resume.
      const readback = after(session, cut).find((ex) => ex.index < repost.index && readsRun(ex, runId));
      ctx.observe('first request about the run after the cut', describe(readback ?? repost), readback && pathOf(readback).endsWith('/events') ? (readback.headers['last-event-id'] !== undefined ? 'resumed with Last-Event-ID' : 'read its events from the start') : undefined);
      ctx.expect(readback !== undefined, `after the event stream of task-mode run ${runId} was cut, the client posted its task again (${describe(repost)}) before reading the run back or resuming its stream with Last-Event-ID`);
    },
  ),
  clientRule(
    'rate-limited',
    'client.v1.errors.retry-429-same-key',
    'a retry after 429 re-sends the identical request with the same Idempotency-Key',
    'required',
    v1('Endpoints > Rules; Errors > Rules', 'Retry only by re-sending the identical request with the same idempotency key … `429` and `503` are safe to retry with the same idempotency key, because nothing was accepted.'),
    (ctx) => judgeSameKeyRetry(ctx, 429),
  ),
  clientRule(
    'rate-limited',
    'client.v1.limits.retry-after',
    'after a 429 with Retry-After, the next POST /v1/execute (a retry or other work) comes no sooner than Retry-After says (SHOULD: the header "is expected" and is a retry hint)',
    // "is expected" is no requirement keyword (the server twin v1.errors.rate-limited-retry-after is a SHOULD too), and
    // RFC 9110 10.2.3 says Retry-After tells "how long the user agent ought to wait": a client that comes sooner is warned.
    'should',
    v1('Errors > Rules; Limits', 'A numeric `Retry-After` header is expected alongside it. … Use 60 seconds as the retry hint when no `Retry-After` is given.'),
    (ctx) =>
      judgeRetryDelay(ctx, 'any-request', (refused) => {
        const seconds = Number(refused.responseHeaders?.['retry-after'] ?? ctx.inconclusive('the 429 carried no Retry-After'));
        return { minimumMs: seconds * 1000, hint: `Retry-After: ${seconds}` };
      }),
  ),
  clientRule(
    'rate-limited-no-hint',
    'client.v1.limits.default-retry-hint',
    'after a 429 without Retry-After, the retry of the refused request (the same key or the same work) waits the 60 s default hint (times the scenario time scale); other work is observed, not judged',
    'required',
    v1('Limits', 'Use 60 seconds as the retry hint when no `Retry-After` is given.'),
    (ctx) => judgeRetryDelay(ctx, 'retry', (_, session) => ({ minimumMs: Math.round(DEFAULT_RETRY_HINT_MS * session.timeScale), hint: `default hint of 60 s × ${session.timeScale}` })),
  ),
  clientRule(
    'limiter-unavailable',
    'client.v1.errors.retry-503-same-key',
    'a retry after 503 (limiter unavailable) re-sends the identical request with the same Idempotency-Key',
    'required',
    v1('Errors > Rules', '`429` and `503` are safe to retry with the same idempotency key, because nothing was accepted.'),
    (ctx) => judgeSameKeyRetry(ctx, 503),
  ),
  clientRule(
    'idempotency-conflict',
    'client.v1.errors.conflict-new-key',
    'after a 409 conflict the key is never sent again; new work uses a new key',
    'required',
    v1('Errors > Rules', '`409` from an idempotency mismatch is not fixed by retrying. A new key must be used.'),
    async (ctx) => {
      const { session, ex: conflict } = bent(ctx, 'POST /v1/execute');
      const key = keyOf(conflict);
      if (key === undefined) ctx.notApplicable(`the request that got 409 (${describe(conflict)}) carried no Idempotency-Key`);
      const later = after(session, conflict);
      const reused = later.find((ex) => keyOf(ex) === key);
      showEvidence(ctx, [conflict, ...later.slice(0, 20)]);
      ctx.observe('requests after the 409', later.length, later.some(isExecute) ? 'the client posted new work afterwards' : 'the client posted nothing more');
      // Like the retry rules: a client that never posted again neither retried nor kept the key, so nothing passes on it.
      if (!reused && !later.some(isExecute)) {
        neverDid(ctx, session, 'no POST /v1/execute after the 409 was found', 'the client sent no POST /v1/execute after the 409, so it neither retried nor used a new key');
      }
      if (!reused) unlessDropped(ctx, session, 'the conflicted key was not sent again');
      ctx.expect(reused === undefined, `the key that got 409 conflict was sent again in ${describe(reused ?? conflict)}${reused && !sameRequestBody(reused, conflict) ? ' with another body' : ''}: a 409 is not fixed by retrying, a new key must be used`);
    },
  ),
  clientRule(
    'ambiguous-failure',
    'client.v1.errors.ambiguous-reconcile',
    'after a connection reset on an accepted POST, the client reconciles (a readback of that run or an identical replay) before it posts any new work',
    'required',
    v1('Errors > Rules', 'Ambiguous failure: record unknown state and reconcile by readback. Do not start new work.'),
    async (ctx) => {
      const { session, ex: reset } = bent(ctx, 'POST /v1/execute');
      // The reset happened once the request was accepted upstream: only what the client sent after it can react to it.
      const resetAt = reset.respondedAt ?? reset.at;
      const others = session.exchanges.filter((ex) => ex !== reset).sort(byArrival);
      const underWay = others.filter((ex) => isExecute(ex) && sentWhen(ex, reset, resetAt) === 'before' && ex.at >= reset.at);
      const later = others.filter((ex) => sentWhen(ex, reset, resetAt) !== 'before');
      showEvidence(ctx, [reset, ...underWay, ...later.slice(0, 20)]);
      if (underWay.length > 0) ctx.observe('POST /v1/execute already under way when the connection was reset (not judged)', underWay.map(describe));
      const key = keyOf(reset);
      // Endpoints rule 2: the same request under the same key replays, so its answer reads the reset run back.
      const replays = (ex: RecordedExchange) => isExecute(ex) && key !== undefined && keyOf(ex) === key && sameRequestBody(ex, reset);
      // The reset connection is gone, so a replay comes on a new one, often within the tolerance: it still reconciles.
      const reconciled = later.find((ex) => replays(ex) || readsResetRun(ex, reset));
      const posted = later.filter((ex) => isExecute(ex) && !replays(ex) && (reconciled === undefined || byArrival(ex, reconciled) < 0));
      const newWork = posted.find((ex) => sentWhen(ex, reset, resetAt) === 'after');
      const crossed = posted.find((ex) => sentWhen(ex, reset, resetAt) === 'unclear');
      if (!newWork && crossed) ctx.inconclusive(unclearWhy(crossed, resetAt, 'the connection was reset'));
      // "Reconcile by readback" says not when: a client that recorded the unknown state and reconciles on its next
      // start did nothing wrong here. Only new work before a reconciliation is seen to break the sentence.
      if (!reconciled && !newWork) {
        neverDid(
          ctx,
          session,
          'no reconciliation of the reset request was found',
          `during the scenario the client neither reconciled the reset request (no replay of the identical request under its key${key === undefined ? ' (it had none)' : ''}, no readback of the reset run${reset.runId !== undefined ? ` (GET /v1/runs/${reset.runId})` : ''}, no look at the delivery listing) nor started new work: it may reconcile later (the seed says not when)`,
        );
      }
      // A request other than the reset one, from another worker of the client say, is new work too: the sentence
      // holds the whole client back until the unknown state is reconciled. The reason says which, and when it was.
      ctx.expect(newWork === undefined, newWork ? whyNotReconciled(newWork, reset, resetAt, reconciled) : '');
      if (reconciled) ctx.observe('reconciled by', describe(reconciled));
    },
  ),
  clientRule(
    'replay-window',
    'client.v8.events.replay-window',
    'after a 409 for a Last-Event-ID outside the replay window, the client re-fetches the stream from the beginning',
    'required',
    v8('Events > Rules', 'A `Last-Event-ID` outside the window gives `409`, and the client must re-fetch from the beginning.'),
    async (ctx) => {
      const session = sessionOf(ctx);
      const refusal =
        session.exchanges.find((ex) => ex.status === 409 && ex.headers['last-event-id'] !== undefined) ??
        (session.exchanges.some((ex) => ex.adversity !== undefined)
          ? neverDid(ctx, session, 'no resume with Last-Event-ID was found', 'the client did not resume the cut mission stream with Last-Event-ID, so no 409 was given')
          : ctx.inconclusive(`the client never followed a /v8 mission event stream${refusedCreates(session)}${failedToo(session)}`));
      const next = after(session, refusal).find((ex) => ex.method === 'GET' && pathOf(ex) === pathOf(refusal));
      showEvidence(ctx, [refusal, ...(next ? [next] : [])]);
      if (!next) unlessDropped(ctx, session, `no re-fetch of ${pathOf(refusal)} after the 409 was found`);
      // "must re-fetch" binds a client that ends without it too: a crash on the 409 fails, with its exit code in the reason.
      ctx.expect(next !== undefined, `after the 409 on ${pathOf(refusal)} the client never re-fetched the stream${failedToo(session)}`);
      ctx.expect(next!.headers['last-event-id'] === undefined, `after the 409 the client sent Last-Event-ID again (${describe(next!)}) instead of re-fetching from the beginning`);
    },
  ),
  clientRule(
    'contract-version',
    'client.v8.versioning.contract-check',
    `no mission is sent to a gateway whose x-service-contract-version is ${OTHER_CONTRACT_VERSION}`,
    'observation',
    v8('Versioning', 'Clients can check it before sending missions.'),
    async (ctx) => {
      const session = sessionOf(ctx);
      const v8Requests = session.exchanges.filter((ex) => pathOf(ex).startsWith('/v8/'));
      if (v8Requests.length === 0) ctx.inconclusive(`the client sent no /v8 request${failedToo(session)}`);
      const missions = v8Requests.filter((ex) => ex.method === 'POST' && pathOf(ex) === '/v8/missions');
      showEvidence(ctx, v8Requests.slice(0, 10));
      ctx.observe('missions sent to the other contract version', missions.length, '"can check" is not a must: this rule never gates');
      if (missions.length === 0) unlessDropped(ctx, session, 'no mission was found');
      ctx.expect(missions.length === 0, `the client sent ${missions.length} mission(s) to a gateway announcing ${OTHER_CONTRACT_VERSION}`);
    },
  ),
  clientRule(
    'capability-health',
    'client.v8.capabilities.unavailable-in-goal',
    'no mission goalSpec includes by its id (a string value or key equal to it) a capability the latest search answer the client had received showed `unavailable`',
    // "is not to be included" is a plain prohibition, with no "should" to soften it: required.
    'required',
    v8('Resources > Capability search request and manifest', 'An `unavailable` one is not to be included in goal specifications.'),
    async (ctx) => {
      const session = sessionOf(ctx);
      const creates = session.exchanges.filter(isMissionCreate);
      if (creates.length === 0) neverDid(ctx, session, 'no POST /v8/missions was found', 'the client sent no mission, so no goal specification could include a capability');
      let judged = 0;
      let unreadable = 0;
      let failed = false;
      for (const create of creates) {
        const unavailable = [...healthBefore(session.exchanges, create)].filter(([, h]) => h.state === 'unavailable');
        // Silence elsewhere is open: a capability never shown unavailable, or shown so only after the create, binds nothing.
        if (unavailable.length === 0) continue;
        const goalSpec = goalSpecOf(create);
        if (goalSpec === undefined) {
          unreadable += 1;
          continue;
        }
        judged += 1;
        const { named, mentioned } = namedIn(goalSpec, unavailable.map(([id]) => id));
        // A mention in the goal's words (an id of plain words, or a list of what to leave out) may not include the capability: recorded.
        if (mentioned.length > 0) ctx.observe(`${describe(create)} mentions, without including by id, capabilities shown unavailable`, mentioned);
        const shownBy = unavailable.filter(([id]) => named.includes(id)).map(([, h]) => h.shownBy);
        showEvidence(ctx, [...new Set(shownBy), create]);
        failed ||= !ctx.check(
          named.length === 0,
          `${describe(create)} names ${named.join(', ')} in its goalSpec, shown \`unavailable\` by the search answer${shownBy.length === 1 ? '' : 's'} ${shownBy.map(describe).join(', ')} the client had received before: an unavailable capability is not to be included in goal specifications`,
        );
      }
      if (judged === 0) {
        if (unreadable > 0) ctx.inconclusive(`${unreadable} mission create(s) came after a search answer showed an unavailable capability, but their kept bodies hold no readable goalSpec`);
        neverDid(ctx, session, 'no mission came after a search answer showing an unavailable capability', 'no search answer the client had received before sending a mission showed an unavailable capability');
      }
      ctx.observe('missions sent after an unavailable capability was shown', judged);
      // A pass rests on the missions recorded: later ones may be among those the record dropped.
      if (!failed) unlessDropped(ctx, session, `the ${judged} mission(s) sent after an unavailable capability was shown name none`);
    },
  ),
  clientRule(
    // The scenario serves everything plainly, so a client's missions and their signals are as it would send them anywhere.
    'capability-health',
    'client.v8.endpoints.idempotency-key',
    'every mutating /v8 request (POST /v8/missions, .../signals, .../cancel) carries an Idempotency-Key of 16-128 characters, only alphanumerics and . _ : -',
    'required',
    v8('Endpoints > Rules', 'Mutating operations require `Idempotency-Key`: 16-128 characters, only alphanumerics and `.`, `_`, `:`, `-`.'),
    async (ctx) => {
      const session = sessionOf(ctx);
      const mutations = session.exchanges.filter(isV8Mutation);
      if (mutations.length === 0) neverDid(ctx, session, 'no mutating /v8 request was found', 'the client sent no mutating /v8 request (POST /v8/missions, /v8/missions/{runId}/signals or /cancel)');
      const faults = mutations.map((ex) => [ex, v8KeyFault(ex.headers['idempotency-key'])] as const).filter(([, fault]) => fault !== undefined);
      showEvidence(ctx, faults.length > 0 ? faults.map(([ex]) => ex).slice(0, 10) : mutations.slice(0, 5));
      ctx.observe('mutating /v8 requests', mutations.length);
      for (const ex of mutations.filter((m) => !faults.some(([bad]) => bad === m))) ctx.check(true, `${describe(ex)} carried a valid Idempotency-Key`);
      for (const [ex, fault] of faults) ctx.check(false, `${describe(ex)} ${fault}${ex.status !== undefined ? ` (answered ${refusalCodes([ex])})` : ''}: mutating operations require an Idempotency-Key of 16-128 characters, only alphanumerics and . _ : -`);
      if (faults.length === 0) unlessDropped(ctx, session, `the ${mutations.length} mutating /v8 request(s) recorded carry a valid Idempotency-Key`);
    },
  ),
  clientRule(
    'dropped-stream',
    'client.v1.events.cursor',
    'a resumed stream starts after an event the client received (the cursor never runs ahead of what was delivered)',
    'observation',
    v1('Events > Run event stream (server-sent events)', 'Clients should commit their cursor only after durable processing, and should deduplicate by event identity.'),
    async (ctx) => {
      const { session, ex: cut } = bent(ctx, 'a streamed (turn-mode) POST /v1/execute');
      const resume =
        after(session, cut).find((ex) => ex.headers['last-event-id'] !== undefined && cut.runId !== undefined && pathOf(ex) === `/v1/runs/${cut.runId}/events`) ??
        neverDid(ctx, session, 'no resume of the cut stream was found', 'the client did not resume the cut stream with Last-Event-ID');
      showEvidence(ctx, [cut, resume]);
      const cursor = resume.headers['last-event-id']!;
      ctx.observe('Last-Event-ID sent / ids delivered', { sent: cursor, delivered: cut.eventIds ?? [] });
      ctx.expect((cut.eventIds ?? []).includes(cursor), `the client resumed from Last-Event-ID ${cursor}, which is not an event it was delivered (${(cut.eventIds ?? []).join(', ') || 'none'})`);
    },
  ),
];

export const CLIENT_RULES: readonly Rule[] = clientRules.map((c) => c.rule);

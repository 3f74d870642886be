/** POST /v1/execute in turn mode: the closed turn contract, the event stream and its acceptance event. */
import { type CheckContext, mediaType, section, type StreamResponse } from '../../../rule/index.ts';
import { dataOf, endedStream, exchangesOf, operation, parsedAs, requestBodyMissing, streamRead } from '../../../traffic/read.ts';
import { admissibleExecutes, callerOf, executeKey, kindOf, modeOf, endsRun, terminalKindsOf } from '../support/traffic.ts';
import { ACCEPTED, acceptedData } from '../../../contract/v1/runs.ts';
import { turnRequest } from '../../../contract/v1/turn.ts';
import { openness } from '../../generated/expectation.ts';
import { postTurn, problemCode, turnBody } from '../support/fabric.ts';
import { askedWaitMs, limiterRefusal } from '../../stateful/limiter.ts';
import { boundaryBodies, brokenExamples, turnCases, type TurnCase } from './turn-bodies-arbitrary.ts';

const rule = section({ destructive: 'mutate', surface: 'v1', document: 'v1-execution-fabric.md', needs: { credentials: ['v1:key'] } });

export const turnStream = rule({
  id: 'v1.execute.turn.stream',
  title: 'A turn request is answered 200 with text/event-stream that ends at a terminal event',
  level: 'required',
  spec: {
    section: 'What the service does; Events > Run event stream',
    quote: '`mode:turn`: the body is the chat request contract below, and the response is a Server-Sent Events stream that runs until a terminal event. … A turn stream ends at a terminal event.',
  },
  judgement: {
    record: 'a POST /v1/execute with a turn body the contract admits, by a caller the deployment admits',
    judge(j) {
      const terminal = terminalKindsOf(j.profile);
      admissibleExecutes(j, (ex, mode) => {
        if (mode !== 'turn') return;
        if (!j.check(ex, ex.status === 200, `a valid turn request answered ${ex.status}, expected 200`)) return;
        const type = mediaType(ex.responseHeaders);
        if (!j.check(ex, type === 'text/event-stream', `a turn request answered content-type "${type}", expected text/event-stream`)) return;
        // A stream cut, or stopped by its reader (the stream timeout), before any terminal event cannot show where it ended.
        const stream = endedStream(j, ex, endsRun(terminal));
        if (!stream) return;
        const { events, terminal: at } = stream;
        const kinds = events.map(kindOf);
        if (!j.check(ex, at !== -1, `the turn stream ended${ex.streamEnd ? ` (${ex.streamEnd})` : ''} without a terminal event (${[...terminal].join(', ')}); it carried [${kinds.join(', ')}]`)) return;
        j.check(ex, at === events.length - 1, `${events.length - at - 1} event(s) followed the terminal ${kinds[at]} on the turn stream`);
        if (stream.closed !== undefined) j.check(ex, stream.closed, `the turn stream was still open after its terminal ${kinds[at]} for the whole close grace (safety.streamCloseGraceMs)`);
      });
    },
  },
  async provoke(ctx) {
    const { res } = await postTurn(ctx, turnBody(ctx), { awaitClose: true });
    if (res.closeAfterTerminalMs !== undefined) ctx.observe('close after terminal event (ms)', res.closeAfterTerminalMs);
  },
});

export const acceptedEvent = rule({
  id: 'v1.execute.turn.accepted-event',
  title: 'The turn stream carries request.accepted with a boolean replayed, false for a first admission',
  level: 'required',
  spec: {
    section: 'Events > Run event stream',
    quote: 'the request was admitted; carries boolean `replayed` (`true` when the admission is a replay of an earlier request with the same key)',
  },
  judgement: {
    record: 'a turn-mode POST /v1/execute answered with its event stream',
    judge(j) {
      const terminal = terminalKindsOf(j.profile);
      const keysSeen = new Set<string>();
      for (const ex of exchangesOf(j.exchanges, 'v1.execute')) {
        if (operation(ex) !== 'v1.execute') continue;
        const key = executeKey(ex);
        const scope = key === undefined ? undefined : `${callerOf(ex)}\n${key}`;
        const first = scope === undefined || !keysSeen.has(scope);
        if (scope !== undefined) keysSeen.add(scope);
        const unkept = ex.status === undefined ? undefined : requestBodyMissing(ex);
        if (unkept !== undefined) {
          j.lacks(ex, `the request's body: ${unkept}`);
          continue;
        }
        // The rule judges what a turn stream carries; whether a turn was answered with one is v1.execute.turn.stream's.
        if (modeOf(ex) !== 'turn') continue;
        const stream = streamRead(j, ex, endsRun(terminal));
        if (!stream) continue;
        const accepted = stream.events.filter((e) => kindOf(e) === ACCEPTED);
        // A stream stopped before its end may carry its request.accepted yet; a second one read is a failure however it ended.
        if (accepted.length === 0 && stream.unended !== undefined) {
          j.lacks(ex, `the turn stream's request.accepted: ${stream.unended}`);
          continue;
        }
        if (!j.check(ex, accepted.length === 1, `the turn stream carried ${accepted.length} request.accepted events, expected one`)) continue;
        const data = parsedAs(acceptedData, dataOf(accepted[0]!));
        if (!j.check(ex, data.success, 'request.accepted carries no boolean replayed')) continue;
        if (first) j.check(ex, data.data!.replayed === false, `request.accepted says replayed:true for a request ${key === undefined ? 'sent without an idempotency key' : 'whose key this caller had not used before'}`);
      }
    },
  },
  async provoke(ctx) {
    const { events } = await postTurn(ctx, turnBody(ctx));
    ctx.observe('position of request.accepted in the stream', events.findIndex((e) => kindOf(e) === ACCEPTED));
  },
});

/** Whether a fieldErrors path names the broken field; paths are compared in dotted form, ignoring `$`, `/` and `[n]` styles. */
function names(path: string, field: string): boolean {
  const norm = (p: string) => p.replace(/^\$\.?/, '').replace(/^\//, '').replace(/\[(\d+)\]/g, '.$1').replace(/\//g, '.');
  const a = norm(path);
  const b = norm(field);
  return a.length > 0 && (a === b || a.endsWith(`.${b}`) || b.endsWith(`.${a}`) || a.startsWith(`${b}.`));
}

/** The time the rule sends cases in: inside the runner's 120 s per check, with room for a counterexample's shrink and replay. */
const SEND_BUDGET_MS = 75_000;
/** Generated cases judged, besides every named boundary, before the property says anything: fewer sample too little of the contract. */
const MIN_GENERATED_JUDGED = 50;
/** Sends of one case: the first, then one after each wait a limiter's refusal asks for. */
const MAX_SENDS = 3;
/** The wait after a refusal that names none (a 503 of a limiter that is down, a 429 without a hint), doubled at each resend. */
const UNHINTED_WAIT_MS = 1_000;
/** Cases refused one after another, each after its waits, before the rule stops sending: the limiter is not letting up. */
const REFUSED_IN_A_ROW = 3;

interface AdmissionSender {
  /** The answer to a turn body (a stream read to its first event), or undefined when the case is left unjudged. */
  send(body: unknown, label: string): Promise<StreamResponse | undefined>;
  /** Cases the limiter still refused after the waits it asked for. */
  refused: number;
  /** Cases not sent: the time bound ran out, or the limiter asked for a wait beyond it. */
  unsent: number;
  /** Why cases went unjudged. */
  why(): string;
  /** What lets the rule judge them. */
  remedy(): string;
}

/**
 * Sends the property's cases. "429 and 503 are safe to retry with the same idempotency key, because
 * nothing was accepted": a limiter's refusal says nothing of the body, so it is sent again after the
 * wait the refusal asks for, and left unjudged when still refused. "Per-key tier values and
 * request-rate numbers: not shown", and no sentence bounds how long a turn takes, so the sends are
 * bounded in time and the rule says how many it judged.
 */
function admissionSender(ctx: CheckContext): AdmissionSender {
  const started = performance.now();
  const left = () => SEND_BUDGET_MS - (performance.now() - started);
  let stopped: string | undefined;
  let lastRefusal: string | undefined;
  let inARow = 0;
  const sends = { count: 0, ms: 0 };
  const post = async (body: unknown, label: string) => {
    const at = performance.now();
    const { res } = await postTurn(ctx, body, { label, admissionOnly: true });
    sends.count += 1;
    sends.ms += performance.now() - at;
    return res;
  };
  const sender: AdmissionSender = {
    refused: 0,
    unsent: 0,
    async send(body, label) {
      if (stopped === undefined && left() <= 0) stopped = `its ${SEND_BUDGET_MS / 1000} s for sending ran out (${sends.count} requests, ${Math.round(sends.ms / Math.max(1, sends.count))} ms each to the first event on average)`;
      if (stopped !== undefined) {
        sender.unsent += 1;
        return undefined;
      }
      for (let attempt = 1; ; attempt += 1) {
        const res = await post(body, label);
        if (!limiterRefusal(res.status)) {
          inARow = 0;
          return res;
        }
        const hinted = askedWaitMs(res);
        const wait = hinted ?? UNHINTED_WAIT_MS * 2 ** (attempt - 1);
        lastRefusal = `${res.status} ${problemCode(res) ?? ''}`.trim();
        if (wait > left()) {
          // Every later case would be refused as well: none is sent.
          stopped = `the limiter answered ${lastRefusal} and asked for a wait of ${Math.round(wait / 1000)} s, beyond the ${Math.max(0, Math.round(left() / 1000))} s left of the rule's ${SEND_BUDGET_MS / 1000} s`;
          sender.refused += 1;
          return undefined;
        }
        if (attempt >= MAX_SENDS) {
          sender.refused += 1;
          inARow += 1;
          if (inARow >= REFUSED_IN_A_ROW) stopped = `the limiter refused ${inARow} cases in a row, each after ${MAX_SENDS} sends and the waits between them`;
          return undefined;
        }
        await ctx.sleep(wait);
      }
    },
    why() {
      const parts: string[] = [];
      if (sender.refused > 0) parts.push(`${sender.refused} case(s) were refused by the rate limiter (last: ${lastRefusal}) after the waits it asked for, and a 429 or 503 says nothing of the body ("429 and 503 are safe to retry ... because nothing was accepted")`);
      if (stopped !== undefined) parts.push(`the rule stopped sending because ${stopped}${sender.unsent > 0 ? `, leaving ${sender.unsent} case(s) unsent` : ''}`);
      if (parts.length === 0) parts.push('too few cases were drawn');
      return parts.join('; ');
    },
    remedy() {
      return lastRefusal !== undefined
        ? 'give the primary key a tier that admits some 300 requests within a minute and a limiter that is up (503 is its fail-closed answer), or run this rule alone (--rules v1.execute.turn.bodies)'
        : 'answer a turn request (its headers and first event) faster';
    },
  };
  return sender;
}

export const turnBodies = rule({
  id: 'v1.execute.turn.bodies',
  title: 'Every turn body inside the contract is admitted; one broken bound or one extra property gets a 4xx invalid_request problem',
  level: 'required',
  activeOnly: 'a property over bodies apicert generates, whose shrunk counterexample is the point',
  spec: {
    section: 'Resources and their fields; Limits',
    quote: '### Turn request body (AiPlatformChatRequestV1; no extra properties) … Field bounds are in Resources: messages 1-512, parts 1-64, text 200000 chars, metadata 32 keys, approvals 64, capabilities 64, tool filter lists 256, `timeoutMs` 1000-120000.',
  },
  async check(ctx) {
    const examples: TurnCase[] = [...boundaryBodies(), ...brokenExamples()];
    const rejectedWith: Record<string, number> = {};
    const fieldErrorsNamed = { named: 0, notNamed: 0, absent: 0 };
    const notNamed: string[] = [];
    const openRefusals: string[] = [];
    const sender = admissionSender(ctx);
    // fast-check tries the examples first: the first examples.length cases drawn are the named boundaries.
    const tally = { drawn: 0, examplesJudged: 0, generatedJudged: 0 };
    try {
      await ctx.property(
        turnCases,
        async ({ body, valid, why, field }) => {
          const example = tally.drawn < examples.length;
          tally.drawn += 1;
          const res = await sender.send(body, `turn body: ${why}`);
          if (res === undefined) return;
          if (example) tally.examplesJudged += 1;
          else tally.generatedJudged += 1;
          if (valid) {
            // A body naming what the deployment may not hold (a file, a tool, a receipt) is within the contract yet open: it may be refused.
            const open = openness(turnRequest, body, [], ctx.profile.fixtures.v1.turn);
            if (open) {
              if (res.status !== 200) openRefusals.push(`${why}: ${res.status} (${open})`);
              return;
            }
            if (res.status !== 200) ctx.fail(`a valid turn body (${why}) answered ${res.status} ${problemCode(res) ?? ''}, expected 200`);
            return;
          }
          if (res.status < 400 || res.status >= 500) ctx.fail(`a turn body with ${why} answered ${res.status}, expected a 4xx rejection`);
          const code = problemCode(res);
          if (code !== 'invalid_request') ctx.fail(`a turn body with ${why} was rejected with code "${code}", expected invalid_request`);
          rejectedWith[res.status] = (rejectedWith[res.status] ?? 0) + 1;
          const errors = (res.json as { fieldErrors?: unknown }).fieldErrors;
          if (!Array.isArray(errors) || errors.length === 0) fieldErrorsNamed.absent += 1;
          else if (field && errors.some((e) => typeof (e as { path?: unknown }).path === 'string' && names((e as { path: string }).path, field))) fieldErrorsNamed.named += 1;
          else {
            fieldErrorsNamed.notNamed += 1;
            if (notNamed.length < 10) notNamed.push(why);
          }
        },
        { numRuns: 200 + examples.length, examples },
      );
    } finally {
      // "Mapping of each `code` to an HTTP status: not shown."; fieldErrors are optional.
      ctx.observe('HTTP status of invalid_request (count per status)', rejectedWith, 'the spec maps no code to a status');
      ctx.observe('fieldErrors[].path names the broken field', fieldErrorsNamed, notNamed.length ? `not named for: ${notNamed.join('; ')}` : undefined);
      if (openRefusals.length > 0) ctx.observe('valid bodies the deployment refused where the description leaves it open', openRefusals.slice(0, 10), `${openRefusals.length} in all`);
      if (sender.refused > 0 || sender.unsent > 0) {
        ctx.observe('cases judged and left unjudged (refused 429/503 after the waits asked for, or not sent within the time bound)', { judgedBoundaries: tally.examplesJudged, judgedGenerated: tally.generatedJudged, refused: sender.refused, unsent: sender.unsent }, sender.why());
      }
    }
    const missed = examples.length - tally.examplesJudged;
    if (missed > 0 || tally.generatedJudged < MIN_GENERATED_JUDGED) {
      ctx.inconclusive(
        `judged ${tally.examplesJudged} of the ${examples.length} named boundary cases and ${tally.generatedJudged} generated ones (at least ${MIN_GENERATED_JUDGED} are needed): ${sender.why()}. To judge it: ${sender.remedy()}`,
      );
    }
  },
});

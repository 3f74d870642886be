/** POST /v1/execute in turn mode: the closed turn contract, the event stream and its acceptance event. */
import { mediaType, section } from '../../../rule/index.ts';
import { dataOf, endedStream, exchangesOf, operation, parsedAs, requestBodyMissing, streamRead } from '../../../traffic/read.ts';
import { admissibleExecutes, callerOf, executeKey, kindOf, modeOf, endsRun, terminalKindsOf } from '../support/traffic.ts';
import { ACCEPTED, acceptedData } from '../../../contract/v1/runs.ts';
import { turnRequest } from '../../../contract/v1/turn.ts';
import { openness } from '../../generated/expectation.ts';
import { postTurn, problemCode, turnBody } from '../support/fabric.ts';
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
    try {
      await ctx.property(
        turnCases,
        async ({ body, valid, why, field }) => {
          const { res } = await postTurn(ctx, body, { label: `turn body: ${why}` });
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
    }
  },
});

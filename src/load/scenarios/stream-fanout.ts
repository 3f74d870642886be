/**
 * Stream fan-out: many readers follow one live mission (/v8) or run (/v1) at once and must see
 * the same events with ids; readers that resume with Last-Event-ID must see the rest, with no
 * repeat and no gap. On /v8, a reader whose request timed out reads the mission back (k6 hands
 * over a body only when its request ends): a terminal mission means the stream did not close;
 * and a late reader replaying from the start must find nothing state-changing after the terminal event.
 */
import { isTerminalEventType, TERMINAL_EVENT_STATUS, TERMINAL_STATUSES } from '../../contract/v8/mission-events.ts';
import { parseEventStreamText, type TextEvent } from '../../sse/text.ts';
import { eventIdCases, oneTerminalCase, sequenceIdCases, type AnswerCase } from '../../traffic/answer-cases.ts';
import { parseJsonObject, Verdicts, type LoadRequest, type StepResult, type Transport } from '../transport.ts';
import { bearer, repeat, unjudgeable } from './common.ts';

export interface FanoutConfig {
  baseUrl: string;
  token: string;
  readers: number;
  /** Readers that resume from a cursor taken from the first reader's events. */
  resumers: number;
  streamTimeoutMs: number;
  key: () => string;
}

const isV8Terminal = (e: TextEvent | undefined) => e !== undefined && isTerminalEventType(e.event);

/** How long after the terminal event the late reader replays the stream from the start. */
export const LATE_READER_PAUSE_MS = 300;
/** How long the fan-out's setup waits at most on a 429's Retry-After before trying once more. */
const SETUP_RETRY_CAP_MS = 5_000;

function signature(events: readonly TextEvent[]): string {
  return events.map((e) => `${e.id ?? '-'}|${e.event ?? 'message'}`).join(' ');
}

/** Cursor positions spread over the stream, never its last event (nothing would follow it). */
export function cursorPositions(length: number, count: number): number[] {
  if (length < 2 || count < 1) return [];
  const positions = repeat(count, (i) => Math.floor(((i + 1) * (length - 1)) / (count + 1)));
  return [...new Set(positions)].sort((a, b) => a - b);
}

interface FanoutRules {
  surface: 'v8' | 'v1';
  /** The events path as a template, for the `name` tag. */
  endpoint: string;
  same: string;
  resume: string;
  terminal?: string;
  /** Reading the resource back after readers timed out: whether it is terminal (then their streams failed to close). */
  terminalNow?: () => Promise<boolean | undefined>;
  /** The id rule of the surface, as certify judges it: any unique id (/v8), an identity and a sequence number increasing along the stream (/v1). */
  idCases: (events: readonly TextEvent[]) => AnswerCase[];
  /** What a resume needs of every event, judged under the resume rule: an SSE id Last-Event-ID can name (/v1). */
  resumeIdCases?: (events: readonly TextEvent[]) => AnswerCase[];
}

function streamRequest(url: string, token: string, name: string, timeoutMs: number, lastEventId?: string): LoadRequest {
  const headers = bearer(token, { Accept: 'text/event-stream' });
  if (lastEventId !== undefined) headers['Last-Event-ID'] = lastEventId;
  return { method: 'GET', url, headers, name, expect: lastEventId === undefined ? [200] : [200, 409], timeoutMs };
}

/** How long the reader opened to tell a stream held open from a slow mission waits at most. */
const RECHECK_TIMEOUT_MS = 5_000;
/** How many times a stream that ended without a terminal event is resumed at most. */
const MAX_STREAM_RESUMES = 10;

/**
 * Readers timed out while the mission may still have been running: whether their streams stayed
 * open is known only from a reader opened once the mission reads back terminal. "The stream closes
 * after a terminal event": such a reader of an ended mission must get its stream closed.
 */
async function judgeTimedOut(t: Transport, c: FanoutConfig, url: string, rules: FanoutRules, v: Verdicts, timedOut: number): Promise<void> {
  if (!rules.terminal || !rules.terminalNow || (await rules.terminalNow()) !== true) return;
  const [again] = await t.batch([streamRequest(url, c.token, `fanout recheck GET ${rules.endpoint}`, Math.min(RECHECK_TIMEOUT_MS, c.streamTimeoutMs))]);
  if (again!.status === 0 && again!.timedOut === true) {
    // The mission had ended, and its stream stays open even to a new reader: the readers' streams stayed open too.
    for (let i = 0; i < timedOut; i += 1) v.judge(rules.terminal, false, "a reader's stream closes after the terminal event (it timed out, and so did a reader opened once the mission read back terminal)");
  } else if (again!.status === 200) {
    const once = oneTerminalCase(parseEventStreamText(again!.body).events, isTerminalEventType);
    if (once) v.judgeCase(rules.terminal, once);
  }
}

/**
 * A reader's stream that ended without a terminal event: "The stream closes after a terminal event"
 * does not say only then, and "The stream is resumable" lets a server (or a proxy) cap a stream's
 * length. The reader resumes from its last id, as a client would, and the joined stream is judged.
 * It ended early only if it ended, without a terminal event, after the mission read back terminal.
 * Streams cut at the same event are resumed once for all of them.
 */
async function completeStreams(t: Transport, c: FanoutConfig, url: string, rules: FanoutRules, v: Verdicts, streams: TextEvent[][]): Promise<TextEvent[][]> {
  const joined = streams.slice();
  const open = (events: TextEvent[]) => !events.some(isV8Terminal) && events.length > 0 && events[events.length - 1]!.id !== undefined;
  for (let round = 0; round < MAX_STREAM_RESUMES; round += 1) {
    const cut = new Map<TextEvent[], number[]>();
    joined.forEach((events, i) => {
      if (open(events)) cut.set(events, [...(cut.get(events) ?? []), i]);
    });
    if (cut.size === 0) break;
    const endedBefore = rules.terminalNow ? await rules.terminalNow() : undefined;
    const heads = [...cut.keys()];
    const resumed = await t.batch(heads.map((events) => streamRequest(url, c.token, `fanout rejoin GET ${rules.endpoint}`, c.streamTimeoutMs, events[events.length - 1]!.id)));
    let progressed = false;
    resumed.forEach((res, k) => {
      const head = heads[k]!;
      // Not resumable now (409 outside the window, a refusal, no answer): left as read, unjudged.
      if (res.status !== 200) {
        for (const i of cut.get(head)!) joined[i] = [];
        return;
      }
      const more = parseEventStreamText(res.body).events;
      if (!more.some(isV8Terminal) && endedBefore === true) {
        // The mission had ended before this stream opened, and it ended without its terminal event.
        for (const i of cut.get(head)!) {
          v.judge(rules.terminal!, false, "a reader's stream that ended carries a terminal event (it ended without one after the mission read back terminal)");
          joined[i] = [];
        }
        return;
      }
      const whole = head.concat(more);
      progressed = progressed || more.length > 0;
      for (const i of cut.get(head)!) joined[i] = whole;
    });
    if (!progressed) break;
  }
  return joined;
}

/** Returns the events every reader should have seen (the fullest sound stream, else the first read), when one was read. */
async function judgeFanout(t: Transport, c: FanoutConfig, url: string, rules: FanoutRules, v: Verdicts): Promise<TextEvent[] | undefined> {
  const streams = await t.batch(repeat(c.readers, () => streamRequest(url, c.token, `fanout readers GET ${rules.endpoint}`, c.streamTimeoutMs)));
  // Only a reader that waited out its whole timeout: a refused or reset connection says nothing about closing.
  const timedOut = streams.filter((res) => res.status === 0 && res.timedOut === true).length;
  if (timedOut > 0) {
    v.figure(`${rules.surface}_fanout_readers_timed_out`, timedOut);
    await judgeTimedOut(t, c, url, rules, v, timedOut);
  }
  // Readers of one stream mostly receive the very same bytes: parse each distinct body once. At
  // thousands of readers, parsing every body in k6's JS runtime was most of k6's CPU time.
  const parsed = new Map<string, TextEvent[]>();
  const signatures = new Map<TextEvent[], string>();
  const eventsOf = (body: string) => {
    let events = parsed.get(body);
    if (!events) parsed.set(body, (events = parseEventStreamText(body).events));
    return events;
  };
  const idCases = new Map<TextEvent[], AnswerCase[]>();
  const idCasesOf = (events: TextEvent[]) => {
    let cases = idCases.get(events);
    if (!cases) idCases.set(events, (cases = rules.idCases(events)));
    return cases;
  };
  const signatureOf = (events: TextEvent[]) => {
    let sig = signatures.get(events);
    if (sig === undefined) signatures.set(events, (sig = signature(events)));
    return sig;
  };
  // A reader refused for load (429, 503) or for its credential (401, 403) says nothing of the stream, as in the storms.
  const served = streams.filter((res) => !unjudgeable(res) && v.judge(rules.same, res.status === 200, "a reader's stream opens with 200"));
  let read = served.map((res) => eventsOf(res.body));
  if (rules.terminal) read = (await completeStreams(t, c, url, rules, v, read)).filter((events) => events.length > 0);
  let reference: TextEvent[] | undefined;
  // Resumes are judged against the fullest stream whose own ids and terminal event are sound, not
  // the first listed: which reader k6 lists first is not which one connected first, and a reader
  // that missed an event (or got one twice) would fail every resume in that iteration, in one
  // segment and not in another.
  let fullest: TextEvent[] | undefined;
  const resumable = (events: TextEvent[]) => (rules.resumeIdCases ? rules.resumeIdCases(events) : []);
  for (const events of read) {
    let sound = v.judgeCases(rules.same, idCasesOf(events));
    if (rules.resumeIdCases) sound = v.judgeCases(rules.resume, resumable(events)) && sound;
    if (!reference) reference = events;
    v.judge(rules.same, signatureOf(events) === signatureOf(reference), 'every reader sees the same events in the same order');
    if (rules.terminal) {
      // Informational events may follow the terminal one (certify's reading); a second terminal event may not.
      // A stream still without one here could not be resumed to its end: it is not judged on that.
      const once = oneTerminalCase(events, isTerminalEventType);
      if (once) sound = v.judgeCase(rules.terminal, once) && sound;
      else sound = false;
    }
    if (sound && (!fullest || events.length > fullest.length)) fullest = events;
  }
  v.figure(`${rules.surface}_fanout_readers_judged`, served.length);
  reference = fullest ?? reference;
  if (!reference || !idCasesOf(reference).every((c) => c.ok) || !resumable(reference).every((c) => c.ok)) return reference;
  const positions = cursorPositions(reference.length, c.resumers);
  const resumed = await t.batch(positions.map((p) => streamRequest(url, c.token, `fanout resume GET ${rules.endpoint}`, c.streamTimeoutMs, reference![p]!.id!)));
  // 409: the cursor left the replay window, which the seed allows; the rest as for the readers.
  // Counted, so a rule that compared no resumed stream can say that the window held none of the cursors.
  const outside = resumed.filter((res) => res.status === 409).length;
  if (outside > 0) v.figure(`${rules.surface}_fanout_resumes_409`, outside);
  const opened = resumed.map((res, i) => ({ res, at: positions[i]! })).filter(({ res }) => !unjudgeable(res) && res.status !== 409 && v.judge(rules.resume, res.status === 200, 'a resumed stream opens with 200 (or 409 outside the replay window)'));
  let rest = opened.map(({ res }) => eventsOf(res.body));
  // A resumed stream cut short is resumed in turn, as the readers' were: the events after the cursor are the joined ones.
  // One that carried nothing yet is resumed from its own cursor (the event it starts after, dropped again).
  const seeded = rest.map((events) => rules.terminal !== undefined && events.length === 0);
  if (rules.terminal) rest = await completeStreams(t, c, url, rules, v, rest.map((events, i) => (seeded[i] ? [reference![opened[i]!.at]!] : events)));
  rest.forEach((events, i) => {
    if (rules.terminal && events.length === 0) return;
    const from = seeded[i] ? events.slice(1) : events;
    v.judge(rules.resume, signature(from) === signature(reference!.slice(opened[i]!.at + 1)), 'a resumed reader sees the events after its cursor, none repeated, none missing');
  });
  return reference;
}

export interface V8FanoutConfig extends FanoutConfig {
  missionBody: unknown;
}

/** Creates the mission; a 429 (the target's limit, met right after a storm) is waited out once, as its Retry-After asks. */
async function createFanoutMission(t: Transport, c: V8FanoutConfig): Promise<string | undefined> {
  const create = { method: 'POST' as const, url: `${c.baseUrl}/v8/missions`, headers: bearer(c.token, { 'Content-Type': 'application/json', 'Idempotency-Key': c.key() }), body: JSON.stringify(c.missionBody), name: 'fanout setup POST /v8/missions', expect: [202] };
  let [created] = await t.batch([create]);
  if (created!.status === 429) {
    const seconds = Number((created!.headers['retry-after'] ?? '').trim());
    await t.sleep(Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds * 1000, SETUP_RETRY_CAP_MS) : 1000);
    [created] = await t.batch([create]);
  }
  const runId = parseJsonObject(created!.body)?.runId;
  return created!.status === 202 && typeof runId === 'string' ? runId : undefined;
}

/** The mission's status as read back, undefined when it cannot be read. */
async function missionStatus(t: Transport, c: V8FanoutConfig, runId: string): Promise<string | undefined> {
  const [res] = await t.batch([{ method: 'GET', url: `${c.baseUrl}/v8/missions/${encodeURIComponent(runId)}`, headers: bearer(c.token), name: 'fanout read-back GET /v8/missions/{runId}', expect: [200] }]);
  const status = res!.status === 200 ? parseJsonObject(res!.body)?.status : undefined;
  return typeof status === 'string' ? status : undefined;
}

/**
 * A late reader replays the ended mission from the start: after the terminal event nothing may
 * change its state, neither another terminal event on the stream nor the state it reads back.
 */
async function judgeAfterTerminal(t: Transport, c: V8FanoutConfig, runId: string, url: string, v: Verdicts): Promise<void> {
  const rule = 'load.v8.events.fanout-after-terminal';
  await t.sleep(LATE_READER_PAUSE_MS);
  const [late] = await t.batch([streamRequest(url, c.token, 'fanout late GET /v8/missions/{runId}/events', c.streamTimeoutMs)]);
  if (late!.status !== 200) return;
  const events = parseEventStreamText(late!.body).events;
  const first = events.findIndex(isV8Terminal);
  if (first === -1) return;
  v.judge(rule, !events.slice(first + 1).some(isV8Terminal), 'a late reader replaying from the start sees no terminal event after the first');
  const status = await missionStatus(t, c, runId);
  if (status !== undefined) v.judge(rule, status === TERMINAL_EVENT_STATUS[events[first]!.event!], 'the mission reads back in the state its terminal event reported');
}

export async function v8StreamFanout(t: Transport, c: V8FanoutConfig): Promise<StepResult> {
  const v = new Verdicts();
  const runId = await createFanoutMission(t, c);
  if (runId === undefined) return v;
  const url = `${c.baseUrl}/v8/missions/${encodeURIComponent(runId)}/events`;
  const reference = await judgeFanout(t, c, url, {
    surface: 'v8',
    endpoint: '/v8/missions/{runId}/events',
    same: 'load.v8.events.fanout-same-events',
    resume: 'load.v8.events.fanout-resume',
    terminal: 'load.v8.events.fanout-one-terminal',
    terminalNow: async () => {
      const status = await missionStatus(t, c, runId);
      return status === undefined ? undefined : (TERMINAL_STATUSES as readonly string[]).includes(status);
    },
    idCases: (events) => [streamCarriesEvents(events), ...eventIdCases(events)],
  }, v);
  if (reference?.some(isV8Terminal)) await judgeAfterTerminal(t, c, runId, url, v);
  return v;
}

/** A reader of a mission or run that ran sees events (certify: "the stream of a mission that ran carried no event"). */
function streamCarriesEvents(events: readonly TextEvent[]): AnswerCase {
  return { ok: events.length > 0, check: 'the stream of a run that ran carries events', why: 'the stream carried no event' };
}

/**
 * An event's identity as certify's v1.runs.events.identity takes it: its SSE id, else an `event_id`
 * (or `id`) in its data. Written again rather than imported: that function is private to the
 * certify rule module, which brings the rule framework and Node's http client, and a k6 bundle can
 * carry neither.
 */
export function v1EventIdentity(e: TextEvent): string | undefined {
  if (e.id !== undefined && e.id !== '') return `id:${e.id}`;
  const data = parseJsonObject(e.data);
  const id = data?.event_id ?? data?.id;
  return typeof id === 'string' || typeof id === 'number' ? `data:${id}` : undefined;
}

/**
 * /v1 ids under the identity sentence ("should deduplicate by event identity"), as certify's
 * v1.runs.events.identity judges them: every event has an identity (an SSE id or one in its data),
 * no two share one, and the SSE ids are the increasing integer sequence.
 */
export function v1IdCases(events: readonly TextEvent[]): AnswerCase[] {
  const ids = events.map(v1EventIdentity);
  const missing = ids.findIndex((id) => id === undefined);
  const everyIdentity: AnswerCase = { ok: missing === -1, check: 'every event carries an identity: an SSE id or an event id in its data', why: `event #${missing + 1} carries neither an SSE id nor an event id in its data` };
  const known = ids.filter((id) => id !== undefined);
  const unique: AnswerCase = { ok: new Set(known).size === known.length, check: 'no two events of one run share an identity', why: 'two events of one run share an identity' };
  return [streamCarriesEvents(events), everyIdentity, unique, ...sequenceIdCases(events)];
}

/**
 * Under the Resume sentence ("`Last-Event-ID` carries the `sequence` value of the stored run
 * event"), as certify's v1.runs.events.resume: an event without an SSE id cannot be resumed after.
 */
export function v1ResumeIdCases(events: readonly TextEvent[]): AnswerCase[] {
  return [{ ok: events.every((e) => e.id !== undefined && e.id !== ''), check: 'every event carries its sequence as SSE id, so Last-Event-ID can name it', why: 'an event carries no SSE id' }];
}

export interface V1FanoutConfig extends FanoutConfig {
  taskBody: unknown;
}

export async function v1EventsFanout(t: Transport, c: V1FanoutConfig): Promise<StepResult> {
  const v = new Verdicts();
  const [created] = await t.batch([
    { method: 'POST', url: `${c.baseUrl}/v1/execute`, headers: bearer(c.token, { 'Content-Type': 'application/json', Accept: 'application/json', 'Idempotency-Key': c.key() }), body: JSON.stringify(c.taskBody), name: 'fanout setup POST /v1/execute', expect: [200] },
  ]);
  const runId = parseJsonObject(created!.body)?.run_id;
  if (created!.status !== 200 || typeof runId !== 'string') return v;
  await judgeFanout(t, c, `${c.baseUrl}/v1/runs/${encodeURIComponent(runId)}/events`, {
    surface: 'v1',
    endpoint: '/v1/runs/{id}/events',
    same: 'load.v1.events.fanout-same-events',
    resume: 'load.v1.events.fanout-resume',
    idCases: v1IdCases,
    resumeIdCases: v1ResumeIdCases,
  }, v);
  return v;
}


/**
 * One judgement per rule, written once over the journal (`journal.ts`), serving the active run, a
 * recording and the proxy alike.
 *
 * A judgement picks the exchanges it applies to from their REQUESTS (method, path, headers, body)
 * and the exchanges before them, never from the answer it hopes for; then it judges the answer
 * with `j.check`. An exchange it would judge but cannot (a body the recorder did not keep, an
 * aborted stream) is reported with `j.lacks`; a fact a recording cannot show (which scopes a
 * credential holds, a fixture) comes from the profile through `j.credentialOf`/`j.profile`, and
 * without one the judgement is untestable (`j.untestable`).
 *
 * The active check is the judgement's provocation: it sends what makes the deployment show the
 * behaviour, and `defineRule` judges the exchanges it caused with the same function.
 */
import type { Credential, Profile } from '../profile/schema.ts';
import { serviceKey, type CheckContext } from './context.ts';
import type { EvidenceEntry } from './exchange.ts';
import { originalOf, type Exchange, type Journal, type MissingPart } from './journal.ts';
import { CheckFailure, Inconclusive, JudgedInconclusive, Untestable } from './outcome.ts';
import type { Prerequisite } from './prerequisite.ts';

/** What a judgement sees: the exchanges, the facts of the profile, and how to record a case. */
export interface Judge {
  /** Every exchange of the journal judged, oldest first (the check's own, or the recording's). */
  readonly exchanges: readonly Exchange[];
  /** `active`: exchanges the rule's own provocation caused; `recording`: traffic apicert did not send (a HAR, the proxy). */
  readonly source: 'active' | 'recording';
  /** The profile: the run's, or the one given to `judge-traffic --profile`/`proxy --profile`; undefined when none was given. */
  readonly profile: Profile | undefined;
  /**
   * Judges one case of the answer to `ex` (compared with `also`, when it was); a failure names
   * `ex`. Returns whether the case held.
   */
  check(ex: Exchange, ok: boolean, reason: string, also?: readonly Exchange[]): boolean;
  /**
   * `ex` is one the rule applies to, but the part it judges is not there. When `ex` was cut short
   * (`cutShort`: a body cut or not kept, a stream its reader stopped), no case held on what was read
   * of it (a status) counts: without a failing case an active rule is inconclusive, and a recording's
   * is untestable unless it judged other exchanges whole (`settleUnread`). Otherwise (a fact the
   * traffic does not show) it is so only when nothing else was judged.
   */
  lacks(ex: Exchange, missing: MissingPart): void;
  /**
   * The profile credential the request carried (by label, token, or apicert's `«redacted:token:<name>»`
   * marker); undefined when it carried none the profile knows. Without a profile the judgement
   * cannot know it: untestable, naming what to give.
   */
  credentialOf(ex: Exchange): Credential | undefined;
  /** A fact the judgement needs is missing: ends the judgement as untestable. */
  untestable(missing: Prerequisite): never;
  /** Records what the target does where the spec allows several readings. */
  observe(subject: string, value: unknown, note?: string): void;
  /** Whether a case failed so far: a judgement that found a failure may stop caring what else it could not judge. */
  readonly failed: boolean;
  /**
   * The secrets a response must never carry: the profile's tokens, and in a recording those the
   * recording shows were issued or accepted (`issuedBy`: the exchange whose answer handed it out).
   */
  readonly secrets: readonly Secret[];
}

export interface Secret {
  value: string;
  label: string;
  issuedBy?: number;
}

/**
 * The run's own journal: every exchange of every check (bodies cut short, bounded in bytes), for
 * the rules that judge the whole run (`judgesTheRun`), which run after every other rule.
 */
export const RUN_JOURNAL = serviceKey<Journal>('run-journal');

/** A rule's judgement: the one place its expectation is written. */
export interface Judgement {
  /**
   * What the rule needs to find among the exchanges, for the reason when it found none:
   * "a signal sent to a mission after its terminal event".
   */
  record: string;
  /**
   * When the target may legally leave nothing to judge (it answered JSON where an SSE stream was
   * one allowed framing): the not-applicable reason an active run gives instead of "setup failed".
   */
  none?: string;
  /**
   * A rate limiter's refusal, which says nothing of what a request asked: a case decided on such an
   * answer (the exchange judged, or one it is compared with) is recorded as a lack saying `why`
   * instead, so it neither fails nor passes the rule; and where the judgement decided nothing and the
   * limiter refused every exchange `within` its subject, those answers are what it lacks.
   */
  limit?: { refused: (ex: Exchange) => boolean; why: string; within: (ex: Exchange, profile: Profile | undefined) => boolean };
  judge: (j: Judge) => void;
}

/** How the caller shows an exchange as evidence: its index in `ctx.http.evidence` (recorded if need be), or undefined when too many are shown. */
export type ShowExchange = (ex: Exchange, always: boolean) => number | undefined;

export interface JudgeOptions {
  source: Judge['source'];
  profile: Profile | undefined;
  /** Defaults to the exchange's own `evidence` index (the probe client's exchanges). */
  show?: ShowExchange;
  /** How a case names its exchange; defaults to "METHOD path". */
  name?: (ex: Exchange) => string;
  /** How a case is worded; defaults to the exchange's name, then the reason. */
  describe?: (ex: Exchange, reason: string) => string;
  secrets?: readonly Secret[];
  /** How a case is recorded; defaults to `ctx.check`. */
  record?: (ok: boolean, reason: string, at: number | undefined) => boolean;
  /** How an observation is recorded; defaults to `ctx.observe`. */
  observe?: Judge['observe'];
  /**
   * The exchanges are a part of what the rule judges (one run of a property): a cut exchange does
   * not end the judgement here, since the rule's verdict is its judgement over all of them.
   */
  partial?: boolean;
  /** Told the run before the unread parts settle the verdict (a recording counts the exchanges judged even when the rule ends untestable). */
  settled?: (run: JudgementRun) => void;
  /**
   * The exchanges were not sent for this rule (the whole run's journal, which keeps a bounded part of
   * each body): like a recording, the rule passes on those it judged whole, saying which it could not read.
   */
  sample?: boolean;
}

/** The outcome of one judgement: how many exchanges it judged, and the parts it lacked. */
export interface JudgementRun {
  judged: ReadonlySet<number>;
  lacking: ReadonlyArray<{ exchange: Exchange; missing: MissingPart }>;
  /** Whether some case failed. */
  failed: boolean;
}

/** How a stream ends when its reader stopped reading (apicert at a bound, the recorded client), not its server: what came after is unknown. */
const READER_STOPPED: ReadonlySet<string> = new Set(['timeout', 'byte-limit', 'event-limit', 'client-disconnect', 'aborted']);

/** Where apicert's reader stops a stream at a bound of its own (time, bytes, events): a deadline or a budget, never what a recorded client chose. */
const OWN_BOUNDS: ReadonlySet<string> = new Set(['timeout', 'byte-limit', 'event-limit']);

/** The stream's end was its reader's, not the server's: it did not end, it stopped being read. */
export function readerStopped(ex: Exchange): boolean {
  return ex.streamEnd !== undefined && READER_STOPPED.has(ex.streamEnd);
}

/** What the journal holds of `ex` stops short of what was sent or answered: a body cut or not kept, a stream its reader stopped. */
export function cutShort(ex: Exchange): boolean {
  return ex.responseBodyTruncated === true || ex.responseBodyMissing !== undefined || ex.requestBodyTruncated === true || ex.requestBodyMissing !== undefined || readerStopped(ex);
}

/**
 * The parts a judgement lacked on exchanges cut short: their deciding part lies in what was not
 * read, so the rule judged them not at all, even where a case of them (a status) held.
 */
export function unreadParts(run: Pick<JudgementRun, 'lacking'>): JudgementRun['lacking'] {
  return run.lacking.filter((l) => cutShort(l.exchange));
}

const BEARER = /^(Bearer|Basic|Token)\s+/i;
const MARKER = /^«redacted:token:(.+)»$/;

/** The profile credential `ex` carried, or undefined. */
export function credentialIn(ex: Exchange, credentials: readonly Credential[]): Credential | undefined {
  if (ex.credential !== undefined) {
    const named = credentials.find((c) => c.name === ex.credential);
    if (named) return named;
  }
  const auth = ex.requestHeaders.authorization;
  // Only a well-formed Bearer header carries a credential; a token sent without its scheme is a malformed request.
  if (auth === undefined || !/^Bearer\s+/i.test(auth)) return undefined;
  const token = auth.replace(BEARER, '').trim();
  const marker = MARKER.exec(token);
  return credentials.find((c) => (marker ? c.name === marker[1] : c.token === token));
}

/** Runs `judgement` over `exchanges`, each case through `ctx.check`: the one runner of judgements, for active checks, recordings and the proxy's live judging. */
export function runJudgement(ctx: Pick<CheckContext, 'check' | 'observe'>, judgement: Judgement, exchanges: readonly Exchange[], options: JudgeOptions): JudgementRun {
  const judged = new Set<number>();
  const lacking: Array<{ exchange: Exchange; missing: MissingPart }> = [];
  const show = options.show ?? ((ex: Exchange) => ex.evidence);
  const name = options.name ?? ((ex: Exchange) => `${ex.method} ${ex.path}`);
  const describe = options.describe ?? ((ex: Exchange, reason: string) => `${name(ex)}: ${reason}`);
  // Made once per run, not per case: a recording's judgement makes some 100k cases.
  const recordCase = options.record ?? ((held: unknown, why: string, where: number | undefined) => ctx.check(held, why, where));
  let failed = false;
  const record = (ok: boolean, why: string, where: number | undefined): boolean => {
    if (!ok) failed = true;
    return recordCase(ok, why, where);
  };
  const limit = judgement.limit;
  let decided = false;
  const j: Judge = {
    exchanges,
    source: options.source,
    profile: options.profile,
    check(ex, ok, reason, also) {
      if (limit !== undefined) {
        // A recording's judgement makes some 100k cases: no array is built for one.
        const refused = limit.refused(ex) ? ex : also?.find(limit.refused);
        if (refused !== undefined) {
          lacking.push({ exchange: refused, missing: limit.why });
          return false;
        }
        decided = true;
      }
      judged.add(ex.index);
      if (also !== undefined) for (const other of also) judged.add(other.index);
      const at = show(ex, !ok);
      if (also !== undefined) for (const other of also) show(other, !ok);
      // A case that held says nothing: its text is built only for a failure (a recording's judgement makes some 100k cases).
      return record(ok, ok ? '' : describe(ex, reason), at);
    },
    lacks(ex, missing) {
      lacking.push({ exchange: ex, missing });
    },
    credentialOf(ex) {
      const credentials = options.profile?.credentials ?? [];
      if (credentials.length === 0) {
        throw new Untestable({ need: 'setting', name: 'the profile', remedy: 'which credential holds which scopes, principal and tenant is not in the traffic: give the profile (--profile FILE)' });
      }
      return credentialIn(ex, credentials);
    },
    untestable(missing) {
      throw new Untestable(missing);
    },
    observe(subject, value, note) {
      (options.observe ?? ((s, v, n) => ctx.observe(s, v, n)))(subject, value, note);
    },
    get failed() {
      return failed;
    },
    secrets: options.secrets ?? (options.profile?.credentials ?? []).map((c) => ({ value: c.token, label: `token:${c.name}` })),
  };
  try {
    judgement.judge(j);
  } catch (error) {
    // The judgement's own "cannot decide" over the exchanges it was given, told apart from a check stopped before judging (run-judgement.ts).
    if (error instanceof Inconclusive && !(error instanceof JudgedInconclusive)) throw new JudgedInconclusive(error.message);
    throw error;
  }
  if (limit !== undefined && !decided && lacking.length === 0) {
    const subject = exchanges.filter((ex) => ex.status !== undefined && limit.within(ex, options.profile));
    // Only where the limiter refused all there was: an answer it let through may show what "none" says.
    if (subject.length > 0 && subject.every(limit.refused)) for (const ex of subject) lacking.push({ exchange: ex, missing: limit.why });
  }
  const result = { judged, lacking, failed };
  options.settled?.(result);
  if (!options.partial) settleUnread(result, options.source === 'recording' || options.sample === true, options.source, name, j.observe);
  return result;
}

/**
 * The one rule for answers not read whole, for every caller of `runJudgement` (active checks,
 * recordings, the proxy): a judgement that lacked the deciding part of an exchange cut short, and
 * found no failure, did not judge that exchange, whatever case of it (a status) held. Active: the
 * rule sent each request to see its answer, so it is inconclusive. A recording is the traffic there
 * was (a client aborts the streams it is done with), and a rule of the whole run judges what other
 * checks sent, kept in part by the run's bounded journal (and a shared provocation's hundreds of cases,
 * kept by its check's bounded journal): such a rule passes on the exchanges it
 * judged whole, saying which it could not read, and is untestable (inconclusive) when it judged none whole. A failing
 * case still fails. A judgement whose case spans exchanges (a cancel, then the stream showing it)
 * judges it on the later one, with the earlier as `also`, so a cut later one leaves neither judged.
 */
function settleUnread(run: JudgementRun, sample: boolean, source: Judge['source'], name: (ex: Exchange) => string, observe: Judge['observe']): void {
  const unread = unreadParts(run);
  if (run.failed || unread.length === 0) return;
  const reason = lackingReason({ lacking: unread }, name);
  const unreadIndices = new Set(unread.map((l) => l.exchange.index));
  const whole = [...run.judged].some((i) => !unreadIndices.has(i));
  if (sample && whole) {
    observe(source === 'recording' ? 'exchanges not judged: the recording holds only a part of them' : 'exchanges not judged: apicert kept or read only a part of them', `${unread.length}: ${reason}`);
    return;
  }
  const besides = run.judged.size > 0 ? ` (every case judged held; ${unread.length} exchange(s) stay unjudged)` : '';
  // A stream apicert's own reader stopped at one of its bounds (its recording says which: passive/har.ts) lacks its end as certify's did: inconclusive there too.
  if (source === 'recording' && !unread.every((l) => OWN_BOUNDS.has(l.exchange.streamEnd ?? ''))) throw new Untestable({ need: 'recording', what: `${reason}${besides}` });
  throw new Inconclusive(`the answers this rule judges did not come or could not be read whole: ${reason}${besides}`);
}

/** The reason a judgement that judged nothing gives for the parts it lacked: the first few, with their exchanges. */
export function lackingReason(run: Pick<JudgementRun, 'lacking'>, name: (ex: Exchange) => string): string {
  const shown = run.lacking.slice(0, 3).map((l) => `${name(l.exchange)}: ${l.missing}`);
  return `${shown.join('; ')}${run.lacking.length > 3 ? ` (+${run.lacking.length - 3} more)` : ''}`;
}

/**
 * The verdict of a rule's own provocation: the exchanges the check caused, judged. A provocation
 * that produced nothing the judgement applies to cannot pass: inconclusive, saying what was missing.
 */
export function judgeOwnExchanges(ctx: CheckContext, judgement: Judgement, shared?: readonly Exchange[], stopped?: Inconclusive): void {
  const name = (ex: Exchange) => `${ex.method} ${ex.path}`;
  // A rule of the whole run judges every exchange of the run; a rule of a shared provocation, what
  // that provocation caused (another check's exchanges); the others, what their check caused.
  const run = ctx.rule.judgesTheRun ? ctx.service(RUN_JOURNAL) : undefined;
  const exchanges = shared ?? (run ? run.exchanges : ctx.http.exchanges);
  let shown = false;
  // A shared run has thousands of exchanges: the first one and every failing one are shown.
  const showShared = (ex: Exchange, always: boolean) => (always || !shown ? ((shown = true), ctx.http.record(evidenceOfJournal(ex))) : undefined);
  // A rule of the whole run shows its own check's exchanges as that check recorded them (their labels), the others' from the run's journal.
  const checks = run ? new Set(ctx.http.exchanges) : undefined;
  const ownEvidence = (ex: Exchange) => {
    const original = originalOf(ex);
    return original !== undefined && checks!.has(original) ? original.evidence : undefined;
  };
  const show = shared ? showShared : run ? (ex: Exchange) => ownEvidence(ex) ?? ex.evidence ?? ctx.http.record(evidenceOfJournal(ex)) : undefined;
  // A shared provocation (the generated and catalogue runs: hundreds of cases, each judged on its own) is a sample, as the run's journal is and as judge-traffic reads the same exchanges: an answer its bounded journal let go, or one cut short, leaves that case unjudged, not the rule.
  const options: JudgeOptions = { source: 'active', profile: ctx.profile, name, sample: run !== undefined || shared !== undefined, ...(show ? { show } : {}) };
  if (stopped !== undefined) {
    // Without the run's journal there is only what the stopped provocation sent: the stop stands.
    if (run === undefined) throw stopped;
    return judgeTheRunPastStop(ctx, judgement, exchanges, options, stopped);
  }
  const result = runJudgement(ctx, judgement, exchanges, options);
  if (result.judged.size > 0) return;
  if (result.lacking.length > 0) ctx.inconclusive(`the answers this rule judges did not come or could not be read whole: ${lackingReason(result, name)}`);
  if (judgement.none !== undefined) ctx.notApplicable(judgement.none);
  const own = ctx.http.exchanges.filter((ex) => ex.status !== undefined);
  const limited = own.filter(limiterAnswer);
  const statuses = `answered ${[...new Set(limited.map((ex) => ex.status))].join(' or ')}`;
  if (own.length > 0 && limited.length === own.length) {
    ctx.inconclusive(`the rate limiter refused every request this check sent (${own.length}, ${statuses}), so none shows this rule: lower --max-rps or use a credential of a higher tier`);
  }
  // A refusal of the one request whose answer the rule reads (the read after a stream) leaves it nothing: the limiter, not the setup.
  const why = limited.length > 0 ? `; the rate limiter refused ${limited.length} of the ${own.length} requests it sent (${statuses}), which may be the ones it needed: lower --max-rps or use a credential of a higher tier` : '';
  ctx.inconclusive(`setup failed: the check's requests produced no exchange this rule judges (${judgement.record})${why}`);
}

/**
 * A rule of the whole run whose own provocation was stopped (its setup refused by a limiter, a
 * transport failure): the run's exchanges are still there to judge, as `judge-traffic` judges the
 * run's recording, and its own requests were only a part of them. Its judgement over them is the
 * verdict when it judged something (a case held or failed); when it judged nothing, the stop is.
 */
function judgeTheRunPastStop(ctx: CheckContext, judgement: Judgement, exchanges: readonly Exchange[], options: JudgeOptions, stopped: Inconclusive): void {
  let result: JudgementRun;
  try {
    result = runJudgement(ctx, judgement, exchanges, options);
  } catch (error) {
    // Nothing judged whole (or a fact missing): the stop says more than "nothing could be read". A failing case recorded stands (the runner fails the rule on it).
    if (error instanceof Inconclusive || error instanceof Untestable) throw stopped;
    throw error;
  }
  if (result.judged.size === 0 && !result.failed) throw stopped;
  ctx.observe('its own requests were stopped short: judged over the run’s exchanges', stopped.message);
}

/** A limiter's refusal: 429 on any surface, and /v1's fail-closed 503 ("When the rate-limit protection is itself unavailable"). */
function limiterAnswer(ex: Exchange): boolean {
  return ex.status === 429 || (ex.status === 503 && /^\/v1\//.test(ex.path));
}

/** Evidence of an exchange another check made (from the run's journal); the probe client redacts it when recorded. */
export function evidenceOfJournal(ex: Exchange): EvidenceEntry {
  const entry: EvidenceEntry = {
    label: `exchange of another rule's check${ex.startedAt ? ` at ${ex.startedAt}` : ''}`,
    request: { method: ex.method, url: ex.url, headers: ex.requestHeaders, ...(ex.requestBody !== undefined ? { body: ex.requestBody.slice(0, 4096) } : {}) },
    durationMs: ex.durationMs ?? 0,
    curl: `curl -X ${ex.method} '${ex.url.replaceAll("'", "'\\''")}'`,
  };
  if (ex.status !== undefined) entry.response = { status: ex.status, headers: ex.responseHeaders, ...(ex.responseBody !== undefined ? { body: ex.responseBody.slice(0, 4096) } : {}) };
  if (ex.error !== undefined) entry.error = ex.error;
  return entry;
}

/**
 * One run of a property-based provocation, judged as it ends: `send` makes the run's requests, and
 * the rule's judgement judges the exchanges they caused. A failing case fails the run (so
 * fast-check shrinks it to a minimal one, and the report keeps that counterexample); cases that
 * hold are not recorded here, since the rule's verdict is still its judgement over every exchange
 * of the check.
 */
export async function judgedRun(ctx: CheckContext, judgement: Judgement, send: () => Promise<void>): Promise<void> {
  const before = ctx.http.exchanges.at(-1)?.index ?? -1;
  await send();
  const caused = ctx.http.exchanges.filter((ex) => ex.index > before);
  let failed: { reason: string; at: number | undefined } | undefined;
  runJudgement(ctx, judgement, caused, {
    source: 'active',
    profile: ctx.profile,
    partial: true,
    name: (ex) => `${ex.method} ${ex.path}`,
    record: (ok, reason, at) => {
      failed ??= ok ? undefined : { reason, at };
      return ok;
    },
    observe: () => undefined,
  });
  if (failed) throw new CheckFailure(failed.reason, undefined, failed.at);
}

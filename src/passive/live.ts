/**
 * The proxy's live judging: every rule a recording can judge, run over the traffic as it passes,
 * so each failing judgement is said as its exchange completes (a console line, a JSON line in a
 * findings stream a CI or a dashboard can tail) instead of only when the proxy stops. The report
 * written at the stop judges the whole record as `judge-traffic` does; live findings are what is
 * known early, not a second verdict.
 *
 * Completed exchanges are judged in batches on a thread of their own (live-worker.ts), off the
 * forwarding path. The rules see a batch after the last HISTORY exchanges before it (what rules
 * comparing with earlier exchanges need: a replay, a read after a terminal event), so judging a
 * batch reads the history again: a batch is judged once it holds as many exchanges as the history
 * (the history then costs at most what the batch costs: live judging grows with the traffic, not
 * with the window), or once its oldest exchange waited WAIT_MS (a slow trickle re-reads the history
 * at most once per WAIT_MS). Judging keeps to about a twentieth of its thread (the machine may have
 * no core to spare): a batch is not judged sooner than DUTY times the last batch's judging after it.
 * At a tenth, live judging and its garbage collection (on V8's helper threads, which nice does not
 * reach) cost `npm run bench:proxy` about 0.12 of its ratio on 2 cores; at a twentieth, 0.0-0.05
 * (docs/recordings.md). Traffic that outruns it is judged in the report at the stop.
 * A rule looking further back than HISTORY can be wrong live (a key first used more than 500
 * exchanges earlier looks fresh); the report at the stop judges the whole record. Exchanges traffic
 * outran judging with are not judged live but join the history, so the next batch still sees what
 * came just before it; where the forwarding thread had no room to hand exchanges over at all (a
 * gap), the HISTORY exchanges after it are judged but their failures are left to the report.
 *
 * A failure is said once per rule, exchange and reason: on an exchange of the batch, or on an earlier
 * exchange of the window that an exchange of the batch decided (a replay judged by the read after
 * it, a terminal delivery by a higher sequence delivered later, an answer that echoed a credential
 * the deployment accepted only later). Such a late failure is told from one the history's own
 * start causes (the exchanges before it left the window: a replay whose first use is gone looks like
 * a first use) by judging the history alone, as it was before the batch: a failure found there too
 * was not decided by the batch, and is left to the report. That second judgement runs only for a
 * rule with a late failure not said yet, so it costs nothing while the traffic fails nothing late.
 * The rules whose failure a later exchange may take back (DECIDED_AT_THE_STOP) are not judged live.
 */
import type { Profile } from '../profile/schema.ts';
import { Redactor, TARGET_ISSUED_SESSION } from '../redact/redactor.ts';
import { runJudgement, Untestable, type Exchange, type Rule } from '../rule/index.ts';
import type { Level } from '../rule/index.ts';
import type { LearnedSecret } from './judging.ts';
import { keyedLabels, learnSecrets, sessionIds, type SecretLabels } from './secrets.ts';
import { ENDPOINT_SECRET_LABEL } from '../webhooks/signature.ts';

/** How long a completed exchange waits for its batch at most, while judging keeps to its twentieth of the thread. */
export const WAIT_MS = 1000;
/** Judging takes at most about a twentieth of the judging thread's time (the machine may have no core to spare): the next batch waits this many times the last batch's judging. */
const DUTY = 19;
/** The longest rest DUTY imposes between batches. */
const MAX_REST_MS = 10_000;
/** Exchanges before a batch that its rules see (a replay of a key, a read after a terminal event look back). */
export const HISTORY = 500;
/**
 * Completed exchanges waiting for judging at most: beyond, the oldest waiting are not judged live
 * (the report at the stop judges them). About as many as judging at its twentieth gets through in
 * a few seconds: a longer queue is no longer live, and filling one of 5,000 cost the proxy's
 * garbage collection a tenth of a core more whenever traffic outran judging (`npm run bench:proxy`'s
 * first round: V8's helpers 19-35 us per exchange, against 11-13 with 1,000).
 */
export const MAX_PENDING = 1000;
/**
 * Bytes of bodies handed to the judging thread and not yet judged, at most, beside MAX_PENDING:
 * 1,000 exchanges at the default --body-limit (256 KiB of each body) could hold 512 MiB. An
 * exchange is handed over past it only when nothing else waits.
 */
export const MAX_PENDING_BYTES = 32 * 1024 * 1024;

/**
 * The rules whose failing case a later exchange may excuse, so that a failure said live could be one
 * the report at the stop passes: live judging never says them, their verdict is the report's. The
 * one place they are listed, each with why (docs/recordings.md names them too).
 */
export const DECIDED_AT_THE_STOP: ReadonlyMap<string, string> = new Map([
  [
    'v8.traces.get.resolves',
    "a trace is readable once any read of it answered 200: a 404 past the index bound fails only while no later read answered 200 (no sentence says when a trace becomes readable), and a later read may come at any time",
  ],
]);

/** One failing judgement, as a JSON line of the findings stream. */
export interface LiveFinding {
  /** When it was found (ISO 8601). */
  at: string;
  rule: string;
  level: Level;
  /** The exchange whose answer failed the rule (an earlier one, when a later exchange decided it): its place in the proxy's traffic, from 0. */
  exchange: { index: number; method: string; path: string; status?: number };
  reason: string;
}

interface Judged {
  rule: Rule;
  judgement: NonNullable<Rule['judgement']>;
}

export interface LiveOptions {
  rules: readonly Rule[];
  profile?: Profile;
  webhookSecret?: string;
  webhookSecretVariable: string;
  /** Every finding, already redacted. */
  onFinding: (finding: LiveFinding) => void;
  /** Called when `n` exchanges stopped waiting (judged, or dropped beyond MAX_PENDING): room for as many more. */
  onSettled?: (n: number) => void;
  /** The run's key for naming learned secrets (`keyedLabels`): the report at the stop names them alike. */
  labelKey?: string;
}

/** A case a judgement made: which exchange, whether it held, and why. */
interface Case {
  ex: Exchange;
  ok: boolean;
  reason: string;
}

export class LiveJudge {
  readonly redactor = new Redactor();
  private readonly judged: Judged[] = [];
  private history: Exchange[] = [];
  private pending: Exchange[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** When the timer fires (performance.now()). */
  private timerAt = Infinity;
  /** When the oldest pending exchange arrived. */
  private oldestAt = 0;
  /** No batch is judged before this (DUTY after the last one). */
  private restUntil = 0;
  /** What was said of each exchange still in the window (rule and reason): no case names an exchange that left it, so this is bounded by the window. */
  private readonly said = new Map<Exchange, Set<string>>();
  private readonly secrets = new Map<string, LearnedSecret>();
  /** The judged secrets as one list, replaced only when one is learned: the echo rules build their locator once per list. */
  private judgedList: readonly LearnedSecret[] = [];
  private readonly options: LiveOptions;
  private readonly labels: SecretLabels | undefined;
  /** Findings said so far. */
  count = 0;
  /** Exchanges traffic outran live judging with: judged only in the report at the stop (or judged live with their failures left to it, just after a gap). */
  skipped = 0;
  /** Cases judged so far, failing or not (so a quiet proxy can be told from one that judged nothing). */
  cases = 0;
  /** Exchanges the judgements were run over so far, history included (the cost of live judging). */
  read = 0;
  /** Batches judged with fewer exchanges than their history (their oldest waited WAIT_MS, or the proxy stopped): only these read more history than new exchanges. */
  smallBatches = 0;
  /** Exchanges added so far, and the count below which an exchange came too soon after a gap for its history to be whole. */
  private added = 0;
  private settledFrom = 0;
  /** Late failures: the history judged alone again, for a rule with a failure on an earlier exchange not said yet. */
  rejudged = 0;
  /** Exchanges added within HISTORY of a gap, until they leave the window: judged, but what they fail is said only in the report at the stop. */
  private readonly unsettled = new Set<Exchange>();

  constructor(options: LiveOptions) {
    this.options = options;
    this.labels = options.labelKey === undefined ? undefined : keyedLabels(options.labelKey);
    for (const rule of options.rules) if (rule.judgement && !DECIDED_AT_THE_STOP.has(rule.id)) this.judged.push({ rule, judgement: rule.judgement });
    for (const c of options.profile?.credentials ?? []) this.redactor.add(c.token, `token:${c.name}`);
    if (options.webhookSecret) this.redactor.add(options.webhookSecret, 'env:webhook-secret');
    this.judgedList = this.judgedOf();
  }

  /**
   * `n` exchanges completed that were never handed over (the forwarding thread had no room for
   * them): the HISTORY exchanges after them cannot see what came before, so a replay would look
   * like a first use. Their failures are left to the report at the stop.
   */
  gap(n: number): void {
    if (n <= 0) return;
    this.settledFrom = this.added + HISTORY;
  }

  /** A completed exchange: judged within WAIT_MS while judging keeps up. */
  add(ex: Exchange): void {
    if (this.added < this.settledFrom) {
      this.unsettled.add(ex);
      this.skipped += 1;
    }
    this.added += 1;
    if (this.pending.length === 0) this.oldestAt = performance.now();
    this.pending.push(ex);
    if (this.pending.length > MAX_PENDING) {
      // Not judged live, but still what came before the exchanges that are: the first use of a key a
      // later conflict replays, a create a later read names. Dropped outright, the next batch would
      // judge that conflict as a first use (a valid request answered 409).
      const passed = this.pending.shift()!;
      this.learn([passed]);
      this.history.push(passed);
      if (this.history.length > HISTORY) this.forget(this.history.splice(0, this.history.length - HISTORY));
      if (!this.unsettled.has(passed)) this.skipped += 1;
      this.options.onSettled?.(1);
    }
    this.schedule();
  }

  /** Sets the timer for the batch: when it holds as many exchanges as the history, or its oldest waited WAIT_MS, and DUTY allows. */
  private schedule(): void {
    const now = performance.now();
    const due = this.pending.length >= this.history.length ? now : this.oldestAt + WAIT_MS;
    const at = Math.max(due, this.restUntil);
    if (this.timer && this.timerAt <= at) return;
    clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => this.flush(), Math.max(0, at - now));
    this.timer.unref();
  }

  /** Judges what is pending now (the proxy stops, or a test wants its findings). */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Infinity;
    if (this.pending.length === 0) return;
    const started = performance.now();
    if (this.pending.length < this.history.length) this.smallBatches += 1;
    const batch = this.pending;
    this.pending = [];
    // The secrets judged before the batch: the history judged alone is judged as it was before it.
    const judgedBefore = this.judgedList;
    this.learn(batch);
    const fresh = new Set(batch);
    const window = [...this.history, ...batch];
    this.read += window.length;
    // A case names its exchange by its place in the window (the history is its start: the same places); the finding says which exchange it was.
    const at = new Map<Exchange, number>(window.map((ex, i) => [ex, i]));
    for (const judged of this.judged) {
      let late: Case[] | undefined;
      for (const c of this.casesOf(judged, window, at, this.judgedList)) {
        if (fresh.has(c.ex)) {
          this.cases += 1;
          if (c.ok || this.unsettled.has(c.ex)) continue;
          this.say(judged.rule, c);
        } else if (!c.ok && !this.unsettled.has(c.ex) && !this.wasSaid(judged.rule, c)) (late ??= []).push(c);
      }
      if (late) this.sayLate(judged, late, at, judgedBefore);
    }
    this.history = window.length > HISTORY ? window.slice(window.length - HISTORY) : window;
    if (window.length > HISTORY) this.forget(window.slice(0, window.length - HISTORY));
    const ended = performance.now();
    this.restUntil = ended + Math.min(MAX_REST_MS, DUTY * (ended - started));
    this.options.onSettled?.(batch.length);
  }

  /**
   * Failures on earlier exchanges of the window, not said yet: said when the batch decided them, that
   * is, when the history judged alone (with the secrets judged before the batch) does not fail the
   * rule on that exchange. Whatever fails there (on any ground) came from the history's own start
   * or was already known: left to the report.
   */
  private sayLate(judged: Judged, late: readonly Case[], at: ReadonlyMap<Exchange, number>, secrets: readonly LearnedSecret[]): void {
    this.rejudged += 1;
    const failedBefore = new Set<Exchange>();
    for (const c of this.casesOf(judged, this.history, at, secrets)) if (!c.ok) failedBefore.add(c.ex);
    for (const c of late) if (!failedBefore.has(c.ex)) this.say(judged.rule, c);
  }

  /** Exchanges that left the window: no case names them any more. */
  private forget(gone: readonly Exchange[]): void {
    for (const ex of gone) {
      this.said.delete(ex);
      this.unsettled.delete(ex);
    }
  }

  /** Everything the traffic shows is hidden from the findings: credentials sent, secrets issued, session ids. */
  private learn(batch: readonly Exchange[]): void {
    let changed = false;
    for (const s of learnSecrets(batch, this.options.profile?.credentials, this.labels)) {
      const known = this.secrets.get(s.value);
      if (known) {
        if (!known.judged && s.judged) {
          this.secrets.set(s.value, { ...known, judged: true });
          // Accepted at last: followed in fragments from now on, as every secret (redactorForRecording).
          this.redactor.add(s.value, known.label);
          changed = true;
        }
      } else {
        this.secrets.set(s.value, s);
        this.redactor.add(s.value, s.label, { whole: !s.judged });
        changed = true;
      }
    }
    if (changed) this.judgedList = this.judgedOf();
    for (const id of sessionIds(batch)) this.redactor.add(id, TARGET_ISSUED_SESSION);
  }

  /**
   * The judged secrets as the report lists them (judging.ts judgedSecrets): the endpoint's signing
   * secret from the environment among them, labelled so, which the delivery rules verify with (and
   * which an answer that issued it may carry).
   */
  private judgedOf(): readonly LearnedSecret[] {
    const list = [...this.secrets.values()].filter((x) => x.judged);
    const secret = this.options.webhookSecret;
    if (secret === undefined || this.secrets.get(secret)?.judged) return list;
    const issuedBy = this.secrets.get(secret)?.issuedBy;
    return [...list, { value: secret, label: ENDPOINT_SECRET_LABEL, judged: true, seenAt: -1, ...(issuedBy !== undefined ? { issuedBy } : {}) }];
  }

  /** The cases the rule's judgement makes over `window`, through the one runner of judgements (`runJudgement`), as a recording's are. */
  private casesOf(judged: Judged, window: readonly Exchange[], at: ReadonlyMap<Exchange, number>, secrets: readonly LearnedSecret[]): Case[] {
    const cases: Case[] = [];
    const ctx = {
      check: (ok: unknown, reason: string, on?: object | number) => {
        const ex = typeof on === 'number' ? window[on] : undefined;
        if (ex) cases.push({ ex, ok: Boolean(ok), reason });
        return Boolean(ok);
      },
      observe: () => undefined,
    };
    try {
      runJudgement(ctx, judged.judgement, window, {
        source: 'recording',
        profile: this.options.profile,
        show: (ex) => at.get(ex),
        describe: (_ex, reason) => reason,
        secrets,
      });
    } catch (error) {
      // A fact the traffic cannot show (no profile): untestable here as in the report; nothing to say live.
      if (!(error instanceof Untestable)) cases.push({ ex: window[window.length - 1]!, ok: false, reason: `the judgement failed: ${(error as Error).message} (a harness defect: report it)` });
    }
    return cases;
  }

  private wasSaid(rule: Rule, c: Case): boolean {
    return this.said.get(c.ex)?.has(`${rule.id}\n${c.reason}`) === true;
  }

  private say(rule: Rule, c: Case): void {
    const key = `${rule.id}\n${c.reason}`;
    let said = this.said.get(c.ex);
    if (said === undefined) this.said.set(c.ex, (said = new Set()));
    if (said.has(key)) return;
    said.add(key);
    this.count += 1;
    this.options.onFinding({
      at: new Date().toISOString(),
      rule: rule.id,
      level: rule.level,
      exchange: { index: c.ex.index, method: c.ex.method, path: this.redactor.text(c.ex.path), ...(c.ex.status !== undefined ? { status: c.ex.status } : {}) },
      reason: this.redactor.text(c.reason),
    });
  }
}

/** A finding as one console line. */
export function findingLine(f: LiveFinding): string {
  return `FAIL ${f.rule} (${f.level}): exchange #${f.exchange.index} ${f.exchange.method} ${f.exchange.path}${f.exchange.status !== undefined ? ` -> ${f.exchange.status}` : ''}: ${f.reason}`;
}

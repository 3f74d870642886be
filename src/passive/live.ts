/**
 * The proxy's live judging: every rule a recording can judge, run over the traffic as it passes,
 * so each failing judgement is said as its exchange completes (a console line, a JSON line in a
 * findings stream a CI or a dashboard can tail) instead of only when the proxy stops. The report
 * written at the stop judges the whole record as `judge-traffic` does; live findings are what is
 * known early, not a second verdict.
 *
 * Completed exchanges are judged in batches on a thread of their own (live-worker.ts), off the
 * forwarding path: a batch waits BATCH_DELAY_MS, or nine times what the last batch took to judge
 * when traffic is busy (so judging keeps to about a tenth of that thread's time, and bigger
 * batches re-read the history less often); the rules see it after the last HISTORY exchanges
 * before it (what rules comparing with earlier exchanges need: a replay, a read after a terminal
 * event). A rule looking further back than HISTORY can be wrong live (a key first used more than
 * 500 exchanges earlier looks fresh); the report at the stop judges the whole record. A failure
 * is said only for an exchange of the batch, once per rule, exchange and reason.
 */
import type { Profile } from '../profile/schema.ts';
import { Redactor, TARGET_ISSUED_SESSION } from '../redact/redactor.ts';
import { runJudgement, Untestable, type Exchange, type Rule } from '../rule/index.ts';
import type { Level } from '../rule/index.ts';
import type { LearnedSecret } from './judging.ts';
import { learnSecrets, sessionIds } from './secrets.ts';

/** How long a completed exchange waits for its batch at least. */
export const BATCH_DELAY_MS = 100;
/** Judging takes at most about a tenth of the judging thread's time (the machine may have no core to spare): the next batch waits this many times the last batch's judging. */
const DUTY = 9;
/** Exchanges before a batch that its rules see (a replay of a key, a read after a terminal event look back). */
export const HISTORY = 500;
/** Completed exchanges waiting for judging at most: beyond, the oldest waiting are not judged live (the report at the stop judges them). */
export const MAX_PENDING = 5000;

/** One failing judgement, as a JSON line of the findings stream. */
export interface LiveFinding {
  /** When it was found (ISO 8601). */
  at: string;
  rule: string;
  level: Level;
  /** The exchange whose answer failed the rule: its place in the proxy's traffic, from 0. */
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
  private delay = BATCH_DELAY_MS;
  private readonly said = new Set<string>();
  private readonly secrets = new Map<string, LearnedSecret>();
  /** The judged secrets as one list, replaced only when one is learned: the echo rules build their locator once per list. */
  private judgedList: readonly LearnedSecret[] = [];
  private readonly options: LiveOptions;
  /** Findings said so far. */
  count = 0;
  /** Exchanges traffic outran live judging with: judged only in the report at the stop. */
  skipped = 0;
  /** Cases judged so far, failing or not (so a quiet proxy can be told from one that judged nothing). */
  cases = 0;

  constructor(options: LiveOptions) {
    this.options = options;
    for (const rule of options.rules) if (rule.judgement) this.judged.push({ rule, judgement: rule.judgement });
    for (const c of options.profile?.credentials ?? []) this.redactor.add(c.token, `token:${c.name}`);
    if (options.webhookSecret) this.redactor.add(options.webhookSecret, 'env:webhook-secret');
  }

  /** A completed exchange: judged within BATCH_DELAY_MS. */
  add(ex: Exchange): void {
    this.pending.push(ex);
    if (this.pending.length > MAX_PENDING) {
      this.pending.shift();
      this.skipped += 1;
    }
    if (!this.timer) {
      this.timer = setTimeout(() => this.flush(), this.delay);
      this.timer.unref();
    }
  }

  /** Judges what is pending now (the proxy stops, or a test wants its findings). */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.length === 0) return;
    const started = performance.now();
    const batch = this.pending;
    this.pending = [];
    this.learn(batch);
    const fresh = new Set(batch);
    const window = [...this.history, ...batch];
    // A case names its exchange by its place in the window; the finding says which exchange it was.
    const at = new Map<Exchange, number>(window.map((ex, i) => [ex, i]));
    for (const judged of this.judged) {
      for (const c of this.casesOf(judged, window, at)) {
        if (!fresh.has(c.ex)) continue;
        this.cases += 1;
        if (c.ok) continue;
        this.say(judged.rule, c);
      }
    }
    this.history = window.length > HISTORY ? window.slice(window.length - HISTORY) : window;
    // Busy traffic makes bigger batches, so the history is judged again less often per exchange.
    this.delay = Math.max(BATCH_DELAY_MS, Math.min(10_000, DUTY * (performance.now() - started)));
  }

  /** Everything the traffic shows is hidden from the findings: credentials sent, secrets issued, session ids. */
  private learn(batch: readonly Exchange[]): void {
    let changed = false;
    for (const s of learnSecrets(batch, this.options.profile?.credentials)) {
      const known = this.secrets.get(s.value);
      if (known) {
        if (!known.judged && s.judged) {
          this.secrets.set(s.value, { ...known, judged: true });
          changed = true;
        }
      } else {
        this.secrets.set(s.value, s);
        this.redactor.add(s.value, s.label);
        changed = true;
      }
    }
    if (changed) this.judgedList = [...this.secrets.values()].filter((x) => x.judged);
    for (const id of sessionIds(batch)) this.redactor.add(id, TARGET_ISSUED_SESSION);
  }

  /** The cases the rule's judgement makes over `window`, through the one runner of judgements (`runJudgement`), as a recording's are. */
  private casesOf(judged: Judged, window: readonly Exchange[], at: ReadonlyMap<Exchange, number>): Case[] {
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
        secrets: this.judgedList,
      });
    } catch (error) {
      // A fact the traffic cannot show (no profile): untestable here as in the report; nothing to say live.
      if (!(error instanceof Untestable)) cases.push({ ex: window[window.length - 1]!, ok: false, reason: `the judgement failed: ${(error as Error).message} (a harness defect: report it)` });
    }
    return cases;
  }

  private say(rule: Rule, c: Case): void {
    const key = `${rule.id}\n${c.ex.index}\n${c.reason}`;
    if (this.said.has(key)) return;
    this.said.add(key);
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

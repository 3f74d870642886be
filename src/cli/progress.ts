/**
 * Rule-by-rule progress. On a terminal: one status line redrawn in place ("rule n of N", what is
 * running, the time taken and, once a third of the rules are done, the time left) with failures
 * printed above it as they happen. In a log: one line per rule. --quiet
 * keeps only what a reader must see (failures, inconclusive rules); --verbose adds the exchanges.
 */
import { wasNotRun } from '../reports/run-cause.ts';
import type { Rule, RuleResult } from '../rule/index.ts';
import { VERDICT_MARK } from './options.ts';
import type { Ui } from './output.ts';

const STYLE = { pass: 'green', fail: 'red', warn: 'yellow', observed: 'gray', expected: 'gray', 'not-applicable': 'gray', untestable: 'yellow', inconclusive: 'magenta' } as const;

/**
 * A failed SHOULD rule is a warning unless the run is strict; an observation rule never gates, so it
 * never reads FAIL; nor does a failure the baseline lists (it does not gate either).
 */
function markOf(result: RuleResult, strict: boolean, expected: ReadonlySet<string>): keyof typeof STYLE {
  if (result.verdict === 'fail' && result.rule.level === 'observation') return 'observed';
  if (result.verdict === 'fail' && expected.has(result.rule.id)) return 'expected';
  return result.verdict === 'fail' && result.rule.level === 'should' && !strict ? 'warn' : result.verdict;
}

/** "45s", "3m 05s", "1h 02m": short enough for a status line. */
export function clockOf(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, '0')}m`;
}

/**
 * The time part of the status line. Before a third of the rules are done an estimate says more
 * about the first few rules than the run, so it is left out.
 */
export function timeLine(elapsedMs: number, done: number, total: number): string {
  const elapsed = clockOf(elapsedMs);
  if (total === 0 || done * 3 < total || done >= total) return elapsed;
  return `${elapsed}, ~${clockOf((elapsedMs / done) * (total - done))} left`;
}

/** How often the status line is redrawn while nothing finishes, so the elapsed time moves. */
const TICK_MS = 1_000;

export class RuleProgress {
  private total = 0;
  private done = 0;
  private readonly running = new Set<string>();
  private drawn = false;
  private readonly ui: Ui;
  private readonly now: () => number;
  private startedAt = 0;
  private tick: NodeJS.Timeout | undefined;
  /** Rules the baseline lists as known failures. */
  private readonly expected: ReadonlySet<string>;

  constructor(ui: Ui, expected: Iterable<string> = [], now: () => number = () => performance.now()) {
    this.ui = ui;
    this.expected = new Set(expected);
    this.now = now;
  }

  plan(rules: readonly Rule[]): void {
    this.total = rules.length;
    this.startedAt = this.now();
    if (this.live && !this.tick) this.tick = setInterval(() => this.redraw(), TICK_MS).unref();
    this.redraw();
  }

  started(rule: Rule): void {
    this.running.add(rule.id);
    this.redraw();
  }

  finished(result: RuleResult, strict = false): void {
    this.running.delete(result.rule.id);
    this.done++;
    this.clear();
    // A rule a run-wide cause never let start is listed with that cause once, at the end.
    if (wasNotRun(result)) return this.redraw();
    const mark = markOf(result, strict, this.expected);
    const line = this.lineFor(result, mark);
    const alarming = mark === 'fail' || mark === 'inconclusive' || mark === 'expected';
    if (alarming) this.ui.always(line);
    else if (this.ui.verbosity === 'verbose' || (!this.ui.live && this.ui.verbosity === 'normal') || (this.ui.live && result.verdict === 'untestable' && result.rule.level === 'required')) this.ui.info(line);
    if (this.ui.verbosity === 'verbose') for (const e of result.evidence) this.ui.detail(`      ${e.label ? `${e.label}: ` : ''}${e.request.method} ${e.request.url} -> ${e.response?.status ?? e.error ?? '?'} (${e.durationMs} ms)\n        ${e.curl}`);
    this.redraw();
  }

  /** A rule already counted now fails over the whole run's exchanges: printed like a failure, counted once. */
  revised(result: RuleResult, strict = false): void {
    this.clear();
    this.ui.always(this.lineFor(result, markOf(result, strict, this.expected)));
    this.redraw();
  }

  end(): void {
    clearInterval(this.tick);
    this.tick = undefined;
    this.clear();
  }

  private get live(): boolean {
    return this.ui.live && this.ui.verbosity !== 'quiet';
  }

  private lineFor(result: RuleResult, kind: keyof typeof STYLE): string {
    const mark = this.ui.paint(STYLE[kind], VERDICT_MARK[kind]!.trim().padEnd(12));
    const reason = result.reason && result.verdict !== 'pass' ? `: ${result.reason.split('\n')[0]}` : '';
    return `${mark} ${result.rule.id}${reason}`;
  }

  private redraw(): void {
    if (!this.live || this.total === 0) return;
    const first = this.running.values().next().value;
    const more = this.running.size > 1 ? ` (+${this.running.size - 1} running)` : '';
    const width = this.ui.out.columns || 100;
    const head = `[${this.done}/${this.total}] `;
    const tail = ` · ${timeLine(this.now() - this.startedAt, this.done, this.total)}`;
    // A narrow terminal cuts what is running, never the count or the clock.
    const room = Math.max(10, width - 1 - head.length - tail.length);
    const text = `${head}${`${first ?? ''}${more}`.slice(0, room)}${tail}`;
    this.ui.status(this.ui.paint('dim', text));
    this.drawn = true;
  }

  private clear(): void {
    if (!this.drawn) return;
    this.ui.out.write('\r\x1b[2K');
    this.drawn = false;
  }
}

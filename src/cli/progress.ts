/**
 * Rule-by-rule progress. On a terminal: one status line redrawn in place ("rule n of N" and what is
 * running) with failures printed above it as they happen. In a log: one line per rule. --quiet
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

export class RuleProgress {
  private total = 0;
  private done = 0;
  private readonly running = new Set<string>();
  private drawn = false;
  private readonly ui: Ui;
  /** Rules the baseline lists as known failures. */
  private readonly expected: ReadonlySet<string>;

  constructor(ui: Ui, expected: Iterable<string> = []) {
    this.ui = ui;
    this.expected = new Set(expected);
  }

  plan(rules: readonly Rule[]): void {
    this.total = rules.length;
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

  end(): void {
    this.clear();
  }

  private lineFor(result: RuleResult, kind: keyof typeof STYLE): string {
    const mark = this.ui.paint(STYLE[kind], VERDICT_MARK[kind]!.trim().padEnd(12));
    const reason = result.reason && result.verdict !== 'pass' ? `: ${result.reason.split('\n')[0]}` : '';
    return `${mark} ${result.rule.id}${reason}`;
  }

  private redraw(): void {
    if (!this.ui.live || this.total === 0 || this.ui.verbosity === 'quiet') return;
    const first = this.running.values().next().value;
    const more = this.running.size > 1 ? ` (+${this.running.size - 1} running)` : '';
    const width = this.ui.out.columns || 100;
    const text = `[${this.done}/${this.total}] ${first ?? ''}${more}`.slice(0, Math.max(20, width - 1));
    this.ui.out.write(`\r\x1b[2K${this.ui.paint('dim', text)}`);
    this.drawn = true;
  }

  private clear(): void {
    if (!this.drawn) return;
    this.ui.out.write('\r\x1b[2K');
    this.drawn = false;
  }
}

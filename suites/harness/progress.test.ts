import { describe, expect, it } from 'vitest';
import { clockOf, RuleProgress, timeLine } from '../../src/cli/progress.ts';
import { Ui } from '../../src/cli/output.ts';
import { RULES } from '../../src/registry.ts';
import type { RuleResult } from '../../src/rule/index.ts';
import { stream } from '../support/console-stream.ts';

const passed = (i: number): RuleResult => ({ rule: RULES[i]!, verdict: 'pass', durationMs: 1, evidence: [], evidenceOmitted: 0, observations: [], cases: [], casesOmitted: 0, rolesRequested: [] });

/** Six rules on a clock the test moves: 10 s per rule. */
function runSix(isTTY: boolean) {
  const out = stream(isTTY);
  let now = 0;
  const ui = new Ui({ stdout: out, stderr: stream(false), env: { TERM: 'xterm' }, color: false });
  const progress = new RuleProgress(ui, [], () => now);
  const rules = RULES.slice(0, 6);
  progress.plan(rules);
  const lines: string[] = [];
  for (let i = 0; i < rules.length; i += 1) {
    progress.started(rules[i]!);
    if (i + 1 < rules.length) progress.started(rules[i + 1]!);
    now += 10_000;
    progress.finished(passed(i));
    lines.push(out.text().split('\r\x1b[2K').at(-1)!);
  }
  progress.end();
  return { out: out.text(), lines, rules };
}

describe('the progress line', () => {
  it('on a terminal shows [n/N], the rule running, the others running, the elapsed time and, from a third of the rules on, the time left', () => {
    const { lines, rules } = runSix(true);
    // After one of six rules: no estimate yet.
    expect(lines[0]).toBe(`[1/6] ${rules[1]!.id} · 10s`);
    // After two of six (a third): 20 s for two, four left at 10 s each.
    expect(lines[1]).toBe(`[2/6] ${rules[2]!.id} · 20s, ~40s left`);
    expect(lines[4]).toBe(`[5/6] ${rules[5]!.id} · 50s, ~10s left`);
  });

  it('names how many more rules run beside the one shown', () => {
    const out = stream(true);
    const ui = new Ui({ stdout: out, stderr: stream(false), env: { TERM: 'xterm' }, color: false });
    const progress = new RuleProgress(ui, [], () => 0);
    progress.plan(RULES.slice(0, 3));
    for (const rule of RULES.slice(0, 3)) progress.started(rule);
    progress.end();
    expect(out.text()).toContain(`[0/3] ${RULES[0]!.id} (+2 running) · 0s`);
  });

  it('writes nothing of it when the output is not a terminal: one line per rule instead', () => {
    const { out, rules } = runSix(false);
    expect(out).not.toMatch(/\[\d+\/6\]|\r|\x1b|left/);
    for (const rule of rules) expect(out).toContain(`pass         ${rule.id}\n`);
  });

  it('tells the time in seconds, minutes and hours', () => {
    expect(clockOf(4_400)).toBe('4s');
    expect(clockOf(185_000)).toBe('3m 05s');
    expect(clockOf(3_725_000)).toBe('1h 02m');
    expect(timeLine(30_000, 3, 9)).toBe('30s, ~1m 00s left');
    expect(timeLine(30_000, 2, 9)).toBe('30s');
    expect(timeLine(30_000, 9, 9)).toBe('30s');
  });
});

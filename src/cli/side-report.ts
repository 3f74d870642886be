import { gateWords, underPolicy, type Report } from '../reports/model.ts';
import { causeLines, runWideCause, wasNotRun } from '../reports/run-cause.ts';
import { writeRunReports, writtenLine } from '../reports/run-folder.ts';
import type { ReportFormat } from '../reports/write.ts';
import type { RuleResult } from '../rule/index.ts';
import { EXIT, exitCodeFor } from './exit.ts';
import { whileInterruptible } from './run-control.ts';
import { VERDICT_MARK } from './options.ts';
import { consoleText } from './output.ts';

/** The run-wide cause with the rules it left unjudged, as the console states it once; undefined when there is none. */
export function causeWarning(report: Report): string | undefined {
  const cause = runWideCause(report);
  return cause && `apicert: ${causeLines(cause).join('\n')}`;
}

/** One line per judged rule, as `certify` prints them: a reason quotes the target's or the client's text, its controls shown, never sent to the terminal. */
export function printResult(r: RuleResult): void {
  // A rule a run-wide cause never let start is listed under that cause, once.
  if (wasNotRun(r)) return;
  console.log(consoleText(`${VERDICT_MARK[r.verdict]!.padEnd(12)} ${r.rule.id}${r.reason && r.verdict !== 'pass' ? `: ${r.reason.split('\n')[0]}` : ''}`));
}

interface Finish {
  out: string;
  format: ReportFormat[];
  allowUntestable?: boolean;
  what: string;
}

/**
 * Runs a receiver or client judgement that SIGINT or SIGTERM stops like `certify`: what was judged
 * so far is written, and the exit code says which signal (130, 143).
 */
export async function runInterruptibly(work: (signal: AbortSignal) => Promise<{ report: Report }>, options: Finish): Promise<void> {
  // The reports are written while the handlers still hold: a second Ctrl-C must not cut them short.
  const { signal } = await whileInterruptible(async (stop) => finishRun((await work(stop)).report, options));
  if (signal) process.exitCode = signal === 'SIGINT' ? EXIT.interrupted : EXIT.terminated;
}

/** Writes the reports of a receiver or client run into its own run folder, prints the gate line and sets the exit code like `certify`. */
async function finishRun(judged: Report, options: Finish): Promise<void> {
  const report = underPolicy(judged, Boolean(options.allowUntestable));
  const written = await writeRunReports(report, options.out, options.format);
  const req = report.summary.required;
  const cause = causeWarning(report);
  if (cause) console.error(consoleText(cause));
  console.log(
    consoleText(`\n${options.what} ${report.target.baseUrl}: gate ${gateWords(report).words} - required ${req.pass} pass, ${req.fail} fail, ${req.untestable} untestable, ${req.inconclusive} inconclusive, ${req['not-applicable']} n/a; ${report.observations.length} observations; ${report.run.requests} requests in ${report.run.durationMs} ms`),
  );
  console.log(writtenLine(written, options.out));
  process.exitCode = exitCodeFor(report.summary, Boolean(options.allowUntestable));
}

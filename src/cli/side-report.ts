import type { Report } from '../reports/model.ts';
import { writeRunReports, writtenLine } from '../reports/run-folder.ts';
import type { ReportFormat } from '../reports/write.ts';
import type { RuleResult } from '../rule/index.ts';
import { exitCodeFor } from './exit.ts';
import { VERDICT_MARK } from './options.ts';

/** One line per judged rule, as `certify` prints them. */
export function printResult(r: RuleResult): void {
  console.log(`${VERDICT_MARK[r.verdict]!.padEnd(12)} ${r.rule.id}${r.reason && r.verdict !== 'pass' ? `: ${r.reason.split('\n')[0]}` : ''}`);
}

/** Writes the reports of a receiver or client run into its own run folder, prints the gate line and sets the exit code like `certify`. */
export async function finishRun(report: Report, options: { out: string; format: ReportFormat[]; allowUntestable?: boolean; what: string }): Promise<void> {
  const written = await writeRunReports(report, options.out, options.format);
  const req = report.summary.required;
  console.log(
    `\n${options.what}: gate ${report.summary.gate.toUpperCase()} - required ${req.pass} pass, ${req.fail} fail, ${req.untestable} untestable, ${req.inconclusive} inconclusive, ${req['not-applicable']} n/a; ${report.observations.length} observations; ${report.run.requests} requests in ${report.run.durationMs} ms`,
  );
  console.log(writtenLine(written, options.out));
  process.exitCode = exitCodeFor(report.summary, Boolean(options.allowUntestable));
}

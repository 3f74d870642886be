import { appendFile } from 'node:fs/promises';
import { renderMarkdown } from '../reports/markdown.ts';
import type { Report } from '../reports/model.ts';
import { redactReport, type OutputRedactor } from '../reports/write.ts';

/**
 * On GitHub Actions, $GITHUB_STEP_SUMMARY names a file whose Markdown is shown on the run's page;
 * appending (never rewriting) keeps what earlier steps wrote. Returns the file written, if any.
 */
export async function appendStepSummary(report: Report, redactor?: OutputRedactor, env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  const file = env.GITHUB_STEP_SUMMARY;
  if (!file) return undefined;
  // Redacted as summary.md is: the step summary is one more output, shown on the run's page.
  const text = renderMarkdown(redactor ? redactReport(report, redactor) : report);
  await appendFile(file, `${redactor ? redactor.outputText(text) : text}\n`);
  return file;
}

import { appendFile } from 'node:fs/promises';
import { renderMarkdown } from '../reports/markdown.ts';
import type { Report } from '../reports/model.ts';

/**
 * On GitHub Actions, $GITHUB_STEP_SUMMARY names a file whose Markdown is shown on the run's page;
 * appending (never rewriting) keeps what earlier steps wrote. Returns the file written, if any.
 */
export async function appendStepSummary(report: Report, env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  const file = env.GITHUB_STEP_SUMMARY;
  if (!file) return undefined;
  await appendFile(file, `${renderMarkdown(report)}\n`);
  return file;
}

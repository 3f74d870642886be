import { appendFile, stat } from 'node:fs/promises';
import { renderMarkdown } from '../reports/markdown.ts';
import type { Report } from '../reports/model.ts';
import { redactReport, type OutputRedactor } from '../reports/write.ts';

/**
 * What GitHub shows of one step's summary: past 1024 KiB it shows none of it ("$GITHUB_STEP_SUMMARY
 * upload aborted, supports content up to a size of 1024k"), so a run with many failing cases would
 * lose its gate line on the run page along with the rest.
 */
export const STEP_SUMMARY_LIMIT = 1024 * 1024;

/**
 * `text` cut at a line end so that it takes at most `budget` bytes with the note saying where the
 * rest is; a fence left open by the cut is closed, so the note is not read as code. The gate and
 * the counts come first in the summary, so they survive any cut. Undefined when not even the note fits.
 */
export function fitStepSummary(text: string, budget: number): string | undefined {
  if (Buffer.byteLength(text) <= budget) return text;
  const lines = text.split('\n');
  const note = (shown: number) =>
    `\n\n---\n\n**Cut here**: GitHub shows at most 1024 KiB of a step's summary; ${lines.length - shown} more lines are in summary.md, in the run's report folder.`;
  let size = 0;
  let shown = 0;
  let fence: string | undefined;
  let fenceAt = -1;
  // Room for the note and a closing fence, whatever their numbers say.
  const reserve = Buffer.byteLength(note(lines.length)) + 64;
  for (const line of lines) {
    const bytes = Buffer.byteLength(line) + 1;
    if (size + bytes + reserve > budget) break;
    size += bytes;
    shown += 1;
    const marker = /^\s*(`{3,})/.exec(line)?.[1];
    if (marker && fence === undefined) {
      fence = marker;
      fenceAt = shown - 1;
    } else if (marker && fence !== undefined && marker.length >= fence.length && line.trim() === marker) fence = undefined;
  }
  // A fence cut right after it opens would show an empty block: it goes, rather than being closed.
  if (fence !== undefined && fenceAt === shown - 1) {
    shown -= 1;
    fence = undefined;
  }
  if (shown === 0) return undefined;
  const fitted = `${lines.slice(0, shown).join('\n')}${fence ? `\n${fence}` : ''}${note(shown)}`;
  // A closing fence longer than the room kept for it (a body with a long backtick run): cut more.
  const over = Buffer.byteLength(fitted) - budget;
  return over > 0 ? fitStepSummary(text, budget - over) : fitted;
}

/**
 * On GitHub Actions, $GITHUB_STEP_SUMMARY names a file whose Markdown is shown on the run's page;
 * appending (never rewriting) keeps what earlier steps wrote. Returns the file written, if any.
 */
export async function appendStepSummary(report: Report, redactor?: OutputRedactor, env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  const file = env.GITHUB_STEP_SUMMARY;
  if (!file) return undefined;
  // Redacted as summary.md is: the step summary is one more output, shown on the run's page.
  const text = renderMarkdown(redactor ? redactReport(report, redactor) : report);
  // What earlier commands of the same step wrote counts against the same limit.
  const before = await stat(file).then((s) => s.size, () => 0);
  const fitted = fitStepSummary(`${redactor ? redactor.outputText(text) : text}\n`, STEP_SUMMARY_LIMIT - before);
  if (fitted === undefined) throw new Error(`${file} holds ${before} bytes already, and GitHub shows nothing of a step summary past ${STEP_SUMMARY_LIMIT}: the summary is in summary.md`);
  await appendFile(file, fitted.endsWith('\n') ? fitted : `${fitted}\n`);
  return file;
}

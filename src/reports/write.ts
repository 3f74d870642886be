import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { renderHtml } from './html.ts';
import { renderJunit } from './junit.ts';
import { renderMarkdown } from './markdown.ts';
import type { Report } from './model.ts';

export const REPORT_FORMATS = ['json', 'junit', 'md', 'html'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

const FILES: Record<ReportFormat, [string, (r: Report) => string]> = {
  json: ['report.json', (r) => `${JSON.stringify(r, null, 2)}\n`],
  junit: ['junit.xml', renderJunit],
  md: ['summary.md', renderMarkdown],
  html: ['report.html', renderHtml],
};

/** The file name a format is written to, and its text. */
export function renderReport(report: Report, format: ReportFormat): { name: string; text: string } {
  const [name, render] = FILES[format];
  return { name, text: render(report) };
}

/** Writes the report in each format and returns the paths written. */
export async function writeReports(report: Report, dir: string, formats: readonly ReportFormat[]): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const written: string[] = [];
  for (const format of formats) {
    const { name, text } = renderReport(report, format);
    const path = join(dir, name);
    await writeFile(path, text);
    written.push(path);
  }
  return written;
}

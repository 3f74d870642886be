/**
 * One run, one folder: every command that writes a report (certify, certify-receiver, judge-client,
 * load) goes through this module. Each run writes into a fresh `<root>/<timestamp>/` and then points
 * `<root>/latest` at it, so files of two runs never mix (a JSON-only run cannot sit beside the
 * Markdown summary of an older one).
 */
import { lstat, mkdir, readdir, rename, rm, rmdir, stat, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { makeFolder } from '../util/folder.ts';
import { checkWritable, renderReport, ReportNotWritten, writeReports, writeWhole, type ReportFormat, redactReport, type OutputRedactor } from './write.ts';
import type { Report } from './model.ts';

export const LATEST = 'latest';

/** The reports folder cannot be used as asked; the message says what to do (exit 2). */
export class ReportFolderError extends Error {
  override readonly name = 'ReportFolderError';
}

/** A run folder given where a report is read (`--rerun`, verify, diff) stands for its report.json. */
export async function reportJsonOf(path: string): Promise<string> {
  try {
    return (await stat(path)).isDirectory() ? join(path, 'report.json') : path;
  } catch {
    return path;
  }
}

/** `2026-11-22T13-20-05Z`: sortable, and legal in a file name on every system. */
export function runFolderName(at: Date): string {
  return at.toISOString().replace(/\.\d{3}Z$/, 'Z').replaceAll(':', '-');
}

/** Creates `<root>/<timestamp>[-n]/`; a second run in the same second gets its own suffix. */
export async function createRunFolder(root: string, at: Date): Promise<string> {
  await makeFolder(root);
  const base = runFolderName(at);
  for (let n = 1; ; n++) {
    const dir = join(root, n === 1 ? base : `${base}-${n}`);
    try {
      await mkdir(dir);
      return dir;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || n >= 100) throw error;
    }
  }
}

// `load/` holds what `apicert load` adds to a readiness report (summaries, bundles).
const OWNED_FILES = new Set(['report.json', 'junit.xml', 'summary.md', 'report.html', 'container.log', 'load']);

/**
 * The files of a real `latest/` folder (older apicert versions wrote there), or undefined when
 * `latest` is a link or absent. Throws when the folder holds anything apicert did not write; the
 * CLI asks before a run, so the user hears it before waiting for one.
 */
export async function oldLatestFolder(root: string): Promise<string[] | undefined> {
  const latest = join(root, LATEST);
  const stat = await lstat(latest).catch(() => undefined);
  if (!stat?.isDirectory()) return undefined;
  const names = await readdir(latest);
  const foreign = names.filter((n) => !OWNED_FILES.has(n));
  if (foreign.length > 0) throw new ReportFolderError(`${latest} is a folder holding files apicert did not write (${foreign.slice(0, 3).join(', ')}): move it away, apicert keeps "${LATEST}" as a link to the newest run`);
  return names;
}

/**
 * Points `<root>/latest` at the run folder. Replaced through a rename so a reader never sees it
 * missing. A real `latest/` folder left by an older apicert is removed when it holds only report
 * files; anything else in it is the user's and stays.
 */
export async function pointLatestAt(root: string, dir: string): Promise<string> {
  const latest = join(root, LATEST);
  const names = await oldLatestFolder(root);
  if (names) {
    for (const name of names) await rm(join(latest, name), { recursive: true, force: true });
    await rmdir(latest);
  }
  const name = dir.slice(root.length).replace(/^[/\\]+/, '');
  const temporary = join(root, `.${LATEST}-${process.pid}`);
  await rm(temporary, { force: true });
  await symlink(name, temporary, 'dir');
  await rename(temporary, latest);
  return latest;
}

export interface WrittenRun {
  /** The run's own folder. */
  dir: string;
  files: string[];
}

/** Before a run: the user hears of a folder that cannot be used before waiting for the run. */
export async function checkReportRoot(root: string): Promise<void> {
  await oldLatestFolder(root);
  await checkWritable(root);
}

/**
 * Writes every format (and extra files such as `container.log`) into the run's folder under `root`
 * (`dir`, when the run opened it early with createRunFolder to put files of its own there; else a
 * new one) and moves `latest` to it.
 */
export async function writeRunReports(report: Report, root: string, formats: readonly ReportFormat[], extra: Record<string, string> = {}, redactor?: OutputRedactor, dir?: string): Promise<WrittenRun> {
  dir ??= await createRunFolder(root, new Date(report.run.startedAt));
  try {
    const files = await writeReports(report, dir, formats, redactor);
    const json = files.find((f) => f === join(dir!, 'report.json'));
    for (const [name, text] of Object.entries(extra)) {
      const path = join(dir, name);
      await writeWhole(path, redactor ? redactor.text(text) : text, json);
      files.push(path);
    }
    await pointLatestAt(root, dir);
    return { dir, files };
  } catch (error) {
    // `latest` stays where it was: --rerun, verify and diff of it keep reading a whole report.
    if (error instanceof ReportNotWritten) throw new ReportNotWritten(error.file, error.reason, error.savedJson, `${join(root, LATEST)} was not moved`);
    throw error;
  }
}

/** The line every command prints after writing, `--quiet` or not: where the reports went. */
export function writtenLine(written: WrittenRun, root: string): string {
  return `reports: ${written.dir} (${join(root, LATEST)} points at it): ${written.files.map((f) => relativeTo(written.dir, f)).join(', ')}`;
}

function relativeTo(dir: string, file: string): string {
  return file.startsWith(`${dir}/`) || file.startsWith(`${dir}\\`) ? file.slice(dir.length + 1) : file;
}

/** `--out -`: the one format on stdout, nothing on disk. */
export function reportToStdout(report: Report, format: ReportFormat, stdout: NodeJS.WritableStream = process.stdout, redactor?: OutputRedactor): void {
  const text = renderReport(redactor ? redactReport(report, redactor) : report, format).text;
  stdout.write(redactor ? redactor.outputText(text) : text);
}

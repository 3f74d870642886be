import { access, constants, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { makeFolder } from '../util/folder.ts';
import { reclaimBetweenPhases } from '../util/reclaim.ts';
import { renderHtml } from './html.ts';
import { renderJunit } from './junit.ts';
import { renderMarkdown } from './markdown.ts';
import { digestOf, type Report } from './model.ts';

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

/**
 * Whatever redacts the run's secrets: every byte written passes through it. `text` reads the
 * target's text (every secret goes, short and word-built ones included); `outputText` reads
 * apicert's own (verdicts, counts, field names, rendered formats): it never rewrites a word.
 */
export interface OutputRedactor {
  text(input: string): string;
  outputText(input: string): string;
}

/** What a rule of the report is by apicert's own words, never by the target's: kept as written. */
const OWN_RULE_FIELDS = new Set(['id', 'title', 'surface', 'level', 'destructive', 'spec', 'verdict']);
/** The parts of a rule that hold the target's text (what it answered, quoted in a reason or a case). */
const TARGET_RULE_FIELDS = new Set(['reason', 'evidence', 'counterexample', 'cases']);
/** The part of a report that holds the target's text beside the rules'. */
const TARGET_REPORT_FIELDS = new Set(['observations']);

/**
 * Every string in the report that can hold the target's text, redacted as the target's; the rest
 * (field names, counts keyed by verdict, the gate, warnings, rerun lines) as apicert's own, so a
 * secret such as `pass` or `required` cannot rewrite a verdict or a field a reader parses. The
 * digest is taken again over what is written.
 */
export function redactReport(report: Report, redactor: OutputRedactor): Report {
  // Rules show the same evidence entries (the same objects and strings): each is redacted once here,
  // and stays one object in the copy (what the walk gives depends on its input alone).
  const reading = (read: (input: string) => string) => {
    const texts = new Map<string, string>();
    const copies = new Map<object, unknown>();
    const text = (value: string): string => {
      let out = texts.get(value);
      if (out === undefined) {
        out = read(value);
        texts.set(value, out);
      }
      return out;
    };
    const walk = (value: unknown): unknown => {
      if (typeof value === 'string') return text(value);
      if (value === null || typeof value !== 'object') return value;
      let copy = copies.get(value);
      if (copy === undefined) {
        copy = Array.isArray(value) ? value.map(walk) : Object.fromEntries(Object.entries(value).map(([k, v]) => [text(k), walk(v)]));
        copies.set(value, copy);
      }
      return copy;
    };
    return walk;
  };
  const target = reading((s) => redactor.text(s));
  const own = reading((s) => redactor.outputText(s));
  const rule = (r: Report['rules'][number]) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, OWN_RULE_FIELDS.has(k) ? v : TARGET_RULE_FIELDS.has(k) ? target(v) : own(v)]));
  const { digest: _digest, ...rest } = report;
  const body = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, k === 'rules' ? report.rules.map(rule) : TARGET_REPORT_FIELDS.has(k) ? target(v) : own(v)])) as Omit<Report, 'digest'>;
  return { ...body, digest: digestOf(body) };
}

export class OutputNotWritable extends Error {
  override readonly name = 'OutputNotWritable';
}

/** A file system that does not answer (a stale network mount) must not hold the command either. */
const WRITE_CHECK_MS = 10_000;

/** Fails before a run starts when the reports could not be written after it; bounded in time. */
export async function checkWritable(dir: string, limitMs = WRITE_CHECK_MS): Promise<void> {
  const attempt = async () => {
    await makeFolder(dir);
    await access(dir, constants.W_OK);
    const probe = join(dir, `.apicert-write-check-${process.pid}`);
    await writeFile(probe, '');
    await rm(probe, { force: true });
  };
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error('timed out'), { code: `no answer within ${limitMs / 1000} s` })), limitMs);
    timer.unref();
  });
  try {
    await Promise.race([attempt(), late]);
  } catch (error) {
    const code = (error as { code?: string }).code;
    throw new OutputNotWritable(`cannot write reports to ${dir}${code ? ` (${code})` : ''}: choose a writable directory with --out`);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A report file that could not be written after the run (a full disk, a folder removed under it):
 * the run's verdicts exist only on the console. Exit 3, not 2: requests were sent, and no report
 * says what they showed.
 */
export class ReportNotWritten extends Error {
  override readonly name = 'ReportNotWritten';
  /** The file that could not be written. */
  readonly file: string;
  /** The errno code (ENOSPC, EACCES, ...), or the error's text. */
  readonly reason: string;
  /** report.json, when it was written before the failure: the verdicts are there. */
  readonly savedJson?: string;
  /** What else stayed as it was (the run folder's `latest` link). */
  readonly note?: string;

  constructor(file: string, reason: string, savedJson?: string, note?: string) {
    super(`cannot write ${file} (${reason}): ${ReportNotWritten.outcome(savedJson)}${note ? `; ${note}` : ''}`);
    this.file = file;
    this.reason = reason;
    if (savedJson !== undefined) this.savedJson = savedJson;
    if (note !== undefined) this.note = note;
  }

  /** What the failure leaves the user with, in words. */
  static outcome(savedJson: string | undefined): string {
    return savedJson ? `the verdicts are in ${savedJson}, but not every format was written` : 'the verdicts were not saved (only the console above shows them)';
  }
}

/**
 * Writes one file whole or not at all: into `.NAME.tmp` beside it, renamed over NAME once complete,
 * so a disk that fills half-way leaves no truncated report.json for --rerun, diff or verify to choke
 * on. A failure names the file.
 */
export async function writeWhole(path: string, text: string, savedJson?: string): Promise<void> {
  const temporary = join(dirname(path), `.${basename(path)}.tmp`);
  try {
    await writeFile(temporary, text);
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true }).catch(() => undefined);
    throw new ReportNotWritten(path, (error as NodeJS.ErrnoException).code ?? (error as Error).message ?? String(error), savedJson);
  }
}

/** Writes the report in each format, redacted at this boundary, and returns the paths written. */
export async function writeReports(report: Report, dir: string, formats: readonly ReportFormat[], redactor?: OutputRedactor): Promise<string[]> {
  await makeFolder(dir);
  const safe = redactor ? redactReport(report, redactor) : report;
  const written: string[] = [];
  for (const format of formats) {
    const { name, text } = renderReport(safe, format);
    const path = join(dir, name);
    await writeWhole(path, redactor ? redactor.outputText(text) : text, written.find((f) => basename(f) === 'report.json'));
    written.push(path);
    // Each format's text is garbage once written: the next one need not be built on top of it.
    reclaimBetweenPhases();
  }
  return written;
}

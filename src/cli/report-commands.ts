/** The commands that work on reports after a run: keygen, verify, diff; and certify's --sign and --baseline. */
import type { Command } from 'commander';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import type { KeyObject } from 'node:crypto';
import { basename, dirname, join, resolve } from 'node:path';
import { RULES } from '../registry.ts';
import { ProfileError } from '../profile/load.ts';
import { loadBaseline, type BaselineEntry } from '../reports/baseline.ts';
import { diffReports, renderDiffMarkdown, renderDiffText } from '../reports/diff.ts';
import { gateWords, selectionWords, sha256, shellWord, type Report } from '../reports/model.ts';
import { generateKeys, keyIdOf, privateKeyFrom, publicKeyFrom, RENDERED_FILES, signReport, SIGNATURE_SUFFIX, verifyReport, type Verification } from '../reports/signature.ts';
import { reportJsonOf } from '../reports/run-folder.ts';
import { z } from 'zod';
import { oddNumber, parseJsonDocument, repeatedMember } from '../util/json.ts';
import { fileReason } from '../util/file-reason.ts';
import { EXIT } from './exit.ts';
import { nonBlank } from './options.ts';
import { visibleControls } from './output.ts';

/** What to give instead, by what was read: a bare ENOENT leaves the reader to guess. */
const READ_ADVICE: Record<string, string> = {
  'public key': 'give the PREFIX.pub "apicert keygen" wrote (the certifier publishes it)',
  'signing key': 'give the PREFIX.key "apicert keygen" wrote (or run "apicert keygen --out PREFIX" for a new pair)',
  report: 'give a report.json apicert wrote, or its run folder (e.g. reports/latest)',
  signature: 'give the report.json.sig written beside the report, or leave --signature out to read REPORT.sig',
};

async function readText(path: string, what: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    const advice = READ_ADVICE[what];
    throw new ProfileError(`cannot read ${what} ${path}: ${fileReason((error as NodeJS.ErrnoException).code) ?? String(error)}${advice ? `: ${advice}` : ''}`);
  }
}

/** A file's JSON, with its text; nested past any document apicert writes is no JSON of apicert's either. */
async function readJson(path: string, what: string): Promise<{ value: unknown; text: string }> {
  const text = await readText(path, what);
  const parsed = parseJsonDocument(text);
  if (!parsed.ok) throw new ProfileError(`${path} is not JSON: pass the ${what} apicert wrote`);
  return { value: parsed.value, text };
}

/** What diff, verify and a signature read of a report: a file without it is no report.json of apicert's (exit 2, not a crash). */
const reportShape = z.looseObject({
  harness: z.looseObject({ version: z.string(), rulesetHash: z.string() }),
  summary: z.looseObject({ gate: z.string() }),
  digest: z.string(),
  rules: z.array(z.looseObject({ id: z.string(), verdict: z.string(), level: z.string(), evidence: z.array(z.looseObject({})) })),
});

async function readReport(path: string): Promise<{ report: Report; text: string }> {
  const { value, text } = await readJson(path, 'report');
  return { report: reportOf(value, path), text };
}

function reportOf(value: unknown, path: string): Report {
  const shape = reportShape.safeParse(value);
  if (!shape.success) {
    const issue = shape.error.issues[0]!;
    throw new ProfileError(`${path} is not an apicert report.json (${issue.path.join('.') || 'the document'}: ${issue.message}): pass the report.json apicert wrote`);
  }
  return value as unknown as Report;
}

/** The SHA-256 of each rendered file (`RENDERED_FILES`) found beside `reportPath`, by name. */
async function renderedBeside(reportPath: string): Promise<Record<string, string>> {
  const found: Record<string, string> = {};
  for (const name of RENDERED_FILES) {
    const bytes = await readFile(join(dirname(reportPath), name)).catch(() => undefined);
    if (bytes) found[name] = sha256(bytes);
  }
  return found;
}

/** Read before the run, so a bad key is exit 2 before any request is sent. */
export async function loadSigningKey(path: string): Promise<KeyObject> {
  return privateKeyFrom(await readText(path, 'signing key'), path);
}

/**
 * Signs report.json as it was written (read back, so what is signed is what is on disk), with the
 * digest of each rendered file the run wrote beside it in its own fresh folder; returns the `.sig` path.
 */
export async function writeSignature(reportPath: string, key: KeyObject): Promise<string> {
  const path = `${reportPath}${SIGNATURE_SUFFIX}`;
  await writeFile(path, `${JSON.stringify(signReport((await readReport(reportPath)).report, key, await renderedBeside(reportPath)), null, 2)}\n`);
  return path;
}

/** The gate as the report's own formats say it (`gateWords`), where the report holds what that reads; a report of an older shape, its gate alone. */
function gateOf(report: Report): string {
  return report.run?.allowUntestable !== undefined && report.summary.required?.pass !== undefined ? gateWords(report).words : report.summary.gate.toUpperCase();
}

/** The target as the report records it: its kind, and the faults and variants the embedded fake ran with. */
function targetOf(report: Report): string {
  const t = report.target ?? ({} as Partial<Report['target']>);
  const extras = [t.kind ?? 'kind not recorded', ...(t.image ? [`image ${t.image}`] : []), ...(t.faults?.length ? [`faults: ${t.faults.join(', ')}`] : []), ...(t.variants?.length ? [`variants: ${t.variants.join(', ')}`] : [])];
  return `${t.baseUrl ?? '?'} (${extras.join('; ')})`;
}

/**
 * How much the gate stands on: rules judged of those selected and of the catalogue, the filters and
 * exclusions that narrowed them, --strict, and the report a --rerun took its rules from. A signed
 * PASS over 1 rule of 190, or over a rerun, reads otherwise like a whole certification.
 */
function scopeOf(report: Report): string {
  const s = report.summary;
  const sel = report.run?.selection;
  const parts = [`judged ${s.judged ?? '?'} of ${s.selected ?? '?'} selected rules${sel ? ` (of ${sel.catalogue} in the catalogue)` : ''}`];
  const words = selectionWords(sel, report.excluded?.length ?? 0);
  parts.push(...words.filters, words.excluded);
  if (s.strict !== undefined) parts.push(s.strict ? 'strict (SHOULD rules gate)' : 'not strict (SHOULD rules only warn)');
  if (words.rerun) parts.push(words.rerun);
  if (!sel && report.run?.mode !== 'passive') parts.push('selection not recorded (a report from before apicert recorded it): the filters and the catalogue size are unknown');
  return parts.join('; ');
}

/** At most this many names of files the signature does not cover are listed. */
const UNCOVERED_SHOWN = 20;

/** What `verify` says it vouches for: the run, its gate, how much it covers, and which files the signature covers. */
function vouchedFor(report: Report, result: Verification, others: readonly string[]): string[] {
  const lines = [`  vouches for: target ${targetOf(report)}, run started ${report.run?.startedAt ?? '?'}, gate ${gateOf(report)}`, `  scope: ${scopeOf(report)}`];
  if (!result.covers) {
    lines.push('  covers: report.json only (signed before apicert covered the rendered files)');
    if (result.uncovered.length > 0) lines.push(`  not covered: ${result.uncovered.join(', ')} beside it: renderings of report.json the signature says nothing of: trust report.json and these lines, not them`);
  } else {
    lines.push(`  covers: ${['report.json', ...result.covers].join(', ')}${result.checked.length > 0 ? `; checked unchanged: ${result.checked.join(', ')}` : ''}`);
    if (result.absent.length > 0) lines.push(`  not in this folder, so not checked: ${result.absent.join(', ')}`);
    if (result.uncovered.length > 0) lines.push(`  not covered: ${result.uncovered.join(', ')} beside it (the signed run did not write them): the signature says nothing of them`);
  }
  if (others.length > 0) {
    const shown = others.slice(0, UNCOVERED_SHOWN).join(', ');
    lines.push(`  not covered by the signature: ${shown}${others.length > UNCOVERED_SHOWN ? ` and ${others.length - UNCOVERED_SHOWN} more` : ''}: whatever they say (a PASS, a copy of a report), the signature vouches for none of it`);
  }
  return lines;
}

/**
 * Every other entry of the report's folder: a file added or renamed there (summary-final.md,
 * report-signed.html) reads like part of the signed run, and must be named as not covered.
 */
async function otherFilesBeside(reportPath: string, sigPath: string, result: Verification): Promise<string[]> {
  const dir = dirname(reportPath);
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const known = new Set<string>([basename(reportPath), ...(dirname(sigPath) === dir ? [basename(sigPath)] : []), ...(result.covers ?? []), ...result.uncovered]);
  return entries
    .filter((e) => !known.has(e.name))
    .map((e) => (e.isDirectory() ? `${e.name}/` : e.name))
    .sort();
}

/** `sha256:` and 64 hex digits, as keygen and verify print a key id. */
function keyIdGiven(value: string): string {
  const id = value.trim().toLowerCase();
  if (!/^sha256:[0-9a-f]{64}$/.test(id)) throw new ProfileError(`--key-id ${value} is not a key id: give the sha256:... id the certifier published (keygen prints it)`);
  return id;
}

function notIntact(reportPath: string, problems: readonly string[]): void {
  console.log(visibleControls(`${reportPath}: NOT intact`));
  for (const p of problems) console.log(visibleControls(`  - ${p}`));
  process.exitCode = EXIT.fail;
}

export async function loadBaselineFor(path: string): Promise<{ file: string; entries: BaselineEntry[] }> {
  return { file: path, entries: await loadBaseline(path, RULES.map((r) => r.id)) };
}

/** How the run was started, minus --rules and --seed: every rerun line in the report extends it. */
export function invocationOf(opts: { target?: string; profile?: string; image?: string; port?: number; faults?: string[]; variant?: string[]; readOnly?: boolean; depth?: string }): string {
  const parts = ['npx', 'apicert', 'certify'];
  if (opts.profile) parts.push('--profile', shellWord(opts.profile));
  if (opts.target) parts.push('--target', shellWord(opts.target));
  if (opts.image) parts.push('--image', shellWord(opts.image), '--port', String(opts.port));
  if (opts.readOnly) parts.push('--read-only');
  if (opts.depth && opts.depth !== 'default') parts.push('--depth', opts.depth);
  if (opts.faults?.length) parts.push('--faults', shellWord(opts.faults.join(',')));
  if (opts.variant?.length) parts.push('--variant', shellWord(opts.variant.join(',')));
  return parts.join(' ');
}

export function registerReportCommands(program: Command): void {
  program
    .command('keygen')
    .description('Write an Ed25519 key pair for signing reports: PREFIX.key (readable by you only) and PREFIX.pub.')
    .requiredOption('--out <prefix>', 'path prefix of the two files', nonBlank('--out', 'a path prefix for the two files, e.g. keys/certifier'))
    .action(async (opts: { out: string }) => {
      const keys = generateKeys();
      try {
        // As --out of certify and profile init: a folder that is not there yet is made (readable by you only, as the key).
        await mkdir(dirname(resolve(opts.out)), { recursive: true, mode: 0o700 });
        // wx: never overwrite a key someone already signs with.
        await writeFile(`${opts.out}.key`, keys.privatePem, { mode: 0o600, flag: 'wx' });
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        throw new ProfileError(code === 'EEXIST' ? `${opts.out}.key exists: choose another --out, or delete it if it is no longer used` : `cannot write ${opts.out}.key: ${code ?? String(error)}`);
      }
      await writeFile(`${opts.out}.pub`, keys.publicPem);
      console.log(`wrote ${opts.out}.key (private, mode 0600) and ${opts.out}.pub; key id ${keys.keyId}`);
      console.log(`sign a run with: npx apicert certify --sign ${opts.out}.key`);
    });

  program
    .command('verify')
    .description('Check a report.json, and the rendered files beside it that its signature covers, against its detached signature (REPORT.sig) and a public key; exit 0 when intact, 1 when not (or when nothing vouches for it).')
    .argument('<report>', 'the report.json to check, or its run folder (e.g. reports/latest)')
    .requiredOption('--key <pub>', 'the public key (PREFIX.pub from keygen)', nonBlank('--key', 'the public key file (PREFIX.pub from keygen)'))
    .option('--signature <file>', 'the signature file (default: REPORT.sig)', nonBlank('--signature', 'the signature file', 'to read REPORT.sig'))
    .option('--key-id <id>', 'the key id (sha256:...) the certifier published: exit 1 when --key is another key')
    .action(async (given: string, opts: { key: string; signature?: string; keyId?: string }) => {
      const pinned = opts.keyId === undefined ? undefined : keyIdGiven(opts.keyId);
      const reportPath = await reportJsonOf(given);
      const key = publicKeyFrom(await readText(opts.key, 'public key'), opts.key);
      const sigPath = opts.signature ?? `${reportPath}${SIGNATURE_SUFFIX}`;
      // A path that leads nowhere is the user's to fix (exit 2); a report or signature that is there
      // but cut off, or no signature beside the report, is a report nobody can vouch for (exit 1).
      const text = await readText(reportPath, 'report');
      const sigText = opts.signature ? await readText(sigPath, 'signature') : await readFile(sigPath, 'utf8').catch(() => undefined);
      const parsed = parseJsonDocument(text);
      if (!parsed.ok && sigText === undefined) throw new ProfileError(`${reportPath} is not JSON: pass the report apicert wrote`);
      if (!parsed.ok) return notIntact(reportPath, [`${reportPath} is not whole JSON: it was cut off or altered after signing; copy report.json again from where the certifier published it`]);
      const report = reportOf(parsed.value, reportPath);
      if (sigText === undefined) return notIntact(reportPath, [`no signature at ${sigPath}: the report is unsigned, or its signature was not copied with it; ask the certifier for the report.json${SIGNATURE_SUFFIX} written beside it, or pass --signature FILE`]);
      const signature = parseJsonDocument(sigText);
      if (!signature.ok) return notIntact(reportPath, [`the signature ${sigPath} is not whole JSON: it was cut off or altered; copy it again from the certifier`]);
      const result = verifyReport(report, signature.value, key, await renderedBeside(reportPath));
      // A key that came with the report proves nothing: whoever altered the report could sign it with their own.
      if (pinned !== undefined && keyIdOf(key) !== pinned) result.problems.push(`the public key ${opts.key} has id ${keyIdOf(key)}, not the id --key-id gives (${pinned}): it is not the key the certifier published; get the .pub from the certifier, not from the report's folder`);
      // Two readers could take the report two ways, while the signature covers one of them.
      const twice = repeatedMember(text);
      if (twice !== undefined) result.problems.push(`the member "${twice}" stands twice in one object: readers disagree on which holds, and apicert never writes one`);
      const odd = oddNumber(text);
      if (odd !== undefined) result.problems.push(`the number ${odd} is not spelled as apicert writes numbers (the shortest spelling that reads back the same): other JSON readers may read another number than the one signed`);
      if (result.problems.length > 0) return notIntact(reportPath, result.problems);
      const keyId = (signature.value as { keyId: string }).keyId;
      console.log(visibleControls(`${reportPath}: intact, signed by key ${keyId}${pinned !== undefined ? ' (the key id --key-id gives)' : ''}`));
      for (const line of vouchedFor(report, result, await otherFilesBeside(reportPath, sigPath, result))) console.log(visibleControls(line));
      if (pinned === undefined) console.log(visibleControls(`  compare the key id ${keyId} with the one the certifier published (or pass --key-id): anyone can sign a report with a key of their own`));
      process.exitCode = EXIT.pass;
    });

  program
    .command('diff')
    .description('Compare two reports (report.json files or run folders): new failures, fixed rules, other verdict changes, rules added or removed; exit 1 on a regression.')
    .argument('<old>', 'the earlier report.json, or its run folder')
    .argument('<new>', 'the later report.json, or its run folder (e.g. reports/latest)')
    .option('--format <format>', 'text or md (a pull-request comment)', 'text')
    .action(async (oldPath: string, newPath: string, opts: { format: string }) => {
      if (opts.format !== 'text' && opts.format !== 'md') throw new ProfileError(`unknown --format "${opts.format}": use text or md`);
      const d = diffReports((await readReport(await reportJsonOf(oldPath))).report, (await readReport(await reportJsonOf(newPath))).report);
      process.stdout.write(opts.format === 'md' ? renderDiffMarkdown(d) : renderDiffText(d));
      process.exitCode = d.regression ? EXIT.fail : EXIT.pass;
    });
}

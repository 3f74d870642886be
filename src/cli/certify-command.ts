/** `apicert certify`: choose the target (embedded fake, --target, --profile, --image), run the rules, write one run folder. */
import { Command, InvalidArgumentError, Option } from 'commander';
import { join } from 'node:path';
import { stat, writeFile } from 'node:fs/promises';
import type { Surface } from '../rule/index.ts';
import { ContainerStartFailed, startImageTarget, type StartedImageTarget } from '../container/image-target.ts';
import type { FaultId } from '../fake/faults/index.ts';
import type { VariantId } from '../fake/variants/index.ts';
import { loadProfileFile, ProfileError, profileFromEnv } from '../profile/load.ts';
import type { Profile } from '../profile/schema.ts';
import { Redactor } from '../redact/redactor.ts';
import { effectOf, gateWords, judgedLine, policyOf, selectionLine, shellWord, type Report } from '../reports/model.ts';
import { checkReportRoot, createRunFolder, reportToStdout, writeRunReports, writtenLine } from '../reports/run-folder.ts';
import { REPORT_FORMATS, type ReportFormat } from '../reports/write.ts';
import { certify, DEFAULT_DEADLINE_MS, HARNESS_VERSION, redactorFor } from '../runner/certify.ts';
import { HarRecorder, hidingFor, RECORDED_BODY_LIMIT, RECORDED_DELIVERIES, RECORDING_KEPT_BYTES } from '../passive/recorder.ts';
import { UsageError } from './errors.ts';
import { EXIT, exitCodeFor } from './exit.ts';
import { ENV_POINTER, EXIT_CODES_HELP, README_SECTIONS, TARGET_ENV } from './help.ts';
import { emptyValue, formats, nonBlank, patternList, seedOf, VERDICT_MARK } from './options.ts';
import { faultList, portOf, surfaceList, variantList } from './parse.ts';
import { redactOutputWith, Ui } from './output.ts';
import { invocationOf, loadBaselineFor, loadSigningKey, writeSignature } from './report-commands.ts';
import { durationOf, whileInterruptible } from './run-control.ts';
import { causeWarning } from './side-report.ts';
import { RuleProgress } from './progress.ts';
import { appendStepSummary } from './step-summary.ts';
import { loadRerun, otherTarget, RERUN_VERDICTS, type RerunSelection } from './rerun.ts';
import { RULES } from '../registry.ts';
import { selectForRun } from '../runner/selection.ts';
import { chooseTarget, EMBEDDED_NOTICE } from './target-choice.ts';
import { addHeaderOption, headerFlags } from './header-flag.ts';
import { withHeaderFlags } from '../profile/network.ts';
import { withoutUserinfo } from '../util/url.ts';

interface CertifyFlags {
  target?: string;
  profile?: string;
  image?: string;
  port?: number;
  /** Absent unless given: the help shows no empty default. */
  env?: Record<string, string>;
  mount?: Array<{ source: string; target: string; mode: 'rw' | 'ro' }>;
  waitLog?: RegExp;
  waitHttp?: string;
  startupTimeout: number;
  surface?: Surface[];
  rules?: string[];
  exclude?: string[];
  maxFailures?: number;
  rerun?: string;
  seed?: number;
  out: string;
  format: ReportFormat[];
  faults?: FaultId[];
  variant?: VariantId[];
  allowUntestable?: boolean;
  strict?: boolean;
  readOnly?: boolean;
  depth?: 'quick' | 'default' | 'deep';
  quiet?: boolean;
  verbose?: boolean;
  color: boolean;
  deadline: number;
  sign?: string;
  baseline?: string;
  /** `--header [SURFACE:]NAME:VALUE`, checked in the action so no message repeats a value. */
  header?: string[];
  harOut?: string;
  harSecrets?: boolean;
  maxKeptBytes?: number;
  fullEvidence?: boolean;
  maxRps?: number;
}

function keptBytesOf(value: string): number {
  const n = value.trim() === '' ? Number.NaN : Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 4 * 1024 * 1024 * 1024) throw new InvalidArgumentError('give a whole number of bytes from 0 to 4294967296');
  return n;
}

function envPair(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const eq = value.indexOf('=');
  const name = eq === -1 ? value : value.slice(0, eq);
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new InvalidArgumentError(`"${value}" is not K=V (or K, to pass the variable K of this shell)`);
  const fromShell = process.env[name];
  if (eq === -1 && fromShell === undefined) throw new InvalidArgumentError(`--env ${name}: the variable ${name} is not set in this shell; give ${name}=VALUE`);
  return { ...previous, [name]: eq === -1 ? fromShell! : value.slice(eq + 1) };
}

function mountOf(value: string, previous: NonNullable<CertifyFlags['mount']> = []): NonNullable<CertifyFlags['mount']> {
  const [source, target, mode = 'rw'] = value.split(':');
  if (!source?.startsWith('/') || !target?.startsWith('/') || (mode !== 'rw' && mode !== 'ro')) throw new InvalidArgumentError(`"${value}" is not /host/path:/container/path[:ro]`);
  return [...previous, { source, target, mode }];
}

function regexOf(value: string): RegExp {
  // An empty pattern matches the first line of all: "ready" before the server is.
  if (value.trim() === '') throw emptyValue('--wait-log', 'a regular expression a log line matches once the server is ready', 'to wait until the port answers HTTP');
  try {
    return new RegExp(value);
  } catch (error) {
    throw new InvalidArgumentError(`not a regular expression: ${(error as Error).message}`);
  }
}

function failureCount(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > 100_000) throw new InvalidArgumentError('give a whole number of failures from 1 (stop at the first) upwards');
  return n;
}

function requestRate(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0 || n > 100_000) throw new InvalidArgumentError('give requests per second above 0, e.g. 20 or 0.5');
  return n;
}

function milliseconds(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1_000 || n > 600_000) throw new InvalidArgumentError('give milliseconds from 1000 to 600000');
  return n;
}

/** Container variables whose names say they hold a secret are redacted from the container's log. */
const SECRET_NAME = /TOKEN|SECRET|KEY|PASS|AUTH|CREDENTIAL|COOKIE|SESSION/i;

function containerLogRedactor(profile: Profile | undefined, env: Record<string, string>): Redactor {
  const redactor = profile ? redactorFor(profile) : new Redactor();
  for (const [name, value] of Object.entries(env)) if (SECRET_NAME.test(name) && value.length >= 4) redactor.add(value, `env:${name}`);
  return redactor;
}

function checkCombination(flags: CertifyFlags, containerArgs: string[], command: Command): void {
  // Before the warning about state it would create there: a URL that is none is a typo, said first.
  // Shown without userinfo, query or fragment: a URL that does not parse may still carry a key.
  if (flags.target && !URL.canParse(flags.target)) throw new UsageError(`--target ${withoutUserinfo(flags.target).replace(/[?#][^]*$/, '')} is not a URL: give the deployment's base URL, e.g. https://gateway.example.com`);
  if (flags.target && flags.profile) throw new ProfileError('give --target or --profile, not both (a profile names its own target)');
  if (flags.image && flags.target) throw new UsageError('--image starts the target itself: drop --target (a --profile may still give credentials and fixtures; its target is replaced)');
  if (flags.faults && (flags.target || flags.profile || flags.image)) throw new UsageError('--faults only applies to the embedded fake; drop --target/--profile/--image (and unset APICERT_PROFILE) to use it');
  if (flags.variant && (flags.target || flags.profile || flags.image)) throw new UsageError('--variant only applies to the embedded fake; drop --target/--profile/--image (and unset APICERT_PROFILE) to use it');
  if (flags.image && flags.port === undefined) throw new UsageError("--image needs --port N: the port the image's server listens on");
  const containerOnly = ['port', 'waitLog', 'waitHttp', 'startupTimeout'].filter((k) => command.getOptionValueSource(k) === 'cli');
  if (flags.env) containerOnly.push('env');
  if (flags.mount) containerOnly.push('mount');
  if (containerArgs.length) containerOnly.push('container arguments');
  if (!flags.image && containerOnly.length) {
    const names = containerOnly.map((k) => (k.includes(' ') ? k : `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`));
    // "container arguments" is plural on its own.
    const plural = names.length > 1 || containerArgs.length > 0;
    throw new UsageError(`${names.join(', ')} ${plural ? 'apply' : 'applies'} only with --image${containerArgs.length > 0 ? ' (container arguments: the words after the options, or after "--")' : ''}`);
  }
  if (flags.waitLog && flags.waitHttp) throw new UsageError('give --wait-log or --wait-http, not both');
  if (flags.rerun && flags.seed !== undefined) throw new UsageError('--rerun takes the seed of the report it reruns: drop --seed (or drop --rerun and name the rules with --rules)');
  if (flags.sign && flags.out === '-') throw new UsageError('--sign writes report.json.sig beside report.json: give --out DIR, not -');
  if (flags.harSecrets && !flags.harOut) throw new UsageError('--har-secrets applies only with --har-out FILE');
  if (flags.maxKeptBytes !== undefined && !flags.harOut) throw new UsageError('--max-kept-bytes applies only with --har-out FILE');
}

function gateLines(ui: Ui, report: Report): string {
  const { required: req, should, strict, warnings } = report.summary;
  // The words every format says (reports/model.ts), so the console, the files and the exit code agree.
  const gate = gateWords(report);
  const painted = ui.paint(gate.green ? ['bold', 'green'] : ['bold', 'red'], gate.words);
  const target = `${report.target.baseUrl} (${report.target.kind}${report.target.image ? ` ${report.target.image}` : ''})`;
  const line = `\n${target}: gate ${painted}${strict ? ' (strict)' : ''} - ${judgedLine(report.summary)}; required ${req.pass} pass, ${req.fail} fail, ${req.untestable} untestable, ${req.inconclusive} inconclusive, ${req['not-applicable']} n/a; should ${should.pass} pass, ${should.fail} fail${strict ? '' : ' (warnings)'}; ${report.observations.length} observations; ${report.run.requests} requests in ${report.run.durationMs} ms; seed ${report.run.seed}`;
  // A run of part of the catalogue says so beside its gate: a PASS over 3 rules of 190 is no certification of the rest.
  const selection = selectionLine(report);
  const scoped = selection ? `${line}\nselection: ${selection}` : line;
  return !strict && warnings.length > 0 ? `${scoped}\nwarnings (SHOULD rules that failed; --strict makes them gate): ${warnings.join(', ')}` : scoped;
}

function lastLines(text: string, n: number): string {
  return text.trimEnd().split('\n').slice(-n).join('\n');
}

/**
 * Without a profile the credentials are the variables' (src/profile/load.ts profileFromEnv): the
 * untestable verdicts speak of "the profile", so the variables a user left unset are named up front.
 */
function unsetCredentialVariables(ui: Ui, flag: string): void {
  const unset = TARGET_ENV.filter((v) => !process.env[v.name]).map((v) => v.name);
  if (unset.length === TARGET_ENV.length) {
    ui.warn(`apicert: warning: ${flag} without --profile reads its credentials from the environment, and none is set (${unset.join(', ')}): every rule that sends one will be untestable; export them ("apicert help env" says what each holds) or give --profile FILE`);
  } else if (unset.length > 0) {
    ui.info(`apicert: ${flag} without --profile reads its credentials from the environment; not set here: ${unset.join(', ')} (the rules that need them will be untestable; "apicert help env" says what each holds)`);
  }
}

async function run(containerArgs: string[], flags: CertifyFlags, command: Command): Promise<void> {
  const choice = chooseTarget(flags);
  flags.profile = choice.profile;
  checkCombination(flags, containerArgs, command);
  const toStdout = flags.out === '-';
  let chosen = flags.format;
  if (toStdout) {
    if (command.getOptionValueSource('format') !== 'cli') chosen = ['json'];
    else if (chosen.length !== 1) throw new UsageError(`--out - writes one report to stdout: give one --format (${REPORT_FORMATS.join(', ')})`);
  }
  if (!toStdout) await checkReportRoot(flags.out);
  // Both read before any request, so a bad key or baseline is exit 2 with nothing sent.
  const signingKey = flags.sign ? await loadSigningKey(flags.sign) : undefined;
  const baseline = flags.baseline ? await loadBaselineFor(await baselineFile(flags.baseline)) : undefined;
  const rerun = flags.rerun ? await loadRerun(flags.rerun) : undefined;
  if (rerun && rerun.ids.length === 0) {
    // A green report is good news, not a usage error: the CI step that reruns what failed stays green.
    console.log(
      rerun.notGating > 0
        ? `apicert: nothing to rerun: no rule that gates in ${rerun.from} was ${RERUN_VERDICTS.join(', ')}; ${rerun.notGating} rule(s) that gate nothing there (SHOULD warnings outside --strict, observations) were: name them with --rules to run them again, or run everything once more without --rerun`
        : `apicert: nothing to rerun: no rule in ${rerun.from} was ${RERUN_VERDICTS.join(', ')}; run everything once more without --rerun`,
    );
    process.exitCode = EXIT.pass;
    return;
  }
  if (signingKey && !chosen.includes('json')) chosen = ['json', ...chosen];
  // Everything a usage error can come from is read before the first line about the run: a refusal
  // is said alone, never after "certifying the built-in reference fake" or "certifying URL creates".
  const headers = headerFlags(flags.header);
  selectForRun(RULES, { surfaces: flags.surface, patterns: flags.rules, exclude: flags.exclude, ...(rerun ? { only: { ids: rerun.ids, from: rerun.from } } : {}) });
  const ui = new Ui({ color: flags.color, quiet: flags.quiet, verbose: flags.verbose, stdoutIsReport: toStdout });
  const loadProfile = async (base: string | undefined): Promise<Profile | undefined> =>
    flags.profile
      ? loadProfileFile(flags.profile, process.env, { ...(base ? { target: base } : {}), ...(choice.profileFromEnv ? { namedBy: 'APICERT_PROFILE' } : {}), onWarning: (line) => ui.warn(`apicert: warning: ${line}`) })
      : base
        ? profileFromEnv(base)
        : undefined;
  // With --image the target is known once the container runs; the profile is read then.
  let profile: Profile | undefined = flags.image ? undefined : await loadProfile(flags.target);
  if (choice.embedded) ui.always(EMBEDDED_NOTICE);
  else if (choice.profileFromEnv) ui.info(`apicert: certifying the profile APICERT_PROFILE names: ${choice.profile}`);
  if (!flags.profile && !choice.embedded) unsetCredentialVariables(ui, flags.image ? '--image' : '--target');
  if (flags.target && !flags.readOnly) {
    // The target was accepted just above: it carries no userinfo, query or fragment.
    ui.warn(`apicert: certifying ${withoutUserinfo(flags.target)} creates missions, runs and webhook endpoints there (every rule that changes state); add --read-only to run only the rules that read`);
  }
  let container: StartedImageTarget | undefined;
  // SIGINT/SIGTERM stop the run, the partial report is written and the exit code says which signal.
  const { value: exitCode, signal } = await whileInterruptible(async (stop) => {
  try {
    if (flags.image) {
      ui.info(`starting ${flags.image}, port ${flags.port} on the host network...`);
      try {
        container = await startImageTarget({
          image: flags.image,
          port: flags.port!,
          env: flags.env ?? {},
          command: containerArgs,
          mounts: flags.mount ?? [],
          waitLog: flags.waitLog,
          waitHttp: flags.waitHttp,
          startupTimeoutMs: flags.startupTimeout,
        });
      } catch (error) {
        if (error instanceof ContainerStartFailed) await keepStartLog(ui, flags, error);
        throw error;
      }
      ui.info(`${flags.image} is ready at ${container.baseUrl}`);
    }
    if (container) profile = await loadProfile(container.baseUrl);
    if (profile && headers.length > 0) profile = { ...profile, network: withHeaderFlags(profile.network, headers) };
    if (rerun) announceRerun(ui, rerun, Boolean(flags.surface || flags.rules || flags.exclude), profile?.target);
    const progress = new RuleProgress(ui, baseline?.entries.map((e) => e.rule));
    const recorder = flags.harOut ? new HarRecorder(RECORDED_BODY_LIMIT, flags.maxKeptBytes ?? RECORDING_KEPT_BYTES) : undefined;
    const { report, redactor, firstProbeFailure, profile: used } = await certify({
      recorder,
      profile,
      fullEvidence: flags.fullEvidence,
      maxRps: flags.maxRps,
      ...(!profile && headers.length > 0 ? { adjustEmbeddedProfile: (p: Profile) => ({ ...p, network: withHeaderFlags(p.network, headers) }) } : {}),
      surfaces: flags.surface,
      patterns: flags.rules,
      exclude: flags.exclude,
      maxFailures: flags.maxFailures,
      ...(rerun ? { only: { ids: rerun.ids, from: rerun.from, ...(rerun.digest ? { digest: rerun.digest } : {}) } } : {}),
      seed: rerun?.seed ?? flags.seed,
      faults: flags.faults,
      variants: flags.variant,
      strict: Boolean(flags.strict),
      readOnly: flags.readOnly,
      ...(flags.depth ? { depth: flags.depth } : {}),
      deadlineMs: flags.deadline,
      signal: stop,
      invocation: invocationOf(flags),
      allowUntestable: Boolean(flags.allowUntestable),
      baseline,
      onRedactor: (redactor) => redactOutputWith(redactor),
      onWarning: (warning) => ui.warn(`apicert: warning: ${warning}`),
      container: container ? { image: container.image } : undefined,
      onPlan: (rules) => progress.plan(rules),
      onStart: (rule) => progress.started(rule),
      onResult: (result) => progress.finished(result, Boolean(flags.strict)),
      onRevised: (result) => progress.revised(result, Boolean(flags.strict)),
    });
    progress.end();
    // The deployment's own account of a failure belongs beside the report that shows it.
    const troubled = report.rules.some((r) => r.verdict === 'fail' || r.verdict === 'inconclusive');
    const extra: Record<string, string> = container && troubled ? { 'container.log': containerLogRedactor(profile, flags.env ?? {}).text(container.log()) } : {};
    if (toStdout) reportToStdout(report, chosen[0]!, process.stdout, redactor);
    const cause = causeWarning(report);
    if (cause) ui.warn(cause);
    ui.always(gateLines(ui, report));
    if (report.excluded?.length) ui.info(`excluded (--exclude, not run and not counted): ${report.excluded.map((e) => e.id).join(', ')}`);
    if (report.summary.expectedFailures.length) ui.always(`expected failures (baseline): ${report.summary.expectedFailures.join(', ')}`);
    if (report.summary.staleBaseline.length) ui.always(`STALE baseline entries (the rule passes now; remove them): ${report.summary.staleBaseline.join(', ')}`);
    if (!toStdout) {
      const written = await writeRunReports(report, flags.out, chosen, extra, redactor);
      // Signed as written: the redacted report.json, read back.
      if (signingKey) written.files.push(await writeSignature(join(written.dir, 'report.json'), signingKey));
      ui.always(writtenLine(written, flags.out));
      endOfRun(ui, report, written.dir, invocationOf(flags));
    } else endOfRun(ui, report, undefined, invocationOf(flags));
    // After the reports: a recording that cannot be written (a full disk, a missing folder) never costs the verdicts.
    if (recorder && flags.harOut) await writeRecording(ui, recorder, flags, used);
    const summary = await appendStepSummary(report, redactor).catch((error: Error) => ui.warn(`apicert: could not append to GITHUB_STEP_SUMMARY: ${error.message}`));
    if (summary) ui.detail(`summary appended to ${summary}`);
    return firstProbeFailure ? EXIT.inconclusive : exitCodeFor(report.summary, Boolean(flags.allowUntestable));
  } finally {
    await container?.stop();
  }
  });
  process.exitCode = signal === 'SIGINT' ? EXIT.interrupted : signal === 'SIGTERM' ? EXIT.terminated : exitCode;
}

/** Writes `--har-out`; a failure is a warning naming the file, since the reports are written already. */
async function writeRecording(ui: Ui, recorder: HarRecorder, flags: CertifyFlags, used: Profile | undefined): Promise<void> {
  const file = flags.harOut!;
  try {
    await recorder.write(file, HARNESS_VERSION, flags.harSecrets ? undefined : hidingFor(used, used ? redactorFor(used) : new Redactor()));
  } catch (error) {
    ui.warn(`apicert: warning: the recording ${file} could not be written (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); the reports are written`);
    return;
  }
  const cut = recorder.cut > 0 ? `, ${recorder.cut} bodies kept in part or not at all past --max-kept-bytes ${flags.maxKeptBytes ?? RECORDING_KEPT_BYTES}` : '';
  const unrecorded = recorder.unrecordedDeliveries > 0 ? `, ${recorder.unrecordedDeliveries} webhook deliveries past the first ${RECORDED_DELIVERIES} not recorded` : '';
  ui.info(`recording: ${file} (${recorder.count} exchanges${cut}${unrecorded}, HAR 1.2, readable by you only${flags.harSecrets ? ', secrets kept' : ", the profile's secrets replaced by labelled markers"})`);
}

/** How many failures the recap repeats; the report holds every one. */
const RECAP_LIMIT = 20;

/**
 * The last lines of a run repeat what needs a person (the failures, the inconclusive and, when they
 * gate, the untestable rules, each with its one-line reason) and how to rerun just those, so a CI
 * log ends with them instead of burying them among the pass lines.
 */
function endOfRun(ui: Ui, report: Report, dir: string | undefined, invocation: string): void {
  const policy = policyOf(report);
  const shown = report.rules.filter((r) => effectOf(r, policy) === 'failure' || effectOf(r, policy) === 'error');
  if (shown.length === 0) return;
  ui.always(`\nto look at (${shown.length}):`);
  for (const r of shown.slice(0, RECAP_LIMIT)) ui.always(`  ${recapLine(r)}`);
  if (shown.length > RECAP_LIMIT) ui.always(`  ... and ${shown.length - RECAP_LIMIT} more in the report`);
  if (report.target.kind === 'embedded-fake') ui.always(`the built-in fake at ${report.target.baseUrl} stopped with the run: the report's curl lines reach it again under "npx apicert fake --port ${new URL(report.target.baseUrl).port}${report.target.faults?.length ? ` --faults ${report.target.faults.join(',')}` : ''}", with the tokens of the profile it writes`);
  if (dir) ui.always(`rerun them: ${invocation} --rerun ${shellWord(dir)}`);
}

/** A stale baseline entry fails the run though its rule passes: the line says why, where a verdict mark would read as a passing rule listed as a problem. */
function recapLine(r: Report['rules'][number]): string {
  if (r.baseline?.status === 'stale') return `STALE ${r.id}: the baseline lists it as failing; it passes now (remove the entry)`;
  return `${VERDICT_MARK[r.verdict] ?? r.verdict} ${r.id}${r.reason ? `: ${recapReason(r.reason)}` : ''}`;
}

/** A word this long (a 256-character id in a path) shows only its ends on the console: the reason after it stays on the line. */
const LONG_WORD = /\S{81,}/g;

export function recapReason(text: string): string {
  const line = text.split('\n')[0]!.trim().replace(LONG_WORD, (word) => `${word.slice(0, 48)}…(${word.length} characters)…${word.slice(-16)}`);
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

/** Says where the rules came from before any runs, and which of them this catalog no longer has. */
function announceRerun(ui: Ui, rerun: RerunSelection, narrowed: boolean, target: string | undefined): void {
  const known = new Set(RULES.map((r) => r.id));
  const gone = rerun.ids.filter((id) => !known.has(id));
  ui.always(`rerunning ${rerun.ids.length - gone.length} rule(s) that were ${RERUN_VERDICTS.join(', ')} in ${rerun.from}, with its seed ${rerun.seed}${narrowed ? ', as far as --surface, --rules and --exclude keep them' : ''}`);
  if (rerun.notGating > 0) ui.info(`left out: ${rerun.notGating} rule(s) of ${rerun.from} that gated nothing there (SHOULD warnings outside --strict, observations); name them with --rules to run them again`);
  if (gone.length) ui.warn(`apicert: warning: ${gone.length} rule(s) of ${rerun.from} are not in this apicert's catalog and are skipped: ${gone.join(', ')}`);
  const other = otherTarget(rerun, target);
  if (other) ui.warn(`apicert: warning: ${other}`);
}

/**
 * `--baseline FILE` as a file that can be read: a missing one says what a baseline is and how to do
 * without, where the reader would only say ENOENT.
 */
async function baselineFile(path: string): Promise<string> {
  let isFolder: boolean;
  try {
    isFolder = (await stat(path)).isDirectory();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new UsageError(`--baseline ${path}: ${code === 'ENOENT' ? 'no such file' : `cannot be read (${code})`}: give the file of known failures, a YAML list of { rule, reason, expires? } (docs/reports.md), or drop --baseline to gate on every failure`);
  }
  if (isFolder) throw new UsageError(`--baseline ${path} is a folder: give the file of known failures, a YAML list of { rule, reason, expires? } (docs/reports.md)`);
  return path;
}

/** A container that did not come up: its log goes to a run folder of its own, and its tail to the terminal. */
async function keepStartLog(ui: Ui, flags: CertifyFlags, error: ContainerStartFailed): Promise<void> {
  const log = containerLogRedactor(undefined, flags.env ?? {}).text(error.log);
  ui.warn(log.trim() ? `last lines the container printed:\n${lastLines(log, 20)}` : 'the container printed nothing');
  if (flags.out === '-') return;
  const dir = await createRunFolder(flags.out, new Date());
  await writeFile(join(dir, 'container.log'), log);
  ui.warn(`container log: ${join(dir, 'container.log')}`);
}

export function certifyCommand(): Command {
  const command = new Command('certify')
    .description('Run every selected rule against a target and write a readiness report. Without --target, --profile or --image, certifies the built-in reference fake.')
    .argument('[container-args...]', 'with --image, after "--": the container command, replacing the image\'s CMD')
    .option('--target <url>', 'base URL of the deployment; credentials come from the APICERT_* variables ("apicert help env"); creates state there unless --read-only')
    .option('--profile <file>', `target profile (YAML or JSON): base URL, credentials by role, fixtures, safety limits, and network: extra headers per surface, a CA bundle, a client certificate and key (mTLS), a proxy (README.md, "${README_SECTIONS.profile}")`)
    .option('--image <image[:tag]>', `start the deployment from this container image (testcontainers, host network), certify it, stop it (README.md, "${README_SECTIONS.image}")`)
    .option('--port <n>', "with --image: the port the image's server listens on", portOf)
    .option('--env <K=V>', 'with --image: a container environment variable (repeatable; K alone passes this shell\'s K)', envPair)
    .option('--mount <host:container[:ro]>', 'with --image: bind-mount a host folder (repeatable), e.g. one the container writes its profile to', mountOf)
    .option('--wait-log <regex>', 'with --image: ready once a log line matches', regexOf)
    .option('--wait-http <path>', 'with --image: ready once GET PATH answers 2xx (default: once the port answers HTTP at all)', nonBlank('--wait-http', 'the path to poll, e.g. /healthz', 'to wait until the port answers HTTP at all'))
    .option('--startup-timeout <ms>', 'with --image: how long the container may take to become ready', milliseconds, 60_000)
    .option('--read-only', 'run only rules that read; every rule that creates or changes state is reported untestable')
    .addOption(new Option('--depth <depth>', 'how deep the probe catalogue goes (<surface>.catalogue.*): quick (each operator once per surface, for every commit), default (once per endpoint), deep (every variant, then random pairs; nightly); `apicert plan` prints the requests of each').choices(['quick', 'default', 'deep']))
    .option('--surface <list>', 'surfaces to certify, comma separated (v8, v1, mcp)', surfaceList)
    .option('--rules <globs>', 'rule ids to run, comma separated, * as wildcard (e.g. "v8.missions.events.*"); each must select a rule', patternList)
    .option('--exclude <globs>', 'rule ids to set aside, comma separated, * as wildcard (e.g. "v8.memory.*,mcp.batch.*"); each must match a rule; the reports list them as excluded, never as passed', patternList)
    .option('--rerun <report>', 'run only the rules that gated and were fail, inconclusive or untestable in this earlier report.json (or run folder), with its seed; combines with --surface, --rules and --exclude', nonBlank('--rerun', 'the report.json of an earlier run or its run folder, e.g. reports/latest', 'to run the whole selection'))
    .option('--max-failures <n>', 'start no further rule after N required failures (SHOULD failures too with --strict); the rules not started are reported "not run" and the gate fails', failureCount)
    .option('--seed <n>', 'seed for property-based rules (printed in every report)', seedOf)
    .option('--out <dir>', 'reports go to DIR/<timestamp>/ and DIR/latest points at the newest; "-" writes one format to stdout', nonBlank('--out', 'a folder for the reports (or - for stdout)', 'to write them under reports'), 'reports')
    .option('--format <list>', `report formats, comma separated (${REPORT_FORMATS.join(', ')}); with --out -, one (default json)`, formats, [...REPORT_FORMATS])
    .addOption(new Option('--faults <ids>', 'embedded fake only: switch on these faults (see "apicert faults")').argParser(faultList))
    .addOption(new Option('--variant <ids>', 'embedded fake only: take these legal alternatives where the seeds or MCP leave a choice open (see "apicert variants")').argParser(variantList))
    .option('--allow-untestable', 'exit 0 even when required rules are untestable (missing fixtures or credentials), as long as at least one required rule passed')
    .option('--strict', 'SHOULD rules gate too (by default a failed SHOULD is a warning)')
    .option('-q, --quiet', 'print only failures, inconclusive rules and the gate')
    .option('-v, --verbose', 'also print every passing rule and its exchanges (redacted) with a curl line each')
    .addOption(new Option('--deadline <duration>', "the whole run's deadline (e.g. 90s, 20m, 1h); rules not finished by then are inconclusive and the report is written").argParser(durationOf).default(DEFAULT_DEADLINE_MS, `${DEFAULT_DEADLINE_MS / 60_000}m`))
    .option('--sign <key>', 'sign report.json with this Ed25519 private key (from "apicert keygen"): writes report.json.sig beside it', nonBlank('--sign', 'the private key file "apicert keygen" wrote (PREFIX.key)', 'to leave the report unsigned'))
    .option('--baseline <file>', 'YAML list of known failures { rule, reason, expires? }: listed failures do not gate, listed rules that pass fail the run', nonBlank('--baseline', 'the file of known failures (docs/reports.md)', 'to gate on every failure'))
    .option('--max-rps <n>', 'send at most N requests per second, across every rule running at once (the rate-limit rules\' bursts excepted)', requestRate)
    .option('--full-evidence', 'keep every exchange of a passing rule in report.json (by default a passing rule keeps its first, clipped)')
    .option('--har-out <file>', 'also record every exchange the run sends as HAR 1.2 (the profile\'s secrets replaced by labelled markers), for "apicert judge-traffic"', nonBlank('--har-out', 'the file to record into, e.g. run.har', 'to record nothing'))
    .option('--har-secrets', 'with --har-out: keep the secrets in the recording (the file is made readable by you only)')
    .option('--max-kept-bytes <bytes>', `with --har-out: bytes of bodies the recording keeps in all (default ${RECORDING_KEPT_BYTES}; each answer's body at most ${RECORDED_BODY_LIMIT}); past it a body is kept as far as the budget reached and marked cut`, keptBytesOf)
    .option('--no-color', 'no colour (also: NO_COLOR=1)')
    .addHelpText('after', `\n${EXIT_CODES_HELP}\n\n${ENV_POINTER}`)
    .action(run);
  return addHeaderOption(command, 'the target');
}

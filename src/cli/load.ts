/**
 * `apicert load`: runs the k6 scripts of load/ against a target, reads their summaries and merges
 * the load verdicts into the readiness report; `--emit-k6-operator` writes the manifests for a
 * distributed run, and `apicert load merge` folds the per-instance summaries back in.
 * Credentials reach k6 through its environment only; printed command lines show them redacted.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { z } from 'zod';
import { RATE_PROBE_PRINCIPAL } from '../../scenarios/v8/principal.ts';
import { bundleLoadScripts, LOAD_SCRIPT_FILES } from '../../load/build.ts';
import type { FaultId } from '../fake/faults/index.ts';
import type { VariantId } from '../fake/variants/index.ts';
import { embeddedProfile } from '../fake/embedded-profile.ts';
import type { FakeConfigInput } from '../fake/context.ts';
import { startFake, type RunningFake } from '../fake/server.ts';
import { ConfigError, durationMs, ENV_VARS, k6MemoryCapMiB, loadConfig, SCRIPT_NEEDS, type Env } from '../load/config.ts';
import { chooseTarget } from './target-choice.ts';
import { faultList, variantList } from './parse.ts';
import { UsageError } from './errors.ts';
import { checkK6Version, findK6, K6Missing } from '../load/k6-binary.ts';
import { CA_CONFIGMAP, caConfigMap, CREDENTIALS_SECRET, operatorManifests, operatorSteps } from '../load/operator.ts';
import { envFromProfile } from '../load/profile-env.ts';
import { K6_CA_FILE, k6Network } from '../load/network-env.ts';
import type { Network } from '../profile/network.ts';
import { addHeaderOption, networkWithHeaders } from './header-flag.ts';
import { withLoadResults } from '../load/report.ts';
import { isLoadScript, LOAD_SCRIPTS, rulesOf, type LoadScript } from '../load/rules.ts';
import { cutShort, fellShort, mergeSummaries, parseSummaries, SummaryError, verdictsOf, type LoadRuleResult, type LoadSummary } from '../load/summary.ts';
import { loadProfileFile, ProfileError, profileFromEnv } from '../profile/load.ts';
import { gateWords, underPolicy, type Report } from '../reports/model.ts';
import { checkReportRoot, createRunFolder, LATEST, reportJsonOf, writeRunReports, writtenLine } from '../reports/run-folder.ts';
import { REPORT_FORMATS } from '../reports/write.ts';
import { HARNESS_VERSION } from '../runner/certify.ts';
import { makeFolder } from '../util/folder.ts';
import { EXIT, exitCodeFor } from './exit.ts';
import { whileInterruptible } from './run-control.ts';
import { consoleText } from './output.ts';
import { nonBlank } from './options.ts';
import { fileReason } from '../util/file-reason.ts';

const SECRET_NAMES = new Set(ENV_VARS.filter((v) => v.secret).map((v) => v.name));
const MARK: Record<string, string> = { pass: 'pass', fail: 'FAIL', warn: 'WARN', 'not-applicable': 'n/a', untestable: 'untestable', inconclusive: 'INCONCLUSIVE' };

/** Settings a user gives as APICERT_* variables, and those a flag sets. */
function userEnv(): Env {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => ENV_VARS.some((v) => v.name === name)));
}

function scriptList(value: string): LoadScript[] {
  const out = value.split(',').map((s) => s.trim()).filter(Boolean);
  for (const s of out) if (!isLoadScript(s)) throw new InvalidArgumentError(`unknown load script "${s}": use ${LOAD_SCRIPTS.join(', ')}`);
  return out as LoadScript[];
}

function positive(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError('a whole number of at least 1');
  return Number(value);
}

function k6Duration(value: string): string {
  if (!/^(\d+(ms|s|m|h))+$/.test(value)) throw new InvalidArgumentError('a k6 duration such as 30s, 2m or 1m30s');
  return value;
}

function shellQuote(value: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/** A proxy URL with its password replaced, still a URL a person can fill in. */
function proxyShown(value: string): string {
  const parsed = URL.parse(value);
  if (!parsed?.password) return value;
  parsed.password = 'REDACTED';
  return parsed.toString();
}

/** The k6 command line as a person may read it: secrets redacted, everything else runnable. */
export function printableCommand(env: Env, binary: string, args: readonly string[]): string {
  const vars = Object.entries(env)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, value]) => `${name}=${SECRET_NAMES.has(name) ? '<redacted>' : shellQuote(/_proxy$/i.test(name) ? proxyShown(value) : value)}`);
  return [...vars, binary, ...args.map(shellQuote)].join(' ');
}

/**
 * The embedded fake's settings for load: the rate-probe principal on 30 requests a second, every
 * other principal far above what the storms and fan-outs send (so a pooled bucket, the
 * global-bucket fault, still refuses the second principal once the probe has spent it).
 */
export const EMBEDDED_LOAD_FAKE: FakeConfigInput = { rateLimits: { v8: { default: { requests: 100_000, windowSeconds: 1 }, principals: { [RATE_PROBE_PRINCIPAL]: { requests: 30, windowSeconds: 1 } } } } };

interface Target {
  env: Env;
  report: Report['target'];
  fake?: RunningFake;
  /** The profile's network settings with --header's: how k6 reaches the target. */
  network?: Network;
}

/** The target's environment for the scripts: profile or --target credentials, the embedded fake otherwise. */
async function resolveTarget(given: { profile?: string; target?: string; faults?: FaultId[]; variant?: VariantId[]; header?: string[] }): Promise<Target> {
  // As certify: an empty --target/--profile is an error, and APICERT_PROFILE names the profile when neither is given.
  const choice = chooseTarget(given, process.env, 'load');
  const opts = { ...given, profile: choice.profile };
  if (opts.target && opts.profile) throw new ProfileError('give --target or --profile, not both (a profile names its own target)');
  if (opts.faults && (opts.target || opts.profile)) throw new ProfileError('--faults only applies to the embedded fake; drop --target/--profile to use it');
  if (opts.variant && (opts.target || opts.profile)) throw new UsageError('--variant only applies to the embedded fake; drop --target/--profile (and unset APICERT_PROFILE) to use it');
  if (opts.profile || opts.target) {
    const profile = opts.profile ? await loadProfileFile(opts.profile, process.env, choice.profileFromEnv ? { namedBy: 'APICERT_PROFILE' } : {}) : profileFromEnv(opts.target!);
    const network = networkWithHeaders(profile.network, opts.header);
    return { env: { ...userEnv(), ...envFromProfile(profile) }, report: { baseUrl: profile.target, kind: 'remote' }, ...(network ? { network } : {}) };
  }
  const network = networkWithHeaders(undefined, opts.header);
  // The embedded fake, with its /v8 limiter on for the rate-probe principal only (the profile's
  // declared low tier, APICERT_V8_RATE_LIMIT_TOKEN), so the storms and fan-outs of the primary
  // principal are never refused, and a ramp short enough to reach both limits.
  const fake = await startFake({ faults: opts.faults ?? [], variants: opts.variant ?? [], config: EMBEDDED_LOAD_FAKE });
  const env: Env = { APICERT_RAMP: '10s', APICERT_RATE_MAX: '60', ...userEnv(), ...envFromProfile(embeddedProfile(fake)) };
  const report: Report['target'] = { baseUrl: fake.baseUrl, kind: 'embedded-fake' };
  if (opts.faults?.length) report.faults = opts.faults;
  if (opts.variant?.length) report.variants = [...opts.variant];
  return { env, report, fake, ...(network ? { network } : {}) };
}

/** A setting read from the scripts' environment; a bad value is a usage error (exit 2) that says which. */
function validated<T>(read: (env: Env) => T, env: Env): T {
  try {
    return read(env);
  } catch (error) {
    if (error instanceof ConfigError) throw new ProfileError(error.message);
    throw error;
  }
}

function allRules(script: LoadScript, verdict: LoadRuleResult['verdict'], reason: string): LoadRuleResult[] {
  return rulesOf(script).map((r) => ({ id: r.id, verdict, reason, figures: {} }));
}

/** How long k6 may take to write its summary after it was asked to stop, before it is killed. */
const K6_STOP_GRACE_MS = 10_000;
/** How often k6's memory is read. */
const MEMORY_POLL_MS = 250;

/** A process's resident memory in MiB (Linux /proc), undefined where it cannot be read. */
export function residentMiB(pid: number): number | undefined {
  try {
    const kB = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kB === undefined ? undefined : Number(kB) / 1024;
  } catch {
    return undefined;
  }
}

export interface K6Run {
  code: number;
  overran: boolean;
  /** Set when k6's memory passed the cap and it was stopped: the most it was seen to hold, MiB. */
  memoryMiB?: number;
}

/**
 * Runs k6 on one bundle; bounded by the scripts' own limits plus a margin, after which it is
 * stopped. An interrupt of apicert reaches k6 as SIGINT, so k6 ends its test and writes what it
 * judged so far; one that does not end within the grace is killed. Its memory is bounded too: k6
 * holds each response body whole, so a target flooding its streams would grow it without end.
 * Past `maxMiB` it gets SIGINT (its summary holds what it judged), and past twice that, SIGKILL.
 */
export function runK6(binary: string, args: string[], env: Env, limitMs: number, stop: AbortSignal, unset: readonly string[] = [], maxMiB = Number.POSITIVE_INFINITY): Promise<K6Run> {
  const childEnv: Env = { ...process.env, ...env };
  for (const name of unset) delete childEnv[name];
  // Its own process group: a Ctrl-C at the terminal reaches apicert only, which passes it on once
  // (a second SIGINT would make k6 quit without its summary).
  const child = spawn(binary, args, { env: childEnv, stdio: 'inherit', detached: true });
  const orphaned = () => child.kill('SIGKILL');
  process.once('exit', orphaned);
  let killer: NodeJS.Timeout | undefined;
  let overran = false;
  let memoryMiB: number | undefined;
  const halt = (signal: NodeJS.Signals) => {
    child.kill(signal);
    killer ??= setTimeout(() => child.kill('SIGKILL'), K6_STOP_GRACE_MS);
  };
  const timer = setTimeout(() => {
    console.error(`apicert: k6 ran past ${Math.round(limitMs / 1000)} s; stopping it (pid ${child.pid})`);
    overran = true;
    halt('SIGTERM');
  }, limitMs);
  const watchdog = Number.isFinite(maxMiB)
    ? setInterval(() => {
        const rss = child.pid === undefined ? undefined : residentMiB(child.pid);
        if (rss === undefined || rss <= maxMiB) return;
        if (memoryMiB === undefined) {
          console.error(`apicert: k6 holds ${Math.round(rss)} MiB, past the ${maxMiB} MiB cap (APICERT_K6_MAX_MEMORY); stopping it (pid ${child.pid})`);
          halt('SIGINT');
        }
        memoryMiB = Math.max(memoryMiB ?? 0, rss);
        // Still growing while it stops: its summary is not worth the machine.
        if (rss > 2 * maxMiB) child.kill('SIGKILL');
      }, MEMORY_POLL_MS)
    : undefined;
  const onStop = () => halt('SIGINT');
  stop.addEventListener('abort', onStop, { once: true });
  return new Promise((resolve) => {
    const done = (code: number) => {
      clearTimeout(timer);
      clearTimeout(killer);
      clearInterval(watchdog);
      stop.removeEventListener('abort', onStop);
      process.off('exit', orphaned);
      resolve({ code, overran, ...(memoryMiB === undefined ? {} : { memoryMiB: Math.round(memoryMiB) }) });
    };
    child.on('error', () => done(-1));
    child.on('close', (code) => done(code ?? -1));
  });
}

/**
 * Verdicts of a script whose k6 passed the memory cap: nothing it judged holds for the whole load
 * but its failures, so every other verdict is inconclusive, naming the cap.
 */
export function overMemory(results: readonly LoadRuleResult[], capMiB: number, seenMiB: number): LoadRuleResult[] {
  const why = `k6 reached ${seenMiB} MiB, past the ${capMiB} MiB cap (APICERT_K6_MAX_MEMORY, --k6-max-memory), and was stopped: the target's answers were too large to hold (k6 holds every body whole: readers x stream bytes within APICERT_STREAM_TIMEOUT)`;
  return results.map((r) => (r.verdict === 'fail' || r.verdict === 'untestable' ? r : { ...r, verdict: 'inconclusive', reason: `${why}; ${r.reason}` }));
}

async function readSummary(path: string): Promise<LoadSummary | undefined> {
  try {
    return parseSummaries(await readFile(path, 'utf8'), path)[0];
  } catch {
    return undefined;
  }
}

/** What the merge reads of `--with-report` (withLoadResults): a file without it is no report apicert wrote. */
const certifyShape = z.looseObject({
  harness: z.looseObject({ version: z.string() }),
  target: z.looseObject({ baseUrl: z.string() }),
  run: z.looseObject({ surfaces: z.array(z.string()) }),
  summary: z.looseObject({ gate: z.string() }),
  rules: z.array(z.looseObject({ id: z.string(), verdict: z.string() })),
  observations: z.array(z.looseObject({ ruleId: z.string() })),
  digest: z.string(),
});

const WITH_REPORT_ADVICE = 'give the report.json (or run folder) a certify run of this target wrote, or leave --with-report out to report the load verdicts alone';

/**
 * `--with-report`: a certify report.json (or its run folder) of the same target that the load
 * verdicts extend. Checked whole before any load runs: a file that is no report would otherwise be
 * found out only after the load, and the merge quietly not happen.
 */
async function certifyReport(path: string | undefined): Promise<LoadRun['withReport']> {
  if (path === undefined) return undefined;
  const file = await reportJsonOf(path);
  let value: unknown;
  try {
    value = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ProfileError(`--with-report ${path}: ${fileReason(code) ?? 'not JSON'}: ${WITH_REPORT_ADVICE}`);
  }
  const shape = certifyShape.safeParse(value);
  if (!shape.success) {
    const issue = shape.error.issues[0]!;
    throw new ProfileError(`--with-report ${path}: ${file} is not an apicert report.json (${issue.path.join('.') || 'the document'}: ${issue.message}): ${WITH_REPORT_ADVICE}`);
  }
  return { path: file, report: value as Report };
}

interface LoadRun {
  out: string;
  /** The run's own folder (bundles, summaries, reports). */
  dir: string;
  /** `--with-report`, read before k6 runs so a bad file is exit 2 at once. */
  withReport?: { path: string; report: Report };
  allowUntestable: boolean;
  /** `--strict`: SHOULD rules gate too. */
  strict: boolean;
}

/** Opens the run's own folder, after checking the root; `withReport` was read and checked before. */
async function openLoadRun(opts: { out: string; allowUntestable?: boolean; strict?: boolean }, startedAt: Date, withReport: LoadRun['withReport']): Promise<LoadRun> {
  await checkReportRoot(opts.out);
  return { out: opts.out, dir: await createRunFolder(opts.out, startedAt), allowUntestable: Boolean(opts.allowUntestable), strict: Boolean(opts.strict), ...(withReport ? { withReport } : {}) };
}

/** What k6 sent over the scripts' summaries (http_reqs; segments add up). */
function requestsOf(summaries: ReadonlyArray<LoadSummary | undefined>): number {
  return summaries.reduce((sum, s) => sum + (s?.requests ?? 0), 0);
}

async function writeLoadReport(run: LoadRun, results: LoadRuleResult[], target: Report['target'], startedAt: Date, requests: number): Promise<void> {
  const base = run.withReport?.report;
  if (base && base.target.baseUrl !== target.baseUrl) console.error(`apicert: ${run.withReport!.path} certified ${base.target.baseUrl}, not ${target.baseUrl}: the load verdicts are reported alone`);
  // A report of another target is not extended: its certify rules say nothing about this one.
  const report = underPolicy(withLoadResults(base?.target.baseUrl === target.baseUrl ? base : undefined, results, { version: HARNESS_VERSION, target, startedAt, finishedAt: new Date(), requests, strict: run.strict }), run.allowUntestable);
  const written = await writeRunReports(report, run.out, REPORT_FORMATS, {}, undefined, run.dir);
  // A SHOULD not followed is a warning, as certify prints it: it gates only a strict run.
  const warned = new Set(report.summary.strict ? [] : report.summary.warnings);
  // A reason may quote what the target answered: its controls are shown, never sent to the terminal.
  for (const r of results) console.log(consoleText(`${MARK[warned.has(r.id) ? 'warn' : r.verdict]!.padEnd(12)} ${r.id}${r.verdict !== 'pass' ? `: ${r.reason}` : ''}`));
  const req = report.summary.required;
  const warnings = report.summary.warnings.length > 0 ? `; ${report.summary.warnings.length} SHOULD not followed (${report.summary.strict ? 'gating: --strict' : 'warnings'})` : '';
  console.log(`\nload on ${target.baseUrl}: gate ${gateWords(report).words} - required ${req.pass} pass, ${req.fail} fail, ${req.untestable} untestable, ${req.inconclusive} inconclusive${warnings}`);
  console.log(writtenLine(written, run.out));
  process.exitCode = exitCodeFor(report.summary, run.allowUntestable);
}

interface LoadOptions {
  profile?: string;
  target?: string;
  script?: LoadScript[];
  vus?: number;
  iterations?: number;
  duration?: string;
  out: string;
  withReport?: string;
  dryRun?: boolean;
  emitK6Operator?: string;
  parallelism: number;
  k6MaxMemory?: number;
  faults?: FaultId[];
  variant?: VariantId[];
  allowUntestable?: boolean;
  strict?: boolean;
  header?: string[];
}

async function load(opts: LoadOptions): Promise<void> {
  const scripts = opts.script ?? [...LOAD_SCRIPTS];
  // Before the target is resolved and k6 looked for: a bad file is exit 2 with nothing started.
  const withReport = await certifyReport(opts.withReport);
  const target = await resolveTarget(opts);
  try {
    // Said before the load, not only after it: the user can stop it and give the right report.
    if (withReport && !opts.dryRun && !opts.emitK6Operator && withReport.report.target.baseUrl !== target.report.baseUrl) console.error(`apicert: warning: ${withReport.path} certified ${withReport.report.target.baseUrl}, not ${target.report.baseUrl}: the load verdicts will be reported alone`);
    const env: Env = { ...target.env };
    if (opts.vus) env.APICERT_VUS = env.APICERT_MAX_VUS = String(opts.vus);
    if (opts.iterations) env.APICERT_ITERATIONS = String(opts.iterations);
    if (opts.duration) env.APICERT_MAX_DURATION = env.APICERT_RAMP = opts.duration;
    if (opts.k6MaxMemory) env.APICERT_K6_MAX_MEMORY = String(opts.k6MaxMemory);
    const config = validated(loadConfig, env);
    const maxMiB = validated(k6MemoryCapMiB, env);
    // k6 looked up before the run folder is made: without it a run leaves nothing behind.
    const binary = opts.emitK6Operator ? '' : opts.dryRun ? (process.env.K6_BINARY || 'k6') : await findK6().catch(toUsage);
    const version = opts.emitK6Operator || opts.dryRun ? undefined : await checkK6Version(binary).catch(toUsage);
    // The manifests carry the bundles and the CA bundle in their ConfigMaps: an emit runs nothing and
    // reports nothing, so it makes no run folder (one would hold bundles alone, beside the reports).
    if (opts.emitK6Operator) {
      const work = await mkdtemp(join(tmpdir(), 'apicert-emit-'));
      try {
        const bundles = await bundleScripts(join(work, 'scripts'), scripts);
        const network = await k6Network(target.network, work);
        await emitOperator(opts.emitK6Operator, scripts, bundles, opts.parallelism, { ...env, ...network.env }, network.unset);
      } finally {
        await rm(work, { recursive: true, force: true });
      }
      return;
    }
    const startedAt = new Date();
    // The run's own folder holds its bundles, summaries and report, never an earlier run's.
    const run = await openLoadRun(opts, startedAt, withReport);
    const bundles = await bundleScripts(join(run.dir, 'load', 'scripts'), scripts);
    // The profile's network settings, as k6 takes them (a CA bundle file beside the scripts).
    const network = await k6Network(target.network, join(run.dir, 'load'));
    Object.assign(env, network.env);

    if (opts.dryRun && target.fake) console.log('# the embedded fake stops when this command exits: to run these lines yourself, serve one with "apicert fake" and use --profile\n');
    if (version) console.log(`k6 ${version} at ${binary}`);
    const limitMs = Math.max(durationMs(config.maxDuration), durationMs(config.ramp)) + config.streamTimeoutMs + 60_000;
    const results: LoadRuleResult[] = [];
    const { signal } = await whileInterruptible(async (stop) => {
      const step: ScriptStep = { run, env, unset: network.unset, config, bundles, binary, limitMs, maxMiB, dryRun: Boolean(opts.dryRun), stop, summaries: [] };
      for (const script of scripts) results.push(...(await runScript(script, step)));
      // Written while the handlers still hold: a second Ctrl-C must not cut the report short.
      if (!opts.dryRun) await writeLoadReport(run, results, target.report, startedAt, requestsOf(step.summaries));
      // `latest` is left alone: it stands for a report (--rerun, verify, diff, --with-report read its
      // report.json), and a dry run writes none.
      else console.log(`bundles: ${bundles} (a dry run writes no report: ${join(run.out, LATEST)} still points at the last run's)`);
    });
    if (signal) process.exitCode = signal === 'SIGINT' ? EXIT.interrupted : EXIT.terminated;
  } finally {
    await target.fake?.close();
  }
}

/** Bundles the scripts into `dir` (k6 runs no TypeScript before v0.57) and returns it. */
async function bundleScripts(dir: string, scripts: readonly LoadScript[]): Promise<string> {
  const built = await bundleLoadScripts(dir, true, LOAD_SCRIPT_FILES.filter((f) => scripts.some((s) => f.endsWith(`/${s}.ts`))));
  if (built.errors.length > 0) throw new Error(`bundling the k6 scripts failed: ${built.errors.map((e) => e.text).join('; ')}`);
  return dir;
}

interface ScriptStep {
  run: LoadRun;
  env: Env;
  /** Removed from k6's environment (the profile's proxy replaces the environment's). */
  unset: readonly string[];
  config: ReturnType<typeof loadConfig>;
  bundles: string;
  binary: string;
  limitMs: number;
  /** k6's memory cap, MiB (APICERT_K6_MAX_MEMORY). */
  maxMiB: number;
  dryRun: boolean;
  stop: AbortSignal;
  /** The summaries the scripts left, for what k6 sent. */
  summaries: LoadSummary[];
}

/** One script: not run after an interrupt, untestable without its credential, printed on --dry-run, else run and read. */
async function runScript(script: LoadScript, step: ScriptStep): Promise<LoadRuleResult[]> {
  if (step.stop.aborted) return allRules(script, 'inconclusive', `not run: ${(step.stop.reason as Error).message}`);
  const need = SCRIPT_NEEDS[script];
  if (!step.config[need.field]) {
    if (step.dryRun) console.log(`# ${script}: skipped, no ${need.env}\n`);
    return allRules(script, 'untestable', `no ${need.env}: ${ENV_VARS.find((v) => v.name === need.env)?.about}`);
  }
  const summaryPath = join(step.run.dir, 'load', `${script}.summary.json`);
  const scriptEnv: Env = { ...step.env, APICERT_SUMMARY_OUT: summaryPath };
  const args = ['run', '--no-usage-report', join(step.bundles, `${script}.js`)];
  if (step.dryRun) {
    const unset = step.unset.length > 0 ? `env ${step.unset.map((n) => `-u ${n}`).join(' ')} ` : '';
    console.log(`# ${script}: ${rulesOf(script).map((r) => r.id).join(', ')}\n${unset}${printableCommand(scriptEnv, step.binary, args)}\n`);
    return [];
  }
  await rm(summaryPath, { force: true });
  console.log(`\n== ${script} ==`);
  const { code, overran, memoryMiB } = await runK6(step.binary, args, scriptEnv, step.limitMs, step.stop, step.unset, step.maxMiB);
  console.log(`k6 exited ${code} (${script})`);
  const summary = await readSummary(summaryPath);
  if (summary) step.summaries.push(summary);
  // Said where the user looks, not only in an observation: a ramp short of its rate can miss a limit, or place it wrong.
  if (summary && fellShort(summary)) console.error(`apicert: warning: k6 dropped ${summary.droppedIterations} iterations of ${script} (no VU was free): its arrival rate fell short of the plan; raise --vus (APICERT_MAX_VUS)`);
  // A run cut short judged part of the load: its passes are inconclusive, as a merge of some segments' are.
  const stopped = step.stop.aborted ? (/interrupted by \w+/.exec((step.stop.reason as Error).message)?.[0] ?? 'interrupted') : overran ? `k6 ran past ${Math.round(step.limitMs / 1000)} s and was stopped` : memoryMiB !== undefined ? `k6 passed the ${step.maxMiB} MiB memory cap and was stopped` : undefined;
  if (memoryMiB !== undefined) return overMemory(summary ? verdictsOf(summary, cutShort(summary, stopped)) : allRules(script, 'inconclusive', `k6 exited ${code} without writing its summary`), step.maxMiB, memoryMiB);
  if (summary) return verdictsOf(summary, cutShort(summary, stopped));
  return allRules(script, 'inconclusive', step.stop.aborted ? `k6 was stopped: ${(step.stop.reason as Error).message}` : `k6 exited ${code} without writing its summary: see its output (107: script or configuration error, 104: invalid options)`);
}

function toUsage(error: unknown): never {
  if (error instanceof K6Missing) throw new ProfileError(error.message);
  throw error;
}

/** Settings that hold a secret besides the credentials: a proxy URL with a password. */
function secretSetting(name: string, value: string | undefined): boolean {
  return SECRET_NAMES.has(name) || (/_proxy$/i.test(name) && Boolean(value && URL.parse(value)?.password));
}

async function emitOperator(dir: string, scripts: readonly LoadScript[], bundles: string, parallelism: number, env: Env, unset: readonly string[]): Promise<void> {
  await makeFolder(dir);
  // Credentials (and headers, client certificate, a proxy's password) go in the Secret the user creates; the manifests carry only the other settings.
  const settings = Object.fromEntries(Object.entries(env).filter(([name, value]) => !secretSetting(name, value) && name !== K6_CA_FILE));
  // The operator refuses a TestRun whose script has fewer VUs than instances (k6 inspect's maxVUs < parallelism), and a segment without
  // an iteration would judge nothing (and fail): give each at least one of both.
  const config = loadConfig(env);
  settings.APICERT_VUS = String(Math.max(config.vus, parallelism));
  settings.APICERT_ITERATIONS = String(Math.max(config.iterations, parallelism));
  // A proxy the profile turned off: an empty value wins over what the pod's image or cluster sets.
  for (const name of unset) if (settings[name] === undefined) settings[name] = '';
  const secrets = Object.keys(env).filter((name) => secretSetting(name, env[name]) && env[name] !== undefined);
  const caFile = env[K6_CA_FILE];
  const caBundle = caFile ? await readFile(caFile, 'utf8') : undefined;
  for (const script of scripts) {
    const { configMap, testRun } = operatorManifests(script, await readFile(join(bundles, `${script}.js`), 'utf8'), parallelism, settings, caBundle !== undefined);
    await writeFile(join(dir, `${script}.configmap.yaml`), configMap);
    await writeFile(join(dir, `${script}.testrun.yaml`), testRun);
  }
  if (caBundle !== undefined) await writeFile(join(dir, `${CA_CONFIGMAP}.configmap.yaml`), caConfigMap(caBundle));
  const steps = operatorSteps(scripts, parallelism, secrets, caBundle !== undefined);
  await writeFile(join(dir, 'README.md'), steps);
  console.log(`wrote ${scripts.length} ConfigMap and TestRun pairs to ${dir}; credentials go in the Secret ${CREDENTIALS_SECRET}:\n\n${steps}`);
}

async function merge(files: string[], opts: { out: string; withReport?: string; allowUntestable?: boolean; strict?: boolean }): Promise<void> {
  const withReport = await certifyReport(opts.withReport);
  const all: LoadSummary[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch {
      throw new ProfileError(`cannot read ${file}: give summary files or pod logs`);
    }
    try {
      all.push(...parseSummaries(text, file));
    } catch (error) {
      if (error instanceof SummaryError) throw new ProfileError(error.message);
      throw error;
    }
  }
  const startedAt = new Date();
  const results: LoadRuleResult[] = [];
  const mergedSummaries: LoadSummary[] = [];
  const byScript = new Map<string, LoadSummary[]>();
  for (const s of all) byScript.set(s.script, [...(byScript.get(s.script) ?? []), s]);
  const run = await openLoadRun(opts, startedAt, withReport);
  await mkdir(join(run.dir, 'load'));
  for (const [script, summaries] of byScript) {
    let merged: ReturnType<typeof mergeSummaries>;
    try {
      merged = mergeSummaries(summaries);
    } catch (error) {
      if (error instanceof SummaryError) throw new ProfileError(error.message);
      throw error;
    }
    await writeFile(join(run.dir, 'load', `${script}.summary.json`), `${JSON.stringify(merged.summary, null, 2)}\n`);
    console.log(`${script}: ${summaries.length} summaries, segments ${merged.summary.segments.join(' ')}${merged.missing ? ` (${merged.missing})` : ''}`);
    results.push(...verdictsOf(merged.summary, merged.missing));
    mergedSummaries.push(merged.summary);
  }
  await writeLoadReport(run, results, { baseUrl: all[0]!.target, kind: 'remote' }, startedAt, requestsOf(mergedSummaries));
}

export function registerLoadCommand(program: Command): void {
  const command = program
    .command('load')
    .description('Run the k6 load scripts (k6 >= v0.48 on PATH or K6_BINARY) and merge their verdicts into the readiness report. Without --target or --profile, loads the built-in reference fake.')
    .option('--profile <file>', 'target profile: credentials and fixtures become the scripts\' environment')
    .option('--target <url>', 'base URL; credentials from APICERT_V8_TOKEN, APICERT_V8_OTHER_PRINCIPAL_TOKEN, APICERT_V1_KEY, APICERT_V1_RATE_LIMIT_KEY, APICERT_V1_LIMITER_DOWN_KEY')
    .option('--script <names>', `scripts to run, comma separated (${LOAD_SCRIPTS.join(', ')})`, scriptList)
    .option('--vus <n>', 'VUs of the storm and fan-out scripts, and the most a ramp may use', positive)
    .option('--iterations <n>', 'iterations of the storm and fan-out scripts', positive)
    .option('--duration <d>', 'time limit of each scenario and length of the rate-limit ramps (k6 duration)', k6Duration)
    .option('--out <dir>', 'each run writes DIR/<timestamp>/ (report, and load summaries and bundles in load/) and DIR/latest points at the newest', nonBlank('--out', 'a folder for the reports', 'to write them under reports'), 'reports')
    .option('--with-report <report.json>', 'a certify report (report.json or its run folder) of the same target: the load verdicts are added to its rules in the new run folder', nonBlank('--with-report', 'the report.json a certify run of this target wrote', 'to report the load verdicts alone'))
    .option('--dry-run', 'print the k6 command lines (credentials redacted) instead of running them')
    .option('--emit-k6-operator <dir>', 'write k6-operator ConfigMap and TestRun manifests instead of running', nonBlank('--emit-k6-operator', 'the folder to write the manifests to', 'to run k6 here'))
    .option('--parallelism <n>', 'k6-operator instances per script (each runs one execution segment)', positive, 2)
    .option('--k6-max-memory <MiB>', 'stop k6 (its verdicts inconclusive) once it holds more than this much memory (default 1024, or APICERT_K6_MAX_MEMORY)', positive)
    .option('--faults <ids>', 'embedded fake only: switch on these faults (load faults: src/fake/faults/load.ts)', faultList)
    .option('--variant <ids>', 'embedded fake only: take these legal alternatives where the seeds or MCP leave a choice open (see "apicert variants")', variantList)
    .option('--allow-untestable', 'exit 0 even when required load rules are untestable')
    .option('--strict', 'SHOULD rules gate too (load.v1.rate-limit.retry-after; by default a failed SHOULD is a warning), as certify --strict');
  addHeaderOption(command, 'the target (k6 sends it as APICERT_HEADERS)').action((opts: LoadOptions) => load(opts));
  command
    .command('merge')
    .description('Merge load summaries (JSON files, or logs with "apicert-load-summary:" lines from k6-operator pods) into one verdict per rule and the readiness report.')
    .argument('<summaries...>', 'summary files or pod logs')
    // --out, --with-report, --allow-untestable and --strict are the load command's own: commander hands them to it wherever they stand.
    .action((files: string[], _opts: unknown, merging: Command) => merge(files, merging.optsWithGlobals<{ out: string; withReport?: string; allowUntestable?: boolean; strict?: boolean }>()));
}

/**
 * `apicert judge-client`: serves the reference fake behind scripted adversity, one scenario at a
 * time, records what the client under test sends, and judges each scenario's log with the client
 * rules into the same report as `certify`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { StringDecoder } from 'node:string_decoder';
import { writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { embeddedProfile } from '../fake/embedded-profile.ts';
import { startFake } from '../fake/server.ts';
import { RequestBudget } from '../probe/budget.ts';
import { createDispatcher, ProbeClient } from '../probe/client.ts';
import { ProfileError } from '../profile/load.ts';
import type { Redactor } from '../redact/redactor.ts';
import { buildReport } from '../reports/model.ts';
import { HARNESS_VERSION, redactorFor, type Certification } from '../runner/certify.ts';
import type { Rule, RuleResult } from '../rule/index.ts';
import { EmptySelection, globRegex, notReached, runRules, selectRules } from '../runner/run.ts';
import { startFront, type ActiveScenario } from './front.ts';
import { CLIENT_RULES, CLIENT_SESSION, clientRules } from './rules.ts';
import { scenarioByName, type ScenarioName } from './scenarios.ts';
import { clientFailureWarning, type ClientSession } from './session.ts';
import { makeFolder } from '../util/folder.ts';

export interface JudgeOptions {
  scenarios: readonly ScenarioName[];
  /** Multiplies the seed's delays (the 60 s retry hint); the client receives it as APICERT_TIME_SCALE. */
  timeScale: number;
  /** Port the client talks to; 0 picks a free one. */
  port?: number;
  /** The client, started once per scenario with the env below; without it the client is run by the user. */
  command?: readonly string[];
  /** Bound on one scenario: the client (with every process it started) is stopped or the scenario ends when it passes. */
  maxSecondsPerScenario: number;
  /** Port form: a scenario ends once the client sent something and then nothing for this long. */
  quietMs: number;
  /** Port form: where the client's environment (URL, keys, scale) is written, readable by the user only. */
  envFile?: string;
  /** Print the client's output (redacted) to stderr. */
  showClientOutput?: boolean;
  patterns?: string[];
  seed?: number;
  onScenario?: (name: ScenarioName, title: string, baseUrl: string) => void;
  /** A client command that failed: its exit code and last output (redacted). */
  onClientFailure?: (text: string) => void;
  /** Aborted (SIGINT, SIGTERM): the client (with every process it started) is stopped, the scenarios not reached are reported not run. */
  signal?: AbortSignal;
  onResult?: (result: RuleResult) => void;
}

export interface ClientJudgement extends Certification {
  sessions: ClientSession[];
}

function envLines(env: Record<string, string>): string {
  return Object.entries(env)
    .map(([k, v]) => `export ${k}='${v}'\n`)
    .join('');
}

/** How much of the client's output a report keeps: its last lines, where a crash says why. */
const OUTPUT_TAIL_CHARS = 2_000;

/** Keeps the tail of what the client prints (and shows it, redacted, when asked). */
/** A line of the client's output longer than this is shown without waiting for its end. */
const SHOWN_LINE_CHARS = 64 * 1024;

function collectOutput(streams: ReadonlyArray<NodeJS.ReadableStream | null>, redactor: Redactor, show: boolean): () => string {
  let tail = '';
  for (const stream of streams) {
    if (!stream) continue;
    // Shown a whole line at a time, redacted: a secret a chunk boundary splits is found in its line.
    const decoder = new StringDecoder('utf8');
    let pending = '';
    const display = (text: string, end: boolean) => {
      pending += text;
      const cut = end || pending.length > SHOWN_LINE_CHARS ? pending.length : pending.lastIndexOf('\n') + 1;
      if (cut === 0) return;
      process.stderr.write(redactor.text(pending.slice(0, cut)));
      pending = pending.slice(cut);
    };
    stream.on('data', (chunk: Buffer) => {
      const text = decoder.write(chunk);
      if (show) display(text, false);
      tail = (tail + text).slice(-4 * OUTPUT_TAIL_CHARS);
    });
    stream.on('end', () => {
      const text = decoder.end();
      if (show) display(text, true);
      tail = (tail + text).slice(-4 * OUTPUT_TAIL_CHARS);
    });
  }
  // Redacted whole, so a secret split between two chunks is still found.
  return () => {
    const safe = redactor.text(tail);
    return safe.length > OUTPUT_TAIL_CHARS ? `…${safe.slice(-OUTPUT_TAIL_CHARS)}` : safe;
  };
}

interface ClientRun {
  ended: 'exit' | 'deadline' | 'interrupted';
  exitCode: number | null;
  output: string;
}

/**
 * The client runs in a process group of its own, so a stop reaches whatever it started too (a
 * wrapper script's children, `npm run`'s): signalling its PID alone leaves them running, holding
 * the output pipes and the scenario open. Windows has no process groups: there the PID is signalled.
 */
const OWN_GROUP = process.platform !== 'win32';
/** Between SIGTERM and SIGKILL when the client is stopped. */
const KILL_GRACE_MS = 2_000;
/** After the client exits: how long what it left behind has to end, and its output to arrive, before both are cut. */
const EXIT_GRACE_MS = 500;

/** Groups of clients still running: killed if apicert itself exits first (a second Ctrl-C exits at once). */
const liveGroups = new Set<number>();
const killLiveGroups = () => {
  for (const pid of liveGroups) signalGroup(pid, 'SIGKILL');
};

function signalGroup(pid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(OWN_GROUP ? -pid : pid, signal);
    return true;
  } catch {
    // ESRCH: nothing of the client is left to signal.
    return false;
  }
}

function watchGroup(pid: number): () => void {
  if (liveGroups.size === 0) process.on('exit', killLiveGroups);
  liveGroups.add(pid);
  return () => {
    liveGroups.delete(pid);
    if (liveGroups.size === 0) process.off('exit', killLiveGroups);
  };
}

/**
 * Once the client has exited: what it left running in its group gets SIGTERM, then SIGKILL after a
 * grace, and its output is read until the pipes close or the grace ends, then the pipes are cut, so
 * a descendant holding them cannot hold the run.
 */
async function afterExit(child: ChildProcess): Promise<void> {
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const until = performance.now() + EXIT_GRACE_MS;
  const pid = child.pid;
  if (OWN_GROUP && pid !== undefined && signalGroup(pid, 'SIGTERM')) {
    while (performance.now() < until && signalGroup(pid, 0)) await new Promise((r) => setTimeout(r, 25));
    signalGroup(pid, 'SIGKILL');
  }
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([closed, new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, until - performance.now()))))]);
  clearTimeout(timer);
  child.stdout?.destroy();
  child.stderr?.destroy();
}

/** Runs the client once; resolves when it exits, the deadline passes or the run is interrupted (then it is stopped with its process group). */
function runClient(command: readonly string[], env: Record<string, string>, maxMs: number, redactor: Redactor, show: boolean, stop?: AbortSignal): Promise<ClientRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command[0]!, command.slice(1), { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: OWN_GROUP });
    const unwatch = child.pid !== undefined ? watchGroup(child.pid) : () => {};
    const output = collectOutput([child.stdout, child.stderr], redactor, show);
    let ended: ClientRun['ended'] = 'exit';
    let kill: NodeJS.Timeout | undefined;
    const halt = (why: ClientRun['ended']) => {
      const pid = child.pid;
      if (pid === undefined || kill !== undefined) return;
      ended = why;
      signalGroup(pid, 'SIGTERM');
      kill = setTimeout(() => signalGroup(pid, 'SIGKILL'), KILL_GRACE_MS);
    };
    const deadline = setTimeout(() => halt('deadline'), maxMs);
    const onStop = () => halt('interrupted');
    stop?.addEventListener('abort', onStop, { once: true });
    const settle = () => {
      clearTimeout(deadline);
      clearTimeout(kill);
      stop?.removeEventListener('abort', onStop);
    };
    child.once('error', (error) => {
      settle();
      unwatch();
      reject(new ProfileError(`cannot start the client "${command.join(' ')}": ${error.message}`));
    });
    // exit, not close: a descendant that inherited the output pipes would hold close open for as long as it runs.
    child.once('exit', (code) => {
      settle();
      void afterExit(child).then(() => {
        unwatch();
        resolve({ ended, exitCode: code, output: output() });
      });
    });
  });
}

/** Port form: the scenario ends when the client has gone quiet after its first request, or at the deadline. */
async function waitQuiet(active: ActiveScenario, quietMs: number, maxMs: number, stop?: AbortSignal): Promise<'quiet' | 'deadline' | 'interrupted'> {
  const started = performance.now();
  for (;;) {
    await new Promise((r) => setTimeout(r, 50));
    if (stop?.aborted) return 'interrupted';
    const now = performance.now();
    if (active.exchanges.length > 0 && now - active.lastRequestAt >= quietMs) return 'quiet';
    if (now - started >= maxMs) return 'deadline';
  }
}

/**
 * The rules `--rules` selects in each scenario. Each pattern must name some client rule (else a
 * usage error with the closest ids), not a rule of every scenario: a scenario left with none is not run.
 */
function rulesByScenario(scenarios: readonly ScenarioName[], patterns: readonly string[] | undefined): Map<ScenarioName, Rule[]> {
  if (patterns?.length) selectRules(CLIENT_RULES, { patterns: [...patterns] });
  const regexes = (patterns ?? []).map(globRegex);
  const selected = new Map<ScenarioName, Rule[]>();
  for (const name of scenarios) {
    const rules = clientRules.filter((c) => c.scenario === name && (regexes.length === 0 || regexes.some((r) => r.test(c.rule.id)))).map((c) => c.rule);
    if (rules.length > 0) selected.set(name, rules);
  }
  if (selected.size === 0 && regexes.length > 0) {
    const elsewhere = [...new Set(clientRules.filter((c) => regexes.some((r) => r.test(c.rule.id))).map((c) => c.scenario))];
    throw new EmptySelection(`--rules ${patterns!.join(',')} selects no rule of the scenarios chosen (${scenarios.join(', ')}): the rules it selects are judged in scenario ${elsewhere.join(', ')}; add ${elsewhere.length > 1 ? 'one of them' : 'it'} to --scenario`);
  }
  return selected;
}

export async function judgeClient(options: JudgeOptions): Promise<ClientJudgement> {
  const startedAt = new Date();
  const selection = rulesByScenario(options.scenarios, options.patterns);
  const fake = await startFake();
  const profile = embeddedProfile(fake);
  const redactor = redactorFor(profile, CLIENT_RULES);
  const dispatcher = createDispatcher();
  const budget = new RequestBudget(1);
  const front = await startFront({ fake, port: options.port }).catch(async (error: unknown) => {
    await fake.close();
    const code = (error as NodeJS.ErrnoException).code;
    const hint = code === 'EADDRINUSE' || code === 'EACCES' ? `(${code}): choose another --port, or 0 for a free one` : `: ${(error as Error).message}`;
    throw new ProfileError(`cannot listen on 127.0.0.1:${options.port ?? 0} ${hint}`);
  });
  const token = (name: string) => profile.credentials.find((c) => c.name === name)!.token;
  const env = { APICERT_BASE_URL: front.baseUrl, APICERT_V1_KEY: token('v1-full'), APICERT_V8_TOKEN: token('full'), APICERT_TIME_SCALE: String(options.timeScale) };
  // The probe sends nothing here: it carries the front's URL into evidence and collects each rule's evidence.
  const probe = new ProbeClient({ baseUrl: front.baseUrl, redactor, budget, timeoutMs: 1_000, streamTimeoutMs: 1_000, streamCloseGraceMs: 100, dispatcher });
  const seed = options.seed ?? randomInt(0, 2 ** 31 - 1);
  const sessions: ClientSession[] = [];
  const results: RuleResult[] = [];
  try {
    if (!options.command && options.envFile) {
      await makeFolder(dirname(options.envFile));
      await writeFile(options.envFile, envLines(env), { mode: 0o600 });
    }
    const stop = options.signal;
    const warnings: string[] = [];
    for (const [name, rules] of selection) {
      if (stop?.aborted) {
        results.push(...rules.map((rule) => notReached(rule, `not run: ${(stop.reason as Error).message}`)));
        continue;
      }
      const scenario = scenarioByName(name)!;
      const settings = { timeScale: options.timeScale };
      options.onScenario?.(name, scenario.title, front.baseUrl);
      const active = front.begin(scenario, settings);
      const maxMs = options.maxSecondsPerScenario * 1000;
      let session: ClientSession;
      if (options.command) {
        const run = await runClient(options.command, env, maxMs, redactor, Boolean(options.showClientOutput), stop);
        session = { scenario: name, timeScale: options.timeScale, exchanges: active.exchanges, ended: run.ended, exitCode: run.exitCode, output: run.output };
        const failed = clientFailureWarning(session);
        if (failed) {
          warnings.push(failed);
          options.onClientFailure?.(failed);
        }
      } else {
        session = { scenario: name, timeScale: options.timeScale, exchanges: active.exchanges, ended: await waitQuiet(active, options.quietMs, maxMs, stop) };
      }
      front.end();
      // Read after the end: a request still arriving until then is counted too.
      if (active.dropped > 0) session.dropped = active.dropped;
      sessions.push(session);
      const target = { baseUrl: front.baseUrl, kind: 'remote' as const };
      results.push(...(await runRules({ target, profile, rules, seed, probe, services: { redactor, provided: new Map([[CLIENT_SESSION.name, session]]) }, onResult: options.onResult })));
    }
    const stopped = stop?.aborted ? (stop.reason as Error).message : undefined;
    // What a signed client report stands on: the scenarios and --rules of this run, of every client rule.
    const chosen = { scenarios: [...options.scenarios], ...(options.patterns?.length ? { rules: [...options.patterns] } : {}) };
    const report = buildReport({ results, version: HARNESS_VERSION, target: { baseUrl: front.baseUrl, kind: 'remote' }, catalog: CLIENT_RULES, selection: chosen, startedAt, finishedAt: new Date(), seed, requests: sessions.reduce((n, s) => n + s.exchanges.length + (s.dropped ?? 0), 0), warnings, ...(stopped ? { stopped } : {}) });
    return { report, results, sessions };
  } finally {
    await front.close();
    await fake.close();
    await dispatcher.close();
  }
}

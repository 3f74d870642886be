/**
 * `apicert judge-client`: serves the reference fake behind scripted adversity, one scenario at a
 * time, records what the client under test sends, and judges each scenario's log with the client
 * rules into the same report as `certify`.
 */
import { spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
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
import type { RuleResult } from '../rule/index.ts';
import { notReached, runRules, selectRules } from '../runner/run.ts';
import { startFront, type ActiveScenario } from './front.ts';
import { CLIENT_RULES, CLIENT_SESSION, clientRules } from './rules.ts';
import { scenarioByName, type ScenarioName } from './scenarios.ts';
import { clientFailure, type ClientSession } from './session.ts';
import { makeFolder } from '../util/folder.ts';

export interface JudgeOptions {
  scenarios: readonly ScenarioName[];
  /** Multiplies the seed's delays (the 60 s retry hint); the client receives it as APICERT_TIME_SCALE. */
  timeScale: number;
  /** Port the client talks to; 0 picks a free one. */
  port?: number;
  /** The client, started once per scenario with the env below; without it the client is run by the user. */
  command?: readonly string[];
  /** Bound on one scenario: the client is stopped (by its PID) or the scenario ends when it passes. */
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
  /** Aborted (SIGINT, SIGTERM): the client is stopped, the scenarios not reached are reported not run. */
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
function collectOutput(streams: ReadonlyArray<NodeJS.ReadableStream | null>, redactor: Redactor, show: boolean): () => string {
  let tail = '';
  for (const stream of streams) {
    stream?.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      if (show) process.stderr.write(redactor.text(text));
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

/** Runs the client once; resolves when it exits, the deadline passes or the run is interrupted (then it is stopped by its PID). */
function runClient(command: readonly string[], env: Record<string, string>, maxMs: number, redactor: Redactor, show: boolean, stop?: AbortSignal): Promise<ClientRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command[0]!, command.slice(1), { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const output = collectOutput([child.stdout, child.stderr], redactor, show);
    let ended: ClientRun['ended'] = 'exit';
    const halt = (why: ClientRun['ended']) => {
      ended = why;
      child.kill('SIGTERM');
      setTimeout(() => child.exitCode === null && child.signalCode === null && child.kill('SIGKILL'), 2_000).unref();
    };
    const deadline = setTimeout(() => halt('deadline'), maxMs);
    const onStop = () => halt('interrupted');
    stop?.addEventListener('abort', onStop, { once: true });
    const settle = () => {
      clearTimeout(deadline);
      stop?.removeEventListener('abort', onStop);
    };
    child.once('error', (error) => {
      settle();
      reject(new ProfileError(`cannot start the client "${command.join(' ')}": ${error.message}`));
    });
    // close, not exit: the output streams have then delivered everything the client printed.
    child.once('close', (code) => {
      settle();
      resolve({ ended, exitCode: code, output: output() });
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

export async function judgeClient(options: JudgeOptions): Promise<ClientJudgement> {
  const startedAt = new Date();
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
    for (const name of options.scenarios) {
      const selected = () => selectRules(clientRules.filter((c) => c.scenario === name).map((c) => c.rule), { patterns: options.patterns });
      if (stop?.aborted) {
        results.push(...selected().map((rule) => notReached(rule, `not run: ${(stop.reason as Error).message}`)));
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
        const failed = clientFailure(session);
        if (failed) {
          warnings.push(failed);
          options.onClientFailure?.(failed);
        }
      } else {
        session = { scenario: name, timeScale: options.timeScale, exchanges: active.exchanges, ended: await waitQuiet(active, options.quietMs, maxMs, stop) };
      }
      front.end();
      sessions.push(session);
      const rules = selected();
      const target = { baseUrl: front.baseUrl, kind: 'remote' as const };
      results.push(...(await runRules({ target, profile, rules, seed, probe, services: { redactor, provided: new Map([[CLIENT_SESSION.name, session]]) }, onResult: options.onResult })));
    }
    const stopped = stop?.aborted ? (stop.reason as Error).message : undefined;
    const report = buildReport({ results, version: HARNESS_VERSION, target: { baseUrl: front.baseUrl, kind: 'remote' }, startedAt, finishedAt: new Date(), seed, requests: sessions.reduce((n, s) => n + s.exchanges.length, 0), warnings, ...(stopped ? { stopped } : {}) });
    return { report, results, sessions };
  } finally {
    await front.close();
    await fake.close();
    await dispatcher.close();
  }
}

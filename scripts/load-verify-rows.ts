/**
 * The rows of `npm run load:verify` that go through `apicert load` (clean, and each fault a script
 * catches), and what every part shares: how a command is run, bounded, and how its output is read.
 * suites/load/load-verify.test.ts runs them against the fake k6, so a change of the run-folder
 * layout (or of the verdict lines) fails CI instead of the verification table.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { embeddedProfile } from '../src/fake/embedded-profile.ts';
import type { FaultId } from '../src/fake/faults/index.ts';
import { startFake } from '../src/fake/server.ts';
import { EMBEDDED_LOAD_FAKE } from '../src/cli/load.ts';
import { ENV_VARS, type Env } from '../src/load/config.ts';
import { envFromProfile } from '../src/load/profile-env.ts';
import { LOAD_SCRIPTS, rulesOf, type LoadScript } from '../src/load/rules.ts';
import { LATEST } from '../src/reports/run-folder.ts';
import { CATCHES } from '../suites/load/catches.ts';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const NODE = process.execPath;
export const APICERT = join(ROOT, 'bin', 'apicert.js');
export const RUN_LIMIT_MS = 240_000;

/** Small enough for a shared machine, big enough for every rule: 2 VUs so that each of two segments gets one. */
export const SETTINGS: Env = { APICERT_ITERATIONS: '4', APICERT_VUS: '2', APICERT_STORM: '10', APICERT_READERS: '10', APICERT_RESUMERS: '3', APICERT_STREAM_TIMEOUT: '3s', APICERT_RAMP: '10s', APICERT_RATE_MAX: '60', APICERT_MAX_DURATION: '60s' };
export const SECRETS = new Set(ENV_VARS.filter((v) => v.secret).map((v) => v.name));

export interface Outcome {
  /** What was run, as a row of the table. */
  script: LoadScript;
  case: string;
  expected: string;
  got: string;
  ok: boolean;
}

export interface Ran {
  code: number;
  output: string;
}

export function run(command: string, args: string[], env: Env, limitMs = RUN_LIMIT_MS, cwd = ROOT): Promise<Ran> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('APICERT_')));
  const child = spawn(command, args, { cwd, env: { ...clean, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const timer = setTimeout(() => child.kill('SIGTERM'), limitMs);
  return new Promise((resolve) => {
    child.on('error', (error) => resolve({ code: -1, output: String(error) }));
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, output });
    });
  });
}

/** The reference fake (the embedded load settings) with one fault or none, and the scripts' environment for it. */
export async function fakeWith(faults: FaultId[]) {
  const fake = await startFake({ faults, config: EMBEDDED_LOAD_FAKE });
  return { fake, env: { ...SETTINGS, ...envFromProfile(embeddedProfile(fake)) } };
}

export const verdictLine = (output: string, rule: string) => output.split('\n').find((l) => l.includes(` ${rule}`) && /^(pass|FAIL|WARN|INCONCLUSIVE|untestable|n\/a) /.test(l))?.trim();
export const k6Exit = (output: string, script: string) => new RegExp(`k6 exited (-?\\d+) \\(${script}\\)`).exec(output)?.[1];

/**
 * Where `apicert load --out <out>` left a script's summary: in the run's own folder, which
 * `<out>/latest` points at (every command writes `<out>/<timestamp>/`).
 */
export function summaryPath(out: string, script: LoadScript): string {
  return join(out, LATEST, 'load', `${script}.summary.json`);
}

export function cleanOutcome(clean: Ran, out: string, script: LoadScript): Outcome {
  const exit = k6Exit(clean.output, script);
  const summary = existsSync(summaryPath(join(out, 'clean'), script));
  const lines = rulesOf(script).map((r) => verdictLine(clean.output, r.id) ?? `${r.id}: no verdict line`);
  const ok = exit === '0' && summary && clean.code === 0 && lines.every((l) => l.startsWith('pass'));
  return { script, case: '`apicert load` (no target), clean', expected: 'k6 0, apicert 0, summary', got: `k6 ${exit}, apicert ${clean.code}${summary ? ', summary' : ', no summary'}${ok ? '' : `: ${lines.filter((l) => !l.startsWith('pass')).join('; ')}`}`, ok };
}

export async function throughApicert(binary: string, out: string, scripts: LoadScript[], parts: readonly string[], extraEnv: Env = {}): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  const env = { ...SETTINGS, ...extraEnv, K6_BINARY: binary };
  // No target and, unless narrowed, no --script: the command exactly as a user types it.
  const narrowed = scripts.length < LOAD_SCRIPTS.length ? ['--script', scripts.join(',')] : [];
  // Every script in one run: on v0.48 (Babel) and a busy machine that takes minutes.
  const clean = parts.includes('clean') ? await run(NODE, [APICERT, 'load', ...narrowed, '--out', join(out, 'clean')], env, RUN_LIMIT_MS * 4) : undefined;
  for (const script of scripts) {
    if (clean) outcomes.push(cleanOutcome(clean, out, script));
    if (!parts.includes('faults')) continue;
    for (const c of CATCHES[script]) {
      const dir = join(out, c.fault.replace(/[^A-Za-z0-9.-]+/g, '_'));
      const ran = await run(NODE, [APICERT, 'load', '--script', script, '--faults', c.fault, '--out', dir], env);
      const line = verdictLine(ran.output, c.rule) ?? 'no verdict line';
      const k6 = k6Exit(ran.output, script);
      // The counts in a reason are those of the vitest suites' sizes: here any count will do.
      const reason = new RegExp(c.reason.source.replace(/\\\(\d+ of \d+\\\)/g, '\\(\\d+ of \\d+\\)'));
      // A SHOULD rule's failure is a warning: k6 passes and apicert gates only a strict run.
      const should = rulesOf(script).find((r) => r.id === c.rule)?.level === 'should';
      const [k6Code, apicertCode, mark] = should ? ['0', 0, 'WARN'] : ['99', 1, 'FAIL'];
      const caught = k6 === k6Code && ran.code === apicertCode && line.startsWith(mark) && reason.test(line);
      outcomes.push({ script, case: `fault \`${c.fault}\``, expected: `k6 ${k6Code}, apicert ${apicertCode}, ${mark} ${c.rule}`, got: `k6 ${k6}, apicert ${ran.code}, ${line.split(':')[0]!.replace(/\s+/g, ' ')}`, ok: caught });
    }
  }
  return outcomes;
}


/**
 * Collateral a fault changes by timing alone, so that one run shows it and another does not
 * whatever the segmentation: the operator rows compare the rules the fault is for, and every
 * other required rule except these. The row says which were left out and how they came out.
 */
export const TIMING_BOUND: Partial<Record<FaultId, { rules: string[]; why: string }>> = {
  'v8.missions.events.after-terminal/late-event-changes-state': {
    rules: ['load.v8.events.fanout-same-events', 'load.v8.events.fanout-one-terminal', 'load.v8.events.fanout-resume'],
    why: 'the fake emits its late event 20 ms after the terminal one: only a reader or resumer that connects later sees it, which depends on scheduling, not on segments',
  },
};

export interface Comparison {
  /** Required rules compared whose verdicts differ between the merged runners and the whole run. */
  differing: string[];
  /** Timing-bound collateral left out, each as `rule (whole <verdict>, merged <verdict>)`. */
  uncompared: string[];
}

/**
 * Each required rule's merged verdict (from `apicert load merge`'s output) against the whole run's.
 * The rules a fault is for are always compared, even if listed as timing-bound.
 */
export function compareMerged(script: LoadScript, fault: FaultId | undefined, whole: ReadonlyArray<{ id: string; verdict: string }>, mergedOutput: string): Comparison {
  const caught = new Set(CATCHES[script].filter((c) => c.fault === fault).map((c) => c.rule));
  const bound = new Set((fault && TIMING_BOUND[fault]?.rules) || []);
  const differing: string[] = [];
  const uncompared: string[] = [];
  for (const rule of rulesOf(script).filter((r) => r.level === 'required')) {
    const wholeVerdict = whole.find((v) => v.id === rule.id)?.verdict ?? 'none';
    const mergedVerdict = verdictLine(mergedOutput, rule.id)?.split(/\s/)[0]?.toLowerCase() ?? 'none';
    if (bound.has(rule.id) && !caught.has(rule.id)) uncompared.push(`${rule.id} (whole ${wholeVerdict}, merged ${mergedVerdict})`);
    else if (wholeVerdict !== mergedVerdict) differing.push(rule.id);
  }
  return { differing, uncompared };
}

/**
 * `npm run load:verify`: every load script on real k6, against the reference fake, as docs/load.md's
 * table records it. Per k6 binary (K6_BINARIES=a,b,..., else K6_BINARY, else k6 on PATH):
 *   - `apicert load` with no target: every script passes (k6 exit 0, a summary in the run folder);
 *   - each fault a script is meant to catch: k6 exit 99, apicert exit 1, a FAIL line naming the rule
 *     (a SHOULD rule's: k6 exit 0, apicert exit 0, a WARN line)
 *     (these two parts live in scripts/load-verify-rows.ts, which vitest runs on the fake k6);
 *   - no token, a target that answers nothing, a non-numeric setting: non-zero, naming what to set;
 *     `k6 archive` without credentials; a segment with no VU, with and without setup(): exit 99;
 *   - the .ts files run directly (k6 >= v0.57);
 *   - the k6-operator path as written (scripts/load-operator.ts), parallelism 2 and 4: merged
 *     verdicts equal one unsegmented run's, clean and per fault.
 * LOAD_VERIFY_SCRIPTS=name,... narrows the scripts, LOAD_VERIFY_PARTS=clean,faults,stops,ts,operator the
 * parts (a later run replaces an earlier one's rows; LOAD_VERIFY_PARTS=none only prints the table),
 * LOAD_VERIFY_CASES=clean,<fault id>,... the operator part's cases.
 * Results go to LOAD_VERIFY_OUT (a temporary folder by default) as <version>.json; the table printed
 * covers every version found there. Without k6 it says it is skipped and why, and exits 0. Exits 1
 * when a run did not behave. Every run is bounded (RUN_LIMIT_MS) and talks to loopback only.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleLoadScripts } from '../load/build.ts';
import type { FaultId } from '../src/fake/faults/index.ts';
import type { Env } from '../src/load/config.ts';
import { checkK6Version, findK6, K6Missing } from '../src/load/k6-binary.ts';
import { LOAD_SCRIPTS, rulesOf, type LoadScript } from '../src/load/rules.ts';
import { parseSummaries, verdictsOf } from '../src/load/summary.ts';
import { CATCHES } from '../suites/load/catches.ts';
import { parse } from 'yaml';
import { EMBEDDED_LOAD_FAKE } from '../src/cli/load.ts';
import { embeddedProfile } from '../src/fake/embedded-profile.ts';
import { startFake } from '../src/fake/server.ts';
import { envFromProfile } from '../src/load/profile-env.ts';
import { APICERT, compareMerged, fakeWith, NODE, run, RUN_LIMIT_MS, SECRETS, SETTINGS, throughApicert, TIMING_BOUND, type Outcome } from './load-verify-rows.ts';
import { freePort, runAsOperator, type OperatorRun } from './load-operator.ts';

/** Stops that must say what to set: no credential, a target that answers nothing, a setting that is not a number. */
async function stops(binary: string, bundles: string, scripts: LoadScript[]): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  const { fake, env } = await fakeWith([]);
  try {
    const withoutSecrets = Object.fromEntries(Object.entries(env).filter(([name]) => !SECRETS.has(name)));
    for (const script of scripts) {
      const bundle = join(bundles, `${script}.js`);
      const cases: Array<[string, Env, RegExp]> = [
        ['no token', withoutSecrets, /needs APICERT_[A-Z0-9_]+ .*pass it in the environment or with -e/],
        ['target answers nothing', { ...env, APICERT_BASE_URL: 'http://127.0.0.1:9' }, /did not answer .*set APICERT_BASE_URL/],
        ['`APICERT_ITERATIONS=abc`', { ...env, APICERT_ITERATIONS: 'abc' }, /APICERT_ITERATIONS=abc is not a whole number/],
      ];
      // What the k6-operator's initializer does: archive without the Secret, then inspect the archive.
      const archive = join(bundles, `${script}.tar`);
      const archived = await run(binary, ['archive', '--quiet', bundle, '-O', archive], {});
      const inspected = archived.code === 0 ? await run(binary, ['inspect', '--execution-requirements', archive], {}) : archived;
      const vus = /"maxVUs":\s*(\d+)/.exec(inspected.output)?.[1];
      outcomes.push({ script, case: '`k6 archive` without credentials, then `k6 inspect --execution-requirements`', expected: 'exit 0 and 0', got: `exit ${archived.code} and ${inspected.code}${vus ? `, maxVUs ${vus}` : ''}`, ok: archived.code === 0 && inspected.code === 0 });
      // One VU, and the segment that does not hold it: nothing runs there, which must not pass.
      // (The rate-limit ramps spread their arrival rate over every segment: none is empty.)
      if (!script.endsWith('-rate-limit')) {
        const args = ['run', '--no-usage-report', '--quiet', '--execution-segment', '1/2:1', '--execution-segment-sequence', '0,1/2,1', bundle];
        const empty = await run(binary, args, { ...env, APICERT_VUS: '1', APICERT_SUMMARY_OUT: join(bundles, `${script}.empty.json`) });
        outcomes.push({ script, case: 'an execution segment with no VU (`APICERT_VUS=1`, `1/2:1`)', expected: 'exit 99', got: `exit ${empty.code}`, ok: empty.code === 99 });
        // As a k6-operator cloud runner runs it: no setup() either, so nothing at all is recorded there.
        const bare = await run(binary, [...args.slice(0, -1), '--no-setup', bundle], { ...env, APICERT_VUS: '1', APICERT_SUMMARY_OUT: join(bundles, `${script}.bare.json`) });
        outcomes.push({ script, case: 'the same with `--no-setup`', expected: 'exit 99', got: `exit ${bare.code}`, ok: bare.code === 99 });
      }
      for (const [name, caseEnv, message] of cases) {
        const ran = await run(binary, ['run', '--no-usage-report', '--quiet', bundle], { ...caseEnv, APICERT_SUMMARY_OUT: join(bundles, `${script}.stop.json`) });
        const said = message.test(ran.output);
        outcomes.push({ script, case: name, expected: 'non-zero, says what to set', got: `exit ${ran.code}${said ? ', says it' : ', message missing'}`, ok: ran.code !== 0 && said });
      }
    }
  } finally {
    await fake.close();
  }
  return outcomes;
}

/** The .ts files as k6 >= v0.57 runs them, on the clean fake. */
async function typescript(binary: string, out: string, scripts: LoadScript[]): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  const { fake, env } = await fakeWith([]);
  try {
    for (const script of scripts) {
      const summaryPath = join(out, `${script}.ts.summary.json`);
      const ran = await run(binary, ['run', '--no-usage-report', '--quiet', join('load', `${script}.ts`)], { ...env, APICERT_SUMMARY_OUT: summaryPath });
      const verdicts = existsSync(summaryPath) ? verdictsOf(parseSummaries(readFileSync(summaryPath, 'utf8'), summaryPath)[0]!) : [];
      const passed = verdicts.length > 0 && verdicts.every((v) => v.verdict === 'pass');
      outcomes.push({ script, case: '`.ts` run directly, clean', expected: 'exit 0, every rule pass', got: `exit ${ran.code}${passed ? ', every rule pass' : `, ${verdicts.map((v) => v.verdict).join(',') || 'no summary'}`}`, ok: ran.code === 0 && passed });
    }
  } finally {
    await fake.close();
  }
  return outcomes;
}

/** The reference fake with the embedded load settings on `port`, its profile (file) and the Secret's keys. */
async function fakeOn(port: number, fault: string | undefined, dir: string) {
  const fake = await startFake({ port, faults: fault ? [fault as FaultId] : [], config: EMBEDDED_LOAD_FAKE });
  const profile = embeddedProfile(fake);
  const file = join(dir, 'profile.json');
  writeFileSync(file, JSON.stringify(profile));
  const secret = Object.fromEntries(Object.entries(envFromProfile(profile)).filter(([name]) => SECRETS.has(name)));
  return { fake, file, secret };
}

const PARALLELISM = [2, 4];
const CASES = (process.env.LOAD_VERIFY_CASES ?? '').split(',').map((c) => c.trim()).filter(Boolean);

/**
 * The k6-operator path, executed (scripts/load-operator.ts): `--emit-k6-operator` for parallelism 2
 * and 4, then the initializer, the runners side by side and the starter as the operator runs them,
 * then `apicert load merge` of the runners' logs; each rule's merged verdict must equal one
 * unsegmented run's, clean and per fault. Plus, once per iteration script, a TestRun edited to
 * one VU: the operator must refuse it before any runner starts.
 */
async function operator(binary: string, out: string, scripts: LoadScript[], keep: (more: Outcome[]) => void): Promise<void> {
  // Each row is kept as it comes: on Babel-era k6 a script's cases take many minutes.
  const outcomes = { push: (o: Outcome) => keep([o]) };
  for (const script of scripts) {
    for (const fault of [undefined, ...new Set(CATCHES[script].map((c) => c.fault))]) {
      const name = fault ?? 'clean';
      // LOAD_VERIFY_CASES=clean,<fault id>,... reruns some cases only.
      if (CASES.length > 0 && !CASES.includes(name)) continue;
      const dir = join(out, 'operator', script, name.replace(/[^A-Za-z0-9.-]+/g, '_'));
      mkdirSync(dir, { recursive: true });
      // The whole run's fake and the operator run's fake of this case listen on the same port: the base URL the TestRun carries.
      const port = await freePort();
      // The manifests, as a user emits them from a profile of the target.
      const emitted: Record<number, { testRun: string; configMap: string }> = {};
      {
        const { fake, file } = await fakeOn(port, fault, dir);
        try {
          for (const p of PARALLELISM) {
            const into = join(dir, `manifests-${p}`);
            const ran = await run(NODE, [APICERT, 'load', '--profile', file, '--script', script, '--emit-k6-operator', into, '--parallelism', String(p), '--out', join(dir, 'emit')], SETTINGS);
            if (ran.code !== 0) throw new Error(`--emit-k6-operator failed: ${ran.output}`);
            emitted[p] = { testRun: readFileSync(join(into, `${script}.testrun.yaml`), 'utf8'), configMap: readFileSync(join(into, `${script}.configmap.yaml`), 'utf8') };
          }
        } finally {
          await fake.close();
        }
      }
      // One unsegmented run: the TestRun's environment with the VUs and iterations given (before the
      // emitter raised them to the parallelism), as `apicert load` would run it on one machine.
      const wholeFile = join(dir, 'whole.json');
      const testRunEnv = (yaml: string) => Object.fromEntries(((parse(yaml) as { spec: { runner: { env: Array<{ name: string; value: string }> } } }).spec.runner.env).map((v) => [v.name, v.value]));
      // Each fake makes its own tokens: the Secret of a run holds those of the fake it loads.
      const whole = await (async () => {
        const { fake, secret } = await fakeOn(port, fault, dir);
        const bundle = join(dir, `${script}.js`);
        writeFileSync(bundle, (parse(emitted[4]!.configMap) as { data: Record<string, string> }).data[`${script}.js`]!);
        try {
          return await run(binary, ['run', '--no-usage-report', '--quiet', bundle], { ...testRunEnv(emitted[4]!.testRun), APICERT_VUS: SETTINGS.APICERT_VUS, APICERT_ITERATIONS: SETTINGS.APICERT_ITERATIONS, ...secret, APICERT_SUMMARY_OUT: wholeFile });
        } finally {
          await fake.close();
        }
      })();
      const wholeVerdicts = existsSync(wholeFile) ? verdictsOf(parseSummaries(readFileSync(wholeFile, 'utf8'), wholeFile)[0]!) : [];
      // The whole run is the reference only when it judged as it should: clean, every required rule passes; with a fault, its rules fail.
      const caught = CATCHES[script].filter((c) => c.fault === fault).map((c) => c.rule);
      const required = rulesOf(script).filter((r) => r.level === 'required');
      const wholeRight = fault ? caught.every((id) => wholeVerdicts.find((v) => v.id === id)?.verdict === 'fail') : required.every((r) => wholeVerdicts.find((v) => v.id === r.id)?.verdict === 'pass');
      for (const p of PARALLELISM) {
        const { fake, secret } = await fakeOn(port, fault, dir);
        let ran: OperatorRun;
        try {
          ran = await runAsOperator({ k6: binary, dir: join(dir, `operator-${p}`), ...emitted[p]!, secret, limitMs: RUN_LIMIT_MS });
        } finally {
          await fake.close();
        }
        const log = join(dir, `pods-${p}.log`);
        writeFileSync(log, ran.runners.map((r) => r.log).join('\n'));
        const merged = ran.runners.length > 0 ? await run(NODE, [APICERT, 'load', 'merge', log, '--out', join(dir, `merged-${p}`)], {}) : { code: -1, output: '' };
        const { differing, uncompared } = compareMerged(script, fault as FaultId | undefined, wholeVerdicts, merged.output);
        const leftOut = uncompared.length > 0 ? `; timing-bound, not compared: ${uncompared.join(', ')}` : '';
        const codes = ran.runners.map((r) => r.code);
        const exits = `initializer ${ran.initializer.code}${ran.maxVUs !== undefined ? ` (maxVUs ${ran.maxVUs})` : ''}, whole ${whole.code}, runners ${codes.join('+') || 'none'}, merge ${merged.code}`;
        const behaved = ran.initializer.code === 0 && !ran.refused && codes.every((c) => c === 0 || c === 99) && (fault !== undefined || codes.every((c) => c === 0));
        outcomes.push({
          script,
          case: `k6-operator, parallelism ${p}, ${fault ? `fault \`${fault}\`` : 'clean'}`,
          expected: fault && TIMING_BOUND[fault as FaultId] ? 'initializer 0, runners 0 (99 where a fault shows), merged verdicts = whole run on every required rule but timing-bound collateral (named, not compared)' : 'initializer 0, runners 0 (99 where a fault shows), merged verdicts = whole run',
          got: `${ran.refused ? `refused: ${ran.refused}` : differing.length === 0 ? 'equal' : `differ on ${differing.join(', ')}`}${leftOut}${wholeRight ? '' : `, but the whole run judged ${wholeVerdicts.map((v) => v.verdict).join(',') || 'nothing'}`} (${exits})`,
          ok: behaved && differing.length === 0 && wholeRight,
        });
      }
      // A TestRun edited to one VU: the operator starts no runner whose segment would hold none (the
      // controller's maxVUs check); outside it, such a runner exits 99 (the "stops" rows).
      if (!fault && !script.endsWith('-rate-limit')) {
        const { fake, secret } = await fakeOn(port, undefined, dir);
        let ran: OperatorRun;
        try {
          const testRun = emitted[2]!.testRun.replace(/(name: APICERT_VUS\n\s+value: )"?\d+"?/, '$1"1"');
          ran = await runAsOperator({ k6: binary, dir: join(dir, 'operator-one-vu'), testRun, configMap: emitted[2]!.configMap, secret, limitMs: RUN_LIMIT_MS });
        } finally {
          await fake.close();
        }
        const refused = ran.refused?.startsWith('number of instances > number of VUs') === true;
        outcomes.push({ script, case: 'k6-operator, parallelism 2, a TestRun edited to `APICERT_VUS=1`', expected: 'refused before any runner starts', got: ran.refused ? `refused: ${ran.refused}` : `runners ${ran.runners.map((r) => r.code).join('+')}`, ok: refused && ran.runners.length === 0 });
      }
    }
  }
}

function render(dir: string): string {
  const versions = readdirSync(dir).filter((f) => f.endsWith('.json')).map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as { version: string; outcomes: Outcome[] });
  versions.sort((a, b) => a.version.localeCompare(b.version, undefined, { numeric: true }));
  const rows = new Map<string, { script: string; case: string; expected: string; cells: Record<string, string> }>();
  for (const v of versions) {
    for (const o of v.outcomes) {
      const key = `${o.script}|${o.case}`;
      const row = rows.get(key) ?? { script: o.script, case: o.case, expected: o.expected, cells: {} };
      row.cells[v.version] = `${o.ok ? 'ok' : '**NOT OK**'}: ${o.got}`;
      rows.set(key, row);
    }
  }
  const head = `| script | run | expected | ${versions.map((v) => `k6 ${v.version}`).join(' | ')} |\n|---|---|---|${versions.map(() => '---|').join('')}`;
  return [head, ...[...rows.values()].map((r) => `| \`${r.script}\` | ${r.case} | ${r.expected} | ${versions.map((v) => r.cells[v.version] ?? '-').join(' | ')} |`)].join('\n');
}

async function binaries(): Promise<string[]> {
  const listed = (process.env.K6_BINARIES ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  if (listed.length > 0) return listed;
  return [await findK6()];
}

let found: string[];
try {
  found = await binaries();
} catch (error) {
  if (!(error instanceof K6Missing)) throw error;
  console.log(`load:verify skipped: ${error.message} (CI has no k6; suites/load type-checks, bundles and runs the scripts' code under k6 stand-ins instead)`);
  process.exit(0);
}

const wanted = (process.env.LOAD_VERIFY_SCRIPTS ?? '').split(',').map((s) => s.trim()).filter(Boolean);
const scripts = LOAD_SCRIPTS.filter((s) => wanted.length === 0 || wanted.includes(s));
const results = process.env.LOAD_VERIFY_OUT ?? mkdtempSync(join(tmpdir(), 'apicert-load-verify-'));
mkdirSync(results, { recursive: true });
let failures = 0;
for (const binary of found) {
  const version = await checkK6Version(binary);
  const [major, minor] = version.slice(1).split('.').map(Number) as [number, number];
  const work = mkdtempSync(join(tmpdir(), `apicert-load-verify-${version}-`));
  const bundles = join(work, 'bundles');
  await bundleLoadScripts(bundles);
  console.log(`k6 ${version} (${binary}): work in ${work}`);
  // Earlier results of this version are kept, and replaced run by run: parts may be run apart.
  const file = join(results, `${version}.json`);
  const outcomes: Outcome[] = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { outcomes: Outcome[] }).outcomes : [];
  // Written after each part, so that a long run (Babel makes every k6 start slow on v0.48) keeps what it has.
  const keep = (more: Outcome[]) => {
    for (const o of more) {
      console.log(`${o.ok ? 'ok      ' : 'NOT OK  '} ${version} ${o.script} ${o.case}: ${o.got}`);
      const at = outcomes.findIndex((e) => e.script === o.script && e.case === o.case);
      if (at >= 0) outcomes[at] = o;
      else outcomes.push(o);
      if (!o.ok) failures += 1;
    }
    writeFileSync(file, `${JSON.stringify({ version, outcomes }, null, 2)}\n`);
  };
  const parts = (process.env.LOAD_VERIFY_PARTS ?? 'clean,faults,stops,ts,operator').split(',');
  if (parts.includes('clean') || parts.includes('faults')) keep(await throughApicert(binary, join(work, 'apicert'), scripts, parts));
  if (parts.includes('stops')) keep(await stops(binary, bundles, scripts));
  if (parts.includes('ts') && (major > 0 || minor >= 57)) keep(await typescript(binary, work, scripts));
  if (parts.includes('operator')) await operator(binary, work, scripts, keep);
}
console.log(`\n${render(results)}\n\nresults in ${results}; ${failures} run(s) did not behave`);
process.exitCode = failures > 0 ? 1 : 0;

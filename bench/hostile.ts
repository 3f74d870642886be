/**
 * `npm run bench:hostile`: certifies every hostile mode with every rule (the long variant of
 * suites/hostile) and prints, per mode, wall time (also as a ratio to a clean run through the same
 * proxy, measured first), the peak RSS of the apicert processes, the exit code, the verdict counts
 * and the number of secret leaks found in its outputs. Prints figures; asserts nothing.
 */
import { certifyHostile, type HostileRun } from '../suites/hostile/certify-hostile.ts';
import { CLEAN_MODE, HOSTILE_MODES, type HostileMode } from '../suites/hostile/hostile-server.ts';

const DEADLINE = process.env.BENCH_HOSTILE_DEADLINE ?? '120s';
const only = process.env.BENCH_HOSTILE_MODES?.split(',') as HostileMode[] | undefined;
const modes: HostileMode[] = [CLEAN_MODE, ...(only ?? HOSTILE_MODES)];

function row(cells: Array<string | number>): string {
  return `| ${cells.join(' | ')} |`;
}

console.log(`apicert against hostile loopback targets: every rule, --deadline ${DEADLINE}, one mode per run\n`);
console.log(row(['mode', 'wall s', 'wall / clean', 'peak RSS MiB', 'exit', 'pass', 'fail', 'inconclusive', 'untestable', 'n/a', 'leaks']));
console.log(row(['---', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:']));
let clean: HostileRun | undefined;
for (const mode of modes) {
  const run = await certifyHostile(mode, { deadline: DEADLINE, killAfterMs: 15 * 60_000 });
  clean ??= run;
  const v = run.verdicts;
  console.log(
    row([
      mode,
      (run.wallMs / 1000).toFixed(1),
      (run.wallMs / clean.wallMs).toFixed(2),
      run.peakRssMiB ?? 'n/a',
      run.exitCode ?? `killed (${run.signal})`,
      v.pass ?? 0,
      v.fail ?? 0,
      v.inconclusive ?? 0,
      v.untestable ?? 0,
      v['not-applicable'] ?? 0,
      run.leaks.length,
    ]),
  );
}

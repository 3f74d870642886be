/** `apicert plan`: what a run would do with this profile, decided from declared needs, sending nothing. */
import type { Command } from 'commander';
import { embeddedProfile } from '../fake/embedded-profile.ts';
import { startFake } from '../fake/server.ts';
import { planRun, type RunPlan } from '../plan/plan.ts';
import { loadProfileFile, ProfileError, profileFromEnv } from '../profile/load.ts';
import type { Profile } from '../profile/schema.ts';
import { RULES } from '../registry.ts';
import type { Surface } from '../rule/index.ts';
import { selectRules } from '../runner/run.ts';
import { compactIds } from '../reports/run-cause.ts';
import { depthTable } from '../checks/catalogue/plan.ts';
import { README_SECTIONS, TARGET_ENV } from './help.ts';
import { chooseTarget } from './target-choice.ts';

interface PlanOptions {
  target?: string;
  profile?: string;
  surface?: Surface[];
  rules?: string[];
  json?: boolean;
  verbose?: boolean;
}

/** The embedded fake's profile is made by starting it on loopback; no request reaches it. */
async function embedded(): Promise<Profile> {
  const fake = await startFake({ faults: [] });
  try {
    return embeddedProfile(fake);
  } finally {
    await fake.close();
  }
}

/**
 * The plan as a person reads it: what is missing, once per missing thing with how many rules it
 * holds back, then the untestable rules by area. `--verbose` lists each rule with what it misses.
 */
function printDepths(profile: Profile): void {
  console.log(`\nprobe catalogue (<surface>.catalogue.*; certify --depth, now ${profile.safety.probeDepth}):`);
  for (const line of depthTable(!profile.safety.allowMutations)) {
    console.log(`  ${line.depth.padEnd(8)} ${String(line.requests).padStart(5)} requests, about ${line.secondsAt100ms} s against a target 100 ms away${line.depth === 'deep' ? ' (random pairs included, within safety.requestBudget)' : ''}`);
  }
}

function printPlan(plan: RunPlan, target: string, how: { fromEnv: boolean; verbose: boolean }): void {
  const { counts } = plan;
  console.log(`plan for ${target}: ${counts.selected} rules selected, ${counts.run} will run, ${counts.untestable} untestable, ${counts.mutating} will create or change state`);
  const untestable = plan.rules.filter((r) => r.status === 'untestable');
  if (untestable.length && how.verbose) {
    console.log('\nuntestable with this profile (what to add):');
    for (const r of untestable) console.log(`  ${r.id} [${r.level}]\n    - ${r.missing.join('\n    - ')}`);
  } else if (untestable.length) {
    const held = new Map<string, number>();
    for (const r of untestable) for (const m of r.missing) held.set(m, (held.get(m) ?? 0) + 1);
    console.log('\nwhat is missing (how many rules each leaves untestable):');
    for (const [missing, n] of [...held].sort((a, b) => b[1] - a[1])) console.log(`  ${String(n).padStart(4)}  ${missing}`);
    if (how.fromEnv) {
      const unset = TARGET_ENV.filter((v) => !process.env[v.name]);
      if (unset.length) console.log(`\n--target reads its credentials from these variables, not set here:\n${unset.map((v) => `  ${v.name.padEnd(34)}${v.about}`).join('\n')}`);
      console.log(`fixtures, scoped and second credentials need a profile: "apicert profile init" writes a starting one, then --profile FILE (README.md, "${README_SECTIONS.profile}")`);
    }
    console.log(`\nuntestable rules by area (--verbose lists each with what it misses):\n${compactIds(untestable.map((r) => r.id)).map((l) => `  ${l}`).join('\n')}`);
  }
  const mutating = plan.rules.filter((r) => r.mutates);
  if (mutating.length) {
    console.log('\nwill create or change state on the target (safety.allowMutations: false leaves them out):');
    for (const r of mutating) console.log(`  ${r.id}`);
  }
}

export function registerPlan(program: Command, parsers: { surfaces: (v: string) => Surface[]; list: (v: string) => string[] }): void {
  program
    .command('plan')
    .description('Show, without sending a request, which rules a run would judge, which are untestable with this profile and what each is missing, and which would change state.')
    .option('--target <url>', 'base URL of the deployment; credentials from the same environment variables as certify')
    .option('--profile <file>', 'target profile (YAML or JSON)')
    .option('--surface <list>', 'surfaces, comma separated', parsers.surfaces)
    .option('--rules <globs>', 'rule ids, comma separated, * as wildcard', parsers.list)
    .option('--json', 'print the plan as JSON')
    .option('-v, --verbose', 'list every untestable rule with what it misses')
    .action(async (opts: PlanOptions) => {
      const choice = chooseTarget(opts, process.env, 'plan for');
      opts.profile = choice.profile;
      if (opts.target && opts.profile) throw new ProfileError('give --target or --profile, not both (a profile names its own target)');
      const profile = opts.profile ? await loadProfileFile(opts.profile, process.env, choice.profileFromEnv ? { namedBy: 'APICERT_PROFILE' } : {}) : opts.target ? profileFromEnv(opts.target) : await embedded();
      const rules = selectRules(RULES, { surfaces: opts.surface, patterns: opts.rules });
      const plan = planRun(rules, profile, { embeddedFake: !opts.profile && !opts.target });
      const target = opts.profile || opts.target ? new URL(profile.target).origin : 'the built-in reference fake';
      if (opts.json) console.log(JSON.stringify({ target, ...plan, catalogue: { depth: profile.safety.probeDepth, depths: depthTable(!profile.safety.allowMutations) } }, null, 2));
      else {
        printPlan(plan, target, { fromEnv: Boolean(opts.target), verbose: Boolean(opts.verbose) });
        printDepths(profile);
      }
    });
}

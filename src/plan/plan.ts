/**
 * The plan of a run, made from the rules' declared needs and the profile alone: which rules will
 * run, which are untestable and what each is missing, and which will change state on the target.
 * Nothing here sends a request; the runner uses the same verdicts before it starts a check.
 */
import { resolveRole } from '../profile/roles.ts';
import type { Profile } from '../profile/schema.ts';
import { describePrerequisite, type Prerequisite, type RuleMeta } from '../rule/index.ts';

export interface PlanEnvironment {
  /** The target is the embedded fake: its receiver and its loopback origin are provided by the run. */
  embeddedFake: boolean;
  /** `--read-only` (or `certify({ readOnly })`) leaves the mutating rules out, whatever the profile says. */
  readOnly?: boolean;
}

export interface RulePlan {
  id: string;
  title: string;
  level: RuleMeta['level'];
  /** `run`: every declared need is met; `untestable`: `prerequisites` says what is missing. */
  status: 'run' | 'untestable';
  prerequisites: Prerequisite[];
  /** What to add, in words, one per prerequisite. */
  missing: string[];
  mutates: boolean;
}

export interface RunPlan {
  rules: RulePlan[];
  counts: { selected: number; run: number; untestable: number; mutating: number };
}

function fixtureAt(fixtures: unknown, path: string): unknown {
  let value: unknown = fixtures;
  for (const part of path.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/** Why the harness's webhook receiver cannot run for this profile, or undefined when it can. */
export function receiverMissing(profile: Profile, env: PlanEnvironment): string | undefined {
  if (env.embeddedFake) return undefined;
  const { publicReceiverUrl, receiverListen } = profile.fixtures.webhooks;
  if (publicReceiverUrl && receiverListen) return undefined;
  return 'the profile has no fixtures.webhooks.publicReceiverUrl and receiverListen: give a public HTTPS URL (a tunnel or ingress you run) that forwards to the port apicert listens on (receiverListen: { host, port })';
}

/** What the profile lacks for this rule; empty when the rule can run. */
export function missingNeeds(rule: RuleMeta, profile: Profile, env: PlanEnvironment): Prerequisite[] {
  const missing: Prerequisite[] = [];
  if (rule.destructive === 'mutate' && env.readOnly) missing.push({ need: 'mutations', by: 'read-only' });
  else if (rule.destructive === 'mutate' && !profile.safety.allowMutations) missing.push({ need: 'mutations', by: 'profile' });
  for (const role of rule.needs.credentials ?? []) {
    const resolved = resolveRole(profile, role);
    if (!resolved.credential) missing.push({ need: 'credential', role, remedy: resolved.missing ?? 'no credential of the profile fits it' });
  }
  for (const path of rule.needs.fixtures ?? []) {
    if (fixtureAt(profile.fixtures, path) === undefined) missing.push({ need: 'fixture', path });
  }
  if (rule.needs.receiver) {
    const why = receiverMissing(profile, env);
    if (why) missing.push({ need: 'receiver', remedy: why });
  }
  if (rule.needs.bursts && !profile.safety.allowRateLimitBursts) missing.push({ need: 'bursts' });
  return missing;
}

export function planRun(rules: readonly RuleMeta[], profile: Profile, env: PlanEnvironment): RunPlan {
  const planned = rules.map((rule): RulePlan => {
    const prerequisites = missingNeeds(rule, profile, env);
    const runs = prerequisites.length === 0;
    return { id: rule.id, title: rule.title, level: rule.level, status: runs ? 'run' : 'untestable', prerequisites, missing: prerequisites.map(describePrerequisite), mutates: rule.destructive === 'mutate' && runs };
  });
  return {
    rules: planned,
    counts: {
      selected: planned.length,
      run: planned.filter((r) => r.status === 'run').length,
      untestable: planned.filter((r) => r.status === 'untestable').length,
      mutating: planned.filter((r) => r.mutates).length,
    },
  };
}

/**
 * The plan of a run, made from the rules' declared needs and the profile alone: which rules will
 * run, which are untestable and what each is missing, and which will change state on the target.
 * Nothing here sends a request; the runner uses the same verdicts before it starts a check.
 */
import { resolveRole } from '../profile/roles.ts';
import type { Profile } from '../profile/schema.ts';
import type { RuleMeta } from '../rule/index.ts';

export interface PlanEnvironment {
  /** The target is the embedded fake: its receiver and its loopback origin are provided by the run. */
  embeddedFake: boolean;
}

export interface RulePlan {
  id: string;
  title: string;
  level: RuleMeta['level'];
  /** `run`: every declared need is met; `untestable`: `missing` says what to add. */
  status: 'run' | 'untestable';
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

/** What the profile lacks for this rule, each with what to add; empty when the rule can run. */
export function missingNeeds(rule: RuleMeta, profile: Profile, env: PlanEnvironment): string[] {
  const missing: string[] = [];
  if (rule.destructive === 'mutate' && !profile.safety.allowMutations) {
    missing.push('the rule creates or changes state and the profile sets safety.allowMutations: false');
  }
  for (const role of rule.needs.credentials ?? []) {
    const resolved = resolveRole(profile, role);
    if (!resolved.credential) missing.push(`credential ${role}: ${resolved.missing}`);
  }
  for (const path of rule.needs.fixtures ?? []) {
    if (fixtureAt(profile.fixtures, path) === undefined) missing.push(`fixture fixtures.${path} is not set`);
  }
  if (rule.needs.receiver) {
    const why = receiverMissing(profile, env);
    if (why) missing.push(`webhook receiver: ${why}`);
  }
  if (rule.needs.bursts && !profile.safety.allowRateLimitBursts) {
    missing.push('the rule sends bursts up to the rate limit: set safety.allowRateLimitBursts: true (and rateLimitBurstMax)');
  }
  return missing;
}

export function planRun(rules: readonly RuleMeta[], profile: Profile, env: PlanEnvironment): RunPlan {
  const planned = rules.map((rule): RulePlan => {
    const missing = missingNeeds(rule, profile, env);
    return { id: rule.id, title: rule.title, level: rule.level, status: missing.length ? 'untestable' : 'run', missing, mutates: rule.destructive === 'mutate' && missing.length === 0 };
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

/**
 * Finds what each rule needs by taking one prerequisite at a time away from the embedded fake's
 * profile and seeing which rules become untestable; prints a JSON map rule id -> needs. Used to
 * write the `needs` declarations; suites/harness/plan.test.ts holds the declarations to the runs.
 *   node scripts/discover-needs.ts > needs.json
 */
import { RULES } from '../src/registry.ts';
import type { Profile } from '../src/profile/schema.ts';
import { certify } from '../src/runner/certify.ts';

type Needs = { credentials: Set<string>; fixtures: Set<string>; receiver: boolean; bursts: boolean };
const needs = new Map<string, Needs>(RULES.map((r) => [r.id, { credentials: new Set(), fixtures: new Set(), receiver: false, bursts: false }]));

const baseline = await certify({ seed: 1, checkNeeds: false });
for (const r of baseline.results) for (const role of r.rolesRequested) needs.get(r.rule.id)!.credentials.add(role);
const passing = new Set(baseline.results.filter((r) => r.verdict === 'pass').map((r) => r.rule.id));

function leaves(value: unknown, prefix: string): string[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [prefix];
  const keys = Object.keys(value as object);
  // A fixture object whose keys are free-form (a request body) is one leaf.
  if (/\.(succeeds|waits|fails|cancellable|timeLimit|completes|parks|long|turn|safeTool|approval|memory|replay|receiverListen)$/.test(prefix)) return [prefix];
  return keys.flatMap((k) => leaves((value as Record<string, unknown>)[k], prefix ? `${prefix}.${k}` : k));
}

function without(profile: Profile, path: string): Profile {
  const copy = structuredClone(profile);
  const parts = path.split('.');
  let node = copy.fixtures as unknown as Record<string, unknown>;
  for (const part of parts.slice(0, -1)) node = node[part] as Record<string, unknown>;
  delete node[parts.at(-1)!];
  return copy;
}

let probeProfile: Profile | undefined;
await certify({ rules: [], adjustEmbeddedProfile: (p) => (probeProfile = p) }).catch(() => undefined);
const paths = leaves(probeProfile!.fixtures, '').filter((p) => !/deliveryTimeoutMs|deadLetterWaitMs|publicReceiverUrl|receiverListen/.test(p));

for (const path of paths) {
  const run = await certify({ seed: 1, checkNeeds: false, adjustEmbeddedProfile: (p) => without(p, path) });
  for (const r of run.results) if (passing.has(r.rule.id) && r.verdict === 'untestable') needs.get(r.rule.id)!.fixtures.add(path);
  process.stderr.write(`${path}: ${run.results.filter((r) => passing.has(r.rule.id) && r.verdict === 'untestable').length} rules\n`);
}
const bursts = await certify({ seed: 1, checkNeeds: false, adjustEmbeddedProfile: (p) => ({ ...p, safety: { ...p.safety, allowRateLimitBursts: false } }) });
for (const r of bursts.results) if (passing.has(r.rule.id) && r.verdict === 'untestable') needs.get(r.rule.id)!.bursts = true;

const out: Record<string, unknown> = {};
for (const [id, n] of needs) out[id] = { credentials: [...n.credentials].sort(), fixtures: [...n.fixtures].sort(), bursts: n.bursts };
process.stdout.write(`${JSON.stringify(out, null, 1)}\n`);

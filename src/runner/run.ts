import { CheckFailure, type RuleResult, type Counterexample, type EvidenceEntry, NotApplicable, type Observation, type Rule, type Surface, type TargetInfo, TransportError, Untestable, type Verdict } from '../rule/index.ts';
import type { ProbeClient } from '../probe/client.ts';
import { missingNeeds } from '../plan/plan.ts';
import type { Profile } from '../profile/schema.ts';
import { RunContext, type CheckServices } from './check-context.ts';


export interface RunOptions {
  target: TargetInfo;
  profile: Profile;
  rules: readonly Rule[];
  seed: number;
  probe: ProbeClient;
  checkTimeoutMs?: number;
  services?: CheckServices;
  /** `false` runs every check without consulting its declared needs: only to test the declarations. */
  checkNeeds?: boolean;
  onStart?: (rule: Rule) => void;
  onResult?: (result: RuleResult) => void;
}

const EVIDENCE_HEAD = 10;
const EVIDENCE_TAIL = 30;

function trimEvidence(entries: EvidenceEntry[]): { evidence: EvidenceEntry[]; omitted: number } {
  if (entries.length <= EVIDENCE_HEAD + EVIDENCE_TAIL) return { evidence: entries, omitted: 0 };
  return { evidence: [...entries.slice(0, EVIDENCE_HEAD), ...entries.slice(-EVIDENCE_TAIL)], omitted: entries.length - EVIDENCE_HEAD - EVIDENCE_TAIL };
}

class CheckTimeout extends Error {}

/** Runs one rule's check and turns how it ended into a verdict; nothing else decides a verdict. */
export async function runRule(rule: Rule, options: Omit<RunOptions, 'rules' | 'onResult' | 'onStart'>): Promise<RuleResult> {
  const probe = options.probe.fork();
  const ctx = new RunContext(rule, options.target, options.profile, options.seed, probe, options.services);
  const started = performance.now();
  let verdict: Verdict;
  let reason: string | undefined;
  let counterexample: Counterexample | undefined;
  // Declared needs decide `untestable` before anything is sent (the same verdicts `apicert plan` prints).
  const missing = options.checkNeeds === false ? [] : missingNeeds(rule, options.profile, { embeddedFake: options.target.kind === 'embedded-fake' });
  if (missing.length > 0) {
    verdict = 'untestable';
    reason = missing.join('; ');
  } else {
    const timeoutMs = options.checkTimeoutMs ?? 120_000;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        rule.check(ctx),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new CheckTimeout(`the check did not finish within ${timeoutMs} ms`)), timeoutMs);
        }),
      ]);
      if (ctx.assertions === 0) {
        verdict = 'inconclusive';
        reason = 'the check ended without judging anything (a harness defect: report it)';
      } else {
        verdict = 'pass';
      }
    } catch (error) {
      if (error instanceof CheckFailure) {
        verdict = 'fail';
        counterexample = error.counterexample;
      } else if (error instanceof Untestable) verdict = 'untestable';
      else if (error instanceof NotApplicable) verdict = 'not-applicable';
      else if (error instanceof TransportError || error instanceof CheckTimeout) verdict = 'inconclusive';
      else {
        verdict = 'inconclusive';
        reason = `the check itself failed (a harness defect: report it): ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`;
      }
      reason ??= error instanceof Error ? error.message : String(error);
    } finally {
      clearTimeout(timer);
    }
  }
  const { evidence, omitted } = trimEvidence(probe.evidence);
  const result: RuleResult = {
    rule,
    verdict,
    durationMs: Math.round(performance.now() - started),
    evidence,
    evidenceOmitted: omitted,
    observations: ctx.observations,
    rolesRequested: [...ctx.rolesRequested],
  };
  if (reason !== undefined) result.reason = reason;
  if (counterexample) result.counterexample = counterexample;
  return result;
}

/** Runs rules with the profile's concurrency; results come back in catalog order. */
export async function runRules(options: RunOptions): Promise<RuleResult[]> {
  const results: RuleResult[] = new Array(options.rules.length);
  let next = 0;
  const worker = async () => {
    while (next < options.rules.length) {
      const index = next++;
      options.onStart?.(options.rules[index]!);
      const result = await runRule(options.rules[index]!, options);
      results[index] = result;
      options.onResult?.(result);
    }
  };
  const width = Math.min(options.profile.safety.concurrency, options.rules.length);
  await Promise.all(Array.from({ length: width }, worker));
  return results;
}

/** `v8.missions.*`-style patterns, comma separated; `*` matches any run of characters. */
export function selectRules(rules: readonly Rule[], filter: { surfaces?: Surface[]; patterns?: string[] }): Rule[] {
  const regexes = (filter.patterns ?? []).map((p) => new RegExp(`^${p.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`));
  return rules.filter(
    (rule) => (!filter.surfaces?.length || filter.surfaces.includes(rule.surface)) && (regexes.length === 0 || regexes.some((r) => r.test(rule.id))),
  );
}

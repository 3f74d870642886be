import { CheckFailure, NotApplicable, TransportError, Untestable } from '../catalog/outcome.ts';
import type { Counterexample, Observation, Rule, Surface, Verdict } from '../catalog/types.ts';
import type { ProbeClient } from '../probe/client.ts';
import type { EvidenceEntry } from '../probe/evidence.ts';
import type { Profile } from '../profile/schema.ts';
import { CheckContext, type CheckServices, type TargetInfo } from './context.ts';

export interface RuleResult {
  rule: Rule;
  verdict: Verdict;
  /** Why the verdict is what it is: the failed expectation, the missing fixture, the transport error. */
  reason?: string;
  durationMs: number;
  evidence: EvidenceEntry[];
  /** Evidence entries left out to keep the report readable (the first and last ones are kept). */
  evidenceOmitted: number;
  observations: Observation[];
  counterexample?: Counterexample;
}

export interface RunOptions {
  target: TargetInfo;
  profile: Profile;
  rules: readonly Rule[];
  seed: number;
  probe: ProbeClient;
  checkTimeoutMs?: number;
  services?: CheckServices;
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
  const ctx = new CheckContext(rule, options.target, options.profile, options.seed, probe, options.services);
  const started = performance.now();
  let verdict: Verdict;
  let reason: string | undefined;
  let counterexample: Counterexample | undefined;
  if (rule.destructive === 'mutate' && !options.profile.safety.allowMutations) {
    verdict = 'untestable';
    reason = 'the rule creates or changes state and the profile sets safety.allowMutations: false';
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

import { CheckFailure, type RuleResult, type Counterexample, type EvidenceEntry, type FailingCase, NotApplicable, type Rule, type Surface, type TargetInfo, TransportError, Untestable, type Verdict } from '../rule/index.ts';
import type { ProbeClient } from '../probe/client.ts';
import { missingNeeds } from '../plan/plan.ts';
import type { Profile } from '../profile/schema.ts';
import { RunContext, type CheckServices, type RecordedCase } from './check-context.ts';


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
  onResult?: (result: RuleResult) => void;
}

const EVIDENCE_HEAD = 10;
const EVIDENCE_TAIL = 30;

/**
 * Keeps the first and last exchanges and every one a failing case names; returns where each kept
 * entry's old index went, so cases can point into the trimmed list.
 */
export function trimEvidence(entries: EvidenceEntry[], pinned: ReadonlySet<number>): { evidence: EvidenceEntry[]; omitted: number; moved: Map<number, number> } {
  const kept = entries.flatMap((entry, i) => (i < EVIDENCE_HEAD || i >= entries.length - EVIDENCE_TAIL || pinned.has(i) ? [i] : []));
  return { evidence: kept.map((i) => entries[i]!), omitted: entries.length - kept.length, moved: new Map(kept.map((old, i) => [old, i])) };
}

function describeCases(cases: readonly FailingCase[], omitted: number): string {
  const first = cases[0]!.reason;
  const others = cases.length - 1 + omitted;
  return others === 0 ? first : `${first} (and ${others} more failing case${others === 1 ? '' : 's'})`;
}

class CheckTimeout extends Error {}

/** Runs one rule's check and turns how it ended into a verdict; nothing else decides a verdict. */
export async function runRule(rule: Rule, options: Omit<RunOptions, 'rules' | 'onResult'>): Promise<RuleResult> {
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
      if (ctx.cases.length > 0) {
        verdict = 'fail';
      } else if (ctx.assertions === 0) {
        verdict = 'inconclusive';
        reason = 'the check ended without judging anything (a harness defect: report it)';
      } else {
        verdict = 'pass';
      }
    } catch (error) {
      if (error instanceof CheckFailure) {
        verdict = 'fail';
        counterexample = error.counterexample;
        const ended: RecordedCase = { reason: error.message };
        if (error.exchange !== undefined) ended.exchange = error.exchange;
        if (error.counterexample) ended.counterexample = error.counterexample;
        ctx.recordCase(ended);
        reason = describeCases(ctx.cases, ctx.casesOmitted);
      } else if (ctx.cases.length > 0) {
        // Cases already judged failing stand, whatever stopped the check afterwards.
        verdict = 'fail';
        reason = `${describeCases(ctx.cases, ctx.casesOmitted)}; the check then stopped: ${error instanceof Error ? error.message : String(error)}`;
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
  if (verdict === 'fail' && reason === undefined && ctx.cases.length > 0) reason = describeCases(ctx.cases, ctx.casesOmitted);
  const failing = verdict === 'fail' ? ctx.cases : [];
  const { evidence, omitted, moved } = trimEvidence(probe.evidence, new Set(failing.flatMap((c) => (c.exchange === undefined ? [] : [c.exchange]))));
  const cases: FailingCase[] = failing.map((c) => {
    const out: FailingCase = { reason: c.reason };
    const at = c.exchange === undefined ? undefined : moved.get(c.exchange);
    if (at !== undefined) out.exchange = at;
    if (c.counterexample) out.counterexample = c.counterexample;
    return out;
  });
  const result: RuleResult = {
    rule,
    verdict,
    durationMs: Math.round(performance.now() - started),
    evidence,
    evidenceOmitted: omitted,
    observations: ctx.observations,
    cases,
    casesOmitted: verdict === 'fail' ? ctx.casesOmitted : 0,
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

import { CheckFailure, type Counterexample, type EvidenceEntry, NotApplicable, type Observation, type Rule, type Surface, type TargetInfo, TransportError, Untestable, type Verdict } from '../rule/index.ts';
import type { ProbeClient } from '../probe/client.ts';
import type { Profile } from '../profile/schema.ts';
import { clip } from '../probe/evidence.ts';
import { Stopped } from '../probe/transport.ts';
import { RunContext, type CheckServices } from './check-context.ts';

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
  onResult?: (result: RuleResult) => void;
  /** The run's stop: its deadline or an interrupt. Its reason (a `Stopped`) says which. */
  signal?: AbortSignal;
}

const EVIDENCE_HEAD = 10;
const EVIDENCE_TAIL = 30;
const CHECK_TIMEOUT_MS = 120_000;
const REASON_LIMIT = 2048;

function trimEvidence(entries: EvidenceEntry[]): { evidence: EvidenceEntry[]; omitted: number } {
  if (entries.length <= EVIDENCE_HEAD + EVIDENCE_TAIL) return { evidence: entries, omitted: 0 };
  return { evidence: [...entries.slice(0, EVIDENCE_HEAD), ...entries.slice(-EVIDENCE_TAIL)], omitted: entries.length - EVIDENCE_HEAD - EVIDENCE_TAIL };
}

function stopReason(signal: AbortSignal): string {
  return signal.reason instanceof Stopped ? signal.reason.message : 'stopped';
}

/** Where a defect in apicert itself happened, without the stack: reports never carry one. */
function defectOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const frame = error.stack?.split('\n').find((line) => line.includes('/src/'))?.trim();
  return `${error.name}: ${error.message}${frame ? ` (${frame.replace(/^at\s+/, '').replace(/^.*\/src\//, 'src/').replace(/\)$/, '')})` : ''}`;
}

function listed(items: readonly string[]): string {
  return `${items.slice(0, 3).join('; ')}${items.length > 3 ? ` (+${items.length - 3} more)` : ''}`;
}

/** A rule the run never started: its deadline passed or it was interrupted first. */
export function notReached(rule: Rule, reason: string): RuleResult {
  return { rule, verdict: 'inconclusive', reason, durationMs: 0, evidence: [], evidenceOmitted: 0, observations: [] };
}

/**
 * Runs one rule's check and turns how it ended into a verdict; nothing else decides a verdict. The
 * check's deadline, the run's deadline and an interrupt abort the requests it has in flight.
 */
export async function runRule(rule: Rule, options: Omit<RunOptions, 'rules' | 'onResult'>): Promise<RuleResult> {
  const controller = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, controller.signal]) : controller.signal;
  const probe = options.probe.fork(signal);
  const ctx = new RunContext(rule, options.target, options.profile, options.seed, probe, options.services, signal);
  const started = performance.now();
  let verdict: Verdict;
  let reason: string | undefined;
  let counterexample: Counterexample | undefined;
  if (signal.aborted) return notReached(rule, `not run: ${stopReason(signal)}`);
  if (rule.destructive === 'mutate' && !options.profile.safety.allowMutations) {
    verdict = 'untestable';
    reason = 'the rule creates or changes state and the profile sets safety.allowMutations: false';
  } else {
    const timeoutMs = options.checkTimeoutMs ?? CHECK_TIMEOUT_MS;
    const timer = setTimeout(() => controller.abort(new Stopped(`the check did not finish within ${Math.round(timeoutMs / 1000)} s`)), timeoutMs);
    let onAbort: (() => void) | undefined;
    try {
      await Promise.race([
        rule.check(ctx),
        new Promise<never>((_, reject) => {
          onAbort = () => reject(signal.reason instanceof Stopped ? signal.reason : new Stopped('stopped'));
          if (signal.aborted) onAbort();
          else signal.addEventListener('abort', onAbort, { once: true });
        }),
      ]);
      if (ctx.assertions === 0) {
        verdict = 'inconclusive';
        reason = 'the check ended without judging anything (a harness defect: report it)';
      } else if (probe.findings.length > 0) {
        verdict = 'fail';
        reason = `a body this rule judged is malformed: ${listed(probe.findings)}`;
      } else if (probe.oversized.length > 0) {
        verdict = 'inconclusive';
        reason = `the check judged answers it could not read whole: ${listed(probe.oversized)}`;
      } else {
        verdict = 'pass';
      }
    } catch (error) {
      if (signal.aborted) {
        verdict = 'inconclusive';
        reason = stopReason(signal);
      } else if (error instanceof CheckFailure) {
        verdict = 'fail';
        counterexample = error.counterexample;
      } else if (error instanceof Untestable) verdict = 'untestable';
      else if (error instanceof NotApplicable) verdict = 'not-applicable';
      else if (error instanceof TransportError) verdict = 'inconclusive';
      else {
        verdict = 'inconclusive';
        reason = `the check itself failed (a harness defect: report it): ${defectOf(error)}`;
      }
      reason ??= error instanceof Error ? error.message : String(error);
    } finally {
      clearTimeout(timer);
      if (onAbort) signal.removeEventListener('abort', onAbort);
      // Whatever the check left in flight ends with it.
      if (!controller.signal.aborted) controller.abort(new Stopped('the check ended'));
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
  if (reason !== undefined) {
    // A reason may quote a whole body: it is kept clipped and redacted, never as a view of the body.
    const clipped = clip(reason, REASON_LIMIT).text;
    result.reason = options.services?.redactor?.text(clipped) ?? clipped;
  }
  if (counterexample) result.counterexample = counterexample;
  return result;
}

/** Runs rules with the profile's concurrency; results come back in catalog order, one per rule even when the run stops. */
export async function runRules(options: RunOptions): Promise<RuleResult[]> {
  const results: RuleResult[] = new Array(options.rules.length);
  let next = 0;
  const worker = async () => {
    while (next < options.rules.length && !options.signal?.aborted) {
      const index = next++;
      const result = await runRule(options.rules[index]!, options);
      results[index] = result;
      options.onResult?.(result);
    }
  };
  const width = Math.min(options.profile.safety.concurrency, options.rules.length);
  await Promise.all(Array.from({ length: width }, worker));
  for (let i = 0; i < options.rules.length; i += 1) {
    if (!results[i]) {
      results[i] = notReached(options.rules[i]!, `not run: ${options.signal ? stopReason(options.signal) : 'stopped'}`);
      options.onResult?.(results[i]!);
    }
  }
  return results;
}

/** `v8.missions.*`-style patterns, comma separated; `*` matches any run of characters. */
export function selectRules(rules: readonly Rule[], filter: { surfaces?: Surface[]; patterns?: string[] }): Rule[] {
  const regexes = (filter.patterns ?? []).map((p) => new RegExp(`^${p.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`));
  return rules.filter(
    (rule) => (!filter.surfaces?.length || filter.surfaces.includes(rule.surface)) && (regexes.length === 0 || regexes.some((r) => r.test(rule.id))),
  );
}

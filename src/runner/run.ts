import { CheckFailure, describePrerequisite, type Prerequisite, RUN_JOURNAL, type RuleResult, type Counterexample, type EvidenceEntry, type FailingCase, Inconclusive, JudgedInconclusive, NotApplicable, OwnBoundReached, type Rule, type Surface, type TargetInfo, Untestable, type Verdict } from '../rule/index.ts';
import type { ProbeClient } from '../probe/client.ts';
import { missingNeeds } from '../plan/plan.ts';
import { editDistance } from '../util/suggest.ts';
import type { Profile } from '../profile/schema.ts';
import { clip } from '../probe/evidence.ts';
import { Stopped } from '../probe/transport.ts';
import { RunContext, type CheckServices, type RecordedCase } from './check-context.ts';
import { judgedAgain, judgeOverTheRun } from './run-judgement.ts';

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
  /** `--read-only`: mutating rules are untestable, and their reason names the flag. */
  readOnly?: boolean;
  onStart?: (rule: Rule) => void;
  onResult?: (result: RuleResult) => void;
  /** A rule's result changed after `onResult` told it: the run's judgement found a failure in another check's exchanges, or judged there, every case holding, a rule its own check judged nothing of (run-judgement.ts). */
  onRevised?: (result: RuleResult) => void;
  /** The run's stop: its deadline or an interrupt. Its reason (a `Stopped`) says which. */
  signal?: AbortSignal;
  /** Starts no further rule once aborted (--max-failures); rules already running finish. Its reason says why. */
  halt?: AbortSignal;
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

const CHECK_TIMEOUT_MS = 120_000;
/**
 * A bulk rule waits on its surface's shared run (the generated probes, the catalogue): hundreds of
 * requests, each 429/503 waited out as the limiter asks. "Per-key tier values and request-rate
 * numbers: not shown", so a deployment on a tier of a few hundred a minute needs minutes for it.
 */
export const BULK_CHECK_TIMEOUT_MS = 600_000;
const REASON_LIMIT = 2048;

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

/** A rule the run never started: its deadline passed, it was interrupted, or the first probe failed. */
export function notReached(rule: Rule, reason: string): RuleResult {
  return { rule, verdict: 'inconclusive', reason, durationMs: 0, evidence: [], evidenceOmitted: 0, observations: [], cases: [], casesOmitted: 0, rolesRequested: [] };
}

/**
 * Why a check that returned normally still may not pass: a pass needs at least one judgement
 * (`expect`, `expectShape`, `property`) and at least one answer of the target to judge. A check
 * that only looked at its own inputs, or whose every request failed to reach the target, judged
 * nothing the target did.
 */
export function vacuousPass(assertions: number, evidence: readonly EvidenceEntry[]): string | undefined {
  if (assertions === 0) return 'the check ended without judging anything (a harness defect: report it)';
  if (!evidence.some((e) => e.response !== undefined)) return 'the check judged no answer of the target (no exchange was answered), so it cannot pass (a harness defect: report it)';
  return undefined;
}

/**
 * Runs one rule's check and turns how it ended into a verdict; nothing else decides a verdict. The
 * check's deadline, the run's deadline and an interrupt abort the requests it has in flight.
 */
export async function runRule(rule: Rule, options: Omit<RunOptions, 'rules' | 'onResult' | 'onStart'>): Promise<RuleResult> {
  const controller = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, controller.signal]) : controller.signal;
  if (signal.aborted) return notReached(rule, `not run: ${stopReason(signal)}`);
  // A burst paced by --max-rps would never reach the limit it probes.
  const probe = options.probe.fork(signal, { unpaced: rule.needs.bursts === true });
  const ctx = new RunContext(rule, options.target, options.profile, options.seed, probe, options.services, signal);
  const started = performance.now();
  let verdict: Verdict;
  let reason: string | undefined;
  let counterexample: Counterexample | undefined;
  let lacks: Prerequisite[] | undefined;
  let standing = false;
  // Declared needs decide `untestable` before anything is sent (the same verdicts `apicert plan` prints).
  const missing = options.checkNeeds === false ? [] : missingNeeds(rule, options.profile, { embeddedFake: options.target.kind === 'embedded-fake', readOnly: options.readOnly });
  if (missing.length > 0) {
    verdict = 'untestable';
    lacks = missing;
    reason = missing.map(describePrerequisite).join('; ');
  } else {
    const timeoutMs = options.checkTimeoutMs ?? (rule.bulk ? BULK_CHECK_TIMEOUT_MS : CHECK_TIMEOUT_MS);
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
      const vacuous = vacuousPass(ctx.assertions, probe.evidence);
      if (ctx.cases.length > 0) {
        verdict = 'fail';
      } else if (vacuous) {
        verdict = 'inconclusive';
        reason = vacuous;
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
        standing = true;
      } else if (error instanceof CheckFailure) {
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
      } else if (error instanceof Untestable) {
        verdict = 'untestable';
        lacks = [error.missing];
      } else if (error instanceof NotApplicable) verdict = 'not-applicable';
      else if (error instanceof Inconclusive) {
        verdict = 'inconclusive';
        standing = error instanceof OwnBoundReached || error instanceof JudgedInconclusive;
      } else if (error instanceof Stopped) {
        // Not this check's stop (its signal stands): work it shared with another rule's check, stopped with that check.
        verdict = 'inconclusive';
        standing = true;
        reason = `work this check shares with another rule's check was stopped: ${error.message}`;
      } else {
        verdict = 'inconclusive';
        reason = `the check itself failed (a harness defect: report it): ${defectOf(error)}`;
        standing = true;
      }
      reason ??= error instanceof Error ? error.message : String(error);
    } finally {
      clearTimeout(timer);
      if (onAbort) signal.removeEventListener('abort', onAbort);
      // Whatever the check left in flight ends with it.
      if (!controller.signal.aborted) controller.abort(new Stopped('the check ended'));
    }
  }
  if (verdict === 'fail' && reason === undefined && ctx.cases.length > 0) reason = describeCases(ctx.cases, ctx.casesOmitted);
  // A failure the runner decided (a malformed body it saw) is a case too, so every report shows one.
  if (verdict === 'fail' && ctx.cases.length === 0) ctx.recordCase({ reason: reason ?? 'failed' });
  const failing = verdict === 'fail' ? ctx.cases : [];
  const { evidence, omitted, moved } = trimEvidence(probe.evidence, new Set(failing.flatMap((c) => (c.exchange === undefined ? [] : [c.exchange]))));
  // Like the reason, a case's reason may quote a body: kept clipped and redacted.
  const safe = (text: string) => {
    const clipped = clip(text, REASON_LIMIT).text;
    return options.services?.redactor?.text(clipped) ?? clipped;
  };
  const cases: FailingCase[] = failing.map((c) => {
    const out: FailingCase = { reason: safe(c.reason) };
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
    requests: probe.sent,
  };
  // A reason may quote a whole body: it is kept clipped and redacted, never as a view of the body.
  if (reason !== undefined) result.reason = safe(reason);
  if (counterexample) result.counterexample = counterexample;
  if (verdict === 'untestable' && lacks !== undefined) result.missing = lacks;
  if (verdict === 'inconclusive' && standing) result.standing = true;
  return result;
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** Runs rules with the profile's concurrency; results come back in catalog order, one per rule even when the run stops. */
export async function runRules(options: RunOptions): Promise<RuleResult[]> {
  const results: RuleResult[] = new Array(options.rules.length);
  const indices = options.rules.map((_, i) => i);
  const run = async (index: number) => {
    options.onStart?.(options.rules[index]!);
    const result = await runRule(options.rules[index]!, options);
    results[index] = result;
    options.onResult?.(result);
  };
  // Bulk generated traffic queues after every other rule and starts only once the rules that wait
  // on the target's own timing (webhook deliveries to the receiver) are done, so it never shares
  // the target with them; it may overlap the long tail of the others.
  const timed = indices.filter((i) => !options.rules[i]!.judgesTheRun && !options.rules[i]!.bulk && options.rules[i]!.needs.receiver);
  const timedDone = new Map(timed.map((i) => [i, deferred()]));
  const busy = (i: number) => !options.rules[i]!.judgesTheRun && !options.rules[i]!.quiet;
  const queue = [...indices.filter((i) => busy(i) && !options.rules[i]!.bulk), ...indices.filter((i) => busy(i) && options.rules[i]!.bulk)];
  // Rules that need a quiet target run alone, one after another, once the others are done.
  const quiet = indices.filter((i) => !options.rules[i]!.judgesTheRun && options.rules[i]!.quiet);
  // Rules that judge every exchange of the run go last, once everything else has been sent.
  const judges = indices.filter((i) => options.rules[i]!.judgesTheRun);
  for (const wave of [queue, quiet, judges]) {
    let next = 0;
    const worker = async () => {
      while (next < wave.length && !options.signal?.aborted && !options.halt?.aborted) {
        const index = wave[next++]!;
        if (options.rules[index]!.bulk) await Promise.all([...timedDone.values()].map((d) => d.promise));
        try {
          await run(index);
        } finally {
          timedDone.get(index)?.resolve();
        }
      }
    };
    const width = wave === quiet ? Math.min(1, wave.length) : Math.min(options.profile.safety.concurrency, wave.length);
    await Promise.all(Array.from({ length: width }, worker));
  }
  // With the run's journal (certify), each rule that found no failure in its own exchanges, or was stopped short, is judged over all of the run's; a run that was stopped is not.
  if (options.services?.provided?.has(RUN_JOURNAL.name) && !options.signal?.aborted && !options.halt?.aborted) {
    for (let i = 0; i < results.length; i += 1) {
      const first = results[i];
      if (!first || !judgedAgain(first)) continue;
      const revised = await judgeOverTheRun(first, (rule) => runRule(rule, { ...options, checkNeeds: false }));
      if (revised === first) continue;
      results[i] = revised;
      options.onRevised?.(revised);
    }
  }
  for (let i = 0; i < options.rules.length; i += 1) {
    if (!results[i]) {
      const stoppedBy = options.signal?.aborted ? options.signal : options.halt?.aborted ? options.halt : options.signal;
      results[i] = notReached(options.rules[i]!, `not run: ${stoppedBy ? stopReason(stoppedBy) : 'stopped'}`);
      options.onResult?.(results[i]!);
    }
  }
  return results;
}

export function globRegex(pattern: string): RegExp {
  return new RegExp(`^${pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
}

/** A filter that selected no rule: a usage error (exit 2), never a green gate over nothing. */
export class EmptySelection extends Error {
  override readonly name = 'EmptySelection';
}

/** The rule ids (or `area.*` globs) closest to a pattern that matched nothing, best first. */
export function closestRuleIds(pattern: string, rules: readonly Rule[], count = 5): string[] {
  const stem = pattern.replace(/\*+$/, '').replace(/\.$/, '');
  const candidates = new Set<string>();
  for (const r of rules) {
    const parts = r.id.split('.');
    for (let n = 2; n < parts.length; n += 1) candidates.add(`${parts.slice(0, n).join('.')}.*`);
    candidates.add(r.id);
  }
  const distance = (c: string) => editDistance(stem, c.replace(/\.\*$/, ''));
  return [...candidates].sort((a, b) => distance(a) - distance(b) || a.length - b.length).slice(0, count);
}

/**
 * `v8.missions.*`-style patterns, comma separated; `*` matches any run of characters. Every
 * pattern must select at least one rule of the selected surfaces, so a typo in one part of a CI
 * filter cannot silently drop the rules it meant.
 */
export function selectRules(rules: readonly Rule[], filter: { surfaces?: Surface[]; patterns?: string[] }): Rule[] {
  const onSurfaces = rules.filter((rule) => !filter.surfaces?.length || filter.surfaces.includes(rule.surface));
  const surfaceNote = filter.surfaces?.length ? ` on --surface ${filter.surfaces.join(',')}` : '';
  if (onSurfaces.length === 0) throw new EmptySelection(`--surface ${filter.surfaces?.join(',')} selects no rule`);
  const patterns = filter.patterns ?? [];
  if (patterns.length === 0) return onSurfaces;
  for (const pattern of patterns) {
    const regex = globRegex(pattern);
    if (!onSurfaces.some((r) => regex.test(r.id))) {
      throw new EmptySelection(`--rules "${pattern}" selects no rule${surfaceNote}; closest: ${closestRuleIds(pattern, onSurfaces).join(', ')} (run "apicert rules" for the list)`);
    }
  }
  const regexes = patterns.map(globRegex);
  return onSurfaces.filter((rule) => regexes.some((r) => r.test(rule.id)));
}

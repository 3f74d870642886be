/**
 * The run's judgement: once every rule has run, each rule whose own exchanges showed no failure is
 * judged once more, by its one judgement, over every exchange of the run, as `judge-traffic` judges
 * the run's recording. A rule's check sends a handful of requests; the run sends thousands, many of
 * them answers the rule's sentence governs (every `/v8` answer carries the version header, every
 * refusal is a problem document). A failure only another check's traffic shows would otherwise pass
 * `certify` and fail `judge-traffic` of certify's own recording.
 *
 * A failure found over the run fails the rule. A rule whose own check judged nothing (it did not
 * apply there, or the check was stopped: a limiter, a setup the target refused) passes when the run's
 * judgement judged at least one case and every case held, as `judge-traffic` of the same recording
 * passes it: one recording, one verdict. What the run's bounded journal could not read, or held
 * nothing the rule judges, leaves the rule's own verdict standing; so does a prerequisite the
 * profile lacks (a credential, a fixture), whose `untestable` names what to add, and an
 * inconclusive that stands (`RuleResult.standing`: apicert's own bound, or the rule's judgement
 * finding its own exchanges undecidable).
 */
import { evidenceOfJournal, RUN_JOURNAL, runJudgement, type Exchange, type Judgement, type Rule, type RuleResult } from '../rule/index.ts';
import type { CheckContext, Prerequisite } from '../rule/index.ts';

/** The verdicts that found no failure in the rule's own exchanges; a fail already says what there is to say. */
const REJUDGED: ReadonlySet<RuleResult['verdict']> = new Set(['pass', 'not-applicable']);
/**
 * The verdicts of a check stopped before its judgement ran (a setup the target refused, a limiter, a
 * fixture that could not be made): its judgement never saw the exchanges there were, its own or the
 * run's, and "a failing case still fails", as it does in `judge-traffic` of the run's recording.
 */
const STOPPED: ReadonlySet<RuleResult['verdict']> = new Set(['inconclusive', 'untestable']);

/** Whether `result` is judged again over the run: a rule with a judgement that found no failure, not already one of the whole run, or that was stopped before judging. */
export function judgedAgain(result: RuleResult): boolean {
  const rule = result.rule;
  if (rule.judgement === undefined) return false;
  return STOPPED.has(result.verdict) || (!rule.judgesTheRun && REJUDGED.has(result.verdict));
}

/**
 * What an `untestable` check found missing that the target's answers decided, not the profile: data
 * it holds none of, a setup it refused (no room for another endpoint). A credential, a fixture, a
 * setting, the receiver or a switch the profile lacks keeps the rule untestable, naming what to add,
 * whatever other checks' exchanges show.
 */
const OF_THE_TARGET: ReadonlySet<Prerequisite['need']> = new Set(['data']);

/** Whether the rule's own check judged nothing for a reason the run's exchanges may make up for: it did not apply there, or it was stopped short. */
function ownJudgedNothing(first: RuleResult): boolean {
  if (first.verdict === 'not-applicable') return true;
  // Stopped by apicert's own bound (its budget, its time limit), the check left unsent what the run's other exchanges cannot stand in
  // for; and a judgement that found its own exchanges undecidable is not decided by others.
  if (first.verdict === 'inconclusive') return first.standing !== true;
  return first.verdict === 'untestable' && first.missing !== undefined && first.missing.length > 0 && first.missing.every((m) => OF_THE_TARGET.has(m.need));
}

/** What the run's judgement judged, told back past the runner: a pass over the run names how much it judged. */
interface Tally {
  judged: number;
}

/** Shows the exchanges a failing case names, and the first one judged: a pass shows what it judged (a check that shows no answer cannot pass). */
function judgeTheRun(judgement: Judgement, tally: Tally) {
  return async (ctx: CheckContext): Promise<void> => {
    const journal = ctx.service(RUN_JOURNAL);
    if (!journal) return ctx.notApplicable('no run journal');
    const name = (ex: Exchange) => `${ex.method} ${ex.path}`;
    let shown = false;
    const show = (ex: Exchange, always: boolean) => (always || !shown ? ((shown = true), ctx.http.record(evidenceOfJournal(ex))) : undefined);
    // Judged as the run's recording is (`judge-traffic`): the exchanges were not sent for this rule.
    const run = runJudgement(ctx, judgement, journal.exchanges, { source: 'recording', profile: ctx.profile, name, show, sample: true });
    tally.judged = run.judged.size;
    // Never a pass that judged nothing: only the cases the rule chose from their requests count.
    if (!run.failed && run.judged.size === 0) ctx.notApplicable('no exchange of the run is one this rule judges');
  };
}

/** Why the rule's own check gave no verdict of its own to keep, in the revised reason. */
function ownCheck(first: RuleResult): string {
  if (first.verdict === 'pass') return 'its own check’s exchanges passed';
  if (first.verdict === 'not-applicable') return `its own check’s exchanges held nothing it judges: ${first.reason ?? 'not applicable'}`;
  return `its own check ended ${first.verdict}: ${first.reason ?? ''}`;
}

/**
 * The rule's result after the run's judgement: a failure naming the exchanges that show it, after
 * what the rule's own check saw; a pass when its own check judged nothing (`ownJudgedNothing`) and
 * the run's exchanges gave it cases that all held; else `first`.
 */
export async function judgeOverTheRun(first: RuleResult, run: (rule: Rule) => Promise<RuleResult>): Promise<RuleResult> {
  const rule = first.rule;
  const judgement = rule.judgement!;
  const tally: Tally = { judged: 0 };
  const again = await run({ ...rule, judgesTheRun: true, check: judgeTheRun(judgement, tally) });
  if (again.verdict === 'fail') {
    return {
      ...again,
      rule,
      reason: `judged over every exchange of the run (${ownCheck(first)}): ${again.reason ?? 'a case failed'}`,
      durationMs: first.durationMs + again.durationMs,
      observations: [...first.observations, ...again.observations],
      rolesRequested: first.rolesRequested,
      requests: first.requests,
    };
  }
  if (again.verdict !== 'pass' || tally.judged === 0 || !ownJudgedNothing(first)) return first;
  const { missing: _missing, counterexample: _counterexample, ...kept } = first;
  return {
    ...kept,
    verdict: 'pass',
    reason: `judged over every exchange of the run (${ownCheck(first)}): ${tally.judged} exchange(s) of the run judged, every case held`,
    durationMs: first.durationMs + again.durationMs,
    // Its own exchanges say why it judged nothing; the run's, what it judged.
    evidence: [...first.evidence, ...again.evidence],
    evidenceOmitted: first.evidenceOmitted + again.evidenceOmitted,
    observations: [...first.observations, ...again.observations],
    cases: [],
    casesOmitted: 0,
  };
}
